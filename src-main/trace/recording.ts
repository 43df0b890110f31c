/**
 * Recording a session into a trace: every action (before it is sent, and after with its result) and
 * every requested observation of one device, with screenshots and observations stored once each.
 *
 * The `before` event is appended and flushed before the action's result comes back, so a crash while
 * an action is in flight still leaves a trace that says what was being done.
 */
import { EventEmitter } from 'node:events';
import type { RecordingStatus } from '@shared/api/api';
import type { ActionStep, Frame } from '@shared/protocol/device';
import type { ResourceRef } from '@shared/trace/schema';
import type { AppState } from '@shared/protocol/appreveal-tools';
import { appStateChanges } from '@shared/trace/app-state';
import { TraceRecorder } from './index';
import type { Comparison } from '@main/devices/compare';
import { recordComparison } from './comparison';
import type { DeviceManager } from '@main/devices/manager';
import { recordActionAfter, recordActionBefore } from './replay';
import { warmAuditWorker } from '@main/a11y/off-thread';
import { findUnfinishedTraces, recoverTrace, type RecoveryReport, type UnfinishedTrace } from './recovery';
import { removeOrphans } from './orphans';
import { StepPerfTracker, type ClosedStepPerf } from '@shared/trace/step-perf-window';
import type { DevicePerfSample } from '@shared/protocol/perf';

/** Asked for what the recording's state does not allow (a second start, a stop with nothing recorded). */
export class RecordingStateError extends Error {
  override readonly name = 'RecordingStateError';
}

export class SessionRecording extends EventEmitter<{ changed: [status: RecordingStatus] }> {
  /** Where traces (finished and in progress) are kept. */
  readonly dir: string;
  private recorder: TraceRecorder | undefined;
  private deviceId: string | undefined;
  private steps = 0;
  /** Comparisons saved into this recording: not steps, as the reopened trace counts them apart (docs/rules.md#r-rpl-08). */
  private comparisons = 0;
  /** The last app state written (AppReveal): each step keeps only what changed since (docs/rules.md#r-ar-22). */
  private lastAppState: AppState | undefined;
  /** Which recording a written step belongs to: a late write of the last one never counts in the next. */
  private generation = 0;
  private nextComparison = 1;
  /** Actions of the recorded device that started while recording and have not ended. */
  private readonly started = new Set<string>();
  private lastTrace: string | undefined;
  /** Appends in the order the events happened, whatever order their resources finish writing in. */
  private queue: Promise<unknown> = Promise.resolve();
  /**
   * Start, stop and recover take turns (docs/rules.md#r-race-01): each checks the state only once the
   * one before it has finished, so two starts at once make one recording and a stop between two starts
   * stops the first. The first turn removes what a killed run left behind (docs/rules.md#r-race-02).
   */
  private turns: Promise<unknown>;
  private readonly unsubscribe: () => void;
  /** Each step's perf window (docs/rules.md#r-perfstep-03), from the recorded device's pushes. */
  private perf = new StepPerfTracker();

  constructor(
    private readonly manager: DeviceManager,
    private readonly options: { dir: string; version: string; secrets?: () => string[] },
  ) {
    super();
    this.dir = options.dir;
    this.turns = removeOrphans(options.dir).catch(() => undefined);
    const onStarted = (step: Parameters<typeof this.onActionStarted>[0]) => this.onActionStarted(step);
    const onAction = (step: ActionStep) => this.onAction(step);
    const onObserved = (frame: Frame) => this.onObserved(frame);
    manager.on('actionStarted', onStarted);
    manager.on('action', onAction);
    manager.on('observed', onObserved);
    const onPerf = (event: DevicePerfSample) => {
      if (event.deviceId === this.deviceId) this.recordPerf(this.perf.sample(event.sample));
    };
    manager.on('perf', onPerf);
    this.unsubscribe = () => {
      manager.off('perf', onPerf);
      manager.off('actionStarted', onStarted);
      manager.off('action', onAction);
      manager.off('observed', onObserved);
    };
  }

