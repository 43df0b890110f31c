/**
 * The memory growth threshold the user set (docs/rules.md#r-perfstep-04, #r-perfstep-05): one value for
 * the trace view's step window (StepPerf) and the replay's recorded vs replayed figures (ReplayPerf), so
 * a step is flagged alike in both; kept in localStorage, so it survives a reload.
 */
import { create } from 'zustand';
import { DEFAULT_MEMORY_THRESHOLD_MB, memoryThresholdOf } from '@shared/trace/perf-step';

/** Where the threshold is kept in localStorage. */
export const THRESHOLD_STORAGE_KEY = 'parallax.stepPerf.memoryThresholdMb';

/** localStorage, or nothing when the page may not use it (a sandboxed frame): the default then holds. */
function storage(): Storage | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined;
  }
}

function saved(): number {
  const raw = storage()?.getItem(THRESHOLD_STORAGE_KEY);
  if (raw === null || raw === undefined) return DEFAULT_MEMORY_THRESHOLD_MB;
  try {
    return memoryThresholdOf(raw);
  } catch {
    return DEFAULT_MEMORY_THRESHOLD_MB;
  }
}

interface MemoryThresholdState {
  thresholdMb: number;
  /** Takes a threshold the rule allows (0–65,536 MB) and keeps it; any other is not taken (false). */
  set(mb: number): boolean;
}

export const useMemoryThreshold = create<MemoryThresholdState>()((set) => ({
  thresholdMb: saved(),
  set: (mb) => {
    try {
      memoryThresholdOf(mb);
    } catch {
      return false;
    }
    set({ thresholdMb: mb });
    storage()?.setItem(THRESHOLD_STORAGE_KEY, String(mb));
    return true;
  },
}));
