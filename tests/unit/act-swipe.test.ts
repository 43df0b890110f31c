import { describe, expect, it } from 'vitest';
import type { FailureReason } from '@shared/protocol/action';
import type { UiNode } from '@shared/protocol/runner';
import { BRIDGE_ACTION_KINDS, decodeAutoMobileAction, type ObservationBridgeState } from '@shared/protocol/sdk';
import type { BridgeContext } from '@shared/act/context';
import { checkDisplayFence, displayFenceOf } from '@shared/act/display-fence';
import { buildActionResult } from '@shared/act/result';
import { DURATION_IGNORED_WARNING, routeSwipe, type SwipeInput, type SwipePlan } from '@shared/act/swipe';
import { interpretBridgeOutcome, type RelayOutcome } from '@shared/act/verdict';

const BIG = '18446744073709551000';

const list = (over: Partial<UiNode> = {}): UiNode => ({
  role: 'list',
  'resource-id': 'feed',
  bounds: { left: 0, top: 100, right: 400, bottom: 800 },
  'sdk-element-id': 'feed',
  'sdk-capture-identity': BIG,
  extras: { 'sdk.source': 'sdkBridge' },
  ...over,
});
const screenWithBridge: UiNode = { className: 'XCUIApplication', node: [list()] };
const plainScreen: UiNode = { className: 'XCUIApplication', node: [{ role: 'list', bounds: { left: 0, top: 100, right: 400, bottom: 800 } }] };
const fence = { rotation: 0, screenWidth: 402, screenHeight: 874 };
const up = { start: { x: 200, y: 700 }, end: { x: 200, y: 300 } };

const available: ObservationBridgeState = { schemaVersion: 1, available: true, supportedActions: [...BRIDGE_ACTION_KINDS].sort() };
const ctx = (over: Partial<BridgeContext> = {}): BridgeContext => ({ flagEnabled: true, observationBridge: available, webViews: [], ...over });
const input = (over: Partial<SwipeInput> = {}): SwipeInput => ({ stroke: up, screen: screenWithBridge, fence, ...over });
const inContainer = (node: UiNode = list(), over: Partial<SwipeInput> = {}): SwipeInput => input({ container: { node, resolvedBy: 'container' }, ...over });

function bridge(plan: SwipePlan): Extract<SwipePlan, { via: 'sdk' }> {
  if (plan.via !== 'sdk') throw new Error(`expected sdk, got ${plan.via}`);
  return plan;
}

describe('swipeOn: a bridge container scrolls through the bridge', () => {
  it('R-SWP-01: delta is start minus end of the stroke XCTest would have run, so swiping up gives a positive y', () => {
    const plan = bridge(routeSwipe(inContainer(), ctx()));
    expect(plan.steps[1].action).toEqual({ scroll: { observationIdentity: BIG, elementId: 'feed', delta: { x: 0, y: 400 } } });
    const left = bridge(routeSwipe(inContainer(list(), { stroke: { start: { x: 350, y: 400 }, end: { x: 50, y: 400 } } }), ctx()));
    expect(left.steps[1].action).toMatchObject({ scroll: { delta: { x: 300, y: 0 } } });
  });

  it('R-SWP-01: an auto-targeted container that is a bridge node scrolls through the bridge too', () => {
    const plan = bridge(routeSwipe(input({ container: { node: list(), resolvedBy: 'autoContainer' } }), ctx()));
    expect(plan.target).toMatchObject({ resolvedBy: 'autoContainer', elementId: 'feed', captureIdentity: BIG });
  });

  it('R-SWP-01: the scroll names its capture digit for digit above 2^53', () => {
    const step = bridge(routeSwipe(inContainer(), ctx())).steps[1];
    expect(step.actionJson).toBe(`{"scroll":{"observationIdentity":${BIG},"elementId":"feed","delta":{"x":0,"y":400}}}`);
    const decoded = decodeAutoMobileAction(step.actionJson);
    expect(decoded.ok && decoded.value).toEqual(step.action);
  });

  it('R-SWP-06: a bridge scroll marks the duration ignored, with a warning when durationMs was passed', () => {
    const passed = bridge(routeSwipe(inContainer(list(), { durationMs: 800 }), ctx()));
    expect(passed).toMatchObject({ durationIgnored: true, warnings: [DURATION_IGNORED_WARNING] });
    const notPassed = bridge(routeSwipe(inContainer(), ctx()));
    expect(notPassed).toMatchObject({ durationIgnored: true, warnings: [] });
    const result = buildActionResult(
      { backend: 'sdk', durationIgnored: passed.durationIgnored },
      { ok: true },
      { target: passed.target, requestsSent: 1, warnings: passed.warnings },
    );
    expect(result).toMatchObject({ backend: 'sdk', durationIgnored: true, warnings: [DURATION_IGNORED_WARNING] });
  });

  it('R-WEB-17: a DOM element or plain container swipes through XCTest with no backend', () => {
    const dom: UiNode = {
      role: 'list',
      bounds: { left: 0, top: 0, right: 10, bottom: 10 },
      'web-view-id': 'wv1',
      'web-snapshot-id': 's',
      'web-element-id': 'e',
    };
    for (const node of [dom, { role: 'list', bounds: { left: 0, top: 0, right: 10, bottom: 10 } }]) {
      const plan = routeSwipe(inContainer(node), ctx());
      expect(plan.via).toBe('xctest');
      expect(plan).not.toHaveProperty('fallbackReason');
    }
  });
});

