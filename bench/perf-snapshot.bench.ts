/**
 * The perfSnapshot rollup's cost per observe (issue 31's figure): `npx tsx bench/perf-snapshot.bench.ts`.
 *
 * One observe in perf mode takes one `PerfWindow.snapshot`. Windows of 1 s, 5 s and 30 s at the runner's
 * 1 Hz hold 1, 5 and 30 samples; the full 512-sample retention is the worst case (every sample in a
 * window, none pruned). The limit is ours (a decision; the issue names none): 0.1 ms, nothing beside an
 * observe's round trips to the device. The ratio to it is printed with each line and, for scale, the cost
 * of validating the snapshot with its schema, measured in the same run.
 */
import { MAX_PERF_SAMPLES, PerfWindow, type PerfSample } from '@shared/observe/perf-snapshot';
import { PerfSnapshotSchema } from '@shared/protocol/perf';

const LIMIT_MS = 0.1;
const RUNS = 2_000;

function filled(samples: number, stepMs: number): { window: PerfWindow; now: number } {
  const window = new PerfWindow();
  for (let i = 0; i < samples; i++) {
    const sample: PerfSample = {
      t: i * stepMs,
      fps: 55 + (i % 6),
      jankFrames: i % 3,
      touchLatencyMs: null,
      cpuUsagePercent: (i * 7) % 100,
      memoryUsageMb: 275 + i / 10,
    };
    window.record(sample);
  }
  return { window, now: (samples - 1) * stepMs };
}

function median(run: () => void): number {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    run();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

const cases: { name: string; samples: number; stepMs: number; windowMs: number }[] = [
  { name: '1 s window, 1 Hz', samples: 2, stepMs: 1_000, windowMs: 1_000 },
  { name: '5 s window (default), 1 Hz', samples: 6, stepMs: 1_000, windowMs: 5_000 },
  { name: '30 s window, 1 Hz', samples: 31, stepMs: 1_000, windowMs: 30_000 },
  { name: `30 s window, ${MAX_PERF_SAMPLES} samples (worst)`, samples: MAX_PERF_SAMPLES, stepMs: 50, windowMs: 30_000 },
];
for (const c of cases) {
  const { window, now } = filled(c.samples, c.stepMs);
  for (let i = 0; i < 200; i++) window.snapshot(now, c.windowMs); // warm-up; pruning settles after the first
  const rollup = median(() => window.snapshot(now, c.windowMs));
  const snapshot = window.snapshot(now, c.windowMs);
  const validate = median(() => PerfSnapshotSchema.parse(snapshot));
  console.log(
    `perfSnapshot ${c.name.padEnd(36)} samples ${String(snapshot.sampleCount).padStart(4)}` +
      `  median ${(rollup * 1000).toFixed(1).padStart(7)} µs  ${(rollup / LIMIT_MS).toFixed(3)} × limit ${LIMIT_MS} ms` +
      `  (schema check ${(validate * 1000).toFixed(1)} µs)  ${rollup < LIMIT_MS ? 'ok' : 'MISSED'}`,
  );
}

// The snapshot reads fps and touch latency kept ascending as samples arrive, so part of its cost moved to
// `record` (a binary search and a splice per push, and one more when the cap drops the oldest): measured
// on a full window, where a push also evicts.
{
  const { window, now } = filled(MAX_PERF_SAMPLES, 50);
  let t = now;
  const record = median(() => {
    t += 50;
    window.record({ t, fps: 55 + (t % 6), jankFrames: 1, touchLatencyMs: null, cpuUsagePercent: t % 100, memoryUsageMb: 300 });
  });
  console.log(
    `perfSnapshot record one push into a full ${MAX_PERF_SAMPLES}-sample window`.padEnd(77) +
      `median ${(record * 1000).toFixed(1).padStart(7)} µs  ${(record / LIMIT_MS).toFixed(3)} × limit ${LIMIT_MS} ms  ${record < LIMIT_MS ? 'ok' : 'MISSED'}`,
  );
}
