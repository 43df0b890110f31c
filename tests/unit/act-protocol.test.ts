import { describe, expect, it } from 'vitest';
import {
  ActionRequestSchema,
  ActionResultSchema,
  DEFAULT_LONG_PRESS_MS,
  FAILURE_EXPLANATIONS,
  FAILURE_REASONS,
  TargetSelectorSchema,
} from '@shared/protocol/action';
import { decodeWith } from '@shared/protocol/errors';
import { ACTION_REJECTION_REASONS, SDK_RELAY_FAILURES, WEB_ACTION_REJECTION_REASONS } from '@shared/protocol/sdk';

const BIG = '18446744073709551000';

describe('action requests', () => {
  it.each([
    [{ action: 'tap', target: { id: 'submit' } }],
    [{ action: 'tap', target: { text: 'Submit' } }],
    [{ action: 'tap', target: { point: { x: 1, y: 2 } } }],
    [{ action: 'tap', target: { node: { 'sdk-element-id': 'submit', 'sdk-capture-identity': BIG } } }],
    [{ action: 'doubleTap', target: { id: 'a' } }],
    [{ action: 'sendKeys', steps: [{ kind: 'type', text: 'hi' }] }],
    [
      {
        action: 'sendKeys',
        target: { id: 'email' },
        steps: [{ kind: 'replace', text: 'a' }, { kind: 'ime', imeAction: 'next' }, { kind: 'tab' }, { kind: 'clear' }],
      },
    ],
    [{ action: 'swipe', start: { x: 1, y: 500 }, end: { x: 1, y: 100 }, durationMs: 300 }],
    [{ action: 'swipe', container: { id: 'feed' }, start: { x: 1, y: 500 }, end: { x: 1, y: 100 }, boomerang: true }],
    [{ action: 'swipe', start: { x: 0, y: 400 }, end: { x: 300, y: 400 }, edge: 'left' }],
    [{ action: 'scrollTo', lookFor: { text: 'Terms' } }],
    [{ action: 'scrollTo', lookFor: { elementId: 'terms', container: { id: 'feed' } }, layer: 'main' }],
  ])('one schema, one truth: an action request schema accepts %j', (request) => {
    expect(ActionRequestSchema.safeParse(request).success).toBe(true);
  });

  it.each([
    [{ action: 'tap', target: { id: 'a', text: 'b' } }],
    [{ action: 'tap', target: {} }],
    [{ action: 'sendKeys', steps: [] }],
    [{ action: 'sendKeys', steps: [{ kind: 'ime', imeAction: 'enter' }] }],
    [{ action: 'swipe', start: { x: 0, y: 0 }, end: { x: 0, y: 1 }, edge: 'middle' }],
    [{ action: 'scrollTo', lookFor: { text: 'a', elementId: 'b' } }],
    [{ action: 'javascript', source: 'alert(1)' }],
  ])(
    'one schema, one truth: an action request schema rejects %j (a selector naming two things, an unknown IME action or edge, arbitrary script)',
    (request) => {
      expect(ActionRequestSchema.safeParse(request).success).toBe(false);
    },
  );

  it('one schema, one truth: a long press defaults its duration; scrollTo defaults its direction and swipe count', () => {
    expect(ActionRequestSchema.parse({ action: 'longPress', target: { id: 'a' } })).toMatchObject({ durationMs: DEFAULT_LONG_PRESS_MS });
    expect(ActionRequestSchema.parse({ action: 'scrollTo', lookFor: { text: 'a' } })).toMatchObject({ direction: 'up', maxSwipes: 10 });
  });

  it('R-WIRE-10: a resolved node keeps its capture identity above 2^53 digit for digit through a lossless decode', () => {
    const decoded = decodeWith(TargetSelectorSchema, `{"node":{"sdk-capture-identity":"${BIG}"}}`);
    expect(decoded.ok && decoded.value).toEqual({ node: { 'sdk-capture-identity': BIG } });
  });
});

