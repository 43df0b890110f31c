/**
 * The pure helpers behind acting from the UI and AppReveal's UI: which box a click
 * aims at, which gesture a stroke was, what each device kind offers, the request a gesture sends, and
 * the words and numbers of a timeline step.
 */
import { describe, expect, it } from 'vitest';
import {
  actionTargetAt,
  clampToScreen,
  screenPointSize,
  appRevealIdSource,
  classifyStroke,
  confidenceText,
  describeRequest,
  describeTarget,
  gestureRequest,
  insertStep,
  framedStepCount,
  FRAME_NODE_BUDGET,
  framesDropped,
  withoutFrames,
  isOcrNode,
  isSecondClick,
  keyTargetFor,
  offeredActions,
  stageTimings,
  stepOutcome,
  targetMark,
} from '@shared/inspect';
import { ActionResultSchema, FAILURE_EXPLANATIONS, type ActionResult } from '@shared/protocol/action';
import { appRevealElementToUiNode } from '@shared/observe/appreveal';
import type { UiNode } from '@shared/protocol/runner';
import type { ActionStep } from '@shared/protocol/device';
import { indexTree, type FlatNode } from '@shared/model/tree';
import { withoutChildren } from '@shared/model/node';

const node = (fields: Record<string, unknown>, children: UiNode[] = []): UiNode =>
  ({ ...fields, ...(children.length > 0 ? { node: children } : {}) }) as unknown as UiNode;
const b = (left: number, top: number, right: number, bottom: number) => ({ left, top, right, bottom });

// A screen whose root container is itself clickable (as the demo's screen view is), holding a button with
// an XCTest node and its bridge twin, a text field, a label and a scroll view.
const root = node({ className: 'XCUIApplication', bounds: b(0, 0, 402, 874) }, [
  node({ className: 'other', clickable: 'true', 'resource-id': 'screen.login', bounds: b(0, 0, 402, 874) }, [
    node({ className: 'UIButton', clickable: 'true', 'resource-id': 'login.submit', bounds: b(16, 330, 386, 380) }, [
      node({ className: 'UILabel', text: 'Sign In', bounds: b(170, 345, 232, 365) }),
    ]),
    node({ className: 'textField', role: 'textfield', 'resource-id': 'login.username', bounds: b(16, 222, 386, 266) }),
    node({ className: 'UILabel', text: 'Welcome', bounds: b(16, 150, 386, 170) }),
    node({ className: 'UIScrollView', scrollable: 'true', bounds: b(0, 400, 402, 780) }),
  ]),
  node({
    className: 'button',
    clickable: 'true',
    'resource-id': 'login.submit',
    'sdk-element-id': 'login.submit',
    'sdk-capture-identity': '18446744073709551615',
    extras: { 'sdk.source': 'sdkBridge' },
    bounds: b(16, 330, 386, 380),
  }),
]);
const nodes = indexTree(root).nodes;
const at = (x: number, y: number) => actionTargetAt(nodes, x, y);

describe("the screen's size in points", () => {
  const tree = { observation: { viewHierarchy: { screenWidth: 402, screenHeight: 874 } } };
  it.each([
    ['from the tree', tree, null, { width: 402, height: 874 }],
    ['from the observation without a tree', { observation: { screenSize: { width: 402, height: 874 } } }, null, { width: 402, height: 874 }],
    [
      'from an earlier frame, the screenshot keeping its shape',
      { observation: null, screenPoints: { width: 402, height: 874 } },
      { width: 1206, height: 2622 },
      { width: 402, height: 874 },
    ],
    ['unknown: nothing says', { observation: null }, { width: 1206, height: 2622 }, null],
    [
      'unknown: the screenshot shows another shape (rotated)',
      { observation: null, screenPoints: { width: 402, height: 874 } },
      { width: 2622, height: 1206 },
      null,
    ],
  ])("R-TAP-11: the screen's size in points: %s", (_name, frame, pixels, expected) => {
    expect(screenPointSize(frame, pixels)).toEqual(expected);
  });

  it('R-TAP-11: a drag past the edge stops at the glass', () => {
    expect(clampToScreen({ x: -20, y: 900 }, { width: 402, height: 874 })).toEqual({ x: 0, y: 874 });
  });
});

