/**
 * Assembles the ActionResult every action reports, so each one names its backend, its fallback reason if
 * XCTest stood in, and its failure reason if it failed (docs/architecture.md#a-fail-closed), and never
 * one without the other.
 */
import type { ActionResult, FailureReason, TargetRecord } from '@shared/protocol/action';
import type { FallbackReason } from '@shared/protocol/observation';
import { outcomeClass } from './verdict';

/** Which backend served the action. Empty for plain XCTest (flag off, no bridge): neither field is reported. */
export type Served =
  | { readonly backend: 'sdk'; readonly durationIgnored?: boolean | undefined }
  | { readonly backend: 'xctest'; readonly fallbackReason?: FallbackReason | undefined }
  | { readonly backend?: undefined };

export type Ending =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly failureReason: FailureReason;
      readonly mayHaveRun: boolean;
      /** The device's own words about the failure, verbatim. */
      readonly deviceMessage?: string | undefined;
    };

export interface ResultCommon {
  readonly target: TargetRecord;
  readonly requestsSent: number;
  readonly timings?: Readonly<Record<string, number>> | undefined;
  readonly warnings?: readonly string[] | undefined;
  /**
   * Whether an action request (not only a read) left Parallax: a failure that sent none is Parallax's own
   * refusal (docs/rules.md#r-act-01). Default: whether any request was sent.
   */
  readonly actionSent?: boolean | undefined;
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
    outcome: outcomeClass(ending, common.actionSent ?? common.requestsSent > 0),
    ...(ending.ok ? {} : { failureReason: ending.failureReason, mayHaveRun: ending.mayHaveRun }),
    ...(!ending.ok && ending.deviceMessage !== undefined && ending.deviceMessage !== '' ? { deviceMessage: ending.deviceMessage } : {}),
    warnings: [...(common.warnings ?? [])],
    target: common.target,
    timings: { ...(common.timings ?? {}) },
    requestsSent: common.requestsSent,
  };
}
