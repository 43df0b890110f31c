/**
 * Recording actions into a trace and replaying a trace against a device (docs/rules.md#r-rpl): every
 * recorded action runs again, its target found afresh on the screen the device shows now, and each step
 * is judged by that screen against the recorded one. The shape an action is kept in is the trace
 * format's own (src-shared/trace/action-record.ts), the judging is pure (replay-target.ts,
 * compare/screens.ts); this is the I/O around it.
 *
 * Over 500 lines on purpose: recording and replaying are one vocabulary (a step becomes a request and a
 * result becomes a step), and the one I/O loop (replayStep) reads best whole; its pure parts already live
 * in src-shared/trace.
 */
import type { ActionRequest, ActionResult, TargetSelector } from '@shared/protocol/action';
import { judgedStep, type ReplayReport, type ReplayStep, type Ran, type RecordedFrame } from '@shared/trace/replay-report';
import {
  assertionDifferences,
  compareOutcomes,
  outcomeOf,
  PlainSelectorSchema,
  recordedFailedAssertion,
  recordedSelectorText,
  requestFor,
  startsOver,
  traceActionFor,
  typesSecret,
  unreplayable,
  withSecret,
} from '@shared/trace/action-record';
import { filmstripNumbers, type TimelineStep } from '@shared/trace/reader';
import type { ResourceRef } from '@shared/trace/schema';
import { toScreen, type ExportScreen } from '@shared/trace/export-plan';
import { findRecordedTarget, focusedFieldAgain, focusedName, targetDiverges, type FoundTarget } from '@shared/trace/replay-target';
import { secretVariableOf, stepVariable, traceVariables } from '@shared/trace/variables';
import { redactForTrace } from '@shared/trace/redact';
import { compareScreens, type ScreenComparison } from '@shared/compare/screens';
import { describeSelector } from '@shared/act/describe';
import { withoutChildren } from '@shared/model/node';
import { isEditableNode } from '@shared/model/target';
import { resolveTarget } from '@shared/act/resolve';
import { outcomeClassOf } from '@shared/act/verdict';
import type { OpenedTrace } from './open';
import type { TraceRecorder } from './recorder';
import type { DeviceConnection } from '@main/connection/connection';
import { frameFindingsOffThread, storedFindingsOffThread } from '@main/a11y/off-thread';
import { diffFindings, findingsDiffSummary, type StepFindings } from '@shared/a11y';
import type { ObservedFrame } from '@shared/protocol/device';
import type { UiNode } from '@shared/protocol/runner';
import { ReplayPerfWindows } from './replay-perf';

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
  /**
   * When the before event is written with the result (SessionRecording does): the read after and the
   * result, which say whether the typed text is a secret when no screen came before (docs/rules.md#r-secret-09).
   */
  known?: { after?: ObservedFrame | null; result?: ActionResult };
}

/** Writes an action.before: call it when the action is sent, so a crash mid-action leaves it in flight. */
export async function recordActionBefore(recorder: TraceRecorder, input: RecordActionBeforeInput): Promise<void> {
  const [refs, a11y] = await Promise.all([frameResources(recorder, input.before), a11yOf(input.before)]);
  const { action, target } = traceActionFor(input.request, input.before?.observation?.viewHierarchy?.hierarchy, {
    xctestOnly: input.xctestOnly,
    after: input.known?.after?.observation?.viewHierarchy?.hierarchy,
    result: input.known?.result,
  });
  await recorder.append({
    type: 'action.before',
    callId: input.callId,
    action,
    ...(target ? { target } : {}),
    ...refs,
    ...(input.time !== undefined ? { time: input.time } : {}),
    ...a11y,
  });
}

/** Writes the action.after with the whole result and the frame after it. */
export async function recordActionAfter(
  recorder: TraceRecorder,
  input: { callId: string; result: ActionResult; after?: ObservedFrame | null; time?: number; appStateRef?: ResourceRef | undefined },
): Promise<void> {
  const [refs, a11y] = await Promise.all([frameResources(recorder, input.after), a11yOf(input.after)]);
  await recorder.append({
    type: 'action.after',
    callId: input.callId,
    result: input.result,
    ...refs,
    ...(input.appStateRef !== undefined ? { appStateRef: input.appStateRef } : {}),
    ...(input.time !== undefined ? { time: input.time } : {}),
    ...a11y,
  });
}