describe('swipeOn: a screen swipe on a screen that carries bridge nodes', () => {
  it('R-SWP-02: goes through the bridge swipe with the same start, end and duration, naming the capture it was resolved against', () => {
    const plan = bridge(routeSwipe(input({ durationMs: 450 }), ctx()));
    expect(plan.steps[1].action).toEqual({ swipe: { observationIdentity: BIG, start: up.start, end: up.end, durationMs: 450 } });
    expect(plan.durationIgnored).toBe(false);
    expect(plan.target).toEqual({ resolvedBy: 'screen', captureIdentity: BIG });
  });

  it('R-SWP-02: a screen with no bridge nodes swipes through plain XCTest', () => {
    const plan = routeSwipe(input({ screen: plainScreen, durationMs: 450 }), ctx());
    expect(plan).toEqual({
      via: 'xctest',
      steps: [
        { step: 'checkDisplayFence', expected: fence },
        { step: 'xctestSwipe', swipe: { x1: 200, y1: 700, x2: 200, y2: 300, durationMs: 450, boomerang: false } },
      ],
      target: { resolvedBy: 'screen' },
    });
  });
});

describe('swipeOn: what stays on XCTest', () => {
  it.each(['left', 'right', 'top', 'bottom'] as const)('R-SWP-03: an edge swipe (%s) stays on XCTest without a backend', (edge) => {
    for (const i of [input({ edge }), inContainer(list(), { edge })]) {
      const plan = routeSwipe(i, ctx());
      expect(plan.via).toBe('xctest');
      expect(plan).not.toHaveProperty('fallbackReason');
    }
  });

  it('R-SWP-04: a boomerang has no bridge form, so XCTest runs it and reports fallbackReason unsupported', () => {
    for (const i of [input({ boomerang: true }), inContainer(list(), { boomerang: true })]) {
      const plan = routeSwipe(i, ctx());
      expect(plan).toMatchObject({ via: 'xctest', fallbackReason: 'unsupported', steps: [{}, { swipe: { boomerang: true } }] });
    }
    // Where the bridge was never in play, a boomerang is plain XCTest.
    expect(routeSwipe(input({ boomerang: true, screen: plainScreen }), ctx())).not.toHaveProperty('fallbackReason');
  });

  it.each<[string, SwipeInput, Partial<BridgeContext>, 'unavailable' | 'unsupported']>([
    [
      'the bridge is unavailable (container)',
      inContainer(),
      { observationBridge: { schemaVersion: 1, available: false, reason: 'NOT_REGISTERED', supportedActions: [] } },
      'unavailable',
    ],
    [
      'the bridge is unavailable (screen)',
      input(),
      { observationBridge: { schemaVersion: 1, available: false, reason: 'SDK_TOO_OLD', supportedActions: [] } },
      'unavailable',
    ],
    ['the SDK does not declare scroll', inContainer(), { observationBridge: { ...available, supportedActions: ['swipe', 'tap'] } }, 'unsupported'],
    ['the SDK does not declare swipe', input(), { observationBridge: { ...available, supportedActions: ['scroll', 'tap'] } }, 'unsupported'],
  ])('R-SWP-05: other fallbacks follow tapOn: %s', (_, i, over, fallbackReason) => {
    expect(routeSwipe(i, ctx(over))).toMatchObject({ via: 'xctest', fallbackReason });
  });

  it.each<[string, Partial<SwipeInput>, Partial<BridgeContext>]>([
    ['the flag is off', {}, { flagEnabled: false }],
    ['the swipe was resolved against a cached read', { fromCache: true }, {}],
  ])('R-SEL-02, R-OWV-19: plain XCTest when %s', (_, over, ctxOver) => {
    const plan = routeSwipe(inContainer(list(), over), ctx(ctxOver));
    expect(plan.via).toBe('xctest');
    expect(plan).not.toHaveProperty('fallbackReason');
  });

  it('R-SWP-05: a container marked bridge-served without a usable identity fails closed', () => {
    expect(routeSwipe(inContainer(list({ 'sdk-element-id': undefined })), ctx())).toMatchObject({ via: 'failClosed', failureReason: 'invalid_action' });
  });
});

