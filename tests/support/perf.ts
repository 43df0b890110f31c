/** A perf rollup with these latest figures (3 pushes in 5 s, runner sources), for the per-step views' tests. */
import { RUNNER_SOURCES } from '@shared/observe/perf-snapshot';
import type { PerfSnapshot } from '@shared/protocol/perf';

export const rollupWith = (memory: number, cpu: number): PerfSnapshot => ({
  windowMs: 5_000,
  sampleCount: 3,
  oldestSampleAgeMs: 2_000,
  fps: null,
  jank: null,
  touchLatencyMs: null,
  cpu: { avg: cpu, latest: cpu },
  memoryMb: { avg: memory, latest: memory },
  sources: RUNNER_SOURCES,
});
