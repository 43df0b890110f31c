/**
 * A runner device's performance pushes and its perf mode (docs/rules.md#r-perfsnap): the connection keeps
 * every `performance_update` in the device's window (bounded, R-PERFSNAP-06); an observation carries the
 * rollup only while perf mode is on (seed 002: opt-in, off by default).
 */
import type { PerfSnapshot } from '@shared/protocol/perf';
import { PerfWindow, clampPerfWindowMs, sampleFromPush } from '@shared/observe/perf-snapshot';
import type { RunnerClient } from './client';

export interface PerfModeState {
  enabled: boolean;
  windowMs: number;
}

export class PerfMode {
  readonly window = new PerfWindow();
  private state: PerfModeState = { enabled: false, windowMs: clampPerfWindowMs(undefined) };

  constructor(
    client: RunnerClient,
    /** The inspector's clock of arrival, in ms: a push's own timestamp is the device's clock. */
    private readonly now: () => number = () => Date.now(),
  ) {
    client.on('performance', (update) => this.window.record(sampleFromPush(update, this.now())));
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
