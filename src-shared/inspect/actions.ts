/**
 * What the UI needs to act on a device and to show what happened: which box a click aims at,
 * which gesture a pointer stroke was, which actions a device offers, and the words and numbers of one
 * timeline step. Pure: plain data in, plain data out.
 */
import {
  FAILURE_EXPLANATIONS,
  type OutcomeClass,
  type ActionRequest,
  type ActionResult,
  type FailureExplanation,
  type FailureReason,
  type Point,
  type TargetRecord,
  type TargetSelector,
} from '@shared/protocol/action';
import type { ActionStep, DeviceSummary } from '@shared/protocol/device';
import { APPREVEAL_EXTRAS } from '@shared/observe/appreveal';
import { outcomeClassOf } from '@shared/act/verdict';
import { quote } from '@shared/act/describe';
import type { UiNode } from '@shared/protocol/runner';
import { SOURCE_LABELS } from './source';
import type { FlatNode } from '@shared/model/tree';
import { boundsOf, childrenOf, countNodes, nodeLabel, nodeSource, withoutChildren, type Rect } from '@shared/model/node';

/** Screen points rounded to a tenth, so a request reads cleanly in the timeline and the trace. */
export function roundPoint(p: Point): Point {
  return { x: Math.round(p.x * 10) / 10, y: Math.round(p.y * 10) / 10 };
}

// ---- What a device offers --------------------------------------------------------------------------

export interface OfferedActions {
  /** A tap on a picked box ({node}). */
  tapNode: boolean;
  /** A tap at a point on empty space ({point}). */
  tapPoint: boolean;
  doubleTap: boolean;
  longPress: boolean;
  swipe: boolean;
  /** The type box (type steps). */
  type: boolean;
  clear: boolean;
  replace: boolean;
  imeDone: boolean;
  tab: boolean;
  /** Why some actions are missing, one line each (for a tooltip). */
  missing: string[];
}

/**
 * What the UI offers on a device. A runner (or the demo, or a replay) offers every gesture; an AppReveal
 * app only what its registered tools can do (docs/rules.md#r-ar-02): a tool it did not register is not
 * offered.
 */
export function offeredActions(device: Pick<DeviceSummary, 'kind' | 'supportedCommands'> | undefined): OfferedActions {
  if (!device) {
    return {
      tapNode: false,
      tapPoint: false,
      doubleTap: false,
      longPress: false,
      swipe: false,
      type: false,
      clear: false,
      replace: false,
      imeDone: false,
      tab: false,
      missing: [],
    };
  }
  if (device.kind !== 'appreveal') {
    return {
      tapNode: true,
      tapPoint: true,
      doubleTap: true,
      longPress: true,
      swipe: true,
      type: true,
      clear: true,
      replace: true,
      imeDone: true,
      tab: true,
      missing: [],
    };
  }
  const tools = new Set(device.supportedCommands);
  const has = (tool: string) => tools.has(tool);
  const offered: OfferedActions = {
    tapNode: has('tap_element') || has('tap_point'),
    tapPoint: has('tap_point'),
    doubleTap: false,
    longPress: false,
    swipe: has('scroll'),
    type: has('type_text'),
    clear: has('clear_text'),
    replace: has('clear_text') && has('type_text'),
    imeDone: false,
    tab: false,
    missing: ['AppReveal has no double tap, long press, IME action or Tab tool'],
  };
  if (!offered.tapNode) offered.missing.push('no tap_element or tap_point: no taps');
  else if (!offered.tapPoint) offered.missing.push('no tap_point: taps on empty space are not offered');
  if (!offered.swipe) offered.missing.push('no scroll: no drags');
  if (!offered.type) offered.missing.push('no type_text: no type box');
  if (!offered.clear) offered.missing.push('no clear_text: no Clear or Replace');
  return offered;
}

// ---- Gestures ---------------------------------------------------------------------------------------

/** A stroke that moves less than this (displayed px) is a press, not a drag. */
export const DRAG_THRESHOLD_PX = 8;
/** A press held at least this long is a long press. */
export const LONG_PRESS_THRESHOLD_MS = 500;
/** A second click within this time and distance makes a double tap. */
export const DOUBLE_TAP_WINDOW_MS = 280;
export const DOUBLE_TAP_DISTANCE_PX = 10;

export interface PointerSample {
  /** Screen points. */
  x: number;
  y: number;
  /** Milliseconds (any monotonic clock). */
  t: number;
}

