/**
 * The one table (docs/rules.md#r-act-01): what every reply to an action's request means, of every kind
 * (an XCTest command's reply, the runner's error reply, a relay reply, a bridge or web result, a reply
 * that cannot be read, a timeout, a disconnect), in the four outcome classes a user is told:
 *   done        it ran;
 *   notRun      it failed and the device said so before acting;
 *   mayHaveRun  it failed after it may have run: never repeat it (a timeout, a disconnect after sending,
 *               a deadline passed, an indeterminate or cancelled action, any reply that does not
 *               establish that nothing ran);
 *   refused     Parallax refused it and sent nothing (`outcomeClass` with `sent: false`).
 * Besides these, a fallback lets XCTest stand in: only when nothing reached the app (the bridge is
 * unavailable) or the bridge said it has no form for the action (unsupported_action). Every other answer
 * fails closed, because tapping whatever XCTest now finds at those coordinates could act on a different
 * element (docs/rules.md#r-tap-04, R-TAP-05). The device's own words are kept verbatim as
 * `deviceMessage`.
 */
import type { FailureReason, OutcomeClass } from '@shared/protocol/action';
import type { AppRevealErrorCode } from '@shared/protocol/appreveal';
import type { UInt64 } from '@shared/protocol/json';
import type { FallbackReason } from '@shared/protocol/observation';
import type { ActionResultStatus, KnownActionRejection, KnownWebActionRejection, SdkRelayFailure } from '@shared/protocol/sdk';

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
        /** The Swift form's status (docs/protocol.md#p-action-result); absent in a web result. */
        readonly status?: ActionResultStatus | undefined;
        /** Free text, verbatim. */
        readonly reason?: string | undefined;
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
  | { readonly kind: 'disconnected'; readonly sent: boolean }
  /** A reply arrived but could not be read (another type, a malformed frame): the command may have run. */
  | { readonly kind: 'garbled'; readonly message: string }
  /** The runner's own error reply (`{type: "error"}`, docs/protocol.md#p-runner-error): it ran nothing. */
  | { readonly kind: 'runnerRefused'; readonly error: string };

export type RelayOutcome = RequestOutcome<RelayReply>;

/** What routing reads of a runner reply to an XCTest command (tap, swipe, text, key): its status. */
export interface RunnerReplyStatus {
  readonly success?: boolean | undefined;
  readonly error?: string | null | undefined;
  /** The runner's additive machine-readable code (`deadline_completed_late`, `deadline_not_started`). */
  readonly errorCode?: string | null | undefined;
}
export type RunnerOutcome = RequestOutcome<RunnerReplyStatus>;

/** R-CMD-07, R-CMD-11: a daemon-side timeout of an action request reports available: true, since it may have run. */
export function relayAvailable(outcome: RelayOutcome): boolean | undefined {
  switch (outcome.kind) {
    case 'timeout':
    case 'garbled':
      return true;
    case 'disconnected':
      return outcome.sent ? true : undefined;
    case 'runnerRefused':
      return undefined;
    case 'reply':
      return outcome.reply.failure === 'bridge_unavailable' ? false : outcome.reply.available;
  }
}

