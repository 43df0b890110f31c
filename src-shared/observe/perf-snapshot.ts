/**
 * The windowed rollup of a device's performance pushes into the observation's `perfSnapshot` (seed 002,
 * docs/rules.md#r-perfsnap). Pure: the caller passes the time of each sample and of each snapshot, so a
 * test drives the window without a clock.
 *
 * Shape and arithmetic follow AutoMobile's PerfWindowBuffer (kaeawc/auto-mobile,
 * src/features/performance/PerfWindowBuffer.ts): a retention cap, pruning on snapshot, jank counted over
 * `(cutoff, now]`, its rate over n sampling intervals, values rounded to 0.01.
 */
import type { PerformanceUpdate } from '@shared/protocol/runner';
import { PERF_WINDOW_DEFAULT_MS, PERF_WINDOW_MAX_MS, PERF_WINDOW_MIN_MS, type PerfSample, type PerfSnapshot } from '@shared/protocol/perf';

export type { PerfSample } from '@shared/protocol/perf';

/** R-PERFSNAP-06: at most this many samples are kept per device (over 4 min at the runner's 1 Hz). */
export const MAX_PERF_SAMPLES = 512;

/** R-PERFSNAP-02: absent or not a number means the default; otherwise clamped to 1,000–30,000 ms. */
export function clampPerfWindowMs(windowMs: number | undefined): number {
  if (windowMs === undefined || !Number.isFinite(windowMs)) return PERF_WINDOW_DEFAULT_MS;
  return Math.round(Math.min(PERF_WINDOW_MAX_MS, Math.max(PERF_WINDOW_MIN_MS, windowMs)));
}

/**
 * A runner push as a sample. The runner reports touch latency nowhere, so it is null. Its fps and jank
 * stay in the sample but are labelled `runnerProcessFrames` in the snapshot (R-PERFSNAP-05).
 */
export function sampleFromPush(push: PerformanceUpdate, receivedAt: number): PerfSample {
  const d = push.performanceData;
  return {
    t: receivedAt,
    fps: d.fps,
    jankFrames: d.jankFrames,
    touchLatencyMs: null,
    cpuUsagePercent: d.cpuUsagePercent,
    memoryUsageMb: d.memoryUsageMb,
  };
}

export class PerfWindow {
  private samples: PerfSample[] = [];

  /** Samples arrive in non-decreasing `t` (one socket); the oldest go beyond the cap. */
  record(sample: PerfSample): void {
    this.samples.push(sample);
    if (this.samples.length > MAX_PERF_SAMPLES) this.samples.splice(0, this.samples.length - MAX_PERF_SAMPLES);
  }

  clear(): void {
    this.samples = [];
  }

  get size(): number {
    return this.samples.length;
  }

  /** The rollup over `[now - windowMs, now]`; samples older than the window are dropped (R-PERFSNAP-01). */
  snapshot(now: number, windowMs?: number): PerfSnapshot {
    const window = clampPerfWindowMs(windowMs);
    const cutoff = now - window;
    const inWindow = this.samples.filter((s) => s.t >= cutoff && s.t <= now);
    this.samples = this.samples.filter((s) => s.t >= cutoff);
    const oldest = inWindow[0];
    const touch = values(inWindow, (s) => s.touchLatencyMs);
    return {
      windowMs: window,
      sampleCount: inWindow.length,
      oldestSampleAgeMs: oldest ? now - oldest.t : null,
      fps: percentiles(values(inWindow, (s) => s.fps)),
      // A jank count covers the interval that ends at its sample: one exactly on the cutoff began before.
      jank: jankSummary(inWindow.filter((s) => s.t > cutoff)),
      touchLatencyMs: touchSummary(touch),
      cpu: averageLatest(values(inWindow, (s) => s.cpuUsagePercent)),
      memoryMb: averageLatest(values(inWindow, (s) => s.memoryUsageMb)),
      sources: RUNNER_SOURCES,
    };
  }
}

/** R-PERFSNAP-05: every metric of a runner device names where it came from. */
export const RUNNER_SOURCES: PerfSnapshot['sources'] = {
  fps: 'runnerProcessFrames',
  jank: 'runnerProcessFrames',
  touchLatencyMs: 'none',
  cpu: 'runnerReported',
  memoryMb: 'runnerReported',
};

function values(samples: readonly PerfSample[], pick: (s: PerfSample) => number | null): number[] {
  const out: number[] = [];
  for (const s of samples) {
    const v = pick(s);
    if (v !== null && Number.isFinite(v)) out.push(v);
  }
  return out;
}

function sorted(list: readonly number[]): number[] {
  return [...list].sort((a, b) => a - b);
}

/**
 * R-PERFSNAP-03: linear interpolation between the closest ranks (a single sample is every percentile),
 * rounded to 0.01.
 */
export function percentile(ascending: readonly number[], p: number): number {
  const index = (p / 100) * (ascending.length - 1);
  const lower = Math.floor(index);
  const upper = Math.ceil(index);
  const value = ascending[lower]! + (ascending[upper]! - ascending[lower]!) * (index - lower);
  return round2(value);
}

function percentiles(list: number[]): PerfSnapshot['fps'] {
  if (list.length === 0) return null;
  const ascending = sorted(list);
  return { p50: percentile(ascending, 50), p90: percentile(ascending, 90), p95: percentile(ascending, 95), p99: percentile(ascending, 99) };
}

/** n samples span n − 1 gaps but count n intervals; with one sample the interval is unknown (null rate). */
function jankSummary(samples: readonly PerfSample[]): PerfSnapshot['jank'] {
  const withJank = samples.filter((s) => s.jankFrames !== null && Number.isFinite(s.jankFrames));
  if (withJank.length === 0) return null;
  const total = withJank.reduce((sum, s) => sum + s.jankFrames!, 0);
  const n = withJank.length;
  const spanMs = withJank[n - 1]!.t - withJank[0]!.t;
  const coverageMs = n >= 2 && spanMs > 0 ? (spanMs * n) / (n - 1) : 0;
  return { total, perSecond: coverageMs > 0 ? round2((total / coverageMs) * 1000) : null };
}

function touchSummary(list: readonly number[]): PerfSnapshot['touchLatencyMs'] {
  if (list.length === 0) return null;
  const ascending = sorted(list);
  return { p50: percentile(ascending, 50), p95: percentile(ascending, 95), latest: list[list.length - 1]! };
}

function averageLatest(list: readonly number[]): PerfSnapshot['cpu'] {
  if (list.length === 0) return null;
  return { avg: round2(list.reduce((a, b) => a + b, 0) / list.length), latest: list[list.length - 1]! };
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
