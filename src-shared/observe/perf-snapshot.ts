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

/**
 * A multiset of numbers kept ascending as values come and go, so a snapshot reads percentiles without
 * sorting the window again (the 512-sample worst case sorted per observe cost 1.5x the rollup's limit;
 * bench/perf-snapshot.bench.ts). Insert and remove are a binary search and one splice.
 */
class SortedValues {
  readonly values: number[] = [];

  add(value: number | null): void {
    if (value === null || !Number.isFinite(value)) return;
    this.values.splice(this.upperBound(value), 0, value);
  }

  remove(value: number | null): void {
    if (value === null || !Number.isFinite(value)) return;
    const at = this.lowerBound(value);
    if (at < this.values.length && this.values[at] === value) this.values.splice(at, 1);
  }

  clear(): void {
    this.values.length = 0;
  }

  /** First index whose value is not below `value`. */
  private lowerBound(value: number): number {
    let lo = 0;
    let hi = this.values.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.values[mid]! < value) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** First index whose value is above `value`. */
  private upperBound(value: number): number {
    let lo = 0;
    let hi = this.values.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.values[mid]! <= value) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

export class PerfWindow {
  private samples: PerfSample[] = [];
  /** The retained samples' fps and touch latency, ascending, kept in step with `samples`. */
  private readonly fpsAscending = new SortedValues();
  private readonly touchAscending = new SortedValues();
  /** False once a sample arrived older than the one before it; snapshots then take the general path. */
  private ordered = true;

  /** Samples arrive in non-decreasing `t` (one socket); the oldest go beyond the cap. */
  record(sample: PerfSample): void {
    const last = this.samples[this.samples.length - 1];
    if (last && sample.t < last.t) this.ordered = false;
    this.samples.push(sample);
    this.fpsAscending.add(sample.fps);
    this.touchAscending.add(sample.touchLatencyMs);
    if (this.samples.length > MAX_PERF_SAMPLES) this.dropOldest(this.samples.length - MAX_PERF_SAMPLES);
  }

  clear(): void {
    this.samples = [];
    this.fpsAscending.clear();
    this.touchAscending.clear();
    this.ordered = true;
  }

  get size(): number {
    return this.samples.length;
  }

  private dropOldest(count: number): void {
    for (let i = 0; i < count; i++) {
      const gone = this.samples[i]!;
      this.fpsAscending.remove(gone.fps);
      this.touchAscending.remove(gone.touchLatencyMs);
    }
    this.samples.splice(0, count);
  }

  /** The rollup over `[now - windowMs, now]`; samples older than the window are dropped (R-PERFSNAP-01). */
  snapshot(now: number, windowMs?: number): PerfSnapshot {
    const window = clampPerfWindowMs(windowMs);
    const cutoff = now - window;
    if (!this.ordered) return this.snapshotUnordered(now, window, cutoff);
    // In arrival order the samples older than the cutoff are a prefix.
    let stale = 0;
    while (stale < this.samples.length && this.samples[stale]!.t < cutoff) stale++;
    if (stale > 0) this.dropOldest(stale);
    const newest = this.samples[this.samples.length - 1];
    // A sample newer than `now` (a snapshot asked for a past instant) is outside the window.
    if (newest && newest.t > now) return this.snapshotUnordered(now, window, cutoff);
    return rollup(this.samples, now, window, cutoff, this.fpsAscending.values, this.touchAscending.values);
  }

  private snapshotUnordered(now: number, window: number, cutoff: number): PerfSnapshot {
    const inWindow = this.samples.filter((s) => s.t >= cutoff && s.t <= now);
    const kept = this.samples.filter((s) => s.t >= cutoff);
    if (kept.length !== this.samples.length) {
      this.clear();
      for (const s of kept) this.record(s);
    }
    return rollup(inWindow, now, window, cutoff, sorted(values(inWindow, (s) => s.fps)), sorted(values(inWindow, (s) => s.touchLatencyMs)));
  }
}

/** The snapshot of `inWindow` (every sample in `[cutoff, now]`, in arrival order), given its fps and touch values ascending. */
function rollup(
  inWindow: readonly PerfSample[],
  now: number,
  window: number,
  cutoff: number,
  fpsAscending: readonly number[],
  touchAscending: readonly number[],
): PerfSnapshot {
  const oldest = inWindow[0];
  return {
    windowMs: window,
    sampleCount: inWindow.length,
    oldestSampleAgeMs: oldest ? now - oldest.t : null,
    fps: percentiles(fpsAscending),
    // A jank count covers the interval that ends at its sample: one exactly on the cutoff began before.
    jank: jankSummary(inWindow, cutoff),
    touchLatencyMs: touchSummary(touchAscending, inWindow),
    cpu: averageLatest(inWindow, (s) => s.cpuUsagePercent),
    memoryMb: averageLatest(inWindow, (s) => s.memoryUsageMb),
    sources: RUNNER_SOURCES,
  };
}

/** R-PERFSNAP-05: every metric of a runner device names where it came from. */
export const RUNNER_SOURCES: PerfSnapshot['sources'] = {
  fps: 'runnerProcessFrames',
  jank: 'runnerProcessFrames',
  touchLatencyMs: 'none',
  cpu: 'runnerReported',
  memoryMb: 'runnerReported',
};

function finite(v: number | null): v is number {
  return v !== null && Number.isFinite(v);
}

function values(samples: readonly PerfSample[], pick: (s: PerfSample) => number | null): number[] {
  const out: number[] = [];
  for (const s of samples) {
    const v = pick(s);
    if (finite(v)) out.push(v);
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

function percentiles(ascending: readonly number[]): PerfSnapshot['fps'] {
  if (ascending.length === 0) return null;
  return { p50: percentile(ascending, 50), p90: percentile(ascending, 90), p95: percentile(ascending, 95), p99: percentile(ascending, 99) };
}

/**
 * Jank over the samples after `cutoff`. n samples span n − 1 gaps but count n intervals; with one sample
 * the interval is unknown (null rate).
 */
function jankSummary(samples: readonly PerfSample[], cutoff: number): PerfSnapshot['jank'] {
  let total = 0;
  let n = 0;
  let first = 0;
  let last = 0;
  for (const s of samples) {
    if (s.t <= cutoff || !finite(s.jankFrames)) continue;
    if (n === 0) first = s.t;
    last = s.t;
    total += s.jankFrames;
    n++;
  }
  if (n === 0) return null;
  const spanMs = last - first;
  const coverageMs = n >= 2 && spanMs > 0 ? (spanMs * n) / (n - 1) : 0;
  return { total, perSecond: coverageMs > 0 ? round2((total / coverageMs) * 1000) : null };
}

function touchSummary(ascending: readonly number[], inWindow: readonly PerfSample[]): PerfSnapshot['touchLatencyMs'] {
  if (ascending.length === 0) return null;
  let latest = 0;
  for (const s of inWindow) if (finite(s.touchLatencyMs)) latest = s.touchLatencyMs;
  return { p50: percentile(ascending, 50), p95: percentile(ascending, 95), latest };
}

function averageLatest(samples: readonly PerfSample[], pick: (s: PerfSample) => number | null): PerfSnapshot['cpu'] {
  let sum = 0;
  let n = 0;
  let latest = 0;
  for (const s of samples) {
    const v = pick(s);
    if (!finite(v)) continue;
    sum += v;
    latest = v;
    n++;
  }
  if (n === 0) return null;
  return { avg: round2(sum / n), latest };
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
