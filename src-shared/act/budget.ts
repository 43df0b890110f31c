/**
 * Time budgets for bridge requests (docs/rules.md#r-cmd-10), and which silences say something about the
 * runner (R-CMD-12).
 */
import type { RunnerCommand } from '@shared/protocol/runner';

/** Bridge requests share the runner's SDK data budget: 2 s per request … */
export const SDK_REQUEST_BUDGET_MS = 2_000;
/** … and 5 s in total per runner command. */
export const SDK_TOTAL_BUDGET_MS = 5_000;
/** A click (or any bounded page action) through a web view (R-TDOM-01). */
export const WEB_ACTION_BUDGET_MS = 5_000;
/** What a bridge swipe adds to its stroke, and the least it ever gets (R-SWP-08). */
export const SWIPE_BUDGET_EXTRA_MS = 3_000;
export const SWIPE_BUDGET_FLOOR_MS = 5_000;
/** How long a scroll search waits for the page's next snapshot after scrollIntoView. */
export const LOOK_FOR_SETTLE_MS = 250;

/** The bridge budget of a gesture: its duration plus 3 s, never under 5 s. */
export function swipeBudgetMs(durationMs: number): number {
  return Math.max(SWIPE_BUDGET_FLOOR_MS, Math.max(0, durationMs) + SWIPE_BUDGET_EXTRA_MS);
}

/** The budget of the next SDK request, given what earlier ones of the same command already spent. */
export function sdkRequestBudgetMs(spentMs: number): number {
  return Math.max(0, Math.min(SDK_REQUEST_BUDGET_MS, SDK_TOTAL_BUDGET_MS - Math.max(0, spentMs)));
}

/** Commands the in-app SDK answers; the runner only relays them. */
export const SDK_SERVED_COMMANDS = [
  'get_sdk_capabilities',
  'request_sdk_observation',
  'request_sdk_action',
  'request_sdk_web_snapshot',
  'request_sdk_web_action',
] as const satisfies readonly RunnerCommand[];

export function isSdkServedCommand(command: RunnerCommand): boolean {
  return (SDK_SERVED_COMMANDS as readonly RunnerCommand[]).includes(command);
}

/** One finished runner request, as the recovery logic sees it. */
export interface CommandOutcome {
  readonly command: RunnerCommand;
  readonly outcome: 'reply' | 'timeout' | 'disconnected';
}

/**
 * Whether this outcome counts towards "the runner is stalled, recover it". A slow host executor is not a
 * stalled runner, so no SDK-served reply or timeout ever counts; nor does a reply of any kind.
 */
export function isRunnerStallEvidence(outcome: CommandOutcome): boolean {
  return outcome.outcome === 'timeout' && !isSdkServedCommand(outcome.command);
}