describe('the box a click acts on', () => {
  it('R-PICK-05: picks the control under a click, as its bridge twin when one was merged over it', () => {
    const hit = at(200, 355);
    expect(hit?.node['sdk-element-id']).toBe('login.submit');
    expect(hit?.node['sdk-capture-identity']).toBe('18446744073709551615');
  });

  it('is a text field by its role', () => {
    expect(at(100, 240)?.node['resource-id']).toBe('login.username');
  });

  it('is never a clickable screen that holds controls, nor the root: a label on it is empty space', () => {
    expect(at(100, 160)).toBeNull();
    expect(at(5, 5)).toBeNull();
  });

  it('is sent without its subtree, identities kept', () => {
    const button = nodes.find((f) => f.node.className === 'UIButton') as FlatNode;
    const bare = withoutChildren(button.node);
    expect(bare).not.toHaveProperty('node');
    expect(bare['resource-id']).toBe('login.submit');
  });
});

describe('strokes', () => {
  it('a short still press is a press, a held one a long press, a moving one a drag', () => {
    expect(classifyStroke({ x: 10, y: 10, t: 0 }, { x: 11, y: 10, t: 120 }, 1)).toEqual({ kind: 'press', at: { x: 10, y: 10 } });
    expect(classifyStroke({ x: 10, y: 10, t: 0 }, { x: 10, y: 11, t: 800 }, 1)).toEqual({ kind: 'longPress', at: { x: 10, y: 10 }, durationMs: 800 });
    expect(classifyStroke({ x: 10, y: 100, t: 0 }, { x: 10, y: 40, t: 250 }, 1)).toEqual({
      kind: 'drag',
      start: { x: 10, y: 100 },
      end: { x: 10, y: 40 },
      durationMs: 250,
    });
  });

  it('measures movement on screen: 5 points at half scale is a press', () => {
    expect(classifyStroke({ x: 0, y: 0, t: 0 }, { x: 5, y: 0, t: 50 }, 0.5).kind).toBe('press');
    expect(classifyStroke({ x: 0, y: 0, t: 0 }, { x: 5, y: 0, t: 50 }, 2).kind).toBe('drag');
  });

  it('a second click close in time and place makes a double tap', () => {
    expect(isSecondClick({ x: 10, y: 10, t: 0 }, { x: 11, y: 10, t: 150 }, 1)).toBe(true);
    expect(isSecondClick({ x: 10, y: 10, t: 0 }, { x: 11, y: 10, t: 600 }, 1)).toBe(false);
    expect(isSecondClick({ x: 10, y: 10, t: 0 }, { x: 60, y: 10, t: 100 }, 1)).toBe(false);
  });
});

describe('what a device offers', () => {
  it('a runner offers every gesture and key', () => {
    const offered = offeredActions({ kind: 'runner', supportedCommands: [] });
    expect(offered).toMatchObject({ tapNode: true, tapPoint: true, doubleTap: true, longPress: true, swipe: true, type: true, imeDone: true, tab: true });
  });

  it('an AppReveal app only what its tools can do', () => {
    const all = offeredActions({ kind: 'appreveal', supportedCommands: ['tap_element', 'tap_point', 'type_text', 'clear_text', 'scroll'] });
    expect(all).toMatchObject({
      tapNode: true,
      tapPoint: true,
      doubleTap: false,
      longPress: false,
      swipe: true,
      type: true,
      clear: true,
      replace: true,
      imeDone: false,
      tab: false,
    });
    const tapsOnly = offeredActions({ kind: 'appreveal', supportedCommands: ['tap_element'] });
    expect(tapsOnly).toMatchObject({ tapNode: true, tapPoint: false, swipe: false, type: false, clear: false, replace: false });
    expect(tapsOnly.missing.join(' ')).toContain('type_text');
  });

  it('nothing without a device', () => {
    expect(offeredActions(undefined).tapNode).toBe(false);
  });
});

