/**
 * The live performance strip's words (docs/rules.md#r-perfstrip): the newest figures and, apart from them,
 * the frame figures under the name of what they measure. On iOS the runner's fps and jank come from the
 * test-runner process, not the app (seed 002, R-PERFSNAP-05), so they are never shown as the app's.
 */
import type { PerfMetricSource, PerfSample } from '@shared/protocol/perf';

function figure(value: number | null, unit: string): string {
  return value === null ? `— ${unit}` : `${value.toFixed(1)} ${unit}`;
}

/** The CPU and memory of the newest push, as the plots' readout says them. */
export function perfReadout(sample: PerfSample | undefined): string {
  if (!sample) return 'Waiting for the device’s first performance push…';
  return `CPU ${figure(sample.cpuUsagePercent, '%')} · memory ${figure(sample.memoryUsageMb, 'MB')}`;
}

/**
 * R-PERFSTRIP-02: the frame figures named by their source. `runnerProcessFrames` says they are the
 * runner's own; `none` shows nothing (no figure is better than another process's called the app's).
 */
export function frameRateText(sample: PerfSample | undefined, source: PerfMetricSource): string | null {
  if (source === 'none' || !sample || sample.fps === null) return null;
  const jank = sample.jankFrames === null ? '' : `, ${sample.jankFrames} janky`;
  const fps = `${Math.round(sample.fps)} fps${jank}`;
  if (source === 'runnerProcessFrames') return `Test runner’s own frame rate (not the app’s): ${fps}`;
  return `Frame rate reported by the device: ${fps}`;
}
