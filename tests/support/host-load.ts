/**
 * How busy this thread is while a job runs elsewhere (the trace worker, docs/rules.md#r-mem-04): its
 * event-loop utilization, a share of its time and not a speed, so the figure holds on a loaded machine;
 * and how many 5 ms turns it gave meanwhile, the sign that other calls were answered.
 */
import { performance } from 'node:perf_hooks';

export interface HostLoad<T> {
  value: T;
  /** The share of the time `run` took that this thread's event loop was busy (0 to 1). */
  utilization: number;
  /** How many 5 ms timer turns this thread ran while `run` ran. */
  turns: number;
}

export async function hostLoad<T>(run: () => Promise<T>): Promise<HostLoad<T>> {
  let turns = 0;
  let running = true;
  const tick = () => {
    turns++;
    if (running) setTimeout(tick, 5);
  };
  const before = performance.eventLoopUtilization();
  tick();
  try {
    const value = await run();
    return { value, utilization: performance.eventLoopUtilization(before).utilization, turns };
  } finally {
    running = false;
  }
}