describe('the request a gesture sends', () => {
  const runner = offeredActions({ kind: 'runner', supportedCommands: [] });
  const button = at(200, 355);

  it('a tap on a box names the box; on empty space the point', () => {
    const onBox = gestureRequest({ kind: 'tap', at: { x: 200, y: 355 }, target: button }, runner, false);
    expect(onBox).toEqual({ request: { action: 'tap', target: { node: withoutChildren((button as FlatNode).node) } } });
    const onSpace = gestureRequest({ kind: 'tap', at: { x: 100.04, y: 160.06 }, target: null }, runner, false);
    expect(onSpace).toEqual({ request: { action: 'tap', target: { point: { x: 100, y: 160.1 } } } });
  });

  it('double tap, long press (at least the threshold) and swipe with its container', () => {
    expect(gestureRequest({ kind: 'doubleTap', at: { x: 1, y: 1 }, target: button }, runner, false)).toMatchObject({ request: { action: 'doubleTap' } });
    expect(gestureRequest({ kind: 'longPress', at: { x: 1, y: 1 }, durationMs: 700, target: button }, runner, false)).toMatchObject({
      request: { action: 'longPress', durationMs: 700 },
    });
    const scroll = nodes.find((f) => f.node.className === 'UIScrollView') as FlatNode;
    const swipe = gestureRequest({ kind: 'swipe', start: { x: 200, y: 700 }, end: { x: 200, y: 450 }, durationMs: 300, container: scroll }, runner, false);
    expect(swipe).toMatchObject({ request: { action: 'swipe', durationMs: 300, container: { node: { className: 'UIScrollView' } } } });
  });

  it('AppReveal: no double tap or long press; a container by its id; no tap at a point without tap_point', () => {
    const app = offeredActions({ kind: 'appreveal', supportedCommands: ['tap_element', 'scroll'] });
    expect(gestureRequest({ kind: 'doubleTap', at: { x: 1, y: 1 }, target: button }, app, true)).toHaveProperty('refused');
    expect(gestureRequest({ kind: 'longPress', at: { x: 1, y: 1 }, durationMs: 900, target: button }, app, true)).toHaveProperty('refused');
    expect(gestureRequest({ kind: 'tap', at: { x: 1, y: 1 }, target: null }, app, true)).toHaveProperty('refused');
    expect(gestureRequest({ kind: 'tap', at: { x: 1, y: 1 }, target: button }, app, true)).toMatchObject({ request: { action: 'tap' } });
    const list = { key: '0.9', depth: 1, parentKey: '0', order: 9, node: node({ 'resource-id': 'feed.list', scrollable: 'true' }) };
    expect(gestureRequest({ kind: 'swipe', start: { x: 1, y: 300 }, end: { x: 1, y: 100 }, durationMs: 200, container: list }, app, true)).toMatchObject({
      request: { container: { id: 'feed.list' } },
    });
  });

  it('keys: AppReveal by the tapped field id, a runner into the focused field', () => {
    const field = node({ 'resource-id': 'login.username', role: 'textfield' });
    expect(keyTargetFor(field, true)).toEqual({ id: 'login.username' });
    expect(keyTargetFor(null, true)).toBeUndefined();
    expect(keyTargetFor(field, false)).toEqual({ node: field });
  });
});

function result(fields: Partial<ActionResult>): ActionResult {
  return ActionResultSchema.parse({ success: true, target: { resolvedBy: 'node' }, requestsSent: 1, ...fields });
}