  status(): RecordingStatus {
    return {
      recording: this.recorder !== undefined,
      ...(this.deviceId ? { deviceId: this.deviceId } : {}),
      ...(this.recorder ? { traceId: this.recorder.traceId } : {}),
      steps: this.steps,
      comparisons: this.comparisons,
      ...(this.lastTrace ? { lastTrace: this.lastTrace } : {}),
    };
  }

  /** Runs `run` once every start, stop and recovery asked for before it has finished. */
  private inTurn<T>(run: () => Promise<T>): Promise<T> {
    const turn = this.turns.then(run);
    this.turns = turn.catch(() => undefined);
    return turn;
  }

  start(deviceId: string): Promise<RecordingStatus> {
    return this.inTurn(() => this.startNow(deviceId));
  }

  private async startNow(deviceId: string): Promise<RecordingStatus> {
    if (this.recorder) throw new RecordingStateError(`already recording ${this.recorder.traceId}; stop it first`);
    const device = this.manager.summaryOf(deviceId);
    this.recorder = await TraceRecorder.start({
      dir: this.options.dir,
      manifest: {
        format: 'parallax-trace',
        version: 1,
        device: { name: device.name, kind: device.kind, url: device.url },
        ...(device.bundleId ? { app: { bundleId: device.bundleId, ...this.appIdentity(deviceId) } } : {}),
        generator: { name: 'parallax', version: this.options.version },
      },
      secrets: this.options.secrets?.() ?? [],
    });
    this.deviceId = deviceId;
    this.steps = 0;
    this.comparisons = 0;
    this.lastAppState = undefined;
    this.perf = new StepPerfTracker();
    this.generation++;
    // Each step's findings are audited in the audit worker (docs/rules.md#r-a11y-19, #r-a11y-24): started now, not at the first step.
    warmAuditWorker();
    const current = this.manager.lastFrame(deviceId);
    if (current) this.onObserved(current);
    return this.status();
  }

  /** The app's name and version, when an AppReveal app said them (launch_context, device_info). */
  private appIdentity(deviceId: string): { name?: string; version?: string } {
    const identity = this.manager.lastFrame(deviceId)?.appReveal?.identity;
    const name = identity?.displayName ?? identity?.appName;
    return { ...(name ? { name } : {}), ...(identity?.version ? { version: identity.version } : {}) };
  }

  /** Packs the trace into one `.parallax-trace` file and returns its path. */
  stop(): Promise<RecordingStatus> {
    return this.inTurn(() => this.stopNow());
  }

  /** The recordings a killed run left unfinished, once its orphans are gone (offered for recovery). */
  unfinished(): Promise<UnfinishedTrace[]> {
    return this.inTurn(() => findUnfinishedTraces(this.dir));
  }

  /** Packs an unfinished recording (never the one running: `recoverTrace` refuses a live one). */
  recover(folder: string): Promise<RecoveryReport> {
    return this.inTurn(() => recoverTrace(folder));
  }

  private async stopNow(): Promise<RecordingStatus> {
    const recorder = this.recorder;
    if (!recorder) throw new RecordingStateError('nothing is being recorded');
    this.recordPerf(this.perf.stop(Date.now()));
    this.recorder = undefined;
    await this.queue;
    this.lastTrace = await recorder.stop();
    this.deviceId = undefined;
    return this.status();
  }

  /**
   * Writes a comparison into the running trace (counted as a comparison, not as a step). Only a comparison of the recorded device
   * belongs in its trace.
   */
  async saveComparison(deviceId: string, comparison: Comparison): Promise<RecordingStatus> {
    const recorder = this.recorder;
    if (!recorder) throw new RecordingStateError('nothing is being recorded: start a recording to save a comparison into it');
    if (deviceId !== this.deviceId) throw new RecordingStateError(`the recording is of ${this.deviceId}, not of ${deviceId}, where this comparison was taken`);
    const callId = `compare-${this.nextComparison++}-${comparison.sdk.receivedAt}`;
    // In order with the actions around it; unlike a dropped observation, the user asked for this one
    // by name, so a failed write is reported rather than swallowed.
    const written = this.queue.then(() => recordComparison(recorder, comparison, callId));
    this.queue = written.catch(() => {});
    await written;
    this.comparisons++;
    return this.status();
  }

