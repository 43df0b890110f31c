import { describe, expect, it } from 'vitest';
import type { FailureReason, SendKeysStep } from '@shared/protocol/action';
import type { UiNode } from '@shared/protocol/runner';
import { BRIDGE_ACTION_KINDS, decodeAutoMobileAction, type ObservationBridgeState } from '@shared/protocol/sdk';
import type { BridgeContext } from '@shared/act/context';
import {
  expandSendKeysSteps,
  failKeyCommand,
  needsFreshRead,
  observeForSendKeys,
  planKeyOp,
  recordKeyOutcome,
  startSendKeys,
  summarizeSendKeys,
  verifyTypedText,
  type KeyOp,
  type KeyPlan,
  type KeyStepResult,
  type SendKeysSession,
} from '@shared/act/send-keys';
import type { RelayOutcome, RunnerOutcome } from '@shared/act/verdict';

const BIG = '18446744073709551000';
const BIGGER = '18446744073709551615'; // UInt64 max

const bounds = { left: 0, top: 100, right: 300, bottom: 140 };
const nativeField = (capture = '41', over: Partial<UiNode> = {}): UiNode => ({
  role: 'textfield',
  'resource-id': 'email',
  bounds,
  'sdk-element-id': 'email',
  'sdk-capture-identity': capture,
  extras: { 'sdk.source': 'sdkBridge' },
  ...over,
});
const webField = (over: Partial<UiNode> = {}): UiNode => ({
  role: 'textfield',
  bounds,
  'web-view-id': 'wv1',
  'web-snapshot-id': 's1',
  'web-element-id': 'q',
  'web-document-id': 'd1',
  'web-role': 'input',
  extras: { 'sdk.source': 'sdkWebBridge' },
  ...over,
});
const screenWith = (...nodes: UiNode[]): UiNode => ({ className: 'XCUIApplication', node: nodes });

const available: ObservationBridgeState = { schemaVersion: 1, available: true, supportedActions: [...BRIDGE_ACTION_KINDS].sort() };
const ctx = (over: Partial<BridgeContext> = {}): BridgeContext => ({
  flagEnabled: true,
  observationBridge: available,
  webViews: [{ webViewId: 'wv1' }],
  ...over,
});

const accepted = (next?: string): RelayOutcome => ({
  kind: 'reply',
  reply: { available: true, result: { success: true, ...(next ? { nextObservationIdentity: next } : {}) } },
});
const webAccepted: RelayOutcome = { kind: 'reply', reply: { available: true, result: { success: true } } };
const runnerOk: RunnerOutcome = { kind: 'reply', reply: { success: true } };

const type = (text: string): KeyOp => ({ op: 'insertText', text });
const clear: KeyOp = { op: 'clear' };

function start(node: UiNode | undefined, context = ctx()): SendKeysSession {
  return startSendKeys(node ? { node, resolvedBy: 'id' } : undefined, context).session;
}

/** Runs one op the way the dispatcher does, answering each request from `answers`, and returns every plan sent. */
function run(
  session: SendKeysSession,
  op: KeyOp,
  answers: { read?: UiNode; relay?: RelayOutcome; runner?: RunnerOutcome } = {},
  context = ctx(),
): { session: SendKeysSession; plans: KeyPlan[]; last: KeyStepResult | KeyPlan } {
  const plans: KeyPlan[] = [];
  let plan = planKeyOp(session, op, context);
  if (plan.via === 'observe') {
    plans.push(plan);
    session = observeForSendKeys(session, answers.read);
    plan = planKeyOp(session, op, context);
  }
  plans.push(plan);
  if (plan.via === 'failClosed') return { session: failKeyCommand(session, plan), plans, last: plan };
  if (plan.via === 'observe') throw new Error('asked to read twice');
  let step =
    plan.via === 'xctest' ? recordKeyOutcome(session, op, plan, answers.runner ?? runnerOk) : recordKeyOutcome(session, op, plan, answers.relay ?? accepted());
  if (step.kind === 'standIn') {
    plans.push(step.plan);
    step = recordKeyOutcome(step.session, op, step.plan, answers.runner ?? runnerOk);
  }
  return { session: step.session, plans, last: step };
}