describe('a timeline step', () => {
  it('describes the action in a few words', () => {
    expect(describeRequest({ action: 'tap', target: { id: 'x' } })).toBe('tap');
    expect(describeRequest({ action: 'longPress', target: { id: 'x' }, durationMs: 800 })).toBe('long press 800 ms');
    expect(describeRequest({ action: 'sendKeys', steps: [{ kind: 'clear' }, { kind: 'type', text: 'qa' }, { kind: 'ime', imeAction: 'done' }] })).toBe(
      'clear, type “qa”, IME done',
    );
    expect(describeRequest({ action: 'swipe', start: { x: 0, y: 500 }, end: { x: 0, y: 200 }, durationMs: 300 })).toBe('swipe ↑ 300 pt · 300 ms');
  });

  it('says how the target was resolved, capture identity digit for digit', () => {
    expect(
      describeTarget({
        resolvedBy: 'node',
        source: 'sdkBridge',
        elementId: 'login.submit',
        point: { x: 201, y: 355 },
        captureIdentity: '18446744073709551615',
      }),
    ).toBe('picked node · SDK bridge · login.submit · at 201, 355 · capture 18446744073709551615');
    expect(describeTarget({ resolvedBy: 'keyboardFocus' })).toBe('keyboard focus');
  });

  it('R-ACT-03: names an element by its label: a DOM field as “Full name”, never by its DOM id', () => {
    const dom = { resolvedBy: 'node' as const, source: 'sdkWebBridge' as const, label: 'Full name', webElementId: 'e5', snapshotId: 's2' };
    expect(describeTarget(dom)).toBe('picked node · Web DOM · “Full name” · snapshot s2');
    expect(describeTarget({ resolvedBy: 'id', source: 'sdkBridge', label: 'Sign In', elementId: 'login.submit', selector: 'login.submit' })).toBe(
      'by id · SDK bridge · “Sign In” (login.submit)',
    );
    expect(describeTarget({ resolvedBy: 'point', point: { x: 50, y: 120 }, label: 'Username' })).toBe('by point · “Username” · at 50, 120');
  });

  it('a failure carries its plain-language explanation and whether it may have run', () => {
    const failed = stepOutcome(result({ success: false, backend: 'sdk', failureReason: 'stale_observation', mayHaveRun: false }));
    expect(failed).toMatchObject({ ok: false, label: 'stale_observation', mayHaveRun: false, explanation: FAILURE_EXPLANATIONS.stale_observation });
    expect(stepOutcome(result({}))).toEqual({ ok: true, outcome: 'done', outcomeText: 'done', label: 'done' });
  });

  it('stage timings in the order they ran, with the reported total', () => {
    const { total, stages } = stageTimings({ freshRead: 40, resolve: 0.5, dispatch: 60, total: 120 });
    expect(total).toBe(120);
    expect(stages.map((s) => s.stage)).toEqual(['freshRead', 'resolve', 'dispatch']);
    expect(stages[0]?.share).toBeCloseTo(40 / 120);
    expect(stageTimings({ a: 10, b: 30 }).total).toBe(40);
  });

  it('the timeline is newest first, one entry per call, capped', () => {
    let list: { callId: string; startedAt: number }[] = [];
    list = insertStep(list, { callId: 'call-1', startedAt: 100 }, 3);
    list = insertStep(list, { callId: 'call-3', startedAt: 300 }, 3);
    list = insertStep(list, { callId: 'call-2', startedAt: 200 }, 3);
    list = insertStep(list, { callId: 'call-2', startedAt: 200 }, 3);
    expect(list.map((s) => s.callId)).toEqual(['call-3', 'call-2', 'call-1']);
    list = insertStep(list, { callId: 'call-4', startedAt: 300 }, 3);
    expect(list.map((s) => s.callId)).toEqual(['call-4', 'call-3', 'call-2']);
  });

  it('marks where the action touched: the resolved bounds and point, or a swipe stroke', () => {
    const mark = targetMark({
      request: { action: 'tap', target: { point: { x: 5, y: 6 } } },
      result: result({ target: { resolvedBy: 'point', point: { x: 5, y: 6 } } }),
    });
    expect(mark).toEqual({ point: { x: 5, y: 6 } });
    const swipe = targetMark({
      request: { action: 'swipe', start: { x: 1, y: 2 }, end: { x: 3, y: 4 } },
      result: result({ target: { resolvedBy: 'screen' } }),
    });
    expect(swipe.stroke).toEqual({ start: { x: 1, y: 2 }, end: { x: 3, y: 4 } });
  });
});

