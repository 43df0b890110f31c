/**
 * The perfSnapshot rollup (docs/rules.md#r-perfsnap): table cases on a controlled clock, and the real
 * runner's recorded pushes decoded and rolled up (tests/fixtures/ctrlproxy-perf/README.md).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PerfWindow, MAX_PERF_SAMPLES, clampPerfWindowMs, percentile, sampleFromPush, type PerfSample } from '@shared/observe/perf-snapshot';
import { PerfSnapshotSchema } from '@shared/protocol/perf';
import { PerformanceUpdateSchema, decodeRunnerInbound } from '@shared/protocol/runner';

const sample = (t: number, over: Partial<PerfSample> = {}): PerfSample => ({
  t,
  fps: 60,
  jankFrames: 0,
  touchLatencyMs: null,
  cpuUsagePercent: 10,
  memoryUsageMb: 200,
  ...over,
});

describe('perfSnapshot rollup', () => {
  it('R-PERFSNAP-01: only samples in [now − window, now] count, and older ones are dropped', () => {
    const w = new PerfWindow();
    for (const t of [0, 1_000, 2_000, 6_000, 7_000]) w.record(sample(t, { cpuUsagePercent: t / 100 }));
    const s = w.snapshot(7_000);
    expect(s.sampleCount).toBe(3); // 2,000 (on the cutoff), 6,000 and 7,000; not 0 or 1,000
    expect(s.cpu).toEqual({ avg: round((20 + 60 + 70) / 3), latest: 70 });
    expect(s.oldestSampleAgeMs).toBe(5_000);
    expect(w.size).toBe(3);
  });

  it.each([
    [undefined, 5_000],
    [Number.NaN, 5_000],
    [10, 1_000],
    [1_000, 1_000],
    [12_345.6, 12_346],
    [30_000, 30_000],
    [600_000, 30_000],
  ])('R-PERFSNAP-02: window %s is %s ms', (asked, used) => {
    expect(clampPerfWindowMs(asked)).toBe(used);
    expect(new PerfWindow().snapshot(100_000, asked).windowMs).toBe(used);
  });

  it.each([
    [[60], { p50: 60, p90: 60, p95: 60, p99: 60 }],
    [[30, 60], { p50: 45, p90: 57, p95: 58.5, p99: 59.7 }],
    [[10, 20, 30, 40, 50, 60, 70, 80, 90, 100], { p50: 55, p90: 91, p95: 95.5, p99: 99.1 }],
    [[60, 60, 60, 12], { p50: 60, p90: 60, p95: 60, p99: 60 }],
  ])('R-PERFSNAP-03: fps %j has percentiles %j', (fps, expected) => {
    const w = new PerfWindow();
    fps.forEach((f, i) => w.record(sample(1_000 + i * 100, { fps: f })));
    expect(w.snapshot(2_000).fps).toEqual(expected);
  });

  it('R-PERFSNAP-03: touch latency carries p50, p95 and the latest sample (a source that reports it)', () => {
    const w = new PerfWindow();
    [40, 10, 30, 20].forEach((ms, i) => w.record(sample(1_000 + i, { touchLatencyMs: ms })));
    expect(w.snapshot(2_000).touchLatencyMs).toEqual({ p50: 25, p95: 38.5, latest: 20 });
  });

  it('R-PERFSNAP-03: percentiles interpolate between ranks, whatever the order of arrival', () => {
    expect(percentile([1, 2, 3, 4], 50)).toBe(2.5);
    const a = new PerfWindow();
    const b = new PerfWindow();
    [50, 10, 40].forEach((f, i) => a.record(sample(i, { fps: f })));
    [10, 40, 50].forEach((f, i) => b.record(sample(i, { fps: f })));
    expect(a.snapshot(10).fps).toEqual(b.snapshot(10).fps);
  });

  it('R-PERFSNAP-04: an empty window is a warm-up with every metric null; a metric without samples is null alone', () => {
    const w = new PerfWindow();
    const empty = w.snapshot(10_000);
    expect(empty).toMatchObject({ sampleCount: 0, oldestSampleAgeMs: null, fps: null, jank: null, touchLatencyMs: null, cpu: null, memoryMb: null });
    w.record(sample(9_500, { fps: null, jankFrames: null }));
    const warm = w.snapshot(10_000);
    expect(warm.sampleCount).toBe(1);
    expect(warm.fps).toBeNull();
    expect(warm.jank).toBeNull();
    expect(warm.cpu).toEqual({ avg: 10, latest: 10 });
    expect(warm.memoryMb).toEqual({ avg: 200, latest: 200 });
    expect(PerfSnapshotSchema.parse(warm)).toEqual(warm);
  });

  it('R-PERFSNAP-04: jank totals the window and its rate covers n intervals; one sample has no rate', () => {
    const w = new PerfWindow();
    w.record(sample(5_000, { jankFrames: 9 })); // exactly on the cutoff: its interval began before the window
    w.record(sample(9_000, { jankFrames: 2 }));
    w.record(sample(9_500, { jankFrames: 3 }));
    expect(w.snapshot(10_000).jank).toEqual({ total: 5, perSecond: 5 }); // 5 frames over 2 × 500 ms
    const one = new PerfWindow();
    one.record(sample(9_000, { jankFrames: 4 }));
    expect(one.snapshot(10_000).jank).toEqual({ total: 4, perSecond: null });
  });

  it('R-PERFSNAP-05: fps and jank are labelled the runner process frame rate, never the app, and touch latency has no source', () => {
    const w = new PerfWindow();
    w.record(sample(1));
    const s = w.snapshot(2);
    expect(s.sources).toEqual({
      fps: 'runnerProcessFrames',
      jank: 'runnerProcessFrames',
      touchLatencyMs: 'none',
      cpu: 'runnerReported',
      memoryMb: 'runnerReported',
    });
    expect(s.touchLatencyMs).toBeNull();
  });

  it('R-PERFSNAP-06: the window keeps at most MAX_PERF_SAMPLES, the newest', () => {
    const w = new PerfWindow();
    for (let i = 0; i < MAX_PERF_SAMPLES + 100; i++) w.record(sample(i, { cpuUsagePercent: i }));
    expect(w.size).toBe(MAX_PERF_SAMPLES);
    expect(w.snapshot(MAX_PERF_SAMPLES + 99, 30_000).cpu?.latest).toBe(MAX_PERF_SAMPLES + 99);
  });
});

/** The rollup computed from scratch, as the window was first written: filter, sort, sum (the reference). */
function reference(all: readonly PerfSample[], now: number, windowMs: number) {
  const cutoff = now - windowMs;
  const inWindow = all.filter((s) => s.t >= cutoff && s.t <= now);
  const asc = (pick: (s: PerfSample) => number | null) =>
    inWindow
      .map(pick)
      .filter((v): v is number => v !== null)
      .sort((a, b) => a - b);
  const fps = asc((s) => s.fps);
  const cpu = inWindow.map((s) => s.cpuUsagePercent).filter((v): v is number => v !== null);
  return {
    sampleCount: inWindow.length,
    fps: fps.length ? { p50: percentile(fps, 50), p90: percentile(fps, 90), p95: percentile(fps, 95), p99: percentile(fps, 99) } : null,
    cpu: cpu.length ? { avg: round(cpu.reduce((a, b) => a + b, 0) / cpu.length), latest: cpu[cpu.length - 1] } : null,
  };
}

