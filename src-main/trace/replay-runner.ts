/**
 * The UI's Replay button: one replay at a time in the host, run against one of the devices
 * the host already holds, each step announced as soon as it is judged, and a stop that takes effect
 * between steps (the step in flight is never cut off, so nothing is left half sent or sent twice).
 */
import type { ReplayEnded, ReplayProgress } from '@shared/api/api';
import type { ReplayReport } from '@shared/trace/replay-report';
import type { DeviceManager } from '@main/devices/manager';
import { replayTrace } from './replay';
import { openedTrace } from './view';

export class ReplayBusyError extends Error {
  override readonly name = 'ReplayBusyError';
}

export class ReplayRunner {
  private running: { path: string; abort: AbortController } | undefined;

  constructor(
    private readonly manager: DeviceManager,
    private readonly events: { onStep(progress: ReplayProgress): void; onEnded(ended: ReplayEnded): void },
    private readonly options: { settleMs?: number } = {},
  ) {}

  async run(path: string, deviceId: string, stopOnDivergence: boolean): Promise<ReplayReport> {
    if (this.running) throw new ReplayBusyError(`a replay of ${this.running.path} is running; stop it first`);
    const abort = new AbortController();
    this.running = { path, abort };
    try {
      const trace = await openedTrace(path);
      const connection = this.manager.connectionOf(deviceId);
      await connection.waitUntilConnected();
      const total = trace.timeline.filter((step) => step.kind === 'action').length;
      const report = await replayTrace(trace, connection, {
        stopOnDivergence,
        signal: abort.signal,
        onStep: (step) => this.events.onStep({ path, deviceId, total, step }),
        ...(this.options.settleMs !== undefined ? { settleMs: this.options.settleMs } : {}),
      });
      // Free before anyone hears of the end, so a replay started on hearing it is not refused as busy.
      this.release(abort);
      this.events.onEnded({ path, deviceId, report });
      return report;
    } finally {
      this.release(abort);
    }
  }

  /** Frees the slot if it is still this run's (one started on hearing of its end may hold it already). */
  private release(abort: AbortController): void {
    if (this.running?.abort === abort) this.running = undefined;
  }

  /** Asks the running replay to stop before its next step; false when none runs. */
  stop(): boolean {
    if (!this.running) return false;
    this.running.abort.abort();
    return true;
  }
}
