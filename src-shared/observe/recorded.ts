/**
 * The observation a recorded screen stands for. A trace keeps each frame's merged ViewHierarchy, not
 * the whole Observation; reopened offline, it is judged again by the same pure rules an observe uses
 * (quality verdict, layout warnings), so the trace view shows what those rules say of that screen
 * rather than a verdict made up for it.
 */
import type { Observation } from '@shared/protocol/observation';
import type { ViewHierarchy } from '@shared/protocol/runner';
import { layoutWarnings, NO_LAYOUT_WARNINGS } from './layout';
import { qualityVerdict } from './quality';
import { focusedElement } from './focus';

export function recordedObservation(hierarchy: ViewHierarchy, recordedAt: number): Observation {
  const root = hierarchy.hierarchy;
  const observation: Observation = {
    updatedAt: hierarchy.updatedAt ?? recordedAt,
    updatedAtSource: hierarchy.updatedAt !== undefined ? 'device' : 'server',
    viewHierarchy: hierarchy,
    layoutWarnings: root
      ? layoutWarnings({
          root,
          screenWidth: hierarchy.screenWidth,
          screenHeight: hierarchy.screenHeight,
          screenScale: hierarchy.screenScale,
          insets: hierarchy.insets,
          systemInsets: hierarchy.systemInsets,
        })
      : NO_LAYOUT_WARNINGS,
    errors: [],
    quality: qualityVerdict({ xctest: hierarchy, merged: root }),
    strategy: 'visible',
    timings: {},
    sources: {},
  };
  if (hierarchy.screenWidth !== undefined && hierarchy.screenHeight !== undefined) {
    observation.screenSize = {
      width: hierarchy.screenWidth,
      height: hierarchy.screenHeight,
      ...(hierarchy.screenScale !== undefined ? { scale: hierarchy.screenScale } : {}),
    };
  }
  if (hierarchy.insets) observation.insets = hierarchy.insets;
  if (hierarchy.packageName !== undefined) observation.activeWindow = { bundleId: hierarchy.packageName };
  const focused = root ? focusedElement(root) : undefined;
  if (focused) observation.focusedElement = focused;
  return observation;
}