describe('sendKeys: a native bridge field', () => {
  it('R-KEY-03, R-TDOM-05: the focus tap itself stays on XCTest', () => {
    const started = startSendKeys({ node: nativeField(), resolvedBy: 'id' }, ctx());
    expect(started.focusTap).toEqual({ x: 150, y: 120, durationMs: 0, taps: 1 });
    expect(started.session.field).toEqual({ kind: 'bridge', elementId: 'email', captureIdentity: '41' });
  });

  it('R-KEY-07: the screen is read once before the first bridge action if nothing has been read since focus', () => {
    const session = start(nativeField());
    expect(needsFreshRead(session)).toBe(true);
    expect(planKeyOp(session, type('a'), ctx())).toEqual({ via: 'observe' });
    const read = observeForSendKeys(session, screenWith(nativeField(BIG)));
    expect(needsFreshRead(read)).toBe(false);
    expect(planKeyOp(read, type('a'), ctx())).toMatchObject({ via: 'sdk' });
  });

  it('R-KEY-07: sendKeys takes the capture identity of every observation it reads, digit for digit above 2^53', () => {
    const read = observeForSendKeys(start(nativeField()), screenWith(nativeField(BIG)));
    const plan = planKeyOp(read, type('hi'), ctx());
    if (plan.via !== 'sdk') throw new Error(plan.via);
    expect(plan.action).toEqual({ insertText: { observationIdentity: BIG, elementId: 'email', text: 'hi' } });
    expect(plan.actionJson).toBe(`{"insertText":{"observationIdentity":${BIG},"elementId":"email","text":"hi"}}`);
    const decoded = decodeAutoMobileAction(plan.actionJson);
    expect(decoded.ok && decoded.value).toEqual(plan.action);
  });

  it('R-KEY-07: every accepted action nextObservationIdentity becomes the field capture identity', () => {
    let { session } = run(start(nativeField()), clear, { read: screenWith(nativeField('41')), relay: accepted(BIG) });
    expect(session.field).toMatchObject({ captureIdentity: BIG });
    const plan = planKeyOp(session, type('x'), ctx());
    expect(plan).toMatchObject({ via: 'sdk', action: { insertText: { observationIdentity: BIG } } });
    ({ session } = run(session, type('x'), { relay: accepted(BIGGER) }));
    expect(session.field).toMatchObject({ captureIdentity: BIGGER });
    expect(planKeyOp(session, type('y'), ctx())).toMatchObject({ action: { insertText: { observationIdentity: BIGGER } } });
  });

  it('R-KEY-07: an accepted action without nextObservationIdentity forces a fresh read before the next bridge action', () => {
    const { session } = run(start(nativeField()), type('a'), { read: screenWith(nativeField('41')), relay: accepted() });
    expect(needsFreshRead(session)).toBe(true);
    expect(planKeyOp(session, type('b'), ctx())).toEqual({ via: 'observe' });
  });

  it.each<[SendKeysStep, string[]]>([
    [{ kind: 'type', text: 'a' }, ['insertText']],
    [{ kind: 'clear' }, ['clearText']],
    [{ kind: 'replace', text: 'a' }, ['clearText', 'insertText']],
  ])('R-KEY-01: text entry goes through insertText and clear (also before a replace) through clearText: %o', (step, kinds) => {
    let session = observeForSendKeys(start(nativeField()), screenWith(nativeField('41')));
    const sent: string[] = [];
    for (const op of expandSendKeysSteps([step])) {
      const r = run(session, op, { relay: accepted('42') });
      session = r.session;
      for (const p of r.plans) if (p.via === 'sdk') sent.push(Object.keys(p.action)[0]!);
    }
    expect(sent).toEqual(kinds);
    expect(summarizeSendKeys(session)).toEqual({ backend: 'sdk', warnings: [] });
  });

  it.each(['done', 'next', 'go', 'search', 'send'] as const)(
    'R-KEY-05: IME action %s has no native bridge form: XCTest runs it with fallbackReason unsupported, and the field is forgotten',
    (imeAction) => {
      const session = observeForSendKeys(start(nativeField()), screenWith(nativeField('41')));
      const r = run(session, { op: 'ime', imeAction });
      expect(r.plans).toEqual([{ via: 'xctest', command: { command: 'request_ime_action', action: imeAction }, fallbackReason: 'unsupported' }]);
      expect(r.session.field).toEqual({ kind: 'none' });
      expect(summarizeSendKeys(r.session)).toMatchObject({ backend: 'xctest', fallbackReason: 'unsupported' });
    },
  );

  it('R-KWEB-09: after Tab the command forgets the field, and later text follows keyboard focus through XCTest', () => {
    let session = observeForSendKeys(start(nativeField()), screenWith(nativeField('41')));
    let r = run(session, { op: 'tab' });
    expect(r.plans).toEqual([{ via: 'xctest', command: { command: 'request_press_key', key: 'tab' }, fallbackReason: 'unsupported' }]);
    session = r.session;
    r = run(session, type('next field'));
    expect(r.plans).toEqual([{ via: 'xctest', command: { command: 'request_append_text', text: 'next field' } }]);
  });

  it.each<[string, Partial<BridgeContext>, 'unavailable' | 'unsupported']>([
    [
      'the bridge is unavailable',
      { observationBridge: { schemaVersion: 1, available: false, reason: 'SDK_UNAVAILABLE', supportedActions: [] } },
      'unavailable',
    ],
    ['the SDK does not declare insertText', { observationBridge: { ...available, supportedActions: ['clearText', 'tap'] } }, 'unsupported'],
  ])('R-KEY-01: under tapOn rules XCTest stands in when %s', (_, over, fallbackReason) => {
    const r = run(start(nativeField(), ctx(over)), type('a'), {}, ctx(over));
    expect(r.plans).toEqual([{ via: 'xctest', command: { command: 'request_append_text', text: 'a' }, fallbackReason }]);
  });

  it('R-KEY-01: a relay bridge_unavailable makes XCTest stand in for this and every later step', () => {
    const session = observeForSendKeys(start(nativeField()), screenWith(nativeField('41')));
    const r = run(session, clear, { relay: { kind: 'reply', reply: { available: false, failure: 'bridge_unavailable' } } });
    expect(r.plans.at(-1)).toEqual({ via: 'xctest', command: { command: 'request_clear_text' }, fallbackReason: 'unavailable' });
    expect(planKeyOp(r.session, type('a'), ctx())).toMatchObject({ via: 'xctest', fallbackReason: 'unavailable' });
  });

  it('R-KEY-01: an unsupported_action answer makes XCTest stand in with fallbackReason unsupported', () => {
    const session = observeForSendKeys(start(nativeField()), screenWith(nativeField('41')));
    const r = run(session, type('a'), { relay: { kind: 'reply', reply: { available: true, result: { success: false, reason: 'unsupported_action' } } } });
    expect(r.plans.at(-1)).toEqual({ via: 'xctest', command: { command: 'request_append_text', text: 'a' }, fallbackReason: 'unsupported' });
    expect(r.last).toMatchObject({ kind: 'done' });
  });

  it.each<[FailureReason, RelayOutcome]>([
    ['stale_observation', { kind: 'reply', reply: { available: true, result: { success: false, reason: 'stale_observation' } } }],
    ['unknown_element', { kind: 'reply', reply: { available: true, result: { success: false, reason: 'unknown_element' } } }],
    ['element_not_actionable', { kind: 'reply', reply: { available: true, result: { success: false, reason: 'element_not_actionable' } } }],
    ['action_in_flight', { kind: 'reply', reply: { available: true, result: { success: false, reason: 'action_in_flight' } } }],
    ['action_queue_overloaded', { kind: 'reply', reply: { available: true, result: { success: false, reason: 'action_queue_overloaded' } } }],
    ['action_cancelled', { kind: 'reply', reply: { available: true, result: { success: false, reason: 'action_cancelled' } } }],
    ['app_not_active', { kind: 'reply', reply: { available: true, failure: 'app_not_active' } }],
    ['bad_reply', { kind: 'reply', reply: { available: true, failure: 'bad_reply' } }],
    ['timeout', { kind: 'timeout' }],
  ])('R-KEY-01: under tapOn rules every other result fails closed and stops the command: %s', (failureReason, relay) => {
    const session = observeForSendKeys(start(nativeField()), screenWith(nativeField('41')));
    const r = run(session, type('a'), { relay });
    expect(r.last).toMatchObject({ kind: 'failClosed', failureReason });
    expect(r.plans.some((p) => p.via === 'xctest')).toBe(false);
    expect(planKeyOp(r.session, type('b'), ctx())).toMatchObject({ via: 'failClosed', failureReason });
    expect(summarizeSendKeys(r.session)).toMatchObject({ backend: 'sdk' });
  });

  it('R-KEY-08: a fresh read with no bridge capture before the first action makes XCTest stand in (unavailable)', () => {
    const session = observeForSendKeys(start(nativeField()), screenWith({ role: 'textfield', bounds }));
    expect(planKeyOp(session, type('a'), ctx())).toMatchObject({ via: 'xctest', fallbackReason: 'unavailable' });
  });

  it('R-KEY-06: sendKeys without a selector has no resolved field, so it stays on XCTest with no backend fields', () => {
    const started = startSendKeys(undefined, ctx());
    expect(started.focusTap).toBeUndefined();
    expect(started.target).toEqual({ resolvedBy: 'keyboardFocus' });
    let session = started.session;
    for (const op of expandSendKeysSteps([
      { kind: 'replace', text: 'x' },
      { kind: 'ime', imeAction: 'done' },
    ])) {
      const r = run(session, op);
      expect(r.plans.every((p) => p.via === 'xctest' && !('fallbackReason' in p))).toBe(true);
      session = r.session;
    }
    expect(summarizeSendKeys(session)).toEqual({ warnings: [] });
  });

  it('R-SEL-02: with the flag off a bridge field is plain XCTest', () => {
    const r = run(start(nativeField(), ctx({ flagEnabled: false })), type('a'), {}, ctx({ flagEnabled: false }));
    expect(r.plans).toEqual([{ via: 'xctest', command: { command: 'request_append_text', text: 'a' } }]);
  });

  it('R-KEY-08: a field marked bridge-served without a usable identity fails closed', () => {
    const session = start(nativeField('not-a-number'));
    expect(planKeyOp(session, type('a'), ctx())).toMatchObject({ via: 'failClosed', failureReason: 'invalid_action' });
  });

  it('R-KEY-02: a command that used both the bridge and XCTest reports the fallback', () => {
    const context = ctx({ observationBridge: { ...available, supportedActions: ['clearText'] } });
    let session = observeForSendKeys(start(nativeField(), context), screenWith(nativeField('41')));
    const used: string[] = [];
    for (const op of expandSendKeysSteps([{ kind: 'replace', text: 'new' }])) {
      const r = run(session, op, { relay: accepted('42') }, context);
      used.push(...r.plans.map((p) => p.via));
      session = r.session;
    }
    expect(used).toEqual(['sdk', 'xctest']);
    expect(summarizeSendKeys(session)).toEqual({ backend: 'xctest', fallbackReason: 'unsupported', warnings: [] });
  });
});