describe('swipeOn: replies, budget and the display fence', () => {
  const plan = bridge(routeSwipe(inContainer(list(), { durationMs: 800 }), ctx()));

  it.each<[string, RelayOutcome, 'unavailable' | 'unsupported']>([
    ['bridge_unavailable', { kind: 'reply', reply: { available: false, failure: 'bridge_unavailable' } }, 'unavailable'],
    ['unsupported_action', { kind: 'reply', reply: { available: true, result: { success: false, reason: 'unsupported_action' } } }, 'unsupported'],
  ])('R-SWP-05: a %s answer falls back to the XCTest stroke, fenced again', (_, outcome, fallbackReason) => {
    const verdict = interpretBridgeOutcome(plan, outcome);
    if (verdict.kind !== 'fallback') throw new Error(verdict.kind);
    expect(verdict.fallbackReason).toBe(fallbackReason);
    expect(verdict.standIn.steps).toEqual([
      { step: 'checkDisplayFence', expected: fence },
      { step: 'xctestSwipe', swipe: { x1: 200, y1: 700, x2: 200, y2: 300, durationMs: 800, boomerang: false } },
    ]);
  });

  it.each<[FailureReason, RelayOutcome]>([
    ['stale_observation', { kind: 'reply', reply: { available: true, result: { success: false, reason: 'stale_observation' } } }],
    ['element_not_actionable', { kind: 'reply', reply: { available: true, result: { success: false, reason: 'element_not_actionable' } } }],
    ['app_not_active', { kind: 'reply', reply: { available: true, failure: 'app_not_active' } }],
    ['timeout', { kind: 'timeout' }],
  ])('R-SWP-05: fail-closed results follow tapOn: %s', (failureReason, outcome) => {
    expect(interpretBridgeOutcome(plan, outcome)).toMatchObject({ kind: 'failClosed', failureReason });
  });

  it.each<[number | undefined, number]>([
    [undefined, 5000],
    [300, 5000],
    [2000, 5000],
    [2500, 5500],
    [10_000, 13_000],
  ])('R-SWP-08: the bridge budget is the duration plus 3 s, never under 5 s (duration %s → %i ms)', (durationMs, budget) => {
    expect(bridge(routeSwipe(input({ durationMs }), ctx())).steps[1].budgetMs).toBe(budget);
  });

  it('R-SWP-07: the display fence is checked right before the dispatch, through the bridge as through XCTest', () => {
    expect(plan.steps[0]).toEqual({ step: 'checkDisplayFence', expected: fence });
    expect(plan.steps[1].step).toBe('sdkAction');
    const xctest = routeSwipe(input({ edge: 'left' }), ctx());
    if (xctest.via !== 'xctest') throw new Error(xctest.via);
    expect(xctest.steps.map((s) => s.step)).toEqual(['checkDisplayFence', 'xctestSwipe']);
  });

  it('R-SWP-07: a display that rotated or resized since the swipe was resolved fails the fence closed', () => {
    expect(checkDisplayFence(fence, displayFenceOf({ rotation: 0, screenWidth: 402, screenHeight: 874 }))).toEqual({ kind: 'pass' });
    expect(checkDisplayFence(fence, { ...fence, rotation: 1 })).toEqual({ kind: 'failClosed', failureReason: 'display_changed', mayHaveRun: false });
    expect(checkDisplayFence(fence, { ...fence, screenWidth: 874, screenHeight: 402 })).toMatchObject({ failureReason: 'display_changed' });
    expect(checkDisplayFence(fence, {})).toMatchObject({ kind: 'failClosed' });
  });
});
