/**
 * Each recorded step's perf window (docs/rules.md#r-perfstep-03), driven with explicit times.
 */
import { describe, expect, it } from 'vitest';
import type { PerfSample } from '@shared/protocol/perf';
import { AFTER_WINDOW_PUSHES, StepPerfTracker } from '@shared/trace/step-perf-window';
import { buildTimeline } from '@shared/trace/reader';
import { TraceEventSchema } from '@shared/trace/schema';

const push = (t: number, memory: number): PerfSample => ({ t, fps: 60, jankFrames: 0, touchLatencyMs: null, cpuUsagePercent: 5, memoryUsageMb: memory });

describe('StepPerfTracker', () => {
  it('R-PERFSTEP-03: before is the window ending at the action, after the pushes after its result, closed after AFTER_WINDOW_PUSHES pushes', () => {
    const tracker = new StepPerfTracker();
    for (let t = 1_000; t <= 5_000; t += 1_000) expect(tracker.sample(push(t, 100))).toBeUndefined();
    expect(tracker.actionStarted('a', 5_500)).toBeUndefined();
    expect(tracker.actionEnded('a', 5_600)).toBeUndefined();
    const closes = [];
    for (let i = 1; i <= AFTER_WINDOW_PUSHES; i++) closes.push(tracker.sample(push(5_600 + i * 1_000, 100 + i * 16)));
    expect(closes.slice(0, -1)).toEqual(Array(AFTER_WINDOW_PUSHES - 1).fill(undefined));
    const closed = closes.at(-1)!;
    expect(closed.callId).toBe('a');
    expect(closed.perf.before.sampleCount).toBe(5);
    expect(closed.perf.before.memoryMb?.latest).toBe(100);
    // Only the pushes after the result, none from before the action.
    expect(closed.perf.after.sampleCount).toBe(AFTER_WINDOW_PUSHES);
    expect(closed.perf.after.memoryMb?.latest).toBe(100 + AFTER_WINDOW_PUSHES * 16);
    // Closed once: a later push opens nothing.
    expect(tracker.sample(push(20_000, 500))).toBeUndefined();
  });

  it('R-PERFSTEP-03: the next step starting closes the open window with what it has, and never feeds it the next step', () => {
    const tracker = new StepPerfTracker();
    tracker.sample(push(1_000, 100));
    tracker.actionStarted('a', 1_500);
    tracker.actionEnded('a', 1_600);
    tracker.sample(push(2_000, 120));
    const closed = tracker.actionStarted('b', 2_100);
    expect(closed?.callId).toBe('a');
    expect(closed?.perf.after.sampleCount).toBe(1);
    expect(closed?.perf.after.memoryMb?.latest).toBe(120);
    expect(tracker.actionEnded('b', 2_200)).toBeUndefined();
    const stopped = tracker.stop(2_300);
    expect(stopped?.callId).toBe('b');
    expect(stopped?.perf.before.memoryMb?.latest).toBe(120);
    expect(stopped?.perf.after.sampleCount).toBe(0);
    expect(stopped?.perf.after.memoryMb).toBeNull();
  });

  it('R-PERFSTEP-03: a device that never pushes keeps no window; an action not seen starting keeps none', () => {
    const silent = new StepPerfTracker();
    silent.actionStarted('a', 1_000);
    silent.actionEnded('a', 1_100);
    expect(silent.stop(5_000)).toBeUndefined();
    const tracker = new StepPerfTracker();
    tracker.sample(push(1_000, 100));
    expect(tracker.actionEnded('unseen', 1_100)).toBeUndefined();
    expect(tracker.stop(2_000)).toBeUndefined();
  });

  it('R-PERFSTEP-03: the step.perf event joins its action in the timeline; a trace without it reads as before', () => {
    const tracker = new StepPerfTracker();
    tracker.sample(push(1_000, 100));
    tracker.actionStarted('a', 1_500);
    tracker.actionEnded('a', 1_600);
    tracker.sample(push(2_000, 150));
    const closed = tracker.stop(2_100)!;
    const before = { type: 'action.before', seq: 0, time: 1_500, callId: 'a', action: { kind: 'tap', point: { x: 1, y: 2 } } };
    const after = { type: 'action.after', seq: 1, time: 1_600, callId: 'a', result: { success: true } };
    const perf = TraceEventSchema.parse({ type: 'step.perf', seq: 2, time: 2_100, callId: 'a', perf: closed.perf });
    const [step] = buildTimeline([TraceEventSchema.parse(before), TraceEventSchema.parse(after), perf]);
    expect(step?.kind).toBe('action');
    expect(step?.status).toBe('succeeded');
    expect(step?.perf?.after.memoryMb?.latest).toBe(150);
    const [plain] = buildTimeline([TraceEventSchema.parse(before), TraceEventSchema.parse(after)]);
    expect(plain?.perf).toBeUndefined();
  });
});

describe('StepPerfTracker for a replay', () => {
  it('R-PERFSTEP-05: an after window asked to close after fewer pushes closes there; the ask is held to 1–AFTER_WINDOW_PUSHES', () => {
    const tracker = new StepPerfTracker();
    tracker.sample(push(1_000, 100));
    tracker.actionStarted('a', 1_500);
    tracker.actionEnded('a', 1_600, 1);
    expect(tracker.sample(push(2_000, 120))?.perf.after.sampleCount).toBe(1);
    tracker.actionStarted('b', 2_500);
    tracker.actionEnded('b', 2_600, 0);
    expect(tracker.sample(push(3_000, 120))?.perf.after.sampleCount).toBe(1);
    tracker.actionStarted('c', 3_500);
    tracker.actionEnded('c', 3_600, 99);
    const closes = [4_000, 5_000, 6_000].map((t) => tracker.sample(push(t, 130)));
    expect(closes.map((c) => c?.perf.after.sampleCount)).toEqual([undefined, undefined, AFTER_WINDOW_PUSHES]);
  });
});
