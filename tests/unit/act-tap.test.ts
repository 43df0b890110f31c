import { describe, expect, it } from 'vitest';
import { ActionResultSchema, FAILURE_EXPLANATIONS, FAILURE_REASONS, type FailureReason } from '@shared/protocol/action';
import type { UiNode } from '@shared/protocol/runner';
import {
  BRIDGE_ACTION_KINDS,
  ACTION_REJECTION_REASONS,
  SDK_RELAY_FAILURES,
  WEB_ACTION_REJECTION_REASONS,
  decodeAutoMobileAction,
  decodeWebControlAction,
  encodeAutoMobileAction,
  type ObservationBridgeState,
} from '@shared/protocol/sdk';
import type { BridgeContext } from '@shared/act/context';
import { buildActionResult, SDK, servedByXctest } from '@shared/act/result';
import { interpretBridgeOutcome, routeTap, type TapGesture, type TapRoute, type TapTarget } from '@shared/act/tap';
import { interpretRunnerOutcome, relayAvailable, type RelayOutcome, type RelayReply } from '@shared/act/verdict';

const BIG = '18446744073709551000'; // above 2^53: a JS number would round it to ...1616

const bounds = { left: 10, top: 20, right: 110, bottom: 60 };
const bridgeNode = (over: Partial<UiNode> = {}): UiNode => ({
  role: 'button',
  'resource-id': 'submit',
  bounds,
  'sdk-element-id': 'submit',
  'sdk-capture-identity': BIG,
  extras: { 'sdk.source': 'sdkBridge' },
  ...over,
});
const domNode = (over: Partial<UiNode> = {}): UiNode => ({
  role: 'button',
  'content-desc': 'Buy',
  bounds,
  'web-view-id': 'wv1',
  'web-snapshot-id': 's7',
  'web-element-id': 'buy',
  'web-document-id': 'd1',
  'web-role': 'button',
  extras: { 'sdk.source': 'sdkWebBridge' },
  ...over,
});
const xctestNode = (): UiNode => ({ role: 'button', 'resource-id': 'plain', bounds });

const available: ObservationBridgeState = { schemaVersion: 1, available: true, supportedActions: [...BRIDGE_ACTION_KINDS].sort() };
const ctx = (over: Partial<BridgeContext> = {}): BridgeContext => ({
  flagEnabled: true,
  observationBridge: available,
  webViews: [{ webViewId: 'wv1' }],
  ...over,
});
const on = (node: UiNode, over: Partial<Extract<TapTarget, { kind: 'node' }>> = {}): TapTarget => ({ kind: 'node', node, resolvedBy: 'id', ...over });
const tap: TapGesture = { kind: 'tap' };
const longPress: TapGesture = { kind: 'longPress', durationMs: 1500 };
const doubleTap: TapGesture = { kind: 'doubleTap' };

const reply = (r: RelayReply): RelayOutcome => ({ kind: 'reply', reply: r });
const rejected = (reason: NonNullable<NonNullable<RelayReply['result']>['reason']>): RelayOutcome =>
  reply({ available: true, result: { success: false, reason } });
const relayFailure = (failure: NonNullable<RelayReply['failure']>): RelayOutcome => reply({ available: failure !== 'bridge_unavailable', failure });

function bridgeRoute(route: TapRoute): Extract<TapRoute, { via: 'sdk' | 'web' }> {
  if (route.via !== 'sdk' && route.via !== 'web') throw new Error(`expected a bridge route, got ${route.via}`);
  return route;
}

