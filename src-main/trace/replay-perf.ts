/**
 * Each replayed step's perf window (docs/rules.md#r-perfstep-05), from the replayed device's pushes, kept
 * as the recorder keeps a recorded step's (StepPerfTracker, R-PERFSTEP-03): `before` ends when the action
 * is sent, `after` holds the pushes after its result. A replay sends its steps back to back, so where the
 * recorded step has a window the replay waits for its after window to hold as many pushes as the recorded
 * one did (at most AFTER_WINDOW_PUSHES, at most REPLAY_AFTER_WINDOW_CAP_MS): the two sides then cover
 * alike. A device that has not pushed during the replay is not waited for.
 */
import type { PerfSample, StepPerf } from '@shared/protocol/perf';
import { StepPerfTracker, type ClosedStepPerf } from '@shared/trace/step-perf-window';

/**
 * The longest a replayed step waits for its after window: AFTER_WINDOW_PUSHES pushes at the runner's
 * 1 Hz, with the margin of a crowded machine (a device that stops pushing costs a step this much at most).
 */
export const REPLAY_AFTER_WINDOW_CAP_MS = 8_000;

/** What the windows need of a device connection: its performance pushes (DeviceConnection's `perf`). */
export interface PerfPushes {
  on(event: 'perf', listener: (sample: PerfSample) => void): unknown;
  off(event: 'perf', listener: (sample: PerfSample) => void): unknown;
}

export class ReplayPerfWindows {
  private readonly tracker = new StepPerfTracker();
  private readonly closed = new Map<string, StepPerf>();
  /** The step whose after window is open, if any. */
  private openFor: string | undefined;
  private heard = false;
  private wake: (() => void) | undefined;
  private readonly onPerf = (sample: PerfSample) => {
    this.heard = true;
    this.keep(this.tracker.sample(sample));
    this.wake?.();
  };

  constructor(
    private readonly connection: PerfPushes,
    /** The clock of a sample's `t` (the inspector's clock of arrival, R-PERFSTRIP-01). */
    private readonly now: () => number = () => Date.now(),
  ) {
    connection.on('perf', this.onPerf);
  }

  /**
   * Before step 1 of a trace that kept perf windows: waits (at most the cap) for the device's first push,
   * so a connection opened for the replay (the CLI's) gives step 1 a before window too.
   */
  async firstPush(signal?: AbortSignal): Promise<void> {
    if (this.heard || signal?.aborted) return;
    await this.until(() => this.heard, signal);
  }

  /** The step's action is being sent (again, after a refusal that ran nothing: that try's window is not the step's). */
  sent(callId: string): void {
    this.closed.delete(callId);
    const closed = this.tracker.actionStarted(callId, this.now());
    if (closed?.callId !== callId) this.keep(closed);
    this.openFor = undefined;
  }

  /** Its result came: the after window opens, to close after `pushes` pushes (the recorded window's count). */
  answered(callId: string, pushes: number | undefined): void {
    this.keep(this.tracker.actionEnded(callId, this.now(), pushes));
    this.openFor = callId;
  }

  /**
   * The step's replayed window: waited for when the recorded step has one (`wait`), the step was answered
   * and the device pushes; else closed with what it holds. A stop (`signal`) ends the wait.
   */
  async windowOf(callId: string, wait: boolean, signal?: AbortSignal): Promise<StepPerf | undefined> {
    if (wait && this.heard && this.openFor === callId && !this.closed.has(callId) && !signal?.aborted) {
      await this.until(() => this.closed.has(callId), signal);
    }
    this.keep(this.tracker.stop(this.now()));
    this.openFor = undefined;
    const perf = this.closed.get(callId);
    this.closed.delete(callId);
    return perf;
  }

  /** Resolves once `ready` holds after a push, at the cap, or at a stop. */
  private until(ready: () => boolean, signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(cap);
        signal?.removeEventListener('abort', done);
        this.wake = undefined;
        resolve();
      };
      const cap = setTimeout(done, REPLAY_AFTER_WINDOW_CAP_MS);
      signal?.addEventListener('abort', done);
      this.wake = () => {
        if (ready()) done();
      };
    });
  }

  dispose(): void {
    this.connection.off('perf', this.onPerf);
    this.wake = undefined;
  }

  private keep(closed: ClosedStepPerf | undefined): void {
    if (!closed) return;
    this.closed.set(closed.callId, closed.perf);
    this.wake?.();
  }
}