describe('AppReveal elements', () => {
  it('reads the id source and the OCR mark the projection sets', () => {
    const frame = { x: 0, y: 0, width: 10, height: 10 };
    const ocr = appRevealElementToUiNode({
      id: 'ocr.0',
      type: 'text',
      enabled: true,
      visible: true,
      tappable: false,
      frame,
      actions: [],
      idSource: 'ocr',
      ocr: true,
    });
    const explicit = appRevealElementToUiNode({
      id: 'a',
      type: 'button',
      enabled: true,
      visible: true,
      tappable: true,
      frame,
      actions: ['tap'],
      idSource: 'explicit',
      ocr: false,
    });
    expect(appRevealIdSource(ocr)).toBe('ocr');
    expect(isOcrNode(ocr)).toBe(true);
    expect(appRevealIdSource(explicit)).toBe('explicit');
    expect(isOcrNode(explicit)).toBe(false);
    expect(appRevealIdSource(node({}))).toBeUndefined();
  });

  it('confidence as a percentage', () => {
    expect(confidenceText(0.873)).toBe('87 %');
    expect(confidenceText(undefined)).toBe('—');
    expect(confidenceText(2)).toBe('100 %');
  });
});

describe('withoutFrames / framesDropped', () => {
  const frame = (receivedAt: number) => ({
    deviceId: 'd',
    observation: null,
    hierarchyFrameContext: `ctx-${receivedAt}`,
    screenshot: { format: 'png' as const, dataBase64: 'iVBORw0KGgo=' },
    receivedAt,
  });
  const step = {
    callId: 'call-1',
    deviceId: 'd',
    request: { action: 'tap' as const, target: { id: 'login.submit' } },
    result: result({ backend: 'sdk' }),
    startedAt: 1,
    before: frame(1),
    after: frame(2),
  };

  it("drops the pictures and trees and keeps the result and each frame's context", () => {
    expect(framesDropped(step)).toBe(false);
    const light = withoutFrames(step);
    expect(framesDropped(light)).toBe(true);
    expect(light.before).toMatchObject({ screenshot: null, observation: null, hierarchyFrameContext: 'ctx-1', receivedAt: 1 });
    expect(light.after).toMatchObject({ screenshot: null, hierarchyFrameContext: 'ctx-2' });
    expect(light.result).toBe(step.result);
  });

  it('a step that never had frames is not one whose frames were dropped', () => {
    expect(framesDropped({ ...step, before: null, after: null })).toBe(false);
  });
});

describe('R-PERF-12: whole frames kept within a node budget', () => {
  /** A step whose before and after trees hold `nodes` nodes each. */
  const stepOf = (n: number, nodes: number) => {
    const tree: UiNode = { className: 'UIView', node: Array.from({ length: nodes - 1 }, () => ({ className: 'UIView' })) };
    const frame = { deviceId: 'd', observation: { viewHierarchy: { hierarchy: tree } }, screenshot: null, receivedAt: n } as unknown as NonNullable<
      ActionStep['before']
    >;
    return {
      callId: `call-${n}`,
      deviceId: 'd',
      request: { action: 'tap' as const, target: { id: 'x' } },
      result: result({}),
      startedAt: n,
      before: frame,
      after: frame,
    };
  };

  it('R-PERF-12: light screens keep the newest steps up to the step limit', () => {
    const steps = Array.from({ length: 40 }, (_, n) => stepOf(n, 300));
    expect(framedStepCount(steps, 30)).toBe(30);
  });

  it('R-PERF-12: 50,000-node screens keep as many of the newest as fit in the budget, the newest always', () => {
    const heavy = Array.from({ length: 10 }, (_, n) => stepOf(n, 50_000));
    expect(framedStepCount(heavy, 30)).toBe(Math.floor(FRAME_NODE_BUDGET / 100_000));
    // One step over the whole budget still shows what the screen was after it.
    expect(framedStepCount([stepOf(0, FRAME_NODE_BUDGET)], 30)).toBe(1);
    // A step whose frames were let go costs nothing.
    expect(framedStepCount([stepOf(0, 50_000), withoutFrames(stepOf(1, 50_000)), stepOf(2, 50_000)], 30)).toBe(3);
  });
});