describe('fail closed, and say why: the action result', () => {
  const target = { resolvedBy: 'id' as const, selector: 'submit', captureIdentity: BIG };

  it.each([
    [{ success: true, backend: 'sdk', target, requestsSent: 1 }],
    [{ success: true, target, requestsSent: 1 }],
    [{ success: true, backend: 'xctest', fallbackReason: 'unsupported', target, requestsSent: 2 }],
    [{ success: false, backend: 'sdk', failureReason: 'stale_observation', mayHaveRun: false, target, requestsSent: 1 }],
    [{ success: false, backend: 'xctest', fallbackReason: 'unavailable', failureReason: 'timeout', mayHaveRun: true, target, requestsSent: 2 }],
    [
      {
        success: true,
        backend: 'sdk',
        durationIgnored: true,
        warnings: ['w'],
        timings: { dispatch: 12 },
        target: { resolvedBy: 'container' },
        requestsSent: 1,
      },
    ],
  ])('fail closed, and say why: an action result that names its backend, fallback and failure consistently is accepted: %j', (result) => {
    expect(ActionResultSchema.safeParse(result).success).toBe(true);
  });

  it.each([
    ['a failure without a reason', { success: false, backend: 'sdk', target, requestsSent: 1 }],
    ['a success with a failure reason', { success: true, backend: 'sdk', failureReason: 'timeout', target, requestsSent: 1 }],
    ['a fallback reason on the SDK backend', { success: true, backend: 'sdk', fallbackReason: 'unavailable', target, requestsSent: 1 }],
    ['a fallback reason without a backend', { success: true, fallbackReason: 'unsupported', target, requestsSent: 1 }],
    ['mayHaveRun on a success', { success: true, backend: 'sdk', mayHaveRun: true, target, requestsSent: 1 }],
    ['a fallback to a reason no rule allows', { success: true, backend: 'xctest', fallbackReason: 'timeout', target, requestsSent: 1 }],
    ['unsupported_action as a failure (it is a fallback)', { success: false, backend: 'sdk', failureReason: 'unsupported_action', target, requestsSent: 1 }],
    ['bridge_unavailable as a failure (it is a fallback)', { success: false, backend: 'sdk', failureReason: 'bridge_unavailable', target, requestsSent: 1 }],
  ])('fail closed, and say why: an action result is rejected for %s', (_, result) => {
    expect(ActionResultSchema.safeParse(result).success).toBe(false);
  });

  it('R-WIRE-10: the result target keeps a capture identity above 2^53 as its digits', () => {
    expect(ActionResultSchema.parse({ success: true, backend: 'sdk', target, requestsSent: 1 }).target.captureIdentity).toBe(BIG);
  });

  it('R-TAP-05: every fail-closed reason of the bridge, the web view, the relay and the runner is a failure reason', () => {
    const expected = [
      ...ACTION_REJECTION_REASONS.filter((r) => r !== 'unsupported_action'),
      ...WEB_ACTION_REJECTION_REASONS,
      ...SDK_RELAY_FAILURES.filter((r) => r !== 'bridge_unavailable'),
      'timeout',
      'runner_disconnected',
      'stale_frame_context',
    ];
    expect(FAILURE_REASONS).toEqual(expect.arrayContaining(expected));
    expect(new Set(FAILURE_REASONS).size).toBe(FAILURE_REASONS.length);
  });

  it('fail closed, and say why: FAILURE_EXPLANATIONS says, in plain language, what each failure means and what to do', () => {
    expect(Object.keys(FAILURE_EXPLANATIONS).sort()).toEqual([...FAILURE_REASONS].sort());
    for (const [reason, { meaning, whatToDo }] of Object.entries(FAILURE_EXPLANATIONS)) {
      expect(meaning.length, reason).toBeGreaterThan(20);
      expect(whatToDo.length, reason).toBeGreaterThan(5);
      // Plain language: no wire codes in the prose.
      expect(`${meaning} ${whatToDo}`, reason).not.toMatch(/[a-z]+_[a-z]+/);
    }
    expect(FAILURE_EXPLANATIONS.stale_observation).toEqual({
      meaning: 'The screen changed since Parallax read it, so the app refused an action aimed at an element that may have moved.',
      whatToDo: 'Observe again, then retry.',
    });
  });
});
