/**
 * Assembles the ActionResult every action reports, so each one names its backend, its fallback reason if
 * XCTest stood in, and its failure reason if it failed (docs/architecture.md#a-fail-closed), and never
 * one without the other.
 */
import type { ActionResult, FailureReason, TargetRecord } from '@shared/protocol/action';
import type { FallbackReason } from '@shared/protocol/observation';

/** Which backend served the action. Empty for plain XCTest (flag off, no bridge): neither field is reported. */
export type Served =
  | { readonly backend: 'sdk'; readonly durationIgnored?: boolean | undefined }
  | { readonly backend: 'xctest'; readonly fallbackReason?: FallbackReason | undefined }
  | { readonly backend?: undefined };

export type Ending = { readonly ok: true } | { readonly ok: false; readonly failureReason: FailureReason; readonly mayHaveRun: boolean };

export interface ResultCommon {
  readonly target: TargetRecord;
  readonly requestsSent: number;
  readonly timings?: Readonly<Record<string, number>> | undefined;
  readonly warnings?: readonly string[] | undefined;
}

export const SDK: Served = { backend: 'sdk' };
export const PLAIN_XCTEST: Served = {};

/** XCTest served it: a stand-in when there is a fallback reason, plain XCTest (no fields) when there is none. */
export function servedByXctest(fallbackReason: FallbackReason | undefined): Served {
  return fallbackReason ? { backend: 'xctest', fallbackReason } : PLAIN_XCTEST;
}

export function buildActionResult(served: Served, ending: Ending, common: ResultCommon): ActionResult {
  return {
    success: ending.ok,
    ...(served.backend !== undefined ? { backend: served.backend } : {}),
    ...(served.backend === 'xctest' && served.fallbackReason ? { fallbackReason: served.fallbackReason } : {}),
    ...(served.backend === 'sdk' && served.durationIgnored ? { durationIgnored: true } : {}),
    ...(ending.ok ? {} : { failureReason: ending.failureReason, mayHaveRun: ending.mayHaveRun }),
    warnings: [...(common.warnings ?? [])],
    target: common.target,
    timings: { ...(common.timings ?? {}) },
    requestsSent: common.requestsSent,
  };
}
