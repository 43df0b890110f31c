/**
 * Recording actions into a trace and replaying a trace against a device: every recorded action runs
 * again, its target resolved afresh from what the trace recorded about it, and each step is judged
 * against the recorded result. The shape an action is kept in is the trace format's own
 * (src-shared/trace/action-record.ts); this is the I/O around it.
 */
import type { ActionRequest, ActionResult } from '@shared/protocol/action';
import { selectorText, type PlainSelector, type ReplayReport, type ReplayStep } from '@shared/trace/replay-report';
import { candidatesFor, compareOutcomes, outcomeOf, recordedSelectorText, requestFor, traceActionFor, unreplayable } from '@shared/trace/action-record';
import type { TimelineStep } from '@shared/trace/reader';
import type { ResourceRef } from '@shared/trace/schema';
import type { OpenedTrace } from './open';
import type { TraceRecorder } from './recorder';
import type { DeviceConnection } from '@main/devices/connection';
import { resolveTarget } from '@shared/act/resolve';
import { outcomeClassOf } from '@shared/act/verdict';
import type { ObservedFrame } from '@shared/api/api';

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
  input: { callId: string; result: ActionResult; after?: ObservedFrame | null; time?: number; appStateRef?: ResourceRef | undefined },
): Promise<void> {
  const refs = await frameResources(recorder, input.after);
  await recorder.append({
    type: 'action.after',
    callId: input.callId,
    result: input.result,
    ...refs,
    ...(input.appStateRef !== undefined ? { appStateRef: input.appStateRef } : {}),
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
    // Only an answer that says nothing ran is tried again (docs/rules.md#r-act-04): never one that may have run.
    if (outcomeClassOf(result) === 'notRun' && RACE_FAILURES.has(result.failureReason ?? '') && recordedOutcome?.failureReason !== result.failureReason) {
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
