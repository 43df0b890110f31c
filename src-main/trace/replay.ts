/**
 * Replaying a trace against a device (issue 6): every recorded action runs again, its target resolved
 * afresh from what the trace recorded about it, and each step is judged against the recorded result.
 *
 * The trace stores actions in one shape, written by `recordActionBefore` / `recordActionAfter` below
 * and read back by `replayTrace`; both live here so the writer and the reader cannot drift apart:
 *
 *   action.before  action: the ActionRequest with `action` renamed `kind` and its target (or
 *                          container) slot taken out; sendKeys also carries `text` / `replace` when it
 *                          types one text, which is the form the Maestro export reads
 *                  target: selector  {id} | {text} | {point} as the user gave it (absent for a picked node)
 *                          node      the element's attributes (no children) on the before-screen
 *                          nodeKey   its index path in the before-observation
 *                          point     where it is (the selector's point, or the node's centre)
 *                  observationRef: the before-screen's ViewHierarchy; screenshotRef: its PNG
 *   action.after   result: the whole ActionResult (backend, fallback and failure reasons, target record)
 */
import { ActionRequestSchema, type ActionRequest, type ActionResult, type Point, type TargetSelector } from '@shared/protocol/action';
import { selectorText, type Outcome, type PlainSelector, type ReplayReport, type ReplayStep } from '@shared/trace/replay-report';
import type { UiNode } from '@shared/protocol/runner';
import { flattenTree } from '@shared/model/tree';
import type { TimelineStep } from '@shared/trace/reader';
import type { ResourceRef, TraceAction, TraceActionResult, TraceTarget } from '@shared/trace/schema';
import type { OpenedTrace } from './open';
import type { TraceRecorder } from './recorder';
import type { DeviceConnection, ObservedFrame } from '@main/devices/connection';
import { resolveTarget } from '@shared/act/resolve';

// ---- The recorded shape -----------------------------------------------------------------------------

type ActionKind = ActionRequest['action'];

/** Where each action keeps the element it aims at: a tap's target, a swipe's or scroll's container. */
const SLOT: Record<ActionKind, 'target' | 'container'> = {
  tap: 'target',
  longPress: 'target',
  doubleTap: 'target',
  sendKeys: 'target',
  swipe: 'container',
  scrollTo: 'container',
  back: 'target',
  webTool: 'target',
};

function isActionKind(kind: string): kind is ActionKind {
  return Object.hasOwn(SLOT, kind);
}

/** Fields the trace adds for its other readers (the Maestro export, the flag); not part of a request. */
const TRACE_ONLY_FIELDS = new Set(['kind', 'text', 'replace', 'xctestOnly']);

function withoutChildren(node: UiNode): Record<string, unknown> {
  const { node: _children, ...attributes } = node as UiNode & { node?: unknown };
  return attributes;
}

/**
 * A field whose text the device hides. The trace redactor drops an action's own `text` for such a
 * target, but not texts nested in `steps`, so those are dropped here.
 */
function hidesText(node: Record<string, unknown> | undefined): boolean {
  if (!node) return false;
  if (node['password'] === 'true' || node['value-redacted'] === 'true') return true;
  return typeof node['className'] === 'string' && /secure/i.test(node['className']);
}

function centreOf(node: UiNode): Point | undefined {
  const b = node.bounds;
  if (!b || ![b.left, b.top, b.right, b.bottom].every((v) => typeof v === 'number' && Number.isFinite(v))) return undefined;
  return b ? { x: Math.round((b.left + b.right) / 2), y: Math.round((b.top + b.bottom) / 2) } : undefined;
}

/**
 * The action and target record of an action.before event. `beforeRoot` is the screen the user was
 * looking at; the target is resolved on it with the dispatcher's own rules, so the node recorded is the
 * one the dispatcher would pick there.
 */