describe('tapOn: routing a target with a bridge identity', () => {
  it('R-TAP-01: a target that carries a bridge identity is tapped through the bridge, naming the observation it came from', () => {
    const route = routeTap(on(bridgeNode()), tap, ctx());
    expect(route).toMatchObject({ via: 'sdk', action: { tap: { observationIdentity: BIG, elementId: 'submit' } }, budgetMs: 2000 });
  });

  it('R-TAP-01: longPress maps to the bridge long press with the press duration', () => {
    const route = bridgeRoute(routeTap(on(bridgeNode()), longPress, ctx()));
    expect(route.action).toEqual({ longPress: { observationIdentity: BIG, elementId: 'submit', durationMs: 1500 } });
  });

  it('R-CMD-04: an identity above 2^53 flows into actionJson digit for digit', () => {
    for (const gesture of [tap, longPress]) {
      const route = bridgeRoute(routeTap(on(bridgeNode()), gesture, ctx()));
      if (route.via !== 'sdk') throw new Error('expected sdk');
      expect(route.actionJson).toBe(encodeAutoMobileAction(route.action));
      expect(route.actionJson).toContain(`"observationIdentity":${BIG}`);
      const decoded = decodeAutoMobileAction(route.actionJson);
      expect(decoded.ok && decoded.value).toEqual(route.action);
    }
  });

  it.each<[string, TapGesture, Partial<BridgeContext>, 'unavailable' | 'unsupported']>([
    ['a double tap has no bridge form', doubleTap, {}, 'unsupported'],
    [
      'the bridge is unavailable',
      tap,
      { observationBridge: { schemaVersion: 1, available: false, reason: 'NOT_REGISTERED', supportedActions: [] } },
      'unavailable',
    ],
    ['the SDK does not declare tap', tap, { observationBridge: { ...available, supportedActions: ['scroll'] } }, 'unsupported'],
    ['the SDK does not declare longPress', longPress, { observationBridge: { ...available, supportedActions: ['tap'] } }, 'unsupported'],
  ])('R-TAP-04: XCTest stands in when %s', (_, gesture, over, fallbackReason) => {
    const route = routeTap(on(bridgeNode()), gesture, ctx(over));
    expect(route).toMatchObject({ via: 'xctest', fallbackReason, tap: { x: 60, y: 40 } });
  });

  it('R-TAP-04: a double tap through XCTest taps twice at the centre', () => {
    expect(routeTap(on(bridgeNode()), doubleTap, ctx())).toMatchObject({ tap: { x: 60, y: 40, taps: 2, durationMs: 0 } });
  });

  it('R-TAP-09: a failed probe is never "unavailable", so the action is sent and the relay decides', () => {
    expect(routeTap(on(bridgeNode()), tap, ctx({ observationBridge: undefined })).via).toBe('sdk');
  });

  it.each<[string, TapTarget, Partial<BridgeContext>]>([
    ['the feature flag is off', on(bridgeNode()), { flagEnabled: false }],
    ['the node has no bridge identity', on(xctestNode()), {}],
    ['the target came from a cached hierarchy read', on(bridgeNode(), { fromCache: true }), {}],
    ['the target is a point', { kind: 'point', point: { x: 5, y: 6 } }, {}],
  ])('R-SEL-02, R-OWV-19: plain XCTest carries neither backend field when %s', (_, target, over) => {
    const route = routeTap(target, tap, ctx(over));
    expect(route.via).toBe('xctest');
    expect(route).not.toHaveProperty('fallbackReason');
    const result = buildActionResult(servedByXctest(undefined), { ok: true }, { target: route.target, requestsSent: 1 });
    expect(result).not.toHaveProperty('backend');
    expect(result).not.toHaveProperty('fallbackReason');
  });

  it('R-TAP-06: a node marked as bridge-served without a usable identity fails closed instead of tapping through XCTest', () => {
    for (const node of [
      bridgeNode({ 'sdk-capture-identity': undefined }),
      bridgeNode({ 'sdk-capture-identity': '1.5' }),
      bridgeNode({ 'sdk-element-id': undefined }),
    ]) {
      expect(routeTap(on(node), tap, ctx())).toMatchObject({ via: 'failClosed', failureReason: 'invalid_action', mayHaveRun: false });
    }
  });

  it('R-TAP-06: a target without bounds fails closed (there is nowhere for a stand-in to touch)', () => {
    expect(routeTap(on(bridgeNode({ bounds: undefined })), tap, ctx())).toMatchObject({ via: 'failClosed', failureReason: 'target_without_bounds' });
  });

  it('the result target records how it was resolved and from which capture', () => {
    const route = routeTap(on(bridgeNode(), { resolvedBy: 'text', selector: 'Submit' }), tap, ctx());
    expect(route.target).toEqual({
      resolvedBy: 'text',
      selector: 'Submit',
      source: 'sdkBridge',
      point: { x: 60, y: 40 },
      bounds,
      // What a person calls it: no label, so its id (docs/protocol.md#p-action-result-api).
      label: 'submit',
      // R-UI-TITLE: the words its tree row names it by.
      title: 'Button · submit',
      elementId: 'submit',
      captureIdentity: BIG,
    });
  });
});