export type Gesture =
  { kind: 'press'; at: Point } | { kind: 'longPress'; at: Point; durationMs: number } | { kind: 'drag'; start: Point; end: Point; durationMs: number };

/**
 * What one pointer stroke was: a drag when it moved at least DRAG_THRESHOLD_PX on screen (`scale`:
 * displayed px per screen point), else a long press when held LONG_PRESS_THRESHOLD_MS, else a press.
 */
export function classifyStroke(down: PointerSample, up: PointerSample, scale: number): Gesture {
  const movedPx = Math.hypot(up.x - down.x, up.y - down.y) * (scale > 0 ? scale : 1);
  const durationMs = Math.max(0, Math.round(up.t - down.t));
  if (movedPx >= DRAG_THRESHOLD_PX) return { kind: 'drag', start: roundPoint(down), end: roundPoint(up), durationMs };
  if (durationMs >= LONG_PRESS_THRESHOLD_MS) return { kind: 'longPress', at: roundPoint(down), durationMs };
  return { kind: 'press', at: roundPoint(down) };
}

/** Whether a press follows an earlier one closely enough to make a double tap. */
export function isSecondClick(first: PointerSample, second: PointerSample, scale: number): boolean {
  const px = Math.hypot(second.x - first.x, second.y - first.y) * (scale > 0 ? scale : 1);
  return second.t - first.t <= DOUBLE_TAP_WINDOW_MS && px <= DOUBLE_TAP_DISTANCE_PX;
}

/** The selector a press aims with: the picked box as {node} (or {id} when only AppReveal's tap_element can take it), else the point. */
export function selectorFor(target: FlatNode | null, at: Point, offered: Pick<OfferedActions, 'tapPoint'>, appReveal: boolean): TargetSelector | null {
  if (target) {
    const node = withoutChildren(target.node);
    if (appReveal && !offered.tapPoint && !node['resource-id']) return null;
    return { node };
  }
  return offered.tapPoint ? { point: roundPoint(at) } : null;
}

/** The selector a type box step aims with: AppReveal types by element id, a runner into the focused field. */
export function keyTargetFor(field: UiNode | null | undefined, appReveal: boolean): TargetSelector | undefined {
  if (!field) return undefined;
  if (appReveal) {
    const id = field['resource-id'];
    return id ? { id } : undefined;
  }
  return { node: withoutChildren(field) };
}

/** One gesture on the screen, with the box it aims at (null: empty space). */
export type ScreenGesture =
  | { kind: 'tap'; at: Point; target: FlatNode | null }
  | { kind: 'doubleTap'; at: Point; target: FlatNode | null }
  | { kind: 'longPress'; at: Point; durationMs: number; target: FlatNode | null }
  | { kind: 'swipe'; start: Point; end: Point; durationMs: number; container: FlatNode | null };

/**
 * The request a gesture sends, or why none is sent. A tap on a box names the box ({node}, so the
 * identities the observation captured are used); on empty space the point. An AppReveal container is
 * named by id (its scroll tool takes one).
 */
export function gestureRequest(gesture: ScreenGesture, offered: OfferedActions, appReveal: boolean): { request: ActionRequest } | { refused: string } {
  if (gesture.kind === 'swipe') {
    if (!offered.swipe) return { refused: 'this device offers no swipe' };
    const request: ActionRequest = { action: 'swipe', start: roundPoint(gesture.start), end: roundPoint(gesture.end), durationMs: gesture.durationMs };
    const container = gesture.container?.node;
    if (container) {
      if (!appReveal) request.container = { node: withoutChildren(container) };
      else if (container['resource-id']) request.container = { id: container['resource-id'] };
    }
    return { request };
  }
  if (gesture.kind === 'doubleTap' && !offered.doubleTap) return { refused: 'this device offers no double tap' };
  if (gesture.kind === 'longPress' && !offered.longPress) return { refused: 'this device offers no long press' };
  if (!offered.tapNode) return { refused: 'this device offers no tap' };
  const target = selectorFor(gesture.target, gesture.at, offered, appReveal);
  if (!target) return { refused: gesture.target ? 'the box has no id to tap it by, and this app has no tap_point' : 'this app has no tap_point: tap a box' };
  if (gesture.kind === 'tap') return { request: { action: 'tap', target } };
  if (gesture.kind === 'doubleTap') return { request: { action: 'doubleTap', target } };
  return { request: { action: 'longPress', target, durationMs: Math.max(LONG_PRESS_THRESHOLD_MS, gesture.durationMs) } };
}

