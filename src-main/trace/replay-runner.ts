/**
 * The UI's Replay button: one replay at a time in the host, run against one of the devices
 * the host already holds, each step announced as soon as it is judged, and a stop that takes effect
 * between steps (the step in flight is never cut off, so nothing is left half sent or sent twice).
 *
 * The replayed frames of the last replay are kept here, in memory, for the trace view's side by side
 * (docs/rules.md#r-rpl-05): only the last replay's, at most MAX_KEPT_FRAME_BYTES of them, each redacted
 * as a trace is (replay.ts). The values typed for the trace's secrets live only as long as the run.
 */
import { resolve } from 'node:path';
import type { ObservedFrame, ReplayEnded, ReplayProgress } from '@shared/api/api';
import type { ReplayReport } from '@shared/trace/replay-report';
import type { DeviceManager } from '@main/devices/manager';
import { replayTrace, type ReplayedFrames } from './replay';
import { openedTrace } from './view';
import { recordedLaunch } from '@shared/trace/action-record';

/** What the frames of one replay may take in memory (screenshots dominate); the steps past it keep none. */
export const MAX_KEPT_FRAME_BYTES = 64 * 1024 * 1024;

function frameBytes(frame: ObservedFrame | undefined): number {
  if (!frame) return 0;
  return (frame.screenshot?.dataBase64.length ?? 0) + JSON.stringify(frame.observation ?? null).length;
}

export class ReplayBusyError extends Error {
  override readonly name = 'ReplayBusyError';
}

export class ReplayRunner {
  private running: { path: string; abort: AbortController } | undefined;
  /** The last replay's frames, by call id, and the trace they are of. */
  private kept: { path: string; frames: Map<string, ReplayedFrames>; bytes: number } | undefined;

  constructor(
    private readonly manager: DeviceManager,
    private readonly events: { onStep(progress: ReplayProgress): void; onEnded(ended: ReplayEnded): void },
    private readonly options: { settleMs?: number } = {},
  ) {}

  async run(
    path: string,
    deviceId: string,
    stopOnDivergence: boolean,
    variables: Readonly<Record<string, string>> = {},
    relaunchFirst = false,
  ): Promise<ReplayReport> {
    if (this.running) throw new ReplayBusyError(`a replay of ${this.running.path} is running; stop it first`);
    const abort = new AbortController();
    this.running = { path, abort };
    const kept = { path: resolve(path), frames: new Map<string, ReplayedFrames>(), bytes: 0 };
    this.kept = kept;
    try {
      const trace = await openedTrace(path);
      const connection = this.manager.connectionOf(deviceId);
      await connection.waitUntilConnected();
      const total = trace.timeline.filter((step) => step.kind === 'action').length;
      const report = await replayTrace(trace, connection, {
        stopOnDivergence,
        signal: abort.signal,
        variables: new Map(Object.entries(variables)),
        ...(relaunchFirst ? { relaunchFirst: { bundleId: recordedLaunch(trace.timeline)?.bundleId } } : {}),
        keepFrames: (step, frames) => {
          const bytes = frameBytes(frames.before) + frameBytes(frames.after);
          if (kept.bytes + bytes > MAX_KEPT_FRAME_BYTES) return { before: false, after: false };
          kept.bytes += bytes;
          kept.frames.set(step.callId, frames);
          return { before: frames.before !== undefined, after: frames.after !== undefined };
        },
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

  /** A replayed frame of the last replay of `path`; null when it kept none (another trace, past the bound). */
  frame(path: string, callId: string, when: 'before' | 'after'): ObservedFrame | null {
    if (!this.kept || this.kept.path !== resolve(path)) return null;
    return this.kept.frames.get(callId)?.[when] ?? null;
  }

  /** Asks the running replay to stop before its next step; false when none runs. */
  stop(): boolean {
    if (!this.running) return false;
    this.running.abort.abort();
    return true;
  }
}