export function traceActionFor(
  request: ActionRequest,
  beforeRoot: UiNode | undefined,
  options: { xctestOnly?: boolean } = {},
): { action: TraceAction; target?: TraceTarget } {
  const slot = SLOT[request.action];
  const { action: kind, ...rest } = request as ActionRequest & Record<string, unknown>;
  const selector = rest[slot] as TargetSelector | undefined;
  delete rest[slot];
  const action: TraceAction = { kind, ...rest, ...(options.xctestOnly ? { xctestOnly: true } : {}) };

  let target: TraceTarget | undefined;
  if (selector) {
    target = {};
    let node: UiNode | undefined;
    if ('node' in selector) node = selector.node;
    else {
      target.selector = { ...selector };
      const resolved = beforeRoot ? resolveTarget(selector, beforeRoot, { preferEditable: kind === 'sendKeys' }) : undefined;
      if (resolved?.kind === 'node') node = resolved.node;
    }
    if (node && beforeRoot) {
      const found = flattenTree(beforeRoot).find((f) => f.node === node);
      if (found) target.nodeKey = found.key;
    }
    if (node) target.node = withoutChildren(node);
    const point = 'point' in selector ? selector.point : node ? centreOf(node) : undefined;
    if (point) target.point = point;
  }

  if (request.action === 'sendKeys') {
    // A field the trace cannot see (no before-screen, keyboard focus) may be a password: fail closed.
    const secret = target?.node ? hidesText(target.node) : true;
    const steps = request.steps.map((step) => (secret && 'text' in step ? { kind: step.kind } : step));
    action['steps'] = steps;
    const texts = request.steps.filter((s) => s.kind === 'type' || s.kind === 'replace');
    const only = texts.length === 1 ? texts[0] : undefined;
    if (only && 'text' in only && !secret) {
      action['text'] = only.text;
      if (only.kind === 'replace') action['replace'] = true;
    }
  }
  return target ? { action, target } : { action };
}

async function frameResources(
  recorder: TraceRecorder,
  frame: ObservedFrame | null | undefined,
): Promise<{ observationRef?: ResourceRef; screenshotRef?: ResourceRef }> {
  if (!frame) return {};
  const hierarchy = frame.observation?.viewHierarchy;
  const [observationRef, screenshotRef] = await Promise.all([
    // The ViewHierarchy rather than the whole Observation: it is the screen form the Maestro export
    // reads (a bare Observation keeps its tree under `viewHierarchy`, which that reader does not know).
    hierarchy?.hierarchy ? recorder.addResource('observation', hierarchy) : undefined,
    frame.screenshot ? recorder.addResource('screenshot', Buffer.from(frame.screenshot.dataBase64, 'base64')) : undefined,
  ]);
  return { ...(observationRef ? { observationRef } : {}), ...(screenshotRef ? { screenshotRef } : {}) };
}

export interface RecordActionBeforeInput {
  callId: string;
  request: ActionRequest;
  /** The frame the user was looking at when the action was asked for. */
  before?: ObservedFrame | null;
  xctestOnly?: boolean;
  /** Epoch ms; defaults to now. */
  time?: number;
}

/** Writes an action.before: call it when the action is sent, so a crash mid-action leaves it in flight. */
export async function recordActionBefore(recorder: TraceRecorder, input: RecordActionBeforeInput): Promise<void> {
  const refs = await frameResources(recorder, input.before);
  const { action, target } = traceActionFor(input.request, input.before?.observation?.viewHierarchy?.hierarchy, { xctestOnly: input.xctestOnly });
  await recorder.append({
    type: 'action.before',
    callId: input.callId,
    action,
    ...(target ? { target } : {}),
    ...refs,
    ...(input.time !== undefined ? { time: input.time } : {}),
  });
}

/** Writes the action.after with the whole result and the frame after it. */
export async function recordActionAfter(
  recorder: TraceRecorder,
  input: { callId: string; result: ActionResult; after?: ObservedFrame | null; time?: number },
): Promise<void> {
  const refs = await frameResources(recorder, input.after);
  await recorder.append({
    type: 'action.after',
    callId: input.callId,
    result: input.result,
    ...refs,
    ...(input.time !== undefined ? { time: input.time } : {}),
  });
}

/** Both halves of a step that has already run (the device manager reports an ActionStep at its end). */
export async function recordActionStep(
  recorder: TraceRecorder,
  step: RecordActionBeforeInput & { result: ActionResult; after?: ObservedFrame | null; endTime?: number },
): Promise<void> {
  // Written after the fact, both events would carry the same moment; without a start time, the
  // result's own total puts the before where the action began, so the timeline shows its duration.
  const total = step.result.timings['total'];
  const time = step.time ?? (total !== undefined ? Math.round((step.endTime ?? Date.now()) - total) : undefined);
  await recordActionBefore(recorder, { ...step, ...(time !== undefined ? { time } : {}) });
  await recordActionAfter(recorder, {
    callId: step.callId,
    result: step.result,
    after: step.after,
    ...(step.endTime !== undefined ? { time: step.endTime } : {}),
  });
}