// ---- One timeline step -----------------------------------------------------------------------------

export const RESOLVED_BY_TEXT: Readonly<Record<TargetRecord['resolvedBy'], string>> = {
  id: 'by id',
  text: 'by text',
  point: 'by point',
  node: 'picked node',
  keyboardFocus: 'keyboard focus',
  screen: 'whole screen',
  container: 'container',
  autoContainer: 'container under the stroke',
  lookFor: 'scroll search',
};

/**
 * How the target was resolved, in one line: "picked node · SDK bridge · “Sign In” (login.submit) ·
 * capture 12". An element is named by its label; a DOM element's id ("e5") never stands in for it.
 */
export function describeTarget(target: TargetRecord): string {
  const parts: string[] = [RESOLVED_BY_TEXT[target.resolvedBy] ?? target.resolvedBy];
  if (target.source) parts.push(SOURCE_LABELS[target.source]);
  const id = target.elementId ?? (target.label === undefined ? target.selector : undefined);
  // The tree row's words when the record has them (docs/rules.md#r-ui-title); older records name the label and id.
  if (target.title !== undefined && target.title !== '') parts.push(target.title);
  else if (target.label !== undefined) parts.push(id !== undefined && id !== target.label ? `${quote(target.label)} (${id})` : quote(target.label));
  else if (id !== undefined) parts.push(id);
  else if (target.webElementId !== undefined) parts.push(`DOM element ${target.webElementId}`);
  if (target.point) parts.push(`at ${Math.round(target.point.x)}, ${Math.round(target.point.y)}`);
  if (target.captureIdentity !== undefined) parts.push(`capture ${target.captureIdentity}`);
  if (target.snapshotId) parts.push(`snapshot ${target.snapshotId}`);
  if (target.fromCache) parts.push('from cache');
  return parts.join(' · ');
}

/** The backend chip: "sdk", "xctest", "appreveal", or "XCTest only" when the result names none. */
export function backendText(result: Pick<ActionResult, 'backend'>): string {
  return result.backend ?? 'XCTest only';
}

/** What each outcome class tells the user (docs/rules.md#r-act-01), in a few words. */
export const OUTCOME_TEXT: Readonly<Record<OutcomeClass, string>> = {
  done: 'done',
  notRun: 'failed · nothing was run',
  mayHaveRun: 'failed · may have run',
  refused: 'not sent',
};

export interface StepOutcome {
  ok: boolean;
  /** The outcome class, and what it tells the user. */
  outcome: OutcomeClass;
  outcomeText: string;
  /** The device's own words about it (a runner's error, a bridge's reason), verbatim. */
  deviceMessage?: string;
  /** "done" or the failure reason. */
  label: string;
  failureReason?: FailureReason;
  explanation?: FailureExplanation;
  /** On a failure: the action may already have happened (do not repeat it blindly). */
  mayHaveRun?: boolean;
}

export function stepOutcome(result: ActionResult): StepOutcome {
  const cls = outcomeClassOf(result);
  if (result.success) return { ok: true, outcome: cls, outcomeText: OUTCOME_TEXT[cls], label: 'done' };
  const reason = result.failureReason;
  const outcome: StepOutcome = { ok: false, outcome: cls, outcomeText: OUTCOME_TEXT[cls], label: reason ?? 'failed' };
  if (result.deviceMessage !== undefined) outcome.deviceMessage = result.deviceMessage;
  if (reason) {
    outcome.failureReason = reason;
    outcome.explanation = FAILURE_EXPLANATIONS[reason] ?? { meaning: `The action failed (${reason}).`, whatToDo: 'Observe again before retrying.' };
  }
  if (result.mayHaveRun !== undefined) outcome.mayHaveRun = result.mayHaveRun;
  return outcome;
}

/**
 * What the step detail's "Copy result" puts on the clipboard (docs/rules.md#r-qa-20): the step's request
 * and result as the host kept them, so a typed secret is already out of both (docs/rules.md#r-secret-02);
 * one function, so the integration test searches the very text a user would paste (r-secret-10).
 */
export function stepCopyText(step: Pick<ActionStep, 'request' | 'result'>): string {
  return JSON.stringify({ request: step.request, result: step.result }, null, 2);
}

/** What "Copy the reason" puts on the clipboard: the failure, what it means and what to do. */
export function reasonCopyText(outcome: Pick<StepOutcome, 'failureReason' | 'explanation'>): string {
  return outcome.explanation ? `${outcome.failureReason ?? ''}: ${outcome.explanation.meaning} ${outcome.explanation.whatToDo}` : (outcome.failureReason ?? '');
}

