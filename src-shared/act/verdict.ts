/**
 * What a bridge or runner outcome means for an action: done, let XCTest stand in, or fail closed.
 *
 * XCTest may stand in only when nothing reached the app (the bridge is unavailable) or the bridge said it
 * has no form for the action (unsupported_action). Every other answer fails closed, because tapping
 * whatever XCTest now finds at those coordinates could act on a different element
 * (docs/rules.md#r-tap-04, R-TAP-05).
 */
import type { FailureReason } from '@shared/protocol/action';
import type { UInt64 } from '@shared/protocol/json';
import type { FallbackReason } from '@shared/protocol/observation';
import type { RunnerReply } from '@shared/protocol/runner';
import type { ACTION_REJECTION_REASONS, SdkRelayFailure, WEB_ACTION_REJECTION_REASONS } from '@shared/protocol/sdk';

type RejectionReason = (typeof ACTION_REJECTION_REASONS)[number] | (typeof WEB_ACTION_REJECTION_REASONS)[number];

/**
 * A relay reply to request_sdk_action or request_sdk_web_action, envelope included (both the decoded
 * runner reply and its bare payload fit). A runner-level refusal has `error` and no `available`.
 */
export interface RelayReply {
  readonly available?: boolean | undefined;
  readonly failure?: SdkRelayFailure | undefined;
  readonly result?:
    | {
        readonly success: boolean;
        readonly reason?: RejectionReason | undefined;
        readonly durationMs?: number | undefined;
        readonly nextObservationIdentity?: UInt64 | undefined;
      }
    | undefined;
  readonly success?: boolean | undefined;
  readonly error?: string | null | undefined;
}

/** How a sent request ended, seen from the client. */
export type RequestOutcome<R> =
  | { readonly kind: 'reply'; readonly reply: R }
  /** The client stopped waiting; the request went out, so the action may have run. */
  | { readonly kind: 'timeout' }
  /** `sent`: whether the request left before the connection dropped. */
  | { readonly kind: 'disconnected'; readonly sent: boolean };

export type RelayOutcome = RequestOutcome<RelayReply>;

/** What routing reads of a runner reply to an XCTest command (tap, swipe, text, key): its status. */
export type RunnerReplyStatus = Pick<RunnerReply, 'success' | 'error'>;
export type RunnerOutcome = RequestOutcome<RunnerReplyStatus>;

/** R-CMD-07, R-CMD-11: a daemon-side timeout of an action request reports available: true, since it may have run. */
export function relayAvailable(outcome: RelayOutcome): boolean | undefined {
  switch (outcome.kind) {
    case 'timeout':
      return true;
    case 'disconnected':
      return outcome.sent ? true : undefined;
    case 'reply':
      return outcome.reply.failure === 'bridge_unavailable' ? false : outcome.reply.available;
  }
}

export interface FailClosed {
  readonly kind: 'failClosed';
  readonly failureReason: FailureReason;
  readonly mayHaveRun: boolean;
}

/**
 * `done` has no stand-in and no retry path: an accepted action is never repeated through XCTest (R-TAP-03:
 * no retry-if-no-change), and the type leaves nothing to repeat it with.
 */
export interface BridgeDone {
  readonly kind: 'done';
  readonly backend: 'sdk';
  readonly nextObservationIdentity?: UInt64 | undefined;
  readonly durationMs?: number | undefined;
}

export interface BridgeFallback<S> {
  readonly kind: 'fallback';
  readonly fallbackReason: FallbackReason;
  /** The XCTest plan to run instead; only a fallback hands one out. */
  readonly standIn: S;
}

export type BridgeVerdict<S> = BridgeDone | BridgeFallback<S> | (FailClosed & { readonly backend: 'sdk' });

/** Any dispatched bridge step: native (`sdk`) or through a web view (`web`). */
export interface BridgeDispatch<S> {
  readonly via: 'sdk' | 'web';
  readonly standIn: S;
}