describe('sendKeys: a DOM <input> or <textarea> merged from a web view', () => {
  const fresh = (node = webField()) => observeForSendKeys(start(node), screenWith({ className: 'WKWebView', node: [node] }));

  it('R-KWEB-01: a focused DOM input with a web-document-id is tracked by web view, element id and document id', () => {
    expect(start(webField()).field).toEqual({ kind: 'web', webViewId: 'wv1', elementId: 'q', documentId: 'd1', snapshotId: 's1', navigated: false });
    expect(start(webField({ 'web-role': 'TEXTAREA' })).field).toMatchObject({ kind: 'web' });
  });

  it('R-KWEB-02: a clear is the web view clear', () => {
    const r = run(fresh(), clear, { relay: webAccepted });
    expect(r.plans).toEqual([
      {
        via: 'web',
        webViewId: 'wv1',
        action: { clear: { snapshotId: 's1', elementId: 'q' } },
        actionJson: '{"clear":{"snapshotId":"s1","elementId":"q"}}',
        budgetMs: 5000,
        standIn: { command: 'request_clear_text' },
      },
    ]);
    expect(summarizeSendKeys(r.session)).toEqual({ backend: 'sdk', warnings: [] });
  });

  it('R-KWEB-03: a replace is a web clear then setValue', () => {
    let session = fresh();
    const actions: unknown[] = [];
    for (const op of expandSendKeysSteps([{ kind: 'replace', text: 'hello' }])) {
      const r = run(session, op, { relay: webAccepted });
      for (const p of r.plans) if (p.via === 'web') actions.push(p.action);
      session = r.session;
    }
    expect(actions).toEqual([{ clear: { snapshotId: 's1', elementId: 'q' } }, { setValue: { snapshotId: 's1', elementId: 'q', text: 'hello' } }]);
  });

  it('R-KWEB-03: setValue only after the command cleared the field through the web view', () => {
    // Typing without a clear appends at the caret: XCTest, unsupported.
    expect(run(fresh(), type('abc')).plans).toEqual([
      { via: 'xctest', command: { command: 'request_append_text', text: 'abc' }, fallbackReason: 'unsupported' },
    ]);
    // A clear that XCTest ran (web view bridge unavailable) does not open the gate.
    const unavailable: RelayOutcome = { kind: 'reply', reply: { available: false, failure: 'bridge_unavailable' } };
    const afterXctestClear = run(fresh(), clear, { relay: unavailable }).session;
    expect(afterXctestClear.clearedThroughWeb).toBe(false);
    expect(planKeyOp(afterXctestClear, type('abc'), ctx())).toMatchObject({ via: 'xctest' });
    // Once setValue has run, further typing appends again: back to XCTest.
    let session = run(fresh(), clear, { relay: webAccepted }).session;
    session = run(session, type('abc'), { relay: webAccepted }).session;
    expect(planKeyOp(session, type('def'), ctx())).toMatchObject({ via: 'xctest', fallbackReason: 'unsupported' });
  });

  it('R-KWEB-03: typing that appends at the caret stays on XCTest and reports fallbackReason unsupported', () => {
    const r = run(fresh(), type('more'));
    expect(summarizeSendKeys(r.session)).toEqual({ backend: 'xctest', fallbackReason: 'unsupported', warnings: [] });
  });

  it('R-KWEB-02, R-KWEB-09: IME done is submit, and the field is forgotten afterwards', () => {
    const r = run(fresh(), { op: 'ime', imeAction: 'done' }, { relay: webAccepted });
    expect(r.plans).toMatchObject([{ via: 'web', action: { submit: { snapshotId: 's1', elementId: 'q' } } }]);
    expect(r.session.field).toEqual({ kind: 'none' });
    const later = run(r.session, type('x'));
    expect(later.plans).toEqual([{ via: 'xctest', command: { command: 'request_append_text', text: 'x' } }]);
    expect(summarizeSendKeys(later.session)).toMatchObject({ backend: 'xctest' });
    expect(summarizeSendKeys(later.session).warnings).toHaveLength(1);
  });

  it.each(['next', 'go', 'search', 'send'] as const)('R-KWEB-03: IME %s on a DOM field stays on XCTest with fallbackReason unsupported', (imeAction) => {
    const r = run(fresh(), { op: 'ime', imeAction });
    expect(r.plans).toEqual([{ via: 'xctest', command: { command: 'request_ime_action', action: imeAction }, fallbackReason: 'unsupported' }]);
    expect(r.session.field).toEqual({ kind: 'none' });
  });

  it('R-KWEB-09: after Tab the command forgets a web field too', () => {
    const r = run(fresh(), { op: 'tab' });
    expect(r.session.field).toEqual({ kind: 'none' });
  });

  it.each<[string, UiNode]>([
    ['a contenteditable editor', webField({ 'web-role': 'div' })],
    ['another DOM editor', webField({ 'web-role': 'contenteditable' })],
    ['a field without web-document-id', webField({ 'web-document-id': undefined })],
  ])('R-KWEB-01, R-KWEB-04: %s stays on XCTest', (_, node) => {
    const session = start(node);
    expect(session.field).toEqual({ kind: 'none' });
    expect(planKeyOp(session, clear, ctx())).toEqual({ via: 'xctest', command: { command: 'request_clear_text' } });
  });

  it('R-KWEB-05: the field takes the snapshot id of every observation that shows it in the same document', () => {
    let session = fresh();
    session = run(session, clear, { relay: webAccepted }).session;
    session = observeForSendKeys(session, screenWith(webField({ 'web-snapshot-id': 's9' })));
    expect(planKeyOp(session, type('x'), ctx())).toMatchObject({ via: 'web', action: { setValue: { snapshotId: 's9', elementId: 'q' } } });
  });

  it('R-KWEB-06: when the element id appears in a new document, its next action fails closed', () => {
    let session = fresh();
    session = run(session, clear, { relay: webAccepted }).session;
    session = observeForSendKeys(session, screenWith(webField({ 'web-document-id': 'd2', 'web-snapshot-id': 's1' })));
    const r = run(session, type('x'));
    expect(r.last).toEqual({ via: 'failClosed', failureReason: 'document_changed', mayHaveRun: false });
    expect(summarizeSendKeys(r.session)).toMatchObject({ backend: 'sdk' });
    // The clear before it ran: the command changed the field, so it may have run (R-ACT-01).
    expect(r.session.failed).toEqual({ failureReason: 'document_changed', mayHaveRun: true });
  });

  it('R-KWEB-07: when the fresh read before its first action no longer shows it, XCTest stands in with fallbackReason unavailable', () => {
    for (const read of [screenWith({ className: 'WKWebView' }), undefined]) {
      const r = run(start(webField()), clear, read ? { read } : {});
      expect(r.plans).toEqual([{ via: 'observe' }, { via: 'xctest', command: { command: 'request_clear_text' }, fallbackReason: 'unavailable' }]);
      expect(summarizeSendKeys(r.session)).toMatchObject({ backend: 'xctest', fallbackReason: 'unavailable' });
    }
  });

  it('R-KWEB-08: a rejected web action fails closed', () => {
    for (const reason of ['stale_snapshot', 'element_not_actionable', 'disallowed_origin', 'web_process_unavailable', 'javascript_error'] as const) {
      const r = run(fresh(), clear, { relay: { kind: 'reply', reply: { available: true, result: { success: false, reason } } } });
      expect(r.last).toMatchObject({ kind: 'failClosed', failureReason: reason });
      expect(r.plans.some((p) => p.via === 'xctest')).toBe(false);
    }
  });

  it('R-KWEB-07: the web view bridge being unavailable makes XCTest stand in', () => {
    const context = ctx({ webViews: [] });
    expect(planKeyOp(fresh(), clear, context)).toEqual({ via: 'xctest', command: { command: 'request_clear_text' }, fallbackReason: 'unavailable' });
  });
});