/**
 * A frame's findings as its event keeps them (docs/rules.md#r-a11y-19), or nothing to add: audited in the
 * audit worker (docs/rules.md#r-a11y-24), as the live panel's are, never on the host's thread.
 */
async function a11yOf(frame: ObservedFrame | null | undefined): Promise<{ a11y?: StepFindings }> {
  if (!frame) return {};
  // A step's after frame is often the next one's before: audited once.
  let findings = stepAudits.get(frame);
  if (!findings) stepAudits.set(frame, (findings = frameFindingsOffThread(frame)));
  const a11y = await findings;
  return a11y ? { a11y } : {};
}
const stepAudits = new WeakMap<ObservedFrame, Promise<StepFindings | undefined>>();

/** Both halves of a step that has already run (the device manager reports an ActionStep at its end). */
export async function recordActionStep(
  recorder: TraceRecorder,
  step: RecordActionBeforeInput & { result: ActionResult; after?: ObservedFrame | null; endTime?: number },
): Promise<void> {
  // Written after the fact, both events would carry the same moment; without a start time, the
  // result's own total puts the before where the action began, so the timeline shows its duration.
  const total = step.result.timings['total'];
  const time = step.time ?? (total !== undefined ? Math.round((step.endTime ?? Date.now()) - total) : undefined);
  await recordActionBefore(recorder, { ...step, known: { after: step.after, result: step.result }, ...(time !== undefined ? { time } : {}) });
  await recordActionAfter(recorder, {
    callId: step.callId,
    result: step.result,
    after: step.after,
    ...(step.endTime !== undefined ? { time: step.endTime } : {}),
  });
}

// ---- Replay -----------------------------------------------------------------------------------------

export type { ComparedOutcome, ReplayReport, ReplayStep, ReplayVerdict } from '@shared/trace/replay-report';

/** The replayed frames of one step, redacted as a trace is, for the side-by-side view. */
export interface ReplayedFrames {
  before?: ObservedFrame;
  after?: ObservedFrame;
}

export interface ReplayOptions {
  /** Each step as soon as it is judged, for progress. */
  onStep?: (step: ReplayStep) => void;
  /**
   * Where a step's replayed frames go, before `onStep` hears of it (the host keeps them in memory, the
   * CLI writes them to a folder); answers which of them it kept.
   */
  keepFrames?: (step: ReplayStep, frames: ReplayedFrames) => { before: boolean; after: boolean } | Promise<{ before: boolean; after: boolean }>;
  /** Stop at the first step that did not match (diverged or failed), or run them all. */
  stopOnDivergence: boolean;
  /** A stop button: checked between steps. */
  signal?: AbortSignal;
  /**
   * How long the device must push no new frame before the next step is sent (default 300 ms, at most
   * ten times that in all). See `settle`.
   */
  settleMs?: number;
  /**
   * The values of the secrets the trace types but does not hold, by variable name (`traceVariables`).
   * Typed where the trace left them out, and kept out of the report and the frames.
   */
  variables?: ReadonlyMap<string, string>;
  /**
   * "Relaunch first" (docs/rules.md#r-life-05): relaunch the app (cold boot) before step 1, so the
   * replay starts where a recording from launch did. `bundleId` absent: the app on screen.
   */
  relaunchFirst?: { bundleId?: string | undefined };
  /** Start at this step (docs/rules.md#r-edit-07): the steps before it are not run, nor counted. */
  fromCallId?: string | undefined;
  /** Run the `fromCallId` step alone. */
  only?: boolean | undefined;
}

/** The step a partial replay names is not an action of the trace: refused before anything is sent. */
export class ReplayRangeError extends Error {
  override readonly name = 'ReplayRangeError';
}

