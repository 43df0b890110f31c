/**
 * A step's memory growth flag and its recorded-vs-replayed figures (docs/rules.md#r-perfstep), pure.
 */
import { describe, expect, it } from 'vitest';
import { RUNNER_SOURCES } from '@shared/observe/perf-snapshot';
import { StepPerfSchema, type PerfSnapshot, type StepPerf } from '@shared/protocol/perf';
import { MAX_MEMORY_THRESHOLD_MB, MemoryThresholdError, memoryGrowth, perfSideBySide } from '@shared/trace/perf-step';

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