export interface StageTiming {
  stage: string;
  ms: number;
  /** Share of the total, 0…1. */
  share: number;
}

/** The stages in the order they ran, with the total (the reported one, else their sum). */
export function stageTimings(timings: Readonly<Record<string, number>>): { total: number; stages: StageTiming[] } {
  const entries = Object.entries(timings).filter(([stage, ms]) => stage !== 'total' && Number.isFinite(ms) && ms >= 0);
  const sum = entries.reduce((acc, [, ms]) => acc + ms, 0);
  const total = timings['total'] !== undefined && Number.isFinite(timings['total']) ? timings['total'] : sum;
  const base = Math.max(total, sum) || 1;
  return { total, stages: entries.map(([stage, ms]) => ({ stage, ms, share: ms / base })) };
}

export function formatMs(ms: number): string {
  if (ms >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms >= 1) return `${Math.round(ms)} ms`;
  return `${ms.toFixed(1)} ms`;
}

// ---- The timeline -----------------------------------------------------------------------------------

/**
 * A device's steps with `step` added, newest first (by start time, then call id), one per call id (the
 * act reply and the `device.action` event carry the same step), at most `cap` of them.
 */
export function insertStep<T extends Pick<ActionStep, 'callId' | 'startedAt'>>(steps: readonly T[], step: T, cap: number): T[] {
  const rest = steps.filter((s) => s.callId !== step.callId);
  const at = rest.findIndex((s) => s.startedAt < step.startedAt || (s.startedAt === step.startedAt && callOrder(s.callId) < callOrder(step.callId)));
  const next = at < 0 ? [...rest, step] : [...rest.slice(0, at), step, ...rest.slice(at)];
  return next.slice(0, Math.max(0, cap));
}

/**
 * A step kept for its result only: its frames lose their screenshot and tree (a long session must not
 * hold hundreds of screenshots), and keep the rest (frame context, receive time).
 */
export function withoutFrames(step: ActionStep): ActionStep {
  const strip = (frame: ActionStep['before']) => (frame ? { ...frame, screenshot: null, observation: null } : null);
  return { ...step, before: strip(step.before), after: strip(step.after) };
}

/**
 * Nodes the kept whole frames of one device's steps may hold together (docs/rules.md#r-perf-12): on a
 * light screen every one of the newest steps keeps its frames, on a 50,000-node screen one or two do.
 * A reloaded page reads them all in one history reply, and each is a whole tree in memory twice over.
 */
export const FRAME_NODE_BUDGET = 200_000;

const nodeCounts = new WeakMap<UiNode, number>();
/** How many nodes the tree of `frame` holds (0 without one), counted once per tree. */
function frameNodes(frame: ActionStep['before']): number {
  const root = frame?.observation?.viewHierarchy?.hierarchy;
  if (!root) return 0;
  let count = nodeCounts.get(root);
  if (count === undefined) nodeCounts.set(root, (count = countNodes(root)));
  return count;
}

/**
 * How many of the newest steps (`newestFirst`) keep their whole frames: at most `maxSteps`, and no more
 * than fit in `nodeBudget` nodes together, but always the newest one (its frames are what the screen
 * shows after it). A step whose frames are already gone costs nothing.
 */
export function framedStepCount(newestFirst: readonly ActionStep[], maxSteps: number, nodeBudget = FRAME_NODE_BUDGET): number {
  let nodes = 0;
  let kept = 0;
  for (const step of newestFirst) {
    if (kept >= maxSteps) break;
    nodes += frameNodes(step.before) + frameNodes(step.after);
    if (kept > 0 && nodes > nodeBudget) break;
    kept++;
  }
  return kept;
}

/** Whether a step's frames were let go (by `withoutFrames`): it has frames, none with a picture or tree. */
export function framesDropped(step: ActionStep): boolean {
  const frames = [step.before, step.after].filter((f) => f !== null);
  return frames.length > 0 && frames.every((f) => f.screenshot === null && f.observation === null);
}

function callOrder(callId: string): number {
  const match = /(\d+)$/.exec(callId);
  return match ? Number(match[1]) : 0;
}

// ---- Where a step touched, on its before frame --------------------------------------------------------

export interface TargetMark {
  /** The resolved element's frame, if the result names one. */
  bounds?: Rect;
  /** Where XCTest touched, or the requested point. */
  point?: Point;
  /** A swipe's stroke. */
  stroke?: { start: Point; end: Point };
}

