/**
 * The screen's pointer and keyboard handling, as one state machine over the Screen's element (the rules
 * are in the Screen's own comment, docs/rules.md#r-pick and #r-tap-11):
 * - inspect mode: a click picks the node a finger would hit, the same point again (or Tab, Alt+wheel)
 *   walks the stack there, Escape clears the pick;
 * - interact mode: a stroke is classified (`classifyStroke`) into a tap, a long press or a swipe; a tap
 *   waits `DOUBLE_TAP_WINDOW_MS` for a second click that makes it a double tap; each gesture leaves a
 *   short touch mark and goes to `interact.onGesture`, or is refused when the point size is unknown.
 * Everything is read through refs and the inspector store, so a new frame or pick redraws no handler.
 */
import { useEffect, useRef, useState, type KeyboardEvent, type MouseEvent, type PointerEvent, type RefObject } from 'react';
import type { Point } from '@shared/protocol/action';
import {
  actionTargetAt,
  clampToScreen,
  classifyStroke,
  isSecondClick,
  pickStackAt,
  scrollContainerAt,
  topmostAt,
  DOUBLE_TAP_WINDOW_MS,
  type OfferedActions,
  type PickOptions,
  type PointerSample,
  type ScreenGesture,
} from '@shared/inspect';
import type { FlatNode } from '@shared/model/tree';
import { useInspectorStore } from '@renderer/state/inspector-scope';

/** Two clicks closer than this (displayed px) are "the same point". */
const SAME_POINT_PX = 4;
/** Wheel travel (with Alt held: the wheel alone zooms) that moves one step through the stack. */
const WHEEL_STEP = 60;
/** Elements over the screen that take their own clicks (badges): a press on one never reaches the device. */
const OWN_CLICKS = '[data-own-click]';
const TOUCH_MARK_MS = 700;
let nextTouch = 1;

export interface InteractOptions {
  offered: OfferedActions;
  onGesture(gesture: ScreenGesture): void;
  /** A gesture that cannot be sent, with why (the screen's point size is unknown). */
  onRefused(reason: string): void;
}

export interface ScreenGeometry {
  /** The screen's size in points (or, when no point size is known, the screenshot's size in pixels). */
  width: number;
  height: number;
  /** Whether width and height are points: only then can a click be sent. */
  points: boolean;
}

/** Where a gesture landed, drawn for a moment (in screen points). */
export interface TouchMark {
  id: number;
  kind: ScreenGesture['kind'];
  x: number;
  y: number;
  endX?: number;
  endY?: number;
}

export interface ScreenGestureInput {
  /** Whether the frame has a tree (nothing is picked or hovered without one). */
  hasTree: boolean;
  geometry: ScreenGeometry | null;
  /** The whole tree: a node filtered out still clips what lies in it. */
  nodes: readonly FlatNode[];
  pickOptions: PickOptions;
  /** Displayed pixels per point at fit. */
  scale: number;
  pickStack: readonly FlatNode[];
  interact: InteractOptions | undefined;
  interacting: boolean;
}

export interface ScreenGestures {
  /** The screen's element: points are converted through its displayed rectangle. */
  screenRef: RefObject<HTMLDivElement | null>;
  /** Set by the zoom container when a drag panned: the click that ends it picks nothing. */
  panned: RefObject<boolean>;
  touches: readonly TouchMark[];
  handlers: {
    onPointerMove(e: PointerEvent<HTMLDivElement>): void;
    onPointerLeave(): void;
    onPointerDown(e: PointerEvent<HTMLDivElement>): void;
    onPointerUp(e: PointerEvent<HTMLDivElement>): void;
    onPointerCancel(): void;
    onClick(e: MouseEvent<HTMLDivElement>): void;
    onKeyDown(e: KeyboardEvent<HTMLDivElement>): void;
  };
}