export interface FailClosed {
  readonly kind: 'failClosed';
  readonly failureReason: FailureReason;
  readonly mayHaveRun: boolean;
  /** The device's own words, verbatim, when it gave any. */
  readonly deviceMessage?: string | undefined;
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

// ---- The table --------------------------------------------------------------------------------------

type Row = { readonly class: 'notRun' | 'mayHaveRun' };
const NOT_RUN: Row = { class: 'notRun' };
const MAY_HAVE_RUN: Row = { class: 'mayHaveRun' };

/**
 * Relay failure codes (docs/protocol.md#p-relay): whether the request reached the app and may have acted.
 * bridge_unavailable is not here: it is the one code that lets XCTest stand in.
 */
export const RELAY_FAILURE_ROWS: Readonly<Record<Exclude<SdkRelayFailure, 'bridge_unavailable'>, Row>> = {
  app_not_active: NOT_RUN,
  invalid_action: NOT_RUN,
  // "a sent request got no answer, or the reply does not match the contract"
  bad_reply: MAY_HAVE_RUN,
  disallowed_origin: NOT_RUN,
  web_process_unavailable: NOT_RUN,
  message_too_large: NOT_RUN,
  no_snapshot: NOT_RUN,
};

/**
 * The rejection reasons the spec names, native and web (unsupported_action is a fallback, not here).
 * Every check before the action runs is notRun; a cancel after the executor accepted, or a page script
 * that raised partway, may have run.
 */
export const REJECTION_ROWS: Readonly<Record<Exclude<KnownActionRejection, 'unsupported_action'> | KnownWebActionRejection, Row>> = {
  stale_observation: NOT_RUN,
  unknown_element: NOT_RUN,
  element_not_actionable: NOT_RUN,
  action_in_flight: NOT_RUN,
  action_queue_overloaded: NOT_RUN,
  action_cancelled: MAY_HAVE_RUN,
  stale_snapshot: NOT_RUN,
  disallowed_origin: NOT_RUN,
  web_process_unavailable: NOT_RUN,
  javascript_error: MAY_HAVE_RUN,
};

/**
 * An AppReveal call's failure (docs/protocol.md#p-ar-outcomes, the table per tool and answer, with the
 * AppReveal source line each row follows): the action's failure reason, and whether the tool may have run.
 * The app's "I did not do it" in every form (an `{"error"}` or `{success:false}` result, `isError`, a
 * JSON-RPC refusal of the call or its arguments, a 4xx) is notRun; no answer, an unreadable one, or an
 * internal error that can follow the tool's dispatch (iOS MCPRouter.swift `.internalError` of a handler
 * that threw; Tauri protocol.rs `handle_tool_call`, a `Tool` error such as its evaluation timeout) may have
 * run. A call never sent (`no_form`, an unlisted tool) is refused by the count of requests sent.
 */
export const APPREVEAL_FAILURE_ROWS: Readonly<Record<AppRevealErrorCode, Row & { readonly reason: FailureReason }>> = {
  tool_error: { class: 'notRun', reason: 'appreveal_tool_error' },
  unknown_tool: { class: 'notRun', reason: 'appreveal_unknown_tool' },
  no_form: { class: 'notRun', reason: 'appreveal_unknown_tool' },
  unauthorized: { class: 'notRun', reason: 'appreveal_unauthorized' },
  forbidden_origin: { class: 'notRun', reason: 'appreveal_unauthorized' },
  server_error: { class: 'mayHaveRun', reason: 'appreveal_tool_error' },
  timeout: { class: 'mayHaveRun', reason: 'timeout' },
  unreachable: { class: 'mayHaveRun', reason: 'appreveal_unreachable' },
  bad_reply: { class: 'mayHaveRun', reason: 'appreveal_unreachable' },
};

function isKnownRejection(reason: string): reason is keyof typeof REJECTION_ROWS {
  return Object.hasOwn(REJECTION_ROWS, reason);
}

/** The runner's deadline codes (CtrlProxy's CommandError `wireCode`). */
const DEADLINE_COMPLETED_LATE = 'deadline_completed_late';
const DEADLINE_NOT_STARTED = 'deadline_not_started';
/**
 * Wordings of a runner that ran (or is still running) the gesture past a bound, for runners that send no
 * `errorCode`: "gesture completed after its deadline; outcome is indeterminate" and "XCUITest call is
 * still executing".
 */
const INDETERMINATE_WORDING = /outcome is indeterminate|call is still executing/i;

function failClosed(failureReason: FailureReason, mayHaveRun: boolean, deviceMessage?: string | null): FailClosed & { backend: 'sdk' } {
  return {
    kind: 'failClosed',
    backend: 'sdk',
    failureReason,
    mayHaveRun,
    ...(typeof deviceMessage === 'string' && deviceMessage !== '' ? { deviceMessage } : {}),
  };
}

/** A runner reply that says the command failed: why, and whether it may still have run. */
function runnerFailure(error: string | null | undefined, errorCode?: string | null): FailClosed {
  const text = typeof error === 'string' ? error : undefined;
  const message = text !== undefined && text !== '' ? { deviceMessage: text } : {};
  if (errorCode === DEADLINE_COMPLETED_LATE || (errorCode !== DEADLINE_NOT_STARTED && text !== undefined && INDETERMINATE_WORDING.test(text))) {
    return { kind: 'failClosed', failureReason: 'outcome_indeterminate', mayHaveRun: true, ...message };
  }
  const failureReason = text !== undefined && text.startsWith(STALE_FRAME_CONTEXT_ERROR) ? 'stale_frame_context' : 'runner_error';
  return { kind: 'failClosed', failureReason, mayHaveRun: false, ...message };
}

/** The rows every request shares, whatever answered it: no reply, or a reply that is no answer. */
function transportVerdict(outcome: Exclude<RequestOutcome<unknown>, { kind: 'reply' }>): FailClosed {
  switch (outcome.kind) {
    case 'timeout':
      return { kind: 'failClosed', failureReason: 'timeout', mayHaveRun: true };
    case 'disconnected':
      return { kind: 'failClosed', failureReason: 'runner_disconnected', mayHaveRun: outcome.sent };
    case 'garbled':
      return { kind: 'failClosed', failureReason: 'bad_reply', mayHaveRun: true, deviceMessage: outcome.message };
    case 'runnerRefused':
      return runnerFailure(outcome.error);
  }
}

export function interpretBridgeOutcome<S>(route: BridgeDispatch<S>, outcome: RelayOutcome): BridgeVerdict<S> {
  if (outcome.kind !== 'reply') return { ...transportVerdict(outcome), backend: 'sdk' };

  const reply = outcome.reply;
  const relayMessage = typeof reply.error === 'string' ? reply.error : undefined;
  // The failure code decides over `available`: bridge_unavailable is the one that says nothing was sent.
  if (reply.failure === 'bridge_unavailable') return fallback(route, 'unavailable');
  if (reply.failure !== undefined) return failClosed(reply.failure, RELAY_FAILURE_ROWS[reply.failure].class === 'mayHaveRun', relayMessage);
  if (reply.available === false) return fallback(route, 'unavailable');
  if (reply.available === undefined && reply.result === undefined) {
    // A bare envelope: the runner refused the command itself and relayed nothing.
    return { ...runnerFailure(reply.error), backend: 'sdk' };
  }

  const result = reply.result;
  // Available, no failure and no result: the contract promises one, and the action may have run.
  if (result === undefined) return failClosed('bad_reply', true, relayMessage);
  if (result.success) {
    return { kind: 'done', backend: 'sdk', nextObservationIdentity: result.nextObservationIdentity, durationMs: result.durationMs };
  }
  const reason = result.reason;
  // A rejection must name its reason; without one the reply does not match the contract. A Swift
  // "cancelled" says what happened even so: the executor had accepted it.
  if (reason === undefined) return result.status === 'cancelled' ? failClosed('action_cancelled', true) : failClosed('bad_reply', true);
  if (reason === 'unsupported_action') {
    // Only the native bridge has this answer; from a web view it is not a reply the contract knows.
    return route.via === 'sdk' ? fallback(route, 'unsupported') : failClosed('bad_reply', true, reason);
  }
  if (isKnownRejection(reason)) return failClosed(reason, REJECTION_ROWS[reason].class === 'mayHaveRun', reason);
  // A reason no spec names (a host executor's own, such as unsupported_gesture): kept verbatim, and it
  // does not establish that nothing ran.
  return failClosed('action_rejected', true, reason);
}

function fallback<S>(route: BridgeDispatch<S>, fallbackReason: FallbackReason): BridgeFallback<S> {
  return { kind: 'fallback', fallbackReason, standIn: route.standIn };
}

export type RunnerVerdict = { readonly kind: 'done' } | FailClosed;

/** An XCTest command's outcome; the runner-level reasons of a failed action. */
export function interpretRunnerOutcome(outcome: RunnerOutcome): RunnerVerdict {
  if (outcome.kind !== 'reply') return transportVerdict(outcome);
  const { success, error, errorCode } = outcome.reply;
  const failed = success === false || (typeof error === 'string' && error !== '');
  return failed ? runnerFailure(error, errorCode) : { kind: 'done' };
}

/**
 * The class of a finished action: a failure that may have run is mayHaveRun whatever else is known; one
 * that sent no action request is Parallax's refusal; any other failure is the device's "did nothing".
 */
export function outcomeClass(ending: { readonly ok: boolean; readonly mayHaveRun?: boolean | undefined }, sent: boolean): OutcomeClass {
  if (ending.ok) return 'done';
  if (ending.mayHaveRun === true) return 'mayHaveRun';
  return sent ? 'notRun' : 'refused';
}

/**
 * The class of any recorded result. A result written before the class existed derives it: a failure that
 * sent nothing but its reads cannot be told from one the device refused, so it reads as notRun unless it
 * sent no request at all.
 */
export function outcomeClassOf(result: {
  readonly success: boolean;
  readonly outcome?: OutcomeClass | undefined;
  readonly mayHaveRun?: boolean | undefined;
  readonly requestsSent: number;
}): OutcomeClass {
  return result.outcome ?? outcomeClass({ ok: result.success, mayHaveRun: result.mayHaveRun }, result.requestsSent > 0);
}