describe('sendKeys: verification by read-back', () => {
  it.each<[string, string, UiNode | undefined, ReturnType<typeof verifyTypedText>]>([
    ['a matching value', 'hello', { text: 'hello' }, { status: 'verified' }],
    ['a different value', 'hello', { text: 'helo' }, { status: 'mismatch', actual: 'helo' }],
    ['a value reported as `value`', 'a', { value: 'a' }, { status: 'verified' }],
    ['an empty field showing its placeholder after a clear', '', { text: 'Email', 'hint-text': 'Email' }, { status: 'verified' }],
    ['a redacted DOM value', 'secret', { 'value-redacted': 'true' }, { status: 'unverifiable', reason: 'value_redacted' }],
    [
      'a redacted DOM value whose replaced XCTest leaf reports a readable value',
      'secret',
      { 'value-redacted': 'true', text: 'secret' },
      { status: 'verified' },
    ],
    [
      'a redacted DOM value whose replaced XCTest leaf reports another value',
      'secret',
      { 'value-redacted': 'true', text: 'secre' },
      { status: 'mismatch', actual: 'secre' },
    ],
    ['a secure field showing a mask', 'pw', { password: 'true', text: '••' }, { status: 'unverifiable', reason: 'secure_field' }],
    ['a field that is gone', 'x', undefined, { status: 'unverifiable', reason: 'field_not_found' }],
  ])('R-KEY-04, R-OWV-08: text verification of %s', (_, expected, node, verdict) => {
    expect(verifyTypedText(expected, node)).toEqual(verdict);
  });
});
