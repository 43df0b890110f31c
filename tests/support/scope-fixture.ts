/**
 * AutoMobile's `androidFixture` (kaeawc/auto-mobile test/features/observe/output/ObserveScopeExperiments.test.ts
 * @8cca70b), the screen its observe-scope cases run on, as a Parallax observation: system chrome (a status
 * bar and a navigation bar) flanking the app's subtree of a header and a list whose two rows carry no id.
 * The REGION tests name the chrome plainly; the FOCUS tests give it its package-qualified ids.
 */
import type { LayoutWarning, Observation } from '@shared/protocol/observation';
import type { UiNode } from '@shared/protocol/runner';
import { observation } from './observation';

export type Bounds = { left: number; top: number; right: number; bottom: number };
export const STATUS_BAR_B: Bounds = { left: 0, top: 0, right: 1080, bottom: 80 };
export const HEADER_B: Bounds = { left: 0, top: 80, right: 1080, bottom: 200 };
export const ITEM_2_B: Bounds = { left: 0, top: 400, right: 1080, bottom: 600 };
export const NAV_BAR_B: Bounds = { left: 0, top: 2300, right: 1080, bottom: 2400 };

export interface FixtureIds {
  statusBar: string;
  header: string;
  list: string;
  navBar: string;
}

const PLAIN_IDS: FixtureIds = { statusBar: 'status_bar', header: 'header', list: 'list', navBar: 'navigation_bar' };

/** The fixture's tree, a fresh copy each call (tests push nodes into it). */
export function androidTree(ids: FixtureIds = PLAIN_IDS): UiNode {
  return {
    className: 'FrameLayout',
    bounds: { left: 0, top: 0, right: 1080, bottom: 2400 },
    node: [
      { 'resource-id': ids.statusBar, bounds: STATUS_BAR_B },
      {
        className: 'LinearLayout',
        bounds: { left: 0, top: 80, right: 1080, bottom: 2300 },
        node: [
          { 'resource-id': ids.header, text: 'Title', bounds: HEADER_B },
          {
            'resource-id': ids.list,
            scrollable: 'true',
            bounds: { left: 0, top: 200, right: 1080, bottom: 2200 },
            node: [
              { text: 'Item 1', bounds: { left: 0, top: 200, right: 1080, bottom: 400 } },
              { text: 'Item 2', bounds: ITEM_2_B },
            ],
          },
          { className: 'View', bounds: { left: 0, top: 2200, right: 1080, bottom: 2300 } },
        ],
      },
      { 'resource-id': ids.navBar, bounds: NAV_BAR_B },
    ],
  } as UiNode;
}

/** The fixture's screen (1080 × 2400, 80 px of status bar and 100 of navigation bar) holding `root`. */
export function androidObservation(root: UiNode = androidTree(), fields: Partial<Observation> = {}): Observation {
  return observation({
    screenSize: { width: 1080, height: 2400 },
    systemInsets: { top: 80, bottom: 100, left: 0, right: 0 },
    viewHierarchy: { hierarchy: root } as Observation['viewHierarchy'],
    ...fields,
  });
}

/** A layout warning on `nodeKey`: its top under the status bar by 10 px. */
export const warningAt = (nodeKey: string, bounds: Bounds): LayoutWarning => ({
  nodeKey,
  side: 'top',
  region: 'statusBar',
  severity: 'warning',
  overflowPx: 10,
  insetPx: 80,
  bounds,
});