export const STALE_FRAME_CONTEXT_ERROR = 'Stale frame context';

/** Whether a relay failure code means the request reached the app and may have acted. */
const RELAY_FAILURE_MAY_HAVE_RUN: Record<Exclude<SdkRelayFailure, 'bridge_unavailable'>, boolean> = {
  app_not_active: false,
  invalid_action: false,
  // "a sent request got no answer, or the reply does not match the contract"
  bad_reply: true,
  disallowed_origin: false,
  web_process_unavailable: false,
  message_too_large: false,
  no_snapshot: false,
};

function failClosed(failureReason: FailureReason, mayHaveRun: boolean): FailClosed & { backend: 'sdk' } {
  return { kind: 'failClosed', backend: 'sdk', failureReason, mayHaveRun };
}

function runnerRefusal(error: string | null | undefined): FailureReason {
  return typeof error === 'string' && error.startsWith(STALE_FRAME_CONTEXT_ERROR) ? 'stale_frame_context' : 'runner_error';
}

export function interpretBridgeOutcome<S>(route: BridgeDispatch<S>, outcome: RelayOutcome): BridgeVerdict<S> {
  if (outcome.kind === 'timeout') return failClosed('timeout', true);
  if (outcome.kind === 'disconnected') return failClosed('runner_disconnected', outcome.sent);

  const reply = outcome.reply;
  // The failure code decides over `available`: bridge_unavailable is the one that says nothing was sent.
  if (reply.failure === 'bridge_unavailable') return fallback(route, 'unavailable');
  if (reply.failure !== undefined) return failClosed(reply.failure, RELAY_FAILURE_MAY_HAVE_RUN[reply.failure]);
  if (reply.available === false) return fallback(route, 'unavailable');
  if (reply.available === undefined && reply.result === undefined) {
    // A bare envelope: the runner refused the command itself and relayed nothing.
    return failClosed(runnerRefusal(reply.error), false);
  }

  const result = reply.result;
  // Available, no failure and no result: the contract promises one, and the action may have run.
  if (result === undefined) return failClosed('bad_reply', true);
  if (result.success) {
    return { kind: 'done', backend: 'sdk', nextObservationIdentity: result.nextObservationIdentity, durationMs: result.durationMs };
  }
  switch (result.reason) {
    case undefined:
      // A rejection must name its reason; without one the reply does not match the contract.
      return failClosed('bad_reply', true);
    case 'unsupported_action':
      // Only the native bridge has this answer; from a web view it is not a reply the contract knows.
      return route.via === 'sdk' ? fallback(route, 'unsupported') : failClosed('bad_reply', true);
    case 'javascript_error':
      // The bounded script raised partway; what it did before that is unknown.
      return failClosed('javascript_error', true);
    case 'action_cancelled':
      // The host executor had accepted it; it may have started before the cancel.
      return failClosed('action_cancelled', true);
    default:
      // Every other rejection is checked before the action runs.
      return failClosed(result.reason, false);
  }
}

function fallback<S>(route: BridgeDispatch<S>, fallbackReason: FallbackReason): BridgeFallback<S> {
  return { kind: 'fallback', fallbackReason, standIn: route.standIn };
}

export type RunnerVerdict = { readonly kind: 'done' } | FailClosed;

/** An XCTest command's outcome; the runner-level reasons of a failed action. */
export function interpretRunnerOutcome(outcome: RunnerOutcome): RunnerVerdict {
  switch (outcome.kind) {
    case 'timeout':
      return { kind: 'failClosed', failureReason: 'timeout', mayHaveRun: true };
    case 'disconnected':
      return { kind: 'failClosed', failureReason: 'runner_disconnected', mayHaveRun: outcome.sent };
    case 'reply': {
      const { success, error } = outcome.reply;
      const failed = success === false || (typeof error === 'string' && error !== '');
      return failed ? { kind: 'failClosed', failureReason: runnerRefusal(error), mayHaveRun: false } : { kind: 'done' };
    }
  }
}
