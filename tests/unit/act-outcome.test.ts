/**
 * The one table (docs/rules.md#r-act-01): every reply of every kind, and the class a user is told.
 */
import { describe, expect, it } from 'vitest';
import { ActionResultSchema, type FailureReason, type OutcomeClass } from '@shared/protocol/action';
import { BridgeActionResultSchema } from '@shared/protocol/sdk';
import { buildActionResult, SDK, type Ending } from '@shared/act/result';
import {
  interpretBridgeOutcome,
  interpretRunnerOutcome,
  outcomeClass,
  outcomeClassOf,
  relayAvailable,
  type RelayOutcome,
  type RelayReply,
  type RunnerOutcome,
} from '@shared/act/verdict';

const native = { via: 'sdk' as const, standIn: 'xctest' };
const web = { via: 'web' as const, standIn: 'xctest' };
const reply = (r: RelayReply): RelayOutcome => ({ kind: 'reply', reply: r });
/** A bridge result as it arrives, decoded by the real schema (either wire form). */
const result = (wire: unknown): RelayOutcome => reply({ available: true, result: BridgeActionResultSchema.parse(wire) });

type Row = [name: string, outcome: RelayOutcome, expected: 'done' | 'fallback' | { reason: FailureReason; cls: 'notRun' | 'mayHaveRun'; message?: string }];

/** Every class a failure can take once something was sent. */
const sentClass = (verdict: { kind: string; mayHaveRun?: boolean }): OutcomeClass =>
  outcomeClass({ ok: verdict.kind !== 'failClosed', mayHaveRun: verdict.mayHaveRun }, true);