// ---- Replay -----------------------------------------------------------------------------------------

export type { Outcome, ReplayReport, ReplayStep, ReplayVerdict } from '@shared/trace/replay-report';

export interface ReplayOptions {
  /** Each step as soon as it is judged, for progress. */
  onStep?: (step: ReplayStep) => void;
  /** Stop at the first step that did not match (diverged or failed), or run them all. */
  stopOnDivergence: boolean;
  /** A stop button: checked between steps. */
  signal?: AbortSignal;
  /**
   * How long the device must push no new frame before the next step is sent (default 300 ms, at most
   * ten times that in all). See `settle`.
   */
  settleMs?: number;
}

/**
 * Refusals that mean "the screen moved under the action" and that ran nothing (mayHaveRun false). A
 * replay sends steps back to back, faster than the person who recorded them, so it meets these where
 * the recording did not; one more try, after the screen settles, tells that apart from a real change.
 */
const RACE_FAILURES = new Set<string>(['stale_observation', 'stale_snapshot', 'stale_frame_context', 'action_in_flight']);

/**
 * Waits until the connection has pushed no frame for `quietMs`. A step changes the screen; the device
 * pushes the change and the connection observes it (reading the bridge, which moves its capture
 * identity), and an action sent into that read is refused as stale. A recording made at a person's
 * pace never met that, so the replay waits for the same calm.
 */
function settle(connection: DeviceConnection, quietMs: number, signal?: AbortSignal): Promise<void> {
  if (quietMs <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(quiet);
      clearTimeout(cap);
      connection.off('frame', onFrame);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    let quiet = setTimeout(done, quietMs);
    const cap = setTimeout(done, quietMs * 10);
    const onFrame = () => {
      clearTimeout(quiet);
      quiet = setTimeout(done, quietMs);
    };
    connection.on('frame', onFrame);
    // Nothing is sent during the wait, so a stop need not sit it out.
    signal?.addEventListener('abort', done);
  });
}

function outcomeOf(result: TraceActionResult | ActionResult): Outcome {
  return {
    success: result.success,
    ...(result.backend !== undefined ? { backend: result.backend } : {}),
    ...(result.fallbackReason !== undefined ? { fallbackReason: result.fallbackReason } : {}),
    ...(result.failureReason !== undefined ? { failureReason: result.failureReason } : {}),
  };
}