  /** Resolves once every event so far is written and flushed (for a caller that must know it is durable). */
  async idle(): Promise<void> {
    await this.queue;
  }

  async close(): Promise<void> {
    this.unsubscribe();
    // An app that quits while recording keeps the folder: the next start offers to recover it.
    await this.queue;
  }

  private onActionStarted(step: { callId: string; deviceId: string; request: ActionStep['request']; before: Frame | null; startedAt: number }): void {
    const recorder = this.recorder;
    if (!recorder || step.deviceId !== this.deviceId) return;
    // Written with the result (onAction), not now: only after the action does the host know every signal
    // that says the typed text is a secret (a field that reads back as bullets, docs/rules.md#r-secret),
    // and the request it reports then has the text taken out. The before event keeps the start time.
    this.started.add(step.callId);
    this.recordPerf(this.perf.actionStarted(step.callId, step.startedAt));
  }

  /** A step's closed perf window, after the events already queued (its action.after among them). */
  private recordPerf(closed: ClosedStepPerf | undefined): void {
    const recorder = this.recorder;
    if (!closed || !recorder) return;
    this.enqueue(() => recorder.append({ type: 'step.perf', callId: closed.callId, perf: closed.perf }));
  }

  private onAction(step: ActionStep): void {
    const recorder = this.recorder;
    if (!recorder || step.deviceId !== this.deviceId) return;
    // A step counts once its result is written and flushed: what the status says is what a crash keeps.
    const generation = this.generation;
    const app = step.after?.appReveal?.app;
    const started = this.started.delete(step.callId);
    this.enqueue(async () => {
      // One writer for the action events (replay.ts), so what replay and the Maestro export read back is
      // what was written, and a secret field's text never is.
      if (started) {
        const known = { after: step.after, result: step.result };
        await recordActionBefore(recorder, { callId: step.callId, request: step.request, before: step.before, time: step.startedAt, known });
      }
      let appStateRef: ResourceRef | undefined;
      if (app) {
        appStateRef = await recorder.addResource('appState', appStateChanges(this.lastAppState, app));
        this.lastAppState = app;
      }
      await recordActionAfter(recorder, { callId: step.callId, result: step.result, after: step.after, appStateRef });
      if (this.generation !== generation) return;
      this.steps++;
      this.emit('changed', this.status());
    });
    // Opened once the result is queued, so its window's event always follows the action.after.
    this.recordPerf(this.perf.actionEnded(step.callId, Date.now()));
  }

  private onObserved(frame: Frame): void {
    const recorder = this.recorder;
    if (!recorder || frame.deviceId !== this.deviceId) return;
    this.enqueue(async () => {
      const refs = await this.store(recorder, frame);
      if (!refs.observationRef) return;
      await recorder.append({
        type: 'observation',
        callId: `observe-${frame.receivedAt}`,
        observationRef: refs.observationRef,
        ...(refs.screenshotRef ? { screenshotRef: refs.screenshotRef } : {}),
      });
    });
  }

  private async store(recorder: TraceRecorder, frame: Frame | null): Promise<{ observationRef?: ResourceRef; screenshotRef?: ResourceRef }> {
    if (!frame) return {};
    const [observationRef, screenshotRef] = await Promise.all([
      frame.observation ? recorder.addResource('observation', frame.observation) : undefined,
      frame.screenshot ? recorder.addResource('screenshot', Buffer.from(frame.screenshot.dataBase64, 'base64')) : undefined,
    ]);
    return { ...(observationRef ? { observationRef } : {}), ...(screenshotRef ? { screenshotRef } : {}) };
  }

  private enqueue(run: () => Promise<void>): void {
    // A failed write must not stop the session; it is dropped from the trace, never retried out of order.
    this.queue = this.queue.then(run).catch(() => {});
  }
}
