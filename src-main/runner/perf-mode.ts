/**
 * A runner device's performance pushes and its perf mode (docs/rules.md#r-perfsnap): the connection keeps
 * every `performance_update` in the device's window (bounded, R-PERFSNAP-06); an observation carries the
 * rollup only while perf mode is on (seed 002: opt-in, off by default). Every sample is also told
 * (`sample`) and the newest ones kept for a live strip (docs/rules.md#r-perfstrip-01), whatever the mode:
 * the pushes come anyway, and the strip costs the device nothing more.
 */
import { EventEmitter } from 'node:events';
import { MAX_STRIP_SAMPLES, type PerfSample, type PerfSeries, type PerfSnapshot } from '@shared/protocol/perf';
import { PerfWindow, RUNNER_SOURCES, clampPerfWindowMs, sampleFromPush } from '@shared/observe/perf-snapshot';
import type { RunnerClient } from './client';

export interface PerfModeState {
  enabled: boolean;
  windowMs: number;
}

export class PerfMode extends EventEmitter<{ sample: [sample: PerfSample] }> {
  readonly window = new PerfWindow();
  private readonly recent: PerfSample[] = [];
  private state: PerfModeState = { enabled: false, windowMs: clampPerfWindowMs(undefined) };

  constructor(
    client: RunnerClient,
    /** The inspector's clock of arrival, in ms: a push's own timestamp is the device's clock. */
    private readonly now: () => number = () => Date.now(),
  ) {
    super();
    client.on('performance', (update) => {
      const sample = sampleFromPush(update, this.now());
      this.window.record(sample);
      this.recent.push(sample);
      if (this.recent.length > MAX_STRIP_SAMPLES) this.recent.shift();
      this.emit('sample', sample);
    });
  }

  /** The newest samples, oldest first, for a strip opened mid-session (R-PERFSTRIP-01). */
  series(): PerfSeries {
    return { samples: [...this.recent], sources: RUNNER_SOURCES };
  }

  get mode(): PerfModeState {
    return { ...this.state };
  }

  /** Turns perf mode on or off; an asked window is clamped (R-PERFSNAP-02), none keeps the current one. */
  set(enabled: boolean, windowMs?: number): PerfModeState {
    this.state = { enabled, windowMs: windowMs === undefined ? this.state.windowMs : clampPerfWindowMs(windowMs) };
    return this.mode;
  }

  /** The rollup now, or undefined while perf mode is off. */
  snapshot(): PerfSnapshot | undefined {
    return this.state.enabled ? this.window.snapshot(this.now(), this.state.windowMs) : undefined;
  }
}
