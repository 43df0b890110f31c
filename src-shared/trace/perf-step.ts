/**
 * A step's memory growth and its flag (docs/rules.md#r-perfstep), and a recorded step's figures beside a
 * replayed one's. Pure: the trace view and the replay report both ask it.
 */
import type { PerfSnapshot, StepPerf } from '@shared/protocol/perf';
import { stepRanges, type ReplayStep } from './replay-report';

/** What a user may set as the growth threshold, in MB (a step's memory rising by more is flagged). */
export const MAX_MEMORY_THRESHOLD_MB = 65_536;
/** R-PERFSTEP-04: the threshold until the user sets one. */
export const DEFAULT_MEMORY_THRESHOLD_MB = 20;

export class MemoryThresholdError extends Error {
  constructor(readonly value: number | string) {
    super(`memory growth threshold: expected a number of MB from 0 to ${MAX_MEMORY_THRESHOLD_MB}, got ${JSON.stringify(String(value))}`);
    this.name = 'MemoryThresholdError';
  }
}

/**
 * The one check of a threshold (R-PERFSTEP-01), for a number (the view's input) or text (the CLI's
 * `--memory-threshold-mb`, digits with an optional fraction: "1e3", "0x10" or " 5" are refused).
 */
export function memoryThresholdOf(value: number | string): number {
  const mb = typeof value === 'number' ? value : /^\d+(\.\d+)?$/.test(value) ? Number(value) : NaN;
  if (!Number.isFinite(mb) || mb < 0 || mb > MAX_MEMORY_THRESHOLD_MB) throw new MemoryThresholdError(value);
  return mb;
}

export interface MemoryGrowth {
  /** The newest memory after the step minus the newest before it, in MB; null when either side had no sample. */
  grownMb: number | null;
  /** R-PERFSTEP-01: grown by more than the threshold. A step with no figure on a side is never flagged. */
  flagged: boolean;
}

/** R-PERFSTEP-01: the step's growth against the user's threshold (strictly more is flagged). */
export function memoryGrowth(perf: StepPerf, thresholdMb: number): MemoryGrowth {
  memoryThresholdOf(thresholdMb);
  const before = perf.before.memoryMb?.latest;
  const after = perf.after.memoryMb?.latest;
  if (before === undefined || after === undefined) return { grownMb: null, flagged: false };
  const grownMb = Math.round((after - before) * 100) / 100;
  return { grownMb, flagged: grownMb > thresholdMb };
}

/** One figure of a step, recorded and replayed side by side (R-PERFSTEP-02); null where a side has none. */
export interface PerfFigureRow {
  figure: 'cpu after (%)' | 'memory after (MB)' | 'memory growth (MB)';
  recorded: number | null;
  replayed: number | null;
}

function latest(snapshot: PerfSnapshot | undefined, pick: 'cpu' | 'memoryMb'): number | null {
  return snapshot?.[pick]?.latest ?? null;
}

/** R-PERFSTEP-02: the recorded step's figures beside the replayed step's; a side without perf reads null. */
export function perfSideBySide(recorded: StepPerf | undefined, replayed: StepPerf | undefined): PerfFigureRow[] {
  const growth = (perf: StepPerf | undefined) => (perf ? memoryGrowth(perf, MAX_MEMORY_THRESHOLD_MB).grownMb : null);
  return [
    { figure: 'cpu after (%)', recorded: latest(recorded?.after, 'cpu'), replayed: latest(replayed?.after, 'cpu') },
    { figure: 'memory after (MB)', recorded: latest(recorded?.after, 'memoryMb'), replayed: latest(replayed?.after, 'memoryMb') },
    { figure: 'memory growth (MB)', recorded: growth(recorded), replayed: growth(replayed) },
  ];
}

/** A replayed step's memory on each side against the threshold (R-PERFSTEP-05); null for a side without a window. */
export interface ReplayMemory {
  recorded: MemoryGrowth | null;
  replayed: MemoryGrowth | null;
}

export function replayMemory(perf: ReplayStep['perf'], thresholdMb: number): ReplayMemory {
  return {
    recorded: perf?.recorded ? memoryGrowth(perf.recorded, thresholdMb) : null,
    replayed: perf?.replayed ? memoryGrowth(perf.replayed, thresholdMb) : null,
  };
}

/**
 * R-PERFSTEP-05: the steps whose memory grew past the threshold this time, in one line ("memory grew
 * over 20 MB at steps 2, 3 (recorded: step 3)"), or undefined when none did. Reported, not judged.
 */
export function memoryFlagLine(steps: readonly Pick<ReplayStep, 'number' | 'perf'>[], thresholdMb: number): string | undefined {
  const flagged = (side: keyof ReplayMemory) => steps.filter((s) => replayMemory(s.perf, thresholdMb)[side]?.flagged).map((s) => s.number);
  const replayed = flagged('replayed');
  if (replayed.length === 0) return undefined;
  const recorded = flagged('recorded');
  const stepsText = (numbers: number[]) => `step${numbers.length === 1 ? '' : 's'} ${stepRanges(numbers)}`;
  return `memory grew over ${thresholdMb} MB at ${stepsText(replayed)} (recorded: ${recorded.length === 0 ? 'none' : stepsText(recorded)})`;
}
