/**
 * A trace step's perf window (docs/rules.md#r-perfstep-04): memory and CPU before the action and after
 * it, drawn as paired bars, and a flag when memory grew by more than the user's threshold (a number
 * input in the view, kept in localStorage so it survives a reload).
 */
import type { StepPerf as StepPerfData } from '@shared/protocol/perf';
import { MAX_MEMORY_THRESHOLD_MB, memoryGrowth } from '@shared/trace/perf-step';
import { useMemoryThreshold } from '@renderer/state/memory-threshold';

/** The threshold's input, shared by the step's window and the replay's figures (one value: state/memory-threshold.ts). */
export function MemoryThresholdInput() {
  const threshold = useMemoryThreshold((s) => s.thresholdMb);
  const set = useMemoryThreshold((s) => s.set);
  return (
    <label>
      Flag above (MB){' '}
      <input
        type="number"
        min={0}
        max={MAX_MEMORY_THRESHOLD_MB}
        value={threshold}
        aria-label="memory growth threshold (MB)"
        onChange={(event) => void set(event.currentTarget.valueAsNumber)}
      />
    </label>
  );
}

const fmt = (value: number | null | undefined, unit: string) => (value === null || value === undefined ? '—' : `${value.toFixed(1)} ${unit}`);

function Bars({ label, before, after, unit }: { label: string; before: number | null; after: number | null; unit: string }) {
  const max = Math.max(before ?? 0, after ?? 0, 1);
  const width = (v: number | null) => ((v ?? 0) / max) * 100;
  return (
    <div className="step-perf-metric" data-testid={`step-perf-${unit === '%' ? 'cpu' : 'memory'}`}>
      <span className="step-perf-label">{label}</span>
      <svg viewBox="0 0 100 12" preserveAspectRatio="none" className="step-perf-bars" aria-hidden="true">
        <rect x="0" y="0" height="5" width={width(before)} fill="currentColor" opacity="0.45" />
        <rect x="0" y="7" height="5" width={width(after)} fill="currentColor" />
      </svg>
      <span>
        {fmt(before, unit)} → {fmt(after, unit)}
      </span>
    </div>
  );
}

export function StepPerf({ perf }: { perf: StepPerfData | undefined }) {
  const threshold = useMemoryThreshold((s) => s.thresholdMb);
  if (!perf) return null;
  const growth = memoryGrowth(perf, threshold);
  return (
    <section className="step-perf" data-testid="step-perf" data-flagged={String(growth.flagged)}>
      <Bars label="Memory" before={perf.before.memoryMb?.latest ?? null} after={perf.after.memoryMb?.latest ?? null} unit="MB" />
      <Bars label="CPU" before={perf.before.cpu?.latest ?? null} after={perf.after.cpu?.latest ?? null} unit="%" />
      <div className="step-perf-growth">
        {growth.flagged ? (
          <strong role="alert">
            Memory grew {growth.grownMb} MB (over {threshold} MB)
          </strong>
        ) : (
          <span>Memory growth: {growth.grownMb === null ? 'no figure' : `${growth.grownMb} MB`}</span>
        )}
        <MemoryThresholdInput />
      </div>
      <small>
        before: {perf.before.sampleCount} pushes in {perf.before.windowMs / 1000} s; after: {perf.after.sampleCount} pushes
      </small>
    </section>
  );
}