/** The actions a replay runs (docs/rules.md#r-edit-07): all, from one step on, or that step alone. */
export function replayedActions<S extends { kind: string; callId: string }>(timeline: readonly S[], fromCallId?: string, only?: boolean): S[] {
  const actions = timeline.filter((step) => step.kind === 'action');
  if (fromCallId === undefined) {
    if (only) throw new ReplayRangeError('only one step: name it (fromCallId)');
    return actions;
  }
  const at = actions.findIndex((step) => step.callId === fromCallId);
  if (at < 0) throw new ReplayRangeError(`the trace has no step ${JSON.stringify(fromCallId)} to start from`);
  return only ? actions.slice(at, at + 1) : actions.slice(at);
}

/** The trace names variables the replay was not given: refused before anything is read or sent. */
export class ReplayVariablesError extends Error {
  override readonly name = 'ReplayVariablesError';
  constructor(readonly missing: readonly string[]) {
    super(
      `the trace types ${missing.length === 1 ? 'a secret' : `${missing.length} secrets`} it does not hold: give ${missing.map((n) => `${n}`).join(', ')} (in the CLI at the prompt, --var-file FILE or --env NAME; the Replay panel asks for them)`,
    );
  }
}

/** The variables `steps` type that `given` has no value for. */
export function missingVariables(steps: readonly TimelineStep[], given: ReadonlyMap<string, string> | undefined): string[] {
  return traceVariables(steps)
    .map((v) => v.name)
    .filter((name) => given?.get(name) === undefined);
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

/** Whether a result ran on the device (docs/rules.md#r-rpl-06), by the outcome table of docs/rules.md#r-act-01. */
function ranOf(result: ActionResult): Ran {
  const cls = outcomeClassOf(result);
  return cls === 'done' ? 'yes' : cls === 'mayHaveRun' ? 'maybe' : 'no';
}

function recordedFrame(
  event: { observationRef?: string | undefined; screenshotRef?: string | undefined; time: number } | undefined,
): RecordedFrame | undefined {
  if (!event || (!event.observationRef && !event.screenshotRef)) return undefined;
  return {
    ...(event.observationRef ? { observationRef: event.observationRef } : {}),
    ...(event.screenshotRef ? { screenshotRef: event.screenshotRef } : {}),
    time: event.time,
  };
}

interface StepContext {
  trace: Pick<OpenedTrace, 'resourceJson'> & Partial<Pick<OpenedTrace, 'resource' | 'hasResource'>>;
  connection: DeviceConnection;
  settleMs: number;
  stopOnDivergence: boolean;
  variables: ReadonlyMap<string, string>;
  signal: AbortSignal | undefined;
  /** Each step's perf window this time (docs/rules.md#r-perfstep-05). */
  perf: ReplayPerfWindows;
}

/** A recorded screen from the trace, or why there is none to compare with. */
async function recordedScreen(trace: StepContext['trace'], ref: string | undefined): Promise<ExportScreen | string> {
  if (ref === undefined) return 'the trace holds no screen for it';
  try {
    return toScreen(await trace.resourceJson(ref)) ?? 'its recorded screen holds no tree';
  } catch (error) {
    return `its recorded screen cannot be read (${oneLine(error)})`;
  }
}

/**
 * What to send as the target: the recorded selector when it finds the same element now (what the user
 * asked for), a recorded point as it was, else the element found, as a click on it would send it
 * (revalidated by the dispatcher on its own fresh read).
 */
function targetToSend(step: TimelineStep, found: FoundTarget | undefined, root: UiNode | undefined, preferEditable: boolean): TargetSelector | undefined {
  const selector = step.before?.target?.selector;
  if (selector) {
    const point = selector['point'];
    if (typeof point === 'object' && point !== null) {
      const { x, y } = point as { x?: unknown; y?: unknown };
      if (typeof x === 'number' && typeof y === 'number') return { point: { x, y } };
    }
    const id = selector['id'];
    const text = selector['text'];
    const plain = typeof id === 'string' && id !== '' ? { id } : typeof text === 'string' && text !== '' ? { text } : undefined;
    if (plain) {
      const resolved = resolveTarget(plain, root, { preferEditable });
      if (resolved.kind === 'node' && found?.node !== undefined && resolved.node === found.node) return plain;
    }
  }
  if (found?.node) return { node: withoutChildren(found.node) };
  if (found?.check.by.kind === 'point') return { point: found.check.by.point };
  return undefined;
}

function rootOf(frame: ObservedFrame | undefined) {
  return frame?.observation?.viewHierarchy?.hierarchy;
}

/** A frame with its tree redacted as a trace is (secret fields, the values typed for the replay); its screenshot as it is. */
function redactedFrame(frame: ObservedFrame | undefined, secrets: readonly string[]): ObservedFrame | undefined {
  if (!frame) return undefined;
  return { ...frame, observation: frame.observation ? redactForTrace(frame.observation, { secrets, anyLength: true }) : null };
}

async function replayStep(ctx: StepContext, step: TimelineStep, number: number): Promise<{ report: ReplayStep; frames: ReplayedFrames }> {
  const { connection, settleMs } = ctx;
  const before = step.before;
  const kind = before?.action.kind ?? 'unknown';
  const recordedOutcome = step.after ? outcomeOf(step.after.result) : undefined;
  const recordedSelector = recordedSelectorText(before?.target);
  const recordedBefore = recordedFrame(before);
  const recordedAfter = recordedFrame(step.after);
  const report: ReplayStep = {
    index: step.index,
    number,
    callId: step.callId,
    kind,
    verdict: 'failed',
    differences: [],
    notes: [],
    changes: [],
    ran: 'no',
    screens: {},
    recorded: {
      status: step.status,
      ...(recordedSelector ? { selector: recordedSelector } : {}),
      ...(recordedOutcome ? { outcome: recordedOutcome } : {}),
      ...(recordedBefore ? { before: recordedBefore } : {}),
      ...(recordedAfter ? { after: recordedAfter } : {}),
    },
    replayed: { frames: { before: false, after: false } },
  };
  const frames: ReplayedFrames = {};
  const done = () => {
    const judged = judgedStep(report.target, report.screens);
    if (judged.target) report.target = judged.target;
    report.changes = judged.changes;
    return { report, frames };
  };
  const fail = (why: string) => {
    report.verdict = 'failed';
    report.replayed.error = why;
    report.differences.push(why);
    return done();
  };
  if (!before) return fail('the action itself is missing from the trace (only its result was recorded)');
  const xctestOnly = before.action['xctestOnly'] === true;
  const readOptions = xctestOnly ? { xctestOnly: true } : {};

  // Checked before anything is read or sent, so a trace Parallax cannot replay touches nothing.
  const refused = unreplayable(before.action);
  if (refused !== undefined) return fail(refused);
  let action = before.action;
  const secrets = [...ctx.variables.values()];
  if (typesSecret(action)) {
    const name = stepVariable(step, number);
    const value = name === undefined ? undefined : ctx.variables.get(name);
    if (name === undefined || value === undefined) return fail(`the typed text is a secret the trace does not hold: give ${name ?? 'its variable'} to type it`);
    action = withSecret(action, value);
    report.replayed.variable = name;
  }

  const started = performance.now();
  let sending = false;
  try {
    const [recordedBeforeScreen, recordedAfterScreen] = await Promise.all([
      recordedScreen(ctx.trace, before.observationRef),
      recordedScreen(ctx.trace, step.after?.observationRef),
    ]);
    const preferEditable = kind === 'sendKeys';
    const failedWhenRecorded = recordedFailedAssertion(kind, step.after?.result);

    // The screen the step meets, read as the dispatcher will read it, and judged before anything is sent.
    const observed = await connection.observe(readOptions);
    frames.before = observed;
    report.replayed.beforeTime = observed.receivedAt;
    let root = rootOf(observed);
    const judgeBefore = (): { found: FoundTarget | undefined; diverges: string[] } => {
      const diverges: string[] = [];
      // A relaunch starts over from any screen: the one it was recorded on is not the state it needs.
      const screen = typeof recordedBeforeScreen === 'string' || startsOver(before.action) ? undefined : recordedBeforeScreen;
      if (screen && root) {
        report.screens.before = compareScreens(screen.root, root);
        if (report.screens.before.differs) diverges.push(`the screen before differs: ${report.screens.before.summary}`);
      } else {
        delete report.screens.before;
      }
      // "Not visible" is the one step whose target is meant to be absent: nothing to find again.
      const absentByDesign = kind === 'assert' && before.action['check'] === 'notVisible';
      const found = absentByDesign ? undefined : findRecordedTarget(step, screen, root, { preferEditable });
      if (found) {
        report.target = found.check;
        // A target moved or renamed that the exported selector still finds alone runs, as the exported
        // flow would run it (docs/rules.md#r-rpl-10); the step's changes say what changed.
        // A recorded failing assertion (docs/rules.md#r-asrt-04) was recorded with its target not as it
        // asked: the assertion's own result, compared with the recorded one, is the judge.
        if (targetDiverges(found.check.verdict) && !failedWhenRecorded) diverges.push(found.check.detail);
      }
      return { found, diverges };
    };
    let judged = judgeBefore();
    if (typeof recordedBeforeScreen === 'string') report.notes.push(`the screen before is not compared: ${recordedBeforeScreen}`);

    const notSent = (why: string) => {
      report.differences.push(...judged.diverges);
      // A secret's field that moved stops the step without diverging it otherwise: the guard is the difference.
      if (judged.diverges.length === 0) report.differences.push(`not sent: ${why}`);
      report.notes.push(`not sent: ${why}`);
      report.verdict = 'diverged';
      report.replayed.durationMs = Math.round(performance.now() - started);
      return done();
    };
    if (judged.diverges.length > 0 && ctx.stopOnDivergence) return notSent('the replay stops at the first divergence');
    // Keys of a secret step aimed at no field go to the keyboard focus, once the guard has seen where it is (docs/rules.md#r-trust-03).
    let keysToFocus = false;
    const guardSecret = (): string | undefined => {
      const screen = typeof recordedBeforeScreen === 'string' ? undefined : recordedBeforeScreen;
      const checked = secretGuard(report.replayed.variable, judged, { step, number, screen, frame: frames.before });
      keysToFocus = 'to' in checked && checked.to === 'focus';
      if (keysToFocus && 'field' in checked) {
        const note = `${report.replayed.variable} goes to the keyboard focus: the step aims at no field, and ${checked.field}, which the keys followed when it was recorded, has the focus`;
        if (!report.notes.includes(note)) report.notes.push(note);
      }
      return 'refused' in checked ? checked.refused : undefined;
    };
    const secretRefused = guardSecret();
    if (secretRefused !== undefined) return notSent(secretRefused);
    const verdict = report.target?.verdict;
    // An assertion sends nothing to the app: it is checked even on a missing target, and says what it found.
    if (kind !== 'assert' && (verdict === 'missing' || verdict === 'ambiguous'))
      return notSent(verdict === 'missing' ? 'the target is not on the screen' : 'which of the elements was meant is not known');

    const send = async (): Promise<{ result: ActionResult; after: ObservedFrame | undefined }> => {
      // An assertion on an element not found again is checked by its recorded selector: it says what it found.
      const target = keysToFocus
        ? undefined
        : (targetToSend(step, judged.found, root, preferEditable) ??
          (kind === 'assert' ? PlainSelectorSchema.safeParse(before.target?.selector).data : undefined));
      const built = requestFor(action, target);
      if (!built.ok) throw new NotSent(built.why);
      report.replayed.sent = target === undefined ? (kind === 'sendKeys' ? 'keyboard focus' : 'no target') : describeSelector(target);
      sending = true;
      ctx.perf.sent(step.callId);
      const acted = await connection.act(built.request, xctestOnly ? { xctestOnly: true } : undefined);
      ctx.perf.answered(step.callId, step.perf?.after.sampleCount);
      return { result: acted.result, after: acted.after };
    };
    let acted = await send();
    // Only an answer that says nothing ran is tried again (docs/rules.md#r-act-04): never one that may have run.
    if (
      outcomeClassOf(acted.result) === 'notRun' &&
      RACE_FAILURES.has(acted.result.failureReason ?? '') &&
      recordedOutcome?.failureReason !== acted.result.failureReason
    ) {
      report.replayed.retriedAfter = acted.result.failureReason!;
      report.notes.push(`sent again after ${acted.result.failureReason} (the device said nothing ran)`);
      await settle(connection, settleMs);
      // Found afresh on the settled screen: the element the first try aimed at may have been replaced.
      const again = await connection.observe(readOptions);
      frames.before = again;
      report.replayed.beforeTime = again.receivedAt;
      root = rootOf(again);
      judged = judgeBefore();
      const now = report.target?.verdict;
      if (now === 'missing' || now === 'ambiguous') {
        report.ran = 'no';
        return notSent(`the retry found ${now === 'missing' ? 'no target' : 'several targets'} on the settled screen`);
      }
      const refusedNow = guardSecret();
      if (refusedNow !== undefined) return notSent(refusedNow);
      acted = await send();
    }
    const result = redactForTrace(acted.result, { secrets, anyLength: true });
    report.replayed.result = result;
    report.replayed.outcome = outcomeOf(result);
    report.ran = ranOf(result);
    report.differences.push(...judged.diverges);
    // A failed assertion is a divergence that shows both values (docs/rules.md#r-asrt-03).
    // One recorded failing matches a replay that fails the same way (docs/rules.md#r-asrt-04).
    if (kind === 'assert') report.differences.push(...assertionDifferences(step.after?.result, result));

    // The screen after, against the recorded one; a screen still changing gets one settled read more.
    const afterScreen = typeof recordedAfterScreen === 'string' ? undefined : recordedAfterScreen;
    let after = acted.after;
    if (after) frames.after = after;
    if (afterScreen && rootOf(after)) {
      let compared: ScreenComparison = compareScreens(afterScreen.root, rootOf(after)!);
      if (compared.differs && report.ran !== 'no') {
        await settle(connection, settleMs, ctx.signal);
        after = await connection.observe(readOptions);
        frames.after = after;
        compared = compareScreens(afterScreen.root, rootOf(after)!);
      }
      report.screens.after = compared;
      if (compared.differs) report.differences.push(`the screen after differs: ${compared.summary}`);
    } else if (step.after) {
      report.notes.push(
        `the screen after is not compared: ${typeof recordedAfterScreen === 'string' ? recordedAfterScreen : 'the replay read no tree after it'}`,
      );
    }
    if (after) report.replayed.afterTime = after.receivedAt;

    if (recordedOutcome) {
      const outcome = compareOutcomes(recordedOutcome, report.replayed.outcome);
      // Another backend that answered otherwise (the bridge refuses a disabled button XCTest taps in
      // vain) is the backend's way, not the app's, when nothing ran and the screen after agrees
      // (docs/rules.md#r-rpl-03): reported, not judged.
      const backendsAnswer =
        recordedOutcome.backend !== report.replayed.outcome.backend &&
        report.ran === 'no' &&
        report.screens.after !== undefined &&
        !report.screens.after.differs;
      if (backendsAnswer) report.notes.push(...outcome.differences.map((d) => `${d} (another backend; nothing ran and the screen after agrees)`));
      else report.differences.push(...outcome.differences);
      report.notes.push(...outcome.notes);
    } else {
      report.differences.push(`no recorded outcome to compare: the action was ${step.statusText || 'in flight when the trace stopped'}`);
    }
    // A step that may have run and did not end as recorded is a failure: what it did is not known.
    report.verdict = report.differences.length === 0 ? 'matched' : report.ran === 'maybe' ? 'failed' : 'diverged';
    report.replayed.durationMs = Math.round(performance.now() - started);
    return done();
  } catch (error) {
    report.replayed.durationMs = Math.round(performance.now() - started);
    if (error instanceof NotSent) return fail(error.message);
    // A call that threw once something was on its way may have run: it is never sent again.
    report.ran = sending ? 'maybe' : 'no';
    return fail(`could not run on the device: ${oneLine(error)}`);
  } finally {
    frames.before = redactedFrame(frames.before, secrets);
    frames.after = redactedFrame(frames.after, secrets);
  }
}

/** What a secret step may send: nothing (why), to its target, or to the keyboard focus (the field that has it). */
type SecretSend = { refused: string } | { to: 'target' } | { to: 'focus'; field: string };

/**
 * A secret goes only to the field it was recorded for, on the screen it was recorded on
 * (docs/rules.md#r-trust-02): a step that types one and diverged in any way sends nothing, whatever
 * `stopOnDivergence` says, and one whose field is not found (typing into whatever has the focus) neither.
 * A step aimed at no field (a web `<label>`) goes to the focus only when the device's own read shows the
 * field the keys followed when it was recorded focused, and the variable names that field
 * (docs/rules.md#r-trust-03).
 */
function secretGuard(
  variable: string | undefined,
  judged: { found: FoundTarget | undefined; diverges: string[] },
  at: { step: TimelineStep; number: number; screen: ExportScreen | undefined; frame: ObservedFrame | undefined },
): SecretSend {
  if (variable === undefined) return { to: 'target' };
  const refused = (why: string): SecretSend => ({ refused: `${variable} is typed only into the field it was recorded for${why}` });
  const recorded = at.step.before?.target;
  if (judged.diverges.length > 0) return refused(', on the screen it was recorded on, and this step diverged');
  // Stricter than a plain step's: a moved or renamed field is not "the field it was recorded for" here.
  if (judged.found?.node === undefined || judged.found.check.verdict !== 'found') return refused(', and that field was not found');
  // A step no read saw the field of (docs/rules.md#r-secret-09) holds only what it was given: a point
  // names a place, and whatever is there now is no field the trace knows.
  if (!recorded?.node && judged.found.check.by.kind === 'point') return refused(', and the trace names no field, only a point');
  if (isEditableNode(judged.found.node)) return { to: 'target' };
  // Keys sent to anything else go to whatever has the focus (a hostile trace can aim a step at a button):
  // only the device's own focus on the field they followed when recorded says where (docs/rules.md#r-trust-03).
  const notField = `, and the element found (${focusedName(judged.found.node)}) is not a text field: the keys would go to whatever has the focus`;
  const root = rootOf(at.frame);
  const focus = focusedFieldAgain(at.step, at.screen, root, at.frame?.observation?.focusedElement);
  if ('refused' in focus) return refused(`${notField}, and ${focus.refused}`);
  const named = secretVariableOf(focus.target, at.number);
  if (named.name !== variable)
    return refused(`${notField}, and the focus is on ${focusedName(focus.field)}, which ${variable} does not name (it names ${named.name})`);
  return { to: 'focus', field: focusedName(focus.field) };
}

/**
 * The findings of the last screen both sides have (after the step, else before it: a step not sent
 * still shows its screen) against the recording's (docs/rules.md#r-a11y-20): those the recorder kept,
 * else the recorded frame audited now; said in a note when any is new or gone. Reported, not judged:
 * the verdict stays the screens' and the outcome's.
 */
async function compareFindings(trace: StepContext['trace'], step: TimelineStep, frames: ReplayedFrames, report: ReplayStep): Promise<void> {
  const screen = frames.after && step.after ? 'after' : frames.before && step.before ? 'before' : undefined;
  if (!screen) return;
  const recordedEvent = screen === 'after' ? step.after! : step.before!;
  // Both in the audit worker (docs/rules.md#r-a11y-24): replay runs on the host's thread.
  const [replayed, recorded] = await Promise.all([frameFindingsOffThread(frames[screen]), recordedEvent.a11y ?? recordedFindings(trace, recordedEvent)]);
  if (!replayed || !recorded) return;
  report.a11y = { screen, ...diffFindings(recorded, replayed) };
  if (report.a11y.new.length > 0 || report.a11y.gone.length > 0) report.notes.push(`${findingsDiffSummary(report.a11y)} (the screen ${screen})`);
}

async function recordedFindings(
  trace: StepContext['trace'],
  frame: { observationRef?: string | undefined; screenshotRef?: string | undefined },
): Promise<StepFindings | undefined> {
  if (!frame.observationRef) return undefined;
  try {
    const png = frame.screenshotRef && trace.resource && trace.hasResource?.(frame.screenshotRef) ? await trace.resource(frame.screenshotRef) : undefined;
    return await storedFindingsOffThread(await trace.resourceJson(frame.observationRef), png);
  } catch {
    return undefined;
  }
}

/** The request could not be built from the record: nothing was sent. */
class NotSent extends Error {}

/**
 * Runs the trace's actions again on `connection`, in order, one at a time. Observations, comparisons
 * and notes in the trace are not actions and are passed over. Never throws for a step: a step that
 * cannot run is reported as failed. Throws ReplayVariablesError, before anything is read or sent, when a
 * secret the trace types has no value in `options.variables`.
 */
export async function replayTrace(
  opened: Pick<OpenedTrace, 'timeline' | 'resourceJson'> & Partial<Pick<OpenedTrace, 'resource' | 'hasResource'>>,
  connection: DeviceConnection,
  options: ReplayOptions,
): Promise<ReplayReport> {
  const variables = options.variables ?? new Map<string, string>();
  const missing = missingVariables(opened.timeline, variables);
  if (missing.length > 0) throw new ReplayVariablesError(missing);
  const actions = replayedActions(opened.timeline, options.fromCallId, options.only);
  const report: ReplayReport = { steps: [], matched: 0, diverged: 0, failed: 0, changed: 0, total: actions.length, notRun: 0, unreached: [] };
  const settleMs = options.settleMs ?? 300;
  const perf = new ReplayPerfWindows(connection);
  const ctx: StepContext = { trace: opened, connection, settleMs, stopOnDivergence: options.stopOnDivergence, variables, signal: options.signal, perf };
  try {
    return await replaySteps(ctx, opened, actions, report, options);
  } finally {
    perf.dispose();
  }
}

async function replaySteps(
  ctx: StepContext,
  opened: Pick<OpenedTrace, 'timeline'>,
  actions: readonly TimelineStep[],
  report: ReplayReport,
  options: ReplayOptions,
): Promise<ReplayReport> {
  const { connection, settleMs } = ctx;
  const numbers = filmstripNumbers(opened.timeline);
  const unreached = (from: number) =>
    actions
      .slice(from)
      .map((s) => numbers.get(s.callId))
      .filter((n): n is number => n !== undefined);
  if (options.relaunchFirst) {
    const bundleId = options.relaunchFirst.bundleId;
    const { result } = await connection.act({ action: 'launch', relaunch: true, ...(bundleId !== undefined ? { bundleId } : {}) });
    report.relaunchedFirst = {
      success: result.success,
      ...(result.failureReason !== undefined ? { failureReason: result.failureReason } : {}),
      ...(result.target.selector !== undefined ? { bundleId: result.target.selector } : {}),
    };
  }
  if (actions.some((step) => step.perf)) await ctx.perf.firstPush(options.signal);
  for (const [i, step] of actions.entries()) {
    // Checked after the wait for a still screen: a stop pressed during it is a stop between steps.
    await settle(connection, settleMs, options.signal);
    if (options.signal?.aborted) {
      report.stopped = { reason: 'aborted', ...(report.steps.length > 0 ? { afterCallId: report.steps.at(-1)!.callId } : {}) };
      report.notRun = actions.length - i;
      report.unreached = unreached(i);
      break;
    }
    const { report: judged, frames } = await replayStep(ctx, step, numbers.get(step.callId) ?? 0);
    await compareFindings(ctx.trace, step, frames, judged);
    // Reported, not judged (docs/rules.md#r-perfstep-05): the verdict stays the screens' and the outcome's.
    const replayedPerf = await ctx.perf.windowOf(step.callId, step.perf !== undefined, options.signal);
    if (step.perf || replayedPerf) judged.perf = { ...(step.perf ? { recorded: step.perf } : {}), ...(replayedPerf ? { replayed: replayedPerf } : {}) };
    if (options.keepFrames) judged.replayed.frames = await options.keepFrames(judged, frames);
    report.steps.push(judged);
    report[judged.verdict]++;
    if (judged.verdict === 'matched' && judged.changes.length > 0) report.changed++;
    options.onStep?.(judged);
    if (judged.verdict !== 'matched' && options.stopOnDivergence) {
      report.notRun = actions.length - i - 1;
      report.unreached = unreached(i + 1);
      if (report.notRun > 0) report.stopped = { reason: 'divergence', afterCallId: judged.callId };
      break;
    }
  }
  return report;
}