describe('tapOn: interpreting the bridge reply', () => {
  const route = bridgeRoute(routeTap(on(bridgeNode()), tap, ctx()));

  it('R-TAP-02, R-CMD-09: an accepted tap reports backend sdk and carries the next capture', () => {
    const verdict = interpretBridgeOutcome(route, reply({ available: true, result: { success: true, nextObservationIdentity: BIG } }));
    expect(verdict).toEqual({ kind: 'done', backend: 'sdk', nextObservationIdentity: BIG, durationMs: undefined });
    const result = ActionResultSchema.parse(buildActionResult(SDK, { ok: true }, { target: route.target, requestsSent: 1 }));
    expect(result).toMatchObject({ success: true, backend: 'sdk', target: { captureIdentity: BIG } });
  });

  it('R-TAP-03: an accepted tap is never repeated through XCTest', () => {
    const verdict = interpretBridgeOutcome(route, reply({ available: true, result: { success: true } }));
    expect(verdict.kind).toBe('done');
    expect(verdict).not.toHaveProperty('standIn');
    if (verdict.kind === 'done') {
      // @ts-expect-error: after 'done' there is no XCTest stand-in to run, so a repeat cannot be expressed
      void verdict.standIn;
    }
  });

  it.each<[string, RelayOutcome, 'unavailable' | 'unsupported']>([
    ['the relay reports bridge_unavailable', relayFailure('bridge_unavailable'), 'unavailable'],
    ['available is false with no failure code', reply({ available: false }), 'unavailable'],
    ['the bridge answers unsupported_action', rejected('unsupported_action'), 'unsupported'],
  ])('R-TAP-04: XCTest stands in only when %s', (_, outcome, fallbackReason) => {
    const verdict = interpretBridgeOutcome(route, outcome);
    expect(verdict).toEqual({ kind: 'fallback', fallbackReason, standIn: { x: 60, y: 40, durationMs: 0, taps: 1 } });
    const result = buildActionResult(servedByXctest(fallbackReason), { ok: true }, { target: route.target, requestsSent: 2 });
    expect(ActionResultSchema.parse(result)).toMatchObject({ success: true, backend: 'xctest', fallbackReason });
  });

  it.each<[FailureReason, RelayOutcome, boolean]>([
    ['stale_observation', rejected('stale_observation'), false],
    ['unknown_element', rejected('unknown_element'), false],
    ['element_not_actionable', rejected('element_not_actionable'), false],
    ['action_in_flight', rejected('action_in_flight'), false],
    ['action_queue_overloaded', rejected('action_queue_overloaded'), false],
    ['action_cancelled', rejected('action_cancelled'), true],
    ['app_not_active', relayFailure('app_not_active'), false],
    ['invalid_action', relayFailure('invalid_action'), false],
    ['bad_reply', relayFailure('bad_reply'), true],
    ['timeout', { kind: 'timeout' }, true],
  ])('R-TAP-05, R-CMD-11: every other result fails closed with the bridge reason: %s', (failureReason, outcome, mayHaveRun) => {
    const verdict = interpretBridgeOutcome(route, outcome);
    expect(verdict).toMatchObject({ kind: 'failClosed', backend: 'sdk', failureReason, mayHaveRun });
    expect(verdict).not.toHaveProperty('standIn');
    const result = ActionResultSchema.parse(buildActionResult(SDK, { ok: false, failureReason, mayHaveRun }, { target: route.target, requestsSent: 1 }));
    expect(result).toMatchObject({ success: false, backend: 'sdk', failureReason, mayHaveRun });
  });

  it.each<[string, RelayOutcome, FailureReason, boolean]>([
    ['a timeout after the action may have run', { kind: 'timeout' }, 'timeout', true],
    ['the runner disconnected after the request went out', { kind: 'disconnected', sent: true }, 'runner_disconnected', true],
    ['the runner disconnected before the request went out', { kind: 'disconnected', sent: false }, 'runner_disconnected', false],
    ['the runner refused the command (bare envelope)', reply({ success: false, error: 'Unknown command' }), 'runner_error', false],
    [
      'the runner answered with a stale frame context',
      reply({ success: false, error: 'Stale frame context; observe a fresh frame before retrying' }),
      'stale_frame_context',
      false,
    ],
    ['an available reply carries no result', reply({ available: true }), 'bad_reply', true],
    ['a rejection names no reason', reply({ available: true, result: { success: false } }), 'bad_reply', true],
  ])('R-TAP-05, R-WIRE-08: runner-level outcomes fail closed: %s', (_, outcome, failureReason, mayHaveRun) => {
    expect(interpretBridgeOutcome(route, outcome)).toMatchObject({ kind: 'failClosed', failureReason, mayHaveRun });
  });

  it('R-CMD-07: a daemon-side timeout reports available: true, because the action may have run', () => {
    expect(relayAvailable({ kind: 'timeout' })).toBe(true);
    expect(relayAvailable(relayFailure('bridge_unavailable'))).toBe(false);
    expect(relayAvailable(relayFailure('app_not_active'))).toBe(true);
  });

  it('fail closed, and say why: every failure reason the interpreter produces has a plain-language explanation', () => {
    const outcomes: RelayOutcome[] = [
      ...ACTION_REJECTION_REASONS.map(rejected),
      ...WEB_ACTION_REJECTION_REASONS.map(rejected),
      ...SDK_RELAY_FAILURES.map(relayFailure),
      { kind: 'timeout' },
      { kind: 'disconnected', sent: true },
      reply({ error: 'Stale frame context; observe a fresh frame before retrying' }),
      reply({ error: 'busy' }),
    ];
    for (const outcome of outcomes) {
      const verdict = interpretBridgeOutcome(route, outcome);
      if (verdict.kind === 'failClosed') {
        expect(FAILURE_REASONS).toContain(verdict.failureReason);
        expect(FAILURE_EXPLANATIONS[verdict.failureReason].whatToDo).not.toBe('');
      }
    }
  });
});