function describeOutcome(o: Outcome): string {
  return o.success ? 'succeeded' : `failed (${o.failureReason ?? 'no reason given'})`;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

function readPoint(value: unknown): Point | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { x, y } = value as Record<string, unknown>;
  return typeof x === 'number' && typeof y === 'number' && Number.isFinite(x) && Number.isFinite(y) ? { x, y } : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The element's attributes as recorded: the target's node copy, else a picked node kept as the
 * selector itself (a writer that stores the request's selector as is).
 */
function recordedNode(target: TraceTarget | undefined): Record<string, unknown> | undefined {
  if (target?.node) return target.node;
  const picked = target?.selector?.['node'];
  return isRecord(picked) ? picked : undefined;
}

/** The user's own selector as one line for the report. */
export function recordedSelectorText(target: TraceTarget | undefined): string | undefined {
  const selector = target?.selector;
  if (selector) {
    const id = str(selector['id']);
    if (id !== undefined) return selectorText({ id });
    const text = str(selector['text']);
    if (text !== undefined) return selectorText({ text });
    const point = readPoint(selector['point']);
    if (point) return selectorText({ point });
  }
  const node = recordedNode(target);
  if (node) {
    const name = str(node['resource-id']) ?? str(node['content-desc']) ?? str(node['text']);
    return `node ${name !== undefined ? JSON.stringify(name) : (str(node['className']) ?? 'picked')}`;
  }
  const point = target?.point;
  return point ? selectorText({ point }) : undefined;
}

/**
 * The selectors to try, in order. The user's own selector comes first, whatever its kind, so a replay
 * asks for what the user asked for; after it, what the trace knows about the element, id before text.
 * A point is tried only when the trace knows no id or text: a point hits whatever is there now, so
 * falling back to it after the element's id and text went missing would act blind.
 */
function candidatesFor(target: TraceTarget | undefined): PlainSelector[] {
  const selector = target?.selector ?? {};
  const node = recordedNode(target) ?? {};
  const id = str(selector['id']);
  const text = str(selector['text']);
  const point = readPoint(selector['point']);
  const list: PlainSelector[] = [];
  const add = (s: PlainSelector) => {
    if (!list.some((t) => JSON.stringify(t) === JSON.stringify(s))) list.push(s);
  };
  if (id !== undefined) add({ id });
  if (text !== undefined) add({ text });
  if (point) add({ point });
  if (!point) {
    const nodeId = str(node['resource-id']);
    const nodeText = str(node['content-desc']) ?? str(node['text']);
    if (nodeId !== undefined) add({ id: nodeId });
    if (nodeText !== undefined) add({ text: nodeText });
    const bounds = node['bounds'];
    const at = target?.point ?? (isRecord(bounds) ? centreOf({ bounds } as UiNode) : undefined);
    if (list.length === 0 && at) add({ point: at });
  }
  return list;
}

/** Why a recorded action cannot be sent again at all, whatever its target resolves to. */
function unreplayable(action: TraceAction): string | undefined {
  if (!isActionKind(action.kind)) return `the action kind ${JSON.stringify(action.kind)} cannot be replayed`;
  if (action.kind === 'sendKeys' && Array.isArray(action['steps'])) {
    const blank = (action['steps'] as unknown[]).some((s) => {
      const step = s as Record<string, unknown>;
      return (step['kind'] === 'type' || step['kind'] === 'replace') && typeof step['text'] !== 'string';
    });
    if (blank) return 'the typed text is not in the trace (a secure or redacted field), so it cannot be typed again';
  }
  return undefined;
}

/** The request to send: the recorded action with its target slot filled by the resolved selector. */
function requestFor(action: TraceAction, selector: PlainSelector | undefined): { ok: true; request: ActionRequest } | { ok: false; why: string } {
  const kind = action.kind as ActionKind;
  const body: Record<string, unknown> = { action: kind };
  for (const [key, value] of Object.entries(action)) if (!TRACE_ONLY_FIELDS.has(key)) body[key] = value;
  if (selector) body[SLOT[kind]] = selector;
  const parsed = ActionRequestSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, why: `the recorded ${kind} is not a valid action (${issue ? `${issue.path.join('.') || 'action'}: ${issue.message}` : 'invalid'})` };
  }
  return { ok: true, request: parsed.data };
}

function compareOutcomes(recorded: Outcome, replayed: Outcome): string[] {
  const differences: string[] = [];
  if (recorded.backend !== replayed.backend) {
    differences.push(`other backend: recorded ${recorded.backend ?? 'none'}, replayed ${replayed.backend ?? 'none'}`);
  }
  if (recorded.fallbackReason !== replayed.fallbackReason) {
    differences.push(`other fallback: recorded ${recorded.fallbackReason ?? 'none'}, replayed ${replayed.fallbackReason ?? 'none'}`);
  }
  if (recorded.success !== replayed.success || recorded.failureReason !== replayed.failureReason) {
    differences.push(`other outcome: recorded ${describeOutcome(recorded)}, replayed ${describeOutcome(replayed)}`);
  }
  return differences;
}

function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}

