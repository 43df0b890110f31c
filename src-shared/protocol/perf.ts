/**
 * The observation's `perfSnapshot` (seed 002; docs/rules.md#r-perfsnap): an opt-in rollup of the runner's
 * `performance_update` pushes over a window. Built by `src-shared/observe/perf-snapshot.ts`.
 */
import { z } from 'zod';

/** R-PERFSNAP-02: the window a caller asks for is clamped to this range; 5 s when none is asked. */
export const PERF_WINDOW_DEFAULT_MS = 5_000;
export const PERF_WINDOW_MIN_MS = 1_000;
export const PERF_WINDOW_MAX_MS = 30_000;

/**
 * Where a metric's samples came from (R-PERFSNAP-05). On iOS the runner's frame figures come from a
 * CADisplayLink in the test-runner process: they measure the runner's own frame rate, never the app's
 * (seed 002), hence `runnerProcessFrames`. `runnerReported` is a figure the runner's push carries as it
 * sent it. `none`: no source feeds the metric, so it stays null.
 */
export const PerfMetricSourceSchema = z.enum(['runnerProcessFrames', 'runnerReported', 'none']);
export type PerfMetricSource = z.infer<typeof PerfMetricSourceSchema>;

const finite = z.number().finite();
export const PercentileSummarySchema = z.object({ p50: finite, p90: finite, p95: finite, p99: finite });
export const JankSummarySchema = z.object({ total: finite, perSecond: finite.nullable() });
export const TouchLatencySummarySchema = z.object({ p50: finite, p95: finite, latest: finite });
export const AverageLatestSummarySchema = z.object({ avg: finite, latest: finite });

export const PerfSnapshotSchema = z.object({
  windowMs: z.number().int().min(PERF_WINDOW_MIN_MS).max(PERF_WINDOW_MAX_MS),
  /** Samples in the window; small on the first observe after perf mode is turned on (the warm-up). */
  sampleCount: z.number().int().nonnegative(),
  oldestSampleAgeMs: z.number().nonnegative().nullable(),
  /** Each metric is null when the window held no sample of it (R-PERFSNAP-04). */
  fps: PercentileSummarySchema.nullable(),
  jank: JankSummarySchema.nullable(),
  touchLatencyMs: TouchLatencySummarySchema.nullable(),
  cpu: AverageLatestSummarySchema.nullable(),
  memoryMb: AverageLatestSummarySchema.nullable(),
  sources: z.object({
    fps: PerfMetricSourceSchema,
    jank: PerfMetricSourceSchema,
    touchLatencyMs: PerfMetricSourceSchema,
    cpu: PerfMetricSourceSchema,
    memoryMb: PerfMetricSourceSchema,
  }),
});
export type PerfSnapshot = z.infer<typeof PerfSnapshotSchema>;

/**
 * One push as the inspector keeps it (R-PERFSNAP-01): its fields at `t`, the inspector's time of arrival
 * in ms (the same clock as an action step's `startedAt`, so the strip can mark actions on it). The runner
 * reports no touch latency, so a runner's sample has it null.
 */
export const PerfSampleSchema = z.object({
  t: finite,
  fps: finite.nullable(),
  jankFrames: finite.nullable(),
  touchLatencyMs: finite.nullable(),
  cpuUsagePercent: finite.nullable(),
  memoryUsageMb: finite.nullable(),
});
export type PerfSample = z.infer<typeof PerfSampleSchema>;

/** R-PERFSTRIP-01: at most this many recent samples are handed to a strip (two minutes at the runner's 1 Hz). */
export const MAX_STRIP_SAMPLES = 120;

/** A device's recent samples for the live strip (docs/rules.md#r-perfstrip), with each metric's source. */
export const PerfSeriesSchema = z.object({
  samples: z.array(PerfSampleSchema).max(MAX_STRIP_SAMPLES),
  sources: PerfSnapshotSchema.shape.sources,
});
export type PerfSeries = z.infer<typeof PerfSeriesSchema>;

/** The API's `device.perf` event: one device's push, as it arrived (R-PERFSTRIP-01). */
export const DevicePerfSampleSchema = z.object({ deviceId: z.string(), sample: PerfSampleSchema });
export type DevicePerfSample = z.infer<typeof DevicePerfSampleSchema>;

/**
 * A step's performance as a trace may keep it (docs/rules.md#r-perfstep): the device's rollup just before
 * the action was sent and just after its result. Optional wherever it is carried, so traces without it read.
 */
export const StepPerfSchema = z.object({ before: PerfSnapshotSchema, after: PerfSnapshotSchema });
export type StepPerf = z.infer<typeof StepPerfSchema>;
