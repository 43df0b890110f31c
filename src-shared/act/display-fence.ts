/**
 * The display fence: a swipe's coordinates were computed for one display geometry, and are checked
 * against the current one right before dispatch, through the bridge as through XCTest
 * (docs/rules.md#r-swp-07).
 */
import type { ViewHierarchy } from '@shared/protocol/runner';
import type { FailClosed } from './verdict';

export interface DisplayFence {
  readonly rotation?: number | undefined;
  readonly screenWidth?: number | undefined;
  readonly screenHeight?: number | undefined;
}

export function displayFenceOf(hierarchy: Pick<ViewHierarchy, 'rotation' | 'screenWidth' | 'screenHeight'>): DisplayFence {
  return { rotation: hierarchy.rotation, screenWidth: hierarchy.screenWidth, screenHeight: hierarchy.screenHeight };
}

/** Passes only when every fact the stroke was planned against still holds; an unknown current fact does not pass. */
export function checkDisplayFence(expected: DisplayFence, current: DisplayFence): { readonly kind: 'pass' } | FailClosed {
  const keys = ['rotation', 'screenWidth', 'screenHeight'] as const;
  const moved = keys.some((k) => expected[k] !== undefined && expected[k] !== current[k]);
  return moved ? { kind: 'failClosed', failureReason: 'display_changed', mayHaveRun: false } : { kind: 'pass' };
}
