// @vitest-environment jsdom
/**
 * The Screen's gestures as a user makes them (docs/rules.md#r-pick, #r-tap-11): the pointer events a
 * browser sends on the screen element, and what the inspector then selects or what gesture goes to the
 * device. Clocks are vitest's fake timers (the double-tap wait, a long press's hold), so nothing here
 * depends on the machine's speed.
 */
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Frame } from '@shared/protocol/device';
import { gestureRequest, offeredActions, pickStackAt, type OfferedActions, type ScreenGesture } from '@shared/inspect';
import { indexTree } from '@shared/model/tree';
import type { UiNode } from '@shared/protocol/runner';
import { Screen } from '@renderer/components/Screen';
import type { InteractOptions } from '@renderer/hooks/useScreenGestures';
import { InspectorScope } from '@renderer/state/inspector-scope';
import { createInspectorStore, type InspectorStore } from '@renderer/state/store';
import { layOut } from '../support/dom-layout';
import { observation } from '../support/observation';

const node = (fields: Record<string, unknown>, children: UiNode[] = []): UiNode =>
  ({ ...fields, ...(children.length > 0 ? { node: children } : {}) }) as unknown as UiNode;
const rect = (left: number, top: number, right: number, bottom: number) => ({ left, top, right, bottom });

// A 400x800-point screen: a card holding a button, and a list below it.
const root = node({ className: 'XCUIApplication', bounds: rect(0, 0, 400, 800) }, [
  node({ className: 'Other', 'resource-id': 'card', bounds: rect(0, 0, 400, 300) }, [
    node({ className: 'Button', 'resource-id': 'signIn', text: 'Sign in', clickable: 'true', bounds: rect(20, 100, 380, 150) }),
  ]),
  node({ className: 'ScrollView', 'resource-id': 'list', scrollable: 'true', bounds: rect(0, 320, 400, 800) }),
]);
const tree = indexTree(root);
const keyOf = (id: string) => tree.nodes.find((f) => f.node['resource-id'] === id)!.key;

/** Without points the screen's size is known only from a screenshot's pixels. */
function frame(points = true): Frame {
  return {
    deviceId: 'd1',
    observation: observation({
      viewHierarchy: { hierarchy: root, ...(points ? { screenWidth: 400, screenHeight: 800 } : {}) },
    }),
    screenshot: points ? null : { format: 'png', dataBase64: 'iVBORw0KGgo=' },
    receivedAt: 1,
  } as Frame;
}

/** jsdom decodes no image: the screenshot loads with the size a browser would read from it. */
function loadScreenshot(width: number, height: number) {
  const img = document.querySelector('img.screen-probe') as HTMLImageElement;
  Object.defineProperty(img, 'naturalWidth', { value: width });
  Object.defineProperty(img, 'naturalHeight', { value: height });
  fireEvent.load(img);
}

/** What the demo device (a runner) offers: every gesture. */
const ALL: OfferedActions = offeredActions({ kind: 'demo', supportedCommands: [] });

let store: InspectorStore;

function show(options: { interact?: InteractOptions; points?: boolean; pickStack?: Parameters<typeof Screen>[0]['pickStack'] } = {}) {
  // The viewport leaves room for the 400x800 screen at scale 1 inside its 8 px margins (Screen.tsx MARGIN).
  layOut({ '.screen-viewport': { width: 416, height: 816 } });
  const props = {
    frame: frame(options.points ?? true),
    nodes: tree.nodes,
    matchKeys: new Set<string>(),
    pickStack: options.pickStack ?? [],
    mismatch: false,
    placeholder: null,
    interact: options.interact,
  };
  const view = render(
    <InspectorScope.Provider value={store}>
      <Screen {...props} />
    </InspectorScope.Provider>,
  );
  if (options.points === false) loadScreenshot(400, 800);
  return { view, el: screen.getByTestId('screen') };
}

const at = (x: number, y: number, extra: Record<string, unknown> = {}) => ({ clientX: x, clientY: y, button: 0, pointerId: 1, ...extra });

