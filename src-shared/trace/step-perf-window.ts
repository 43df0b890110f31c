/**
 * Each recorded step's perf window (docs/rules.md#r-perfstep-03): `before` is the rollup of the window
 * that ended when the action was sent, `after` the rollup of the pushes that came after its result. The
 * after window closes at the next step's start, at the recording's stop, or once it holds
 * AFTER_WINDOW_PUSHES pushes, whichever comes first: an action never waits for a 1 Hz push, and a step's
 * figures never mix with the next step's. Pure: the caller passes every time, so a test drives it
 * without a clock.
 */
import { clampPerfWindowMs, PerfWindow } from '@shared/observe/perf-snapshot';
import type { PerfSample, PerfSnapshot, StepPerf } from '@shared/protocol/perf';

/** R-PERFSTEP-03: an after window closes once it holds this many pushes (3 s at the runner's 1 Hz). */
export const AFTER_WINDOW_PUSHES = 3;

/** A step whose window closed: the trace's `step.perf` event. */
export interface ClosedStepPerf {
  callId: string;
  perf: StepPerf;
}

interface Open {
  callId: string;
  before: PerfSnapshot;
  since: number;
  after: PerfWindow;
  pushes: number;
  /** The pushes that close it (AFTER_WINDOW_PUSHES unless the caller asked for fewer). */
  closesAt: number;
}

export class StepPerfTracker {
  private readonly recent = new PerfWindow();
  /** The before rollup of each action in flight, by call id. */
  private readonly befores = new Map<string, PerfSnapshot>();
  private open: Open | undefined;

  /** A push of the recorded device; returns the step it closed, if any. */
  sample(sample: PerfSample): ClosedStepPerf | undefined {
    this.recent.record(sample);
    const open = this.open;
    if (!open || sample.t < open.since) return undefined;
    open.after.record(sample);
    open.pushes++;
    return open.pushes >= open.closesAt ? this.close(sample.t) : undefined;
  }

  /** The action was sent at `t`: its before window is taken now; a step still open closes. */
  actionStarted(callId: string, t: number): ClosedStepPerf | undefined {
    const closed = this.close(t);
    this.befores.set(callId, this.recent.snapshot(t));
    return closed;
  }

  /**
   * The action's result came at `t`: its after window opens (one started before it closes). A replay
   * asks for as many pushes as the recorded window held (docs/rules.md#r-perfstep-05), at most
   * AFTER_WINDOW_PUSHES and at least one.
   */
  actionEnded(callId: string, t: number, pushes = AFTER_WINDOW_PUSHES): ClosedStepPerf | undefined {
    const before = this.befores.get(callId);
    this.befores.delete(callId);
    const closed = this.close(t);
    const closesAt = Math.min(AFTER_WINDOW_PUSHES, Math.max(1, Math.floor(pushes)));
    if (before) this.open = { callId, before, since: t, after: new PerfWindow(), pushes: 0, closesAt };
    return closed;
  }

  /** The recording stops at `t`: the open step closes with what it has. */
  stop(t: number): ClosedStepPerf | undefined {
    this.befores.clear();
    return this.close(t);
  }

  private close(t: number): ClosedStepPerf | undefined {
    const open = this.open;
    this.open = undefined;
    if (!open) return undefined;
    const after = open.after.snapshot(t, clampPerfWindowMs(t - open.since));
    // A device that never pushes (an SDK-only or AppReveal device) has no window to keep.
    if (open.before.sampleCount === 0 && after.sampleCount === 0) return undefined;
    return { callId: open.callId, perf: { before: open.before, after } };
  }
}
