/**
 * A step's memory growth flag and its recorded-vs-replayed figures (docs/rules.md#r-perfstep), pure.
 */
import { describe, expect, it } from 'vitest';
import { RUNNER_SOURCES } from '@shared/observe/perf-snapshot';
import { StepPerfSchema, type PerfSnapshot, type StepPerf } from '@shared/protocol/perf';
import { MAX_MEMORY_THRESHOLD_MB, MemoryThresholdError, memoryFlagLine, memoryGrowth, memoryThresholdOf, perfSideBySide, replayMemory } from '@shared/trace/perf-step';

function snapshot(memory: number | null, cpu: number | null = 10): PerfSnapshot {
  return {
    windowMs: 5_000,
    sampleCount: memory === null ? 0 : 5,
    oldestSampleAgeMs: memory === null ? null : 4_000,
    fps: null,
    jank: null,
    touchLatencyMs: null,
    cpu: cpu === null ? null : { avg: cpu, latest: cpu },
    memoryMb: memory === null ? null : { avg: memory, latest: memory },
    sources: RUNNER_SOURCES,
  };
}
const step = (before: number | null, after: number | null, cpuAfter: number | null = 10): StepPerf =>
  StepPerfSchema.parse({ before: snapshot(before), after: snapshot(after, cpuAfter) });

describe('memoryGrowth', () => {
  it('R-PERFSTEP-01: a step whose memory grows by more than the threshold is flagged; exactly the threshold is not', () => {
    expect(memoryGrowth(step(200, 250.5), 50)).toEqual({ grownMb: 50.5, flagged: true });
    expect(memoryGrowth(step(200, 250), 50)).toEqual({ grownMb: 50, flagged: false });
    expect(memoryGrowth(step(300, 120), 0)).toEqual({ grownMb: -180, flagged: false });
    expect(memoryGrowth(step(200, 200.01), 0)).toEqual({ grownMb: 0.01, flagged: true });
  });

  it('R-PERFSTEP-01: no memory figure on a side means no growth and no flag', () => {
    expect(memoryGrowth(step(null, 900), 1)).toEqual({ grownMb: null, flagged: false });
    expect(memoryGrowth(step(100, null), 1)).toEqual({ grownMb: null, flagged: false });
  });

  it('R-PERFSTEP-01: a threshold that is not a number of MB in range is refused with a typed error', () => {
    for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY, MAX_MEMORY_THRESHOLD_MB + 1]) {
      expect(() => memoryGrowth(step(1, 2), bad)).toThrow(MemoryThresholdError);
    }
  });
});

describe('perfSideBySide', () => {
  it('R-PERFSTEP-02: the recorded and the replayed figures of a step side by side; a side without perf reads null', () => {
    expect(perfSideBySide(step(200, 264, 35), step(201, 203, 12))).toEqual([
      { figure: 'cpu after (%)', recorded: 35, replayed: 12 },
      { figure: 'memory after (MB)', recorded: 264, replayed: 203 },
      { figure: 'memory growth (MB)', recorded: 64, replayed: 2 },
    ]);
    expect(perfSideBySide(step(200, 264), undefined).map((row) => row.replayed)).toEqual([null, null, null]);
  });
});

describe('replayed memory (R-PERFSTEP-05)', () => {
  it('R-PERFSTEP-05: the CLI threshold is digits with an optional fraction, 0 to 65,536 MB; anything else is a typed error', () => {
    expect(memoryThresholdOf('20')).toBe(20);
    expect(memoryThresholdOf('0.5')).toBe(0.5);
    expect(memoryThresholdOf(String(MAX_MEMORY_THRESHOLD_MB))).toBe(MAX_MEMORY_THRESHOLD_MB);
    for (const bad of ['', ' 5', '-1', '1e3', '0x10', 'abc', '65537', '5.']) expect(() => memoryThresholdOf(bad)).toThrow(MemoryThresholdError);
  });

  it('R-PERFSTEP-05: each side is judged against the threshold; a side without a window is null', () => {
    expect(replayMemory({ recorded: step(100, 104), replayed: step(100, 150) }, 20)).toEqual({
      recorded: { grownMb: 4, flagged: false },
      replayed: { grownMb: 50, flagged: true },
    });
    expect(replayMemory({ replayed: step(100, 150) }, 20).recorded).toBeNull();
    expect(replayMemory(undefined, 20)).toEqual({ recorded: null, replayed: null });
  });

  it('R-PERFSTEP-05: the summary line names the steps flagged this time and those flagged when recorded; none flagged, no line', () => {
    const steps = [
      { number: 1, perf: { recorded: step(100, 104), replayed: step(100, 150) } },
      { number: 2, perf: { recorded: step(100, 150), replayed: step(100, 150) } },
      { number: 3, perf: { recorded: step(100, 150), replayed: step(100, 101) } },
      { number: 4 },
    ];
    expect(memoryFlagLine(steps, 20)).toBe('memory grew over 20 MB at steps 1, 2 (recorded: steps 2, 3)');
    expect(memoryFlagLine(steps.slice(0, 1), 20)).toBe('memory grew over 20 MB at step 1 (recorded: none)');
    expect(memoryFlagLine(steps, 60)).toBeUndefined();
  });
});
