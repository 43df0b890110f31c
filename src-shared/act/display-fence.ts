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

/** The screen in points, as the latest read reported it. */
export interface ScreenSize {
  readonly width: number;
  readonly height: number;
}

/**
 * Points are points (docs/rules.md#r-tap-11): every coordinate an action sends lies on the screen, its
 * edges included (an edge swipe starts on one), or nothing is sent. A screen whose size no read has
 * reported cannot tell where a point lands, so that refuses too.
 */
export function checkPointsOnScreen(
  points: readonly { readonly x: number; readonly y: number }[],
  screen: ScreenSize | undefined,
): { readonly kind: 'pass' } | FailClosed {
  if (!screen || !(screen.width > 0) || !(screen.height > 0)) return { kind: 'failClosed', failureReason: 'screen_size_unknown', mayHaveRun: false };
  const off = points.some((p) => !Number.isFinite(p.x) || !Number.isFinite(p.y) || p.x < 0 || p.y < 0 || p.x > screen.width || p.y > screen.height);
  return off ? { kind: 'failClosed', failureReason: 'point_off_screen', mayHaveRun: false } : { kind: 'pass' };
}
