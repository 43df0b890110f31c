/**
 * A comparison as a trace holds it. It lives with the traces, not with the comparing: the trace folder
 * uses the devices, never the other way round (the folder import rule in tests/unit/import-circles.test.ts).
 */
import type { SavedComparison } from '@shared/api/api';
import type { ObservedFrame } from '@shared/protocol/device';
import type { ResourceRef } from '@shared/trace/schema';
import { CompareError, type Comparison } from '@main/devices/compare';
import type { TraceRecorder } from './recorder';

/**
 * Writes a comparison into a trace: both observations (their ViewHierarchy, the form the rest of the
 * trace stores), the screenshot, the whole diff as a resource and its summary inline for the timeline.
 */
export async function recordComparison(recorder: TraceRecorder, comparison: Comparison, callId: string): Promise<void> {
  const hierarchy = (frame: ObservedFrame, which: string) => {
    const h = frame.observation?.viewHierarchy;
    if (!h) throw new CompareError(`the ${which} observation holds no tree`);
    return h;
  };
  const shot = comparison.sdk.screenshot;
  const [xctestObservationRef, sdkObservationRef, diffRef, screenshotRef] = await Promise.all([
    recorder.addResource('observation', hierarchy(comparison.xctest, 'XCTest-only')),
    recorder.addResource('observation', hierarchy(comparison.sdk, 'SDK-backed')),
    recorder.addResource('comparison', { ...comparison.diff, stamps: comparison.stamps, sameScreen: comparison.sameScreen ?? null } satisfies SavedComparison),
    shot ? recorder.addResource('screenshot', Buffer.from(shot.dataBase64, 'base64')) : Promise.resolve<ResourceRef | undefined>(undefined),
  ]);
  await recorder.append({
    type: 'comparison',
    callId,
    xctestObservationRef,
    sdkObservationRef,
    diffRef,
    ...(screenshotRef ? { screenshotRef } : {}),
    summary: comparison.diff.summary,
  });
}