async function replayStep(step: TimelineStep, connection: DeviceConnection, options: { settleMs: number; sendFallbacks: boolean }): Promise<ReplayStep> {
  const { settleMs } = options;
  const before = step.before;
  const kind = before?.action.kind ?? 'unknown';
  const recordedOutcome = step.after ? outcomeOf(step.after.result) : undefined;
  const recordedSelector = recordedSelectorText(before?.target);
  const report: ReplayStep = {
    index: step.index,
    callId: step.callId,
    kind,
    verdict: 'failed',
    differences: [],
    recorded: { status: step.status, ...(recordedSelector ? { selector: recordedSelector } : {}), ...(recordedOutcome ? { outcome: recordedOutcome } : {}) },
    replayed: {},
  };
  const fail = (why: string): ReplayStep => {
    report.replayed.error = why;
    report.differences.push(why);
    return report;
  };
  if (!before) return fail('the action itself is missing from the trace (only its result was recorded)');
  const xctestOnly = before.action['xctestOnly'] === true;

  // Checked before anything is read or sent, so a trace Parallax cannot replay touches nothing.
  const refused = unreplayable(before.action);
  if (refused !== undefined) return fail(refused);

  const started = performance.now();
  try {
    const list = candidatesFor(before.target);
    let chosen: PlainSelector | undefined;
    const missed: PlainSelector[] = [];
    if (list.length > 0) {
      // The read the dispatcher is about to make, judged by the dispatcher's own resolution rules, so a
      // selector that is not on this screen is found out before anything is sent.
      const frame = await connection.observe({ screenshot: false, ...(xctestOnly ? { xctestOnly: true } : {}) });
      const root = frame.observation?.viewHierarchy?.hierarchy;
      for (const candidate of list) {
        if (resolveTarget(candidate, root, { preferEditable: kind === 'sendKeys' }).kind !== 'notFound') {
          chosen = candidate;
          break;
        }
        missed.push(candidate);
      }
    }
    if (chosen && missed.length > 0 && !options.sendFallbacks) {
      // A fallback is a divergence known before anything is sent; a replay that stops at the first
      // divergence stops before acting on an element the recording may not have meant.
      report.differences.push(
        `target found by ${selectorText(chosen)}, not by ${missed.map(selectorText).join(' or ')}; not sent, as the replay stops at the first divergence`,
      );
      report.verdict = 'diverged';
      report.replayed.durationMs = Math.round(performance.now() - started);
      return report;
    }
    // When nothing resolves, the recorded selector still goes to the device: it finds nothing and so
    // runs nothing, and its own answer becomes the replayed result.
    const sent = chosen ?? list[0];
    const built = requestFor(before.action, sent);
    if (!built.ok) return fail(built.why);
    if (sent) report.replayed.selector = sent;

    const act = async () => (await connection.act(built.request, xctestOnly ? { xctestOnly: true } : undefined)).result;
    let result = await act();
    if (
      !result.success &&
      result.mayHaveRun === false &&
      RACE_FAILURES.has(result.failureReason ?? '') &&
      recordedOutcome?.failureReason !== result.failureReason
    ) {
      report.replayed.retriedAfter = result.failureReason!;
      await settle(connection, settleMs);
      result = await act();
    }
    report.replayed.result = result;
    report.replayed.outcome = outcomeOf(result);
    report.replayed.durationMs = Math.round(performance.now() - started);

    const notFound = list.length > 0 && (chosen === undefined || result.failureReason === 'target_not_found');
    if (notFound && recordedOutcome?.failureReason !== 'target_not_found') {
      // The outcome differs too, but only as a consequence; the one line says why.
      report.differences.push(`target not found: no element with ${(missed.length > 0 ? missed : list).map(selectorText).join(' or ')}`);
    } else {
      if (chosen && missed.length > 0) report.differences.push(`target found by ${selectorText(chosen)}, not by ${missed.map(selectorText).join(' or ')}`);
      if (recordedOutcome) report.differences.push(...compareOutcomes(recordedOutcome, report.replayed.outcome));
      else report.differences.push(`no recorded outcome to compare: the action was ${step.statusText || 'in flight when the trace stopped'}`);
    }
    report.verdict = report.differences.length === 0 ? 'matched' : 'diverged';
    return report;
  } catch (error) {
    report.replayed.durationMs = Math.round(performance.now() - started);
    return fail(`could not run on the device: ${oneLine(error)}`);
  }
}

/**
 * Runs the trace's actions again on `connection`, in order, one at a time. Observations, comparisons
 * and notes in the trace are not actions and are passed over. Never throws for a step: a step that
 * cannot run is reported as failed.
 */
export async function replayTrace(opened: Pick<OpenedTrace, 'timeline'>, connection: DeviceConnection, options: ReplayOptions): Promise<ReplayReport> {
  const actions = opened.timeline.filter((step) => step.kind === 'action');
  const report: ReplayReport = { steps: [], matched: 0, diverged: 0, failed: 0, total: actions.length, notRun: 0 };
  const settleMs = options.settleMs ?? 300;
  for (const [i, step] of actions.entries()) {
    // Checked after the wait for a still screen: a stop pressed during it is a stop between steps.
    await settle(connection, settleMs, options.signal);
    if (options.signal?.aborted) {
      report.stopped = { reason: 'aborted', ...(report.steps.length > 0 ? { afterCallId: report.steps.at(-1)!.callId } : {}) };
      report.notRun = actions.length - i;
      break;
    }
    const done = await replayStep(step, connection, { settleMs, sendFallbacks: !options.stopOnDivergence });
    report.steps.push(done);
    report[done.verdict]++;
    options.onStep?.(done);
    if (done.verdict !== 'matched' && options.stopOnDivergence) {
      report.notRun = actions.length - i - 1;
      if (report.notRun > 0) report.stopped = { reason: 'divergence', afterCallId: done.callId };
      break;
    }
  }
  return report;
}