describe('tapOn on a DOM element', () => {
  it('R-TDOM-01: tap maps to click, naming the snapshot the element came from (5 s budget)', () => {
    const route = bridgeRoute(routeTap(on(domNode()), tap, ctx()));
    expect(route).toMatchObject({ via: 'web', webViewId: 'wv1', action: { click: { snapshotId: 's7', elementId: 'buy' } }, budgetMs: 5000 });
    const decoded = decodeWebControlAction(route.actionJson);
    expect(decoded.ok && decoded.value).toEqual(route.action);
    expect(route.target).toMatchObject({ source: 'sdkWebBridge', webViewId: 'wv1', webElementId: 'buy', snapshotId: 's7', documentId: 'd1' });
  });

  it.each<[string, TapGesture]>([
    ['a long press', longPress],
    ['a double tap', doubleTap],
  ])('R-TDOM-02: %s has no web form, so XCTest runs it with fallbackReason unsupported', (_, gesture) => {
    expect(routeTap(on(domNode()), gesture, ctx())).toMatchObject({ via: 'xctest', fallbackReason: 'unsupported' });
  });

  it('R-TDOM-03: XCTest stands in when the web view bridge is unavailable', () => {
    expect(routeTap(on(domNode()), tap, ctx({ webViews: [] }))).toMatchObject({ via: 'xctest', fallbackReason: 'unavailable' });
    const route = bridgeRoute(routeTap(on(domNode()), tap, ctx()));
    expect(interpretBridgeOutcome(route, relayFailure('bridge_unavailable'))).toMatchObject({ kind: 'fallback', fallbackReason: 'unavailable' });
  });

  it('R-TDOM-03: a web view the discovery did not report is still clicked; the relay decides', () => {
    expect(routeTap(on(domNode()), tap, ctx({ webViews: undefined })).via).toBe('web');
  });

  it('R-TDOM-04: a DOM node missing its snapshot id fails closed', () => {
    expect(routeTap(on(domNode({ 'web-snapshot-id': undefined })), tap, ctx())).toMatchObject({ via: 'failClosed', failureReason: 'invalid_action' });
  });

  const route = bridgeRoute(routeTap(on(domNode()), tap, ctx()));
  it.each<[FailureReason, RelayOutcome, boolean]>([
    ['stale_snapshot', rejected('stale_snapshot'), false],
    ['element_not_actionable', rejected('element_not_actionable'), false],
    ['disallowed_origin', rejected('disallowed_origin'), false],
    ['web_process_unavailable', rejected('web_process_unavailable'), false],
    ['javascript_error', rejected('javascript_error'), true],
    ['disallowed_origin', relayFailure('disallowed_origin'), false],
    ['web_process_unavailable', relayFailure('web_process_unavailable'), false],
    ['message_too_large', relayFailure('message_too_large'), false],
    ['no_snapshot', relayFailure('no_snapshot'), false],
    ['app_not_active', relayFailure('app_not_active'), false],
    ['invalid_action', relayFailure('invalid_action'), false],
    ['bad_reply', relayFailure('bad_reply'), true],
    ['timeout', { kind: 'timeout' }, true],
  ])('R-TDOM-04, R-WEB-16: every web rejection or other failure fails closed: %s', (failureReason, outcome, mayHaveRun) => {
    expect(interpretBridgeOutcome(route, outcome)).toMatchObject({ kind: 'failClosed', backend: 'sdk', failureReason, mayHaveRun });
  });

  it('R-TDOM-04: only an unavailable web view bridge falls back (unsupported_action is no web answer)', () => {
    expect(interpretBridgeOutcome(route, rejected('unsupported_action'))).toMatchObject({ kind: 'failClosed', failureReason: 'bad_reply' });
  });

  it('R-TDOM-04: an accepted click is done, with no XCTest path', () => {
    expect(interpretBridgeOutcome(route, reply({ available: true, result: { success: true, durationMs: 4 } }))).toEqual({
      kind: 'done',
      backend: 'sdk',
      nextObservationIdentity: undefined,
      durationMs: 4,
    });
  });
});

describe('tapOn: XCTest command outcomes', () => {
  it.each([
    ['a successful reply', { kind: 'reply', reply: { success: true } }, { kind: 'done' }],
    [
      'a stale frame context',
      { kind: 'reply', reply: { success: false, error: 'Stale frame context; observe a fresh frame before retrying' } },
      {
        kind: 'failClosed',
        failureReason: 'stale_frame_context',
        mayHaveRun: false,
        deviceMessage: 'Stale frame context; observe a fresh frame before retrying',
      },
    ],
    [
      'another runner error',
      { kind: 'reply', reply: { success: false, error: 'busy' } },
      { kind: 'failClosed', failureReason: 'runner_error', mayHaveRun: false, deviceMessage: 'busy' },
    ],
    ['a timeout after the action may have run', { kind: 'timeout' }, { kind: 'failClosed', failureReason: 'timeout', mayHaveRun: true }],
    ['a disconnect after sending', { kind: 'disconnected', sent: true }, { kind: 'failClosed', failureReason: 'runner_disconnected', mayHaveRun: true }],
  ] as const)('R-WIRE-08: an XCTest tap outcome: %s', (_, outcome, expected) => {
    expect(interpretRunnerOutcome(outcome)).toEqual(expected);
  });
});