describe('the one table: relay replies, bridge results, web results', () => {
  it.each<Row>([
    ['accepted (Swift form)', result({ status: 'accepted', durationMs: 3, nextObservationIdentity: 9 }), 'done'],
    ['accepted (success form)', result({ success: true }), 'done'],
    ['bridge_unavailable', reply({ available: false, failure: 'bridge_unavailable' }), 'fallback'],
    ['available false with no code', reply({ available: false }), 'fallback'],
    ['unsupported_action (native)', result({ status: 'rejected', reason: 'unsupported_action', durationMs: 0 }), 'fallback'],
    [
      'stale_observation',
      result({ status: 'rejected', reason: 'stale_observation', durationMs: 0 }),
      { reason: 'stale_observation', cls: 'notRun', message: 'stale_observation' },
    ],
    ['unknown_element', result({ status: 'rejected', reason: 'unknown_element', durationMs: 0 }), { reason: 'unknown_element', cls: 'notRun' }],
    [
      'element_not_actionable',
      result({ status: 'rejected', reason: 'element_not_actionable', durationMs: 0 }),
      { reason: 'element_not_actionable', cls: 'notRun' },
    ],
    ['action_in_flight', result({ status: 'rejected', reason: 'action_in_flight', durationMs: 0 }), { reason: 'action_in_flight', cls: 'notRun' }],
    [
      'action_queue_overloaded',
      result({ status: 'rejected', reason: 'action_queue_overloaded', durationMs: 0 }),
      { reason: 'action_queue_overloaded', cls: 'notRun' },
    ],
    [
      'action_cancelled (status cancelled)',
      result({ status: 'cancelled', reason: 'action_cancelled', durationMs: 0 }),
      { reason: 'action_cancelled', cls: 'mayHaveRun' },
    ],
    ['cancelled without a reason', result({ status: 'cancelled', durationMs: 0 }), { reason: 'action_cancelled', cls: 'mayHaveRun' }],
    [
      'a host executor’s own reason',
      result({ status: 'rejected', reason: 'unsupported_gesture', durationMs: 0 }),
      { reason: 'action_rejected', cls: 'mayHaveRun', message: 'unsupported_gesture' },
    ],
    [
      'a free-text reason (success form)',
      result({ success: false, reason: 'Host said: not now' }),
      { reason: 'action_rejected', cls: 'mayHaveRun', message: 'Host said: not now' },
    ],
    ['a rejection without a reason', result({ status: 'rejected', durationMs: 0 }), { reason: 'bad_reply', cls: 'mayHaveRun' }],
    [
      'app_not_active',
      reply({ available: true, failure: 'app_not_active', error: 'The app is not active' }),
      { reason: 'app_not_active', cls: 'notRun', message: 'The app is not active' },
    ],
    ['invalid_action', reply({ available: true, failure: 'invalid_action' }), { reason: 'invalid_action', cls: 'notRun' }],
    ['bad_reply', reply({ available: true, failure: 'bad_reply' }), { reason: 'bad_reply', cls: 'mayHaveRun' }],
    ['available, no result', reply({ available: true }), { reason: 'bad_reply', cls: 'mayHaveRun' }],
    [
      'the runner refused the relay command (bare envelope)',
      reply({ success: false, error: 'busy' }),
      { reason: 'runner_error', cls: 'notRun', message: 'busy' },
    ],
    ['a timeout', { kind: 'timeout' }, { reason: 'timeout', cls: 'mayHaveRun' }],
    ['a disconnect after sending', { kind: 'disconnected', sent: true }, { reason: 'runner_disconnected', cls: 'mayHaveRun' }],
    [
      'a garbled reply',
      { kind: 'garbled', message: 'invalid_message at result.status' },
      { reason: 'bad_reply', cls: 'mayHaveRun', message: 'invalid_message at result.status' },
    ],
    [
      'the runner’s error reply',
      { kind: 'runnerRefused', error: 'Unknown command type: request_sdk_action' },
      { reason: 'runner_error', cls: 'notRun', message: 'Unknown command type: request_sdk_action' },
    ],
  ])('R-ACT-01, R-ACT-02: a native action answered with %s', (_name, outcome, expected) => {
    const verdict = interpretBridgeOutcome(native, outcome);
    if (expected === 'done') return expect(verdict.kind).toBe('done');
    if (expected === 'fallback') return expect(verdict).toMatchObject({ kind: 'fallback', standIn: 'xctest' });
    expect(verdict).toMatchObject({ kind: 'failClosed', failureReason: expected.reason });
    expect(sentClass(verdict as { kind: string; mayHaveRun: boolean })).toBe(expected.cls);
    if (expected.message !== undefined) expect(verdict).toMatchObject({ deviceMessage: expected.message });
  });

  it.each<Row>([
    ['an accepted click', reply({ available: true, result: { success: true } }), 'done'],
    ['stale_snapshot', reply({ available: true, result: { success: false, reason: 'stale_snapshot' } }), { reason: 'stale_snapshot', cls: 'notRun' }],
    ['disallowed_origin', reply({ available: true, result: { success: false, reason: 'disallowed_origin' } }), { reason: 'disallowed_origin', cls: 'notRun' }],
    [
      'web_process_unavailable',
      reply({ available: true, result: { success: false, reason: 'web_process_unavailable' } }),
      { reason: 'web_process_unavailable', cls: 'notRun' },
    ],
    ['javascript_error', reply({ available: true, result: { success: false, reason: 'javascript_error' } }), { reason: 'javascript_error', cls: 'mayHaveRun' }],
    [
      'unsupported_action (no web answer)',
      reply({ available: true, result: { success: false, reason: 'unsupported_action' } }),
      { reason: 'bad_reply', cls: 'mayHaveRun' },
    ],
    [
      '“Stale or disallowed web action” (the real SDK’s words)',
      reply({ available: true, result: { success: false, reason: 'Stale or disallowed web action' } }),
      { reason: 'action_rejected', cls: 'mayHaveRun' },
    ],
    ['no_snapshot', reply({ available: true, failure: 'no_snapshot' }), { reason: 'no_snapshot', cls: 'notRun' }],
    ['message_too_large', reply({ available: true, failure: 'message_too_large' }), { reason: 'message_too_large', cls: 'notRun' }],
  ])('R-ACT-01: a web action answered with %s', (_name, outcome, expected) => {
    const verdict = interpretBridgeOutcome(web, outcome);
    if (expected === 'done') return expect(verdict.kind).toBe('done');
    if (expected === 'fallback') return expect(verdict.kind).toBe('fallback');
    expect(verdict).toMatchObject({ kind: 'failClosed', failureReason: expected.reason });
    expect(sentClass(verdict as { kind: string; mayHaveRun: boolean })).toBe(expected.cls);
  });

  it('R-ACT-01, R-CMD-11: a timed-out action request reports available: true; a runner refusal leaves it unknown', () => {
    expect(relayAvailable({ kind: 'timeout' })).toBe(true);
    expect(relayAvailable({ kind: 'garbled', message: 'x' })).toBe(true);
    expect(relayAvailable({ kind: 'runnerRefused', error: 'x' })).toBeUndefined();
  });
});

