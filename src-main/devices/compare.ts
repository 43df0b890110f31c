/**
 * Compare: the current screen as XCTest alone sees it against the SDK-backed view of it, as
 * a tree diff, plus the capture stamps that say whether both reads saw the same screen.
 */
import { diffTrees, type TreeDiff } from '@shared/compare/diff';
import type { CaptureStamp } from '@shared/api/api';
import type { ObservedFrame } from '@shared/protocol/device';
import type { Strategy } from '@shared/protocol/observation';
import type { DeviceConnection } from '@main/connection/connection';

export interface Comparison {
  xctest: ObservedFrame;
  sdk: ObservedFrame;
  diff: TreeDiff;
  stamps: { xctest: CaptureStamp; sdk: CaptureStamp };
  /**
   * Whether both reads saw the same screen: true when both carry a frame context and they are equal,
   * false when they differ (the screen moved between the reads: compare again), undefined when the
   * device gives no frame context (AppReveal), so nothing can be said.
   */
  sameScreen: boolean | undefined;
}

export class CompareError extends Error {
  override readonly name = 'CompareError';
}

export function captureStamp(frame: ObservedFrame): CaptureStamp {
  const o = frame.observation;
  const frameContext = frame.hierarchyFrameContext ?? o?.frameContext;
  return {
    ...(frameContext !== undefined ? { frameContext } : {}),
    ...(o ? { updatedAt: o.updatedAt, updatedAtSource: o.updatedAtSource } : {}),
    receivedAt: frame.receivedAt,
    ...(o?.captureIdentity !== undefined ? { captureIdentity: o.captureIdentity } : {}),
    ...(o?.webSnapshotId !== undefined ? { webSnapshotId: o.webSnapshotId } : {}),
  };
}

function treeOf(frame: ObservedFrame, which: string) {
  const root = frame.observation?.viewHierarchy?.hierarchy;
  if (root) return root;
  const why = frame.observation?.errors.map((e) => `${e.stage}: ${e.message}`).join('; ');
  throw new CompareError(`the ${which} observation holds no tree${why ? ` (${why})` : ''}`);
}

/**
 * Takes an XCTest-only observation and an SDK-backed one back to back and diffs their trees.
 *
 * Why back to back is "the same moment": the runner protocol has no read that returns both views of
 * one capture (the SDK-backed observe merges bridge and web nodes into a fresh XCTest read and keeps
 * only the merged tree), so two reads are the least it takes. Nothing is sent between them, the
 * XCTest-only read goes first because it is the short one (one hierarchy request, no bridge round
 * trips), and the SDK-backed read starts with its own XCTest hierarchy request right after, so the
 * gap between the two captures is one hierarchy read. The frame context tokens say whether the screen
 * moved in that gap (`sameScreen`), so a caller never mistakes a change on screen for a difference
 * between the backends.
 */
export async function compareNow(connection: DeviceConnection, options: { strategy?: Strategy; screenshot?: boolean } = {}): Promise<Comparison> {
  if (connection.kind === 'appreveal') {
    // The app serves one view of its screen, its own; there is no plain XCTest read to set beside it.
    throw new CompareError(
      'an AppReveal app has only its own view of the screen: compare needs a runner, where plain XCTest and the SDK bridge are read apart',
    );
  }
  const strategy = options.strategy ?? 'visible';
  const xctest = await connection.observe({ strategy, xctestOnly: true, screenshot: false });
  // One screenshot is enough for both trees; it rides on the SDK-backed read, where it runs alongside
  // the hierarchy request and so does not widen the gap.
  const sdk = await connection.observe({ strategy, screenshot: options.screenshot ?? true });
  const diff = diffTrees(treeOf(xctest, 'XCTest-only'), treeOf(sdk, 'SDK-backed'));
  const stamps = { xctest: captureStamp(xctest), sdk: captureStamp(sdk) };
  const a = stamps.xctest.frameContext;
  const b = stamps.sdk.frameContext;
  return { xctest, sdk, diff, stamps, sameScreen: a === undefined || b === undefined ? undefined : a === b };
}