describe('perfSnapshot kept ascending as samples come and go', () => {
  it('R-PERFSNAP-09: percentiles read from the incrementally sorted window equal a full sort, through caps, prunes, nulls, repeats and a late sample', () => {
    // A fixed pseudo-random walk (no Math.random: a failure replays), many duplicates and nulls.
    let seed = 7;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
    const w = new PerfWindow();
    let all: PerfSample[] = [];
    let t = 0;
    for (let i = 0; i < 2_000; i++) {
      // Every 300th sample arrives 2 s late (a clock step back): the window must still agree.
      t += i % 300 === 299 ? -2_000 : Math.floor(next() * 120);
      const s = sample(t, { fps: next() < 0.1 ? null : Math.floor(next() * 8) + 54, cpuUsagePercent: Math.floor(next() * 100) });
      w.record(s);
      all.push(s);
      all = all.slice(-MAX_PERF_SAMPLES);
      if (i % 37 === 0) {
        const windowMs = [1_000, 5_000, 30_000][i % 3]!;
        // Sometimes a past instant, so samples newer than `now` sit outside the window.
        const now = i % 111 === 0 ? t - 500 : t;
        const got = w.snapshot(now, windowMs);
        const want = reference(all, now, windowMs);
        expect({ sampleCount: got.sampleCount, fps: got.fps, cpu: got.cpu }).toEqual(want);
        all = all.filter((x) => x.t >= now - windowMs);
      }
    }
  });
});

describe('recorded pushes (real CtrlProxy, tests/fixtures/ctrlproxy-perf)', () => {
  const dir = join(dirname(fileURLToPath(import.meta.url)), '../fixtures/ctrlproxy-perf');
  const pushes = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => readFileSync(join(dir, f), 'utf8'));

  it('R-PERFSNAP-01: the four recorded pushes decode as performance_update and roll up', () => {
    expect(pushes).toHaveLength(4);
    const w = new PerfWindow();
    let last = 0;
    for (const text of pushes) {
      const push = JSON.parse(text).push;
      const decoded = decodeRunnerInbound(JSON.stringify(push));
      expect(decoded.ok).toBe(true);
      const update = PerformanceUpdateSchema.parse(push);
      // Arrival on the inspector's clock: here the runner's own timestamps, 1,000–1,017 ms apart.
      last = update.performanceData.timestamp;
      w.record(sampleFromPush(update, last));
    }
    const s = PerfSnapshotSchema.parse(w.snapshot(last));
    expect(s.sampleCount).toBe(4);
    expect(s.windowMs).toBe(5_000);
    expect(s.fps).toEqual({ p50: 60, p90: 60, p95: 60, p99: 60 });
    expect(s.jank).toEqual({ total: 0, perSecond: 0 });
    expect(s.cpu).toEqual({ avg: round((1.6 + 20.5 + 40.1 + 47.7) / 4), latest: 47.7 });
    expect(s.memoryMb).toEqual({ avg: round((275.01562 + 3 * 275.04688) / 4), latest: 275.04688 });
    expect(s.sources.fps).toBe('runnerProcessFrames');
    // A 1 s window over the same pushes holds the last alone: the one before came 1,017 ms earlier.
    const narrow = new PerfWindow();
    for (const text of pushes) {
      const update = PerformanceUpdateSchema.parse(JSON.parse(text).push);
      narrow.record(sampleFromPush(update, update.performanceData.timestamp));
    }
    expect(narrow.snapshot(last, 1_000).sampleCount).toBe(1);
  });
});

function round(v: number): number {
  return Math.round(v * 100) / 100;
}