describe('the one table: an XCTest command’s reply', () => {
  it.each<[string, RunnerOutcome, 'done' | { reason: FailureReason; cls: 'notRun' | 'mayHaveRun'; message?: string }]>([
    ['success', { kind: 'reply', reply: { success: true } }, 'done'],
    [
      'a refusal with the runner’s reason',
      { kind: 'reply', reply: { success: false, error: 'No focused text field' } },
      { reason: 'runner_error', cls: 'notRun', message: 'No focused text field' },
    ],
    [
      'a stale frame context',
      { kind: 'reply', reply: { success: false, error: 'Stale frame context; observe a fresh frame before retrying' } },
      { reason: 'stale_frame_context', cls: 'notRun' },
    ],
    [
      'a gesture that completed past its deadline (the runner’s words)',
      {
        kind: 'reply',
        reply: {
          success: false,
          error: 'Command request_tap_coordinates exceeded deadline at 5000ms (gesture completed after its deadline; outcome is indeterminate)',
        },
      },
      { reason: 'outcome_indeterminate', cls: 'mayHaveRun' },
    ],
    [
      'deadline_completed_late (the runner’s code)',
      { kind: 'reply', reply: { success: false, error: 'Command request_swipe exceeded deadline at 4000ms', errorCode: 'deadline_completed_late' } },
      { reason: 'outcome_indeterminate', cls: 'mayHaveRun' },
    ],
    [
      'deadline_not_started',
      {
        kind: 'reply',
        reply: { success: false, error: 'Command request_swipe exceeded deadline at 4000ms (gesture was not started)', errorCode: 'deadline_not_started' },
      },
      { reason: 'runner_error', cls: 'notRun' },
    ],
    [
      'an XCUITest call still executing past its bound',
      {
        kind: 'reply',
        reply: {
          success: false,
          error:
            'Command request_swipe exceeded execution bound 3000ms in phase perform after 3001ms; XCUITest call is still executing and the runner stays busy until it returns',
        },
      },
      { reason: 'outcome_indeterminate', cls: 'mayHaveRun' },
    ],
    [
      'the runner’s error reply',
      { kind: 'runnerRefused', error: 'Missing required parameter: x' },
      { reason: 'runner_error', cls: 'notRun', message: 'Missing required parameter: x' },
    ],
    ['a garbled reply', { kind: 'garbled', message: 'invalid_json at (frame)' }, { reason: 'bad_reply', cls: 'mayHaveRun' }],
    ['a timeout', { kind: 'timeout' }, { reason: 'timeout', cls: 'mayHaveRun' }],
    ['a disconnect after sending', { kind: 'disconnected', sent: true }, { reason: 'runner_disconnected', cls: 'mayHaveRun' }],
  ])('R-ACT-01, R-ACT-02: %s', (_name, outcome, expected) => {
    const verdict = interpretRunnerOutcome(outcome);
    if (expected === 'done') return expect(verdict).toEqual({ kind: 'done' });
    expect(verdict).toMatchObject({ kind: 'failClosed', failureReason: expected.reason });
    expect(sentClass(verdict as { kind: string; mayHaveRun: boolean })).toBe(expected.cls);
    if (expected.message !== undefined) expect(verdict).toMatchObject({ deviceMessage: expected.message });
  });
});

describe('the class of a finished action', () => {
  const target = { resolvedBy: 'point' as const };
  const build = (ending: Ending, actionSent: boolean) => ActionResultSchema.parse(buildActionResult(SDK, ending, { target, requestsSent: 2, actionSent }));

  it('R-ACT-01: done, notRun, mayHaveRun and refused, each exactly once', () => {
    expect(build({ ok: true }, true).outcome).toBe('done');
    expect(build({ ok: false, failureReason: 'stale_observation', mayHaveRun: false }, true).outcome).toBe('notRun');
    expect(build({ ok: false, failureReason: 'timeout', mayHaveRun: true }, true).outcome).toBe('mayHaveRun');
    // Only reads went out (requestsSent 2): Parallax refused it.
    expect(build({ ok: false, failureReason: 'point_off_screen', mayHaveRun: false }, false).outcome).toBe('refused');
    // A disconnect before the request left: nothing was sent.
    expect(build({ ok: false, failureReason: 'runner_disconnected', mayHaveRun: false }, false).outcome).toBe('refused');
  });

  it('R-ACT-02: the device’s words travel into the result', () => {
    const r = build({ ok: false, failureReason: 'runner_error', mayHaveRun: false, deviceMessage: 'No focused text field' }, true);
    expect(r).toMatchObject({ outcome: 'notRun', failureReason: 'runner_error', deviceMessage: 'No focused text field' });
  });

  it('R-ACT-01: a result can only carry the class that fits it', () => {
    const base = { target, requestsSent: 1 };
    expect(ActionResultSchema.safeParse({ ...base, success: true, outcome: 'notRun' }).success).toBe(false);
    expect(ActionResultSchema.safeParse({ ...base, success: false, failureReason: 'timeout', mayHaveRun: true, outcome: 'notRun' }).success).toBe(false);
    expect(ActionResultSchema.safeParse({ ...base, success: false, failureReason: 'timeout', mayHaveRun: false, outcome: 'mayHaveRun' }).success).toBe(false);
    expect(ActionResultSchema.safeParse({ ...base, success: false, failureReason: 'timeout', mayHaveRun: true, outcome: 'mayHaveRun' }).success).toBe(true);
  });

  it('R-ACT-01: a result recorded before the class existed derives it', () => {
    expect(outcomeClassOf({ success: true, requestsSent: 1 })).toBe('done');
    expect(outcomeClassOf({ success: false, mayHaveRun: true, requestsSent: 1 })).toBe('mayHaveRun');
    expect(outcomeClassOf({ success: false, mayHaveRun: false, requestsSent: 1 })).toBe('notRun');
    expect(outcomeClassOf({ success: false, mayHaveRun: false, requestsSent: 0 })).toBe('refused');
  });
});