export function useScreenGestures(input: ScreenGestureInput): ScreenGestures {
  const { hasTree, geometry, interacting } = input;
  const screenRef = useRef<HTMLDivElement>(null);
  const panned = useRef(false);
  const store = useInspectorStore();
  const [touches, setTouches] = useState<TouchMark[]>([]);
  // The latest values for the native wheel listener and the gesture timers.
  const latest = useRef(input);
  latest.current = input;
  /** The stroke in progress (interact mode). */
  const stroke = useRef<{ pointerId: number; down: PointerSample } | null>(null);
  /** A press waiting to see whether a second one makes it a double tap. */
  const pendingPress = useRef<{ sample: PointerSample; timer: ReturnType<typeof setTimeout> } | null>(null);
  useEffect(
    () => () => {
      if (pendingPress.current) clearTimeout(pendingPress.current.timer);
    },
    [],
  );

  /** Displayed pixels per point now: the screen's measured width (zoom included) over its width in points. */
  const shownScale = () => {
    const rect = screenRef.current?.getBoundingClientRect();
    const width = latest.current.geometry?.width;
    return rect && width ? rect.width / width : 0;
  };

  const pointFromClient = (clientX: number, clientY: number) => {
    const rect = screenRef.current?.getBoundingClientRect();
    const s = shownScale();
    if (!rect || s <= 0) return null;
    return { x: (clientX - rect.left) / s, y: (clientY - rect.top) / s };
  };

  /** Pick at a point: a new point starts a stack, the same point moves `delta` through it. */
  const pickOrCycle = (clientX: number, clientY: number, delta: number) => {
    const p = pointFromClient(clientX, clientY);
    if (!p) return;
    const { pick: current, pickAt, cyclePick } = store.getState();
    const { nodes: all, pickOptions: options, pickStack: stack } = latest.current;
    const s = shownScale();
    const same = current !== null && Math.hypot(current.x - p.x, current.y - p.y) * s <= SAME_POINT_PX;
    if (same)
      cyclePick(
        stack.map((f) => f.key),
        delta,
      );
    else
      pickAt(
        p.x,
        p.y,
        pickStackAt(all, p.x, p.y, options).map((f) => f.key),
      );
  };

  useEffect(() => {
    const element = screenRef.current;
    if (!element) return;
    let travel = 0;
    const onWheel = (e: WheelEvent) => {
      // The wheel zooms (the container's own listener); with Alt it walks the stack instead.
      if (!e.altKey || latest.current.scale <= 0 || !hasTree || store.getState().mode === 'interact') return;
      e.preventDefault();
      e.stopPropagation();
      travel += e.deltaMode === 0 ? e.deltaY : e.deltaY * 40;
      if (Math.abs(travel) < WHEEL_STEP) return;
      const delta = travel > 0 ? 1 : -1;
      travel = 0;
      pickOrCycle(e.clientX, e.clientY, delta);
    };
    element.addEventListener('wheel', onWheel, { passive: false });
    return () => element.removeEventListener('wheel', onWheel);
    // pickOrCycle reads everything through refs and the store; re-attach only when the element changes.
  }, [hasTree, geometry !== null, store]);

  const onPointerMove = (e: PointerEvent<HTMLDivElement>) => {
    const p = pointFromClient(e.clientX, e.clientY);
    if (!p || !hasTree) return;
    const { nodes, pickOptions } = latest.current;
    // Interact mode highlights the box a click would tap; inspect mode the node a finger hits (the pick).
    const hovered = interacting ? actionTargetAt(nodes, p.x, p.y, pickOptions)?.key : topmostAt(nodes, p.x, p.y, pickOptions)?.key;
    store.getState().hoverNode(hovered ?? null);
  };

  const sampleOf = (e: PointerEvent<HTMLDivElement>): PointerSample | null => {
    const p = pointFromClient(e.clientX, e.clientY);
    return p ? { ...p, t: performance.now() } : null;
  };

  const mark = (touch: Omit<TouchMark, 'id'>) => {
    const id = nextTouch++;
    setTouches((list) => [...list.slice(-7), { ...touch, id }]);
    setTimeout(() => setTouches((list) => list.filter((t) => t.id !== id)), TOUCH_MARK_MS);
  };

  const emit = (gesture: ScreenGesture) => {
    const at = gesture.kind === 'swipe' ? gesture.start : gesture.at;
    mark({ kind: gesture.kind, x: at.x, y: at.y, ...(gesture.kind === 'swipe' ? { endX: gesture.end.x, endY: gesture.end.y } : {}) });
    latest.current.interact?.onGesture(gesture);
  };

  const targetAt = (p: Point) => actionTargetAt(latest.current.nodes, p.x, p.y, latest.current.pickOptions);

  const onPointerDown = (e: PointerEvent<HTMLDivElement>) => {
    panned.current = false;
    const interact = latest.current.interact;
    if (!interacting || !interact || e.button !== 0) return;
    // A badge takes its own click (it selects what it marks); the device is not touched.
    if ((e.target as Element).closest(OWN_CLICKS)) return;
    if (!latest.current.geometry?.points) {
      interact.onRefused(
        "the screen's size in points is not known yet (no read of this device has reported it), so a click cannot be converted to a point on the device",
      );
      return;
    }
    const down = sampleOf(e);
    if (!down) return;
    e.currentTarget.setPointerCapture(e.pointerId);
    stroke.current = { pointerId: e.pointerId, down };
  };

  const onPointerUp = (e: PointerEvent<HTMLDivElement>) => {
    const started = stroke.current;
    stroke.current = null;
    const interact = latest.current.interact;
    if (!interacting || !interact || !started || started.pointerId !== e.pointerId) return;
    const up = sampleOf(e);
    if (!up) return;
    const offered = interact.offered;
    const screen = latest.current.geometry;
    if (!screen?.points) return;
    // Pointer capture follows a drag off the picture; a finger stops at the glass's edge.
    const gesture = classifyStroke(started.down, { ...up, ...clampToScreen(up, screen) }, shownScale());
    if (gesture.kind === 'drag') {
      if (!offered.swipe) return;
      const container = scrollContainerAt(latest.current.nodes, gesture.start.x, gesture.start.y, latest.current.pickOptions);
      emit({ kind: 'swipe', start: gesture.start, end: gesture.end, durationMs: gesture.durationMs, container });
      return;
    }
    // A hold is a hold whatever the device offers: where it has no long press, `gestureRequest` refuses it
    // and says so, never sends it as a tap (docs/rules.md#r-ar-28).
    if (gesture.kind === 'longPress') {
      emit({ kind: 'longPress', at: gesture.at, durationMs: gesture.durationMs, target: targetAt(gesture.at) });
      return;
    }
    const at = gesture.at;
    if (!offered.doubleTap) {
      emit({ kind: 'tap', at, target: targetAt(at) });
      return;
    }
    // A tap waits a moment for a second click, which makes it a double tap instead.
    const waiting = pendingPress.current;
    if (waiting && isSecondClick(waiting.sample, up, shownScale())) {
      clearTimeout(waiting.timer);
      pendingPress.current = null;
      const first = { x: waiting.sample.x, y: waiting.sample.y };
      emit({ kind: 'doubleTap', at: first, target: targetAt(first) });
      return;
    }
    if (waiting) {
      clearTimeout(waiting.timer);
      const first = { x: waiting.sample.x, y: waiting.sample.y };
      emit({ kind: 'tap', at: first, target: targetAt(first) });
    }
    const target = targetAt(at);
    pendingPress.current = {
      sample: { ...at, t: up.t },
      timer: setTimeout(() => {
        pendingPress.current = null;
        emit({ kind: 'tap', at, target });
      }, DOUBLE_TAP_WINDOW_MS),
    };
  };

  const onClick = (e: MouseEvent<HTMLDivElement>) => {
    // The container cancels the press (so a drag can pan): focus the screen for Tab and Escape.
    e.currentTarget.focus({ preventScroll: true });
    if (panned.current) {
      panned.current = false;
      return;
    }
    if (!interacting) pickOrCycle(e.clientX, e.clientY, 1);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const { pick: current, cyclePick, clearPick, selectNode } = store.getState();
    const stack = latest.current.pickStack;
    if (interacting && e.key === 'Tab') return;
    if (e.key === 'Tab' && current && stack.length > 1) {
      e.preventDefault();
      cyclePick(
        stack.map((f) => f.key),
        e.shiftKey ? -1 : 1,
      );
    } else if (e.key === 'Escape') {
      clearPick();
      selectNode(null);
    }
  };

  return {
    screenRef,
    panned,
    touches,
    handlers: {
      onPointerMove,
      onPointerLeave: () => store.getState().hoverNode(null),
      onPointerDown,
      onPointerUp,
      onPointerCancel: () => (stroke.current = null),
      onClick,
      onKeyDown,
    },
  };
}