beforeEach(() => {
  store = createInspectorStore();
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('inspect mode', () => {
  it('R-PICK: a click selects what a finger hits there; the same point again goes one deeper in the stack; Escape clears', () => {
    const { view, el } = show();
    expect(el.dataset['scale']).toBe('1');
    fireEvent.click(el, at(50, 120));
    expect(store.getState().selectedKey).toBe(keyOf('signIn'));
    const pick = store.getState().pick;
    expect(pick).toMatchObject({ x: 50, y: 120 });
    // The App hands the stack at the pick back; the second click at the same point walks it.
    const stack = pickStackAt(tree.nodes, 50, 120);
    expect(stack.slice(0, 2).map((f) => f.key)).toEqual([keyOf('signIn'), keyOf('card')]);
    view.rerender(
      <InspectorScope.Provider value={store}>
        <Screen frame={frame()} nodes={tree.nodes} matchKeys={new Set()} pickStack={stack} mismatch={false} placeholder={null} />
      </InspectorScope.Provider>,
    );
    fireEvent.click(screen.getByTestId('screen'), at(51, 121));
    expect(store.getState().selectedKey).toBe(keyOf('card'));
    fireEvent.keyDown(screen.getByTestId('screen'), { key: 'Escape' });
    expect(store.getState().selectedKey).toBeNull();
    expect(store.getState().pick).toBeNull();
  });

  it('a click elsewhere starts a new stack there, and hovering marks the node under the pointer', () => {
    const { el } = show();
    fireEvent.click(el, at(50, 120));
    fireEvent.click(el, at(200, 500));
    expect(store.getState().selectedKey).toBe(keyOf('list'));
    fireEvent.pointerMove(el, at(30, 130));
    expect(store.getState().hoveredKey).toBe(keyOf('signIn'));
    fireEvent.pointerLeave(el);
    expect(store.getState().hoveredKey).toBeNull();
  });
});

describe('interact mode', () => {
  let gestures: ScreenGesture[];
  let refusals: string[];
  const interact = (offered: Partial<OfferedActions> = {}): InteractOptions => ({
    offered: { ...ALL, ...offered },
    onGesture: (g) => gestures.push(g),
    onRefused: (r) => refusals.push(r),
  });
  const press = (el: HTMLElement, x: number, y: number, holdMs = 40, toX = x, toY = y) => {
    fireEvent.pointerDown(el, at(x, y));
    act(() => vi.advanceTimersByTime(holdMs));
    fireEvent.pointerUp(el, at(toX, toY));
  };

  beforeEach(() => {
    gestures = [];
    refusals = [];
    store.getState().setMode('interact');
  });

  it('R-TAP: a click taps the control under it once the double-tap window has passed, not before', () => {
    const { el } = show({ interact: interact() });
    press(el, 50, 120);
    expect(gestures).toEqual([]);
    act(() => vi.advanceTimersByTime(300));
    expect(gestures).toHaveLength(1);
    expect(gestures[0]).toMatchObject({ kind: 'tap', at: { x: 50, y: 120 } });
    expect(gestures[0]!.kind === 'tap' && gestures[0]!.target?.key).toBe(keyOf('signIn'));
    // It leaves a mark where it landed, for a moment.
    expect(el.querySelectorAll('.touch-mark.touch-tap')).toHaveLength(1);
    act(() => vi.advanceTimersByTime(1000));
    expect(el.querySelectorAll('.touch-mark')).toHaveLength(0);
  });

  it('two clicks close in time and place are one double tap; far apart in time, two taps', () => {
    const { el } = show({ interact: interact() });
    press(el, 50, 120);
    press(el, 52, 121);
    act(() => vi.advanceTimersByTime(1000));
    expect(gestures.map((g) => g.kind)).toEqual(['doubleTap']);
    gestures = [];
    press(el, 50, 120);
    act(() => vi.advanceTimersByTime(400));
    press(el, 50, 120);
    act(() => vi.advanceTimersByTime(400));
    expect(gestures.map((g) => g.kind)).toEqual(['tap', 'tap']);
  });

  it('a device without double tap gets the tap at once', () => {
    const { el } = show({ interact: interact({ doubleTap: false }) });
    press(el, 50, 120);
    expect(gestures.map((g) => g.kind)).toEqual(['tap']);
  });

  it('R-AR-28: on a device without long press (AppReveal) a hold is still a hold, which is refused, never a tap', () => {
    const { el } = show({ interact: interact({ longPress: false, doubleTap: false }) });
    press(el, 50, 120, 1200);
    expect(gestures).toHaveLength(1);
    expect(gestures[0]).toMatchObject({ kind: 'longPress', durationMs: 1200 });
    const built = gestureRequest(gestures[0]!, { ...ALL, longPress: false, doubleTap: false }, true);
    expect(built).toEqual({ refused: 'this device offers no long press' });
  });

  it('holding is a long press with its duration; a drag is a swipe in the scroll container it started in', () => {
    const { el } = show({ interact: interact() });
    press(el, 50, 120, 700);
    expect(gestures[0]).toMatchObject({ kind: 'longPress', at: { x: 50, y: 120 }, durationMs: 700 });
    press(el, 200, 700, 150, 200, 400);
    expect(gestures[1]).toMatchObject({ kind: 'swipe', start: { x: 200, y: 700 }, end: { x: 200, y: 400 }, durationMs: 150 });
    expect(gestures[1]!.kind === 'swipe' && gestures[1]!.container?.key).toBe(keyOf('list'));
  });

  it('R-TAP-11: without the screen size in points a click is refused with why, and nothing is sent', () => {
    // The screen's size comes from the screenshot's pixels alone here: no points, so no conversion.
    const { el } = show({ interact: interact(), points: false });
    expect(el.dataset['points']).toBe('false');
    press(el, 50, 120);
    act(() => vi.advanceTimersByTime(1000));
    expect(gestures).toEqual([]);
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toContain('in points is not known');
  });

  it('R-TAP-11: without points, a new picture keeps the screen in place while its size is read (no placeholder between pictures)', () => {
    const { view, el } = show({ interact: interact(), points: false });
    // The live loop's next picture of the same screen: other bytes, so another source to measure.
    const next = { ...frame(false), screenshot: { format: 'png', dataBase64: 'iVBORw0KGgoAAAA=' } } as Frame;
    view.rerender(
      <InspectorScope.Provider value={store}>
        <Screen frame={next} nodes={tree.nodes} matchKeys={new Set()} pickStack={[]} mismatch={false} placeholder={null} interact={interact()} />
      </InspectorScope.Provider>,
    );
    // Before the new picture has loaded, the screen is the same element at the last picture's size.
    expect(screen.getByTestId('screen')).toBe(el);
    expect(el.dataset['screenWidth']).toBe('400');
    expect(document.querySelector('.screen-placeholder')).toBeNull();
    press(el, 50, 120);
    act(() => vi.advanceTimersByTime(1000));
    expect(refusals[0]).toContain('in points is not known');
    // Once it has loaded, its own size counts (a picture of another shape is not drawn at the old one).
    const img = screen.getByTestId('screen-image') as HTMLImageElement;
    Object.defineProperty(img, 'naturalWidth', { value: 800 });
    Object.defineProperty(img, 'naturalHeight', { value: 400 });
    fireEvent.load(img);
    expect(screen.getByTestId('screen').dataset['screenWidth']).toBe('800');
  });

  it('a click on a layout or hidden-content badge selects it and never touches the device', () => {
    const { el } = show({ interact: interact() });
    const badge = document.createElement('button');
    badge.dataset['ownClick'] = 'true';
    el.appendChild(badge);
    fireEvent.pointerDown(badge, at(50, 120));
    fireEvent.pointerUp(badge, at(50, 120));
    act(() => vi.advanceTimersByTime(1000));
    expect(gestures).toEqual([]);
  });
});