export function targetMark(step: Pick<ActionStep, 'request' | 'result'>): TargetMark {
  const mark: TargetMark = {};
  const target = step.result.target;
  if (target.bounds) mark.bounds = target.bounds;
  if (target.point) mark.point = target.point;
  const request = step.request;
  if (!mark.point && 'target' in request && request.target && 'point' in request.target) mark.point = request.target.point;
  if (!mark.bounds && 'target' in request && request.target && 'node' in request.target) {
    const b = boundsOf(request.target.node);
    if (b) mark.bounds = b;
  }
  if (request.action === 'swipe') mark.stroke = { start: request.start, end: request.end };
  return mark;
}

// ---- AppReveal ---------------------------------------------------------------------------------------

function extraOf(node: UiNode, key: string): string | undefined {
  const extras: unknown = (node as { extras?: unknown }).extras;
  if (extras === null || typeof extras !== 'object') return undefined;
  const v = (extras as Record<string, unknown>)[key];
  return typeof v === 'string' ? v : undefined;
}

/** How an AppReveal element's id was derived (explicit, ocr, text, …), if the node came from AppReveal. */
export function appRevealIdSource(node: UiNode): string | undefined {
  return extraOf(node, APPREVEAL_EXTRAS.idSource);
}

/** Recognized by OCR: visible text kept out of the accessibility tree, not a real view. */
export function isOcrNode(node: UiNode): boolean {
  return extraOf(node, APPREVEAL_EXTRAS.ocr) === 'true';
}

/** The screen's confidence as a percentage ("87 %"), or "—". */
export function confidenceText(confidence: number | undefined): string {
  if (confidence === undefined || !Number.isFinite(confidence)) return '—';
  return `${Math.round(Math.max(0, Math.min(1, confidence)) * 100)} %`;
}

/** The field the type box types into, as a person would name it: its label ("Full name"), never a DOM id. */
export function fieldCaption(node: UiNode | null | undefined): string | null {
  if (!node) return null;
  return nodeLabel(node) ?? (childrenOf(node).length > 0 ? 'container' : 'field');
}

/** For a tooltip: the source label of a node ("SDK bridge"). */
export function sourceLabelOf(node: UiNode): string {
  return SOURCE_LABELS[nodeSource(node)];
}

// ---- Points ------------------------------------------------------------------------------------------

export interface ScreenPoints {
  width: number;
  height: number;
}

/** Aspect ratios further apart than this show different displays (a rotation), not one at two scales. */
const ASPECT_TOLERANCE = 0.02;

/**
 * The screen's size in points that a frame's screenshot shows (docs/rules.md#r-tap-11), so a click on
 * it converts through the screenshot's own pixel size and the screen's point size, with or without a
 * tree: the tree's screen size, else the observation's, else the one an earlier frame of the device
 * reported (`screenPoints`) when the screenshot still has its shape. Null when nothing says: a click
 * then cannot be converted, and is refused rather than sent in pixels.
 */
export function screenPointSize(
  frame:
    | {
        observation: {
          screenSize?: { width: number; height: number } | undefined;
          viewHierarchy?: { screenWidth?: number | undefined; screenHeight?: number | undefined } | undefined;
        } | null;
        screenPoints?: { width: number; height: number } | undefined;
      }
    | undefined,
  screenshotPixels?: { width: number; height: number } | null,
): ScreenPoints | null {
  if (!frame) return null;
  const h = frame.observation?.viewHierarchy;
  const candidates = [
    h?.screenWidth !== undefined && h.screenHeight !== undefined ? { width: h.screenWidth, height: h.screenHeight } : undefined,
    frame.observation?.screenSize,
    frame.screenPoints,
  ];
  const size = candidates.find((c): c is ScreenPoints => c !== undefined && c.width > 0 && c.height > 0);
  if (!size) return null;
  if (screenshotPixels && screenshotPixels.width > 0 && screenshotPixels.height > 0) {
    const pixels = screenshotPixels.width / screenshotPixels.height;
    const points = size.width / size.height;
    if (Math.abs(pixels - points) / points > ASPECT_TOLERANCE) return null;
  }
  return { width: size.width, height: size.height };
}

/** A point dragged past the screen's edge, brought back onto it: a finger cannot leave the glass. */
export function clampToScreen(p: Point, screen: ScreenPoints): Point {
  return { x: Math.min(screen.width, Math.max(0, p.x)), y: Math.min(screen.height, Math.max(0, p.y)) };
}
