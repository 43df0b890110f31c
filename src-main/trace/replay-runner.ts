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
import type { ReplayEnded, ReplayProgress } from '@shared/api/api';
import type { ObservedFrame } from '@shared/protocol/device';
import type { ReplayReport } from '@shared/trace/replay-report';
import type { DeviceManager } from '@main/devices/manager';
import { replayedActions, replayTrace } from './replay';
import { openReplayableTrace } from './view';
import { recordedLaunch } from '@shared/trace/action-record';

/** What the frames of one replay may take in memory (screenshots dominate); the steps past it keep none. */
export const MAX_KEPT_FRAME_BYTES = 64 * 1024 * 1024;

/**
 * A kept frame as the bytes it is held in (docs/rules.md#r-mem-01): its JSON in UTF-8, one buffer, read
 * back on demand. Counting a live object graph by its JSON length undercounts it several times over (21
 * frames "under 64 MiB" took 420 MiB); a buffer's length is what it holds.
 */
function packFrame(frame: ObservedFrame | undefined): Buffer | undefined {
  return frame === undefined ? undefined : Buffer.from(JSON.stringify(frame), 'utf8');
}

interface KeptFrames {
  before?: Buffer | undefined;
  after?: Buffer | undefined;
}

export class ReplayBusyError extends Error {
  override readonly name = 'ReplayBusyError';
}

export class ReplayRunner {
  private running: { path: string; abort: AbortController } | undefined;
  /** The last replay's frames, by call id, and the trace they are of. */
  private kept: { path: string; frames: Map<string, KeptFrames>; bytes: number } | undefined;

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
    range: { fromCallId?: string | undefined; only?: boolean | undefined } = {},
  ): Promise<ReplayReport> {
    if (this.running) throw new ReplayBusyError(`a replay of ${this.running.path} is running; stop it first`);
    const abort = new AbortController();
    this.running = { path, abort };
    const kept = { path: resolve(path), frames: new Map<string, KeptFrames>(), bytes: 0 };
    this.kept = kept;
    try {
      const trace = await openReplayableTrace(path);
      const connection = this.manager.connectionOf(deviceId);
      await connection.waitUntilConnected();
      const total = replayedActions(trace.timeline, range.fromCallId, range.only).length;
      const report = await replayTrace(trace, connection, {
        stopOnDivergence,
        fromCallId: range.fromCallId,
        only: range.only,
        signal: abort.signal,
        variables: new Map(Object.entries(variables)),
        ...(relaunchFirst ? { relaunchFirst: { bundleId: recordedLaunch(trace.timeline)?.bundleId } } : {}),
        keepFrames: (step, frames) => {
          const packed = { before: packFrame(frames.before), after: packFrame(frames.after) };
          const bytes = (packed.before?.byteLength ?? 0) + (packed.after?.byteLength ?? 0);
          if (kept.bytes + bytes > MAX_KEPT_FRAME_BYTES) return { before: false, after: false };
          kept.bytes += bytes;
          kept.frames.set(step.callId, packed);
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
    const packed = this.kept.frames.get(callId)?.[when];
    return packed === undefined ? null : (JSON.parse(packed.toString('utf8')) as ObservedFrame);
  }

  /** The bytes the last replay's frames hold (for the bound's test and bench). */
  keptBytes(): number {
    return this.kept?.bytes ?? 0;
  }

  /** Asks the running replay to stop before its next step; false when none runs. */
  stop(): boolean {
    if (!this.running) return false;
    this.running.abort.abort();
    return true;
  }
}
