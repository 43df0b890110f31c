/**
 * What the live performance strip holds and measures (docs/rules.md#r-perfstrip), outside React: the
 * pushes arrive once a second and the strip hands them straight to uPlot, so keeping them in a store
 * would re-render for nothing.
 */
import { MAX_STRIP_SAMPLES, type PerfSample } from '@shared/protocol/perf';

/** The newest samples of one device as uPlot's columns (x in seconds, as its time axis counts). */
export class PerfSeries {
  private readonly t: number[] = [];
  private readonly cpu: (number | null)[] = [];
  private readonly memory: (number | null)[] = [];
  private lastSample: PerfSample | undefined;

  /** Samples come in arrival order; one not newer than the last (a backlog overlapping the live pushes) is dropped. */
  push(sample: PerfSample): boolean {
    if (this.lastSample && sample.t <= this.lastSample.t) return false;
    this.t.push(sample.t / 1000);
    this.cpu.push(sample.cpuUsagePercent);
    this.memory.push(sample.memoryUsageMb);
    if (this.t.length > MAX_STRIP_SAMPLES) {
      this.t.shift();
      this.cpu.shift();
      this.memory.shift();
    }
    this.lastSample = sample;
    return true;
  }

  /**
   * Samples read before the live ones (a strip opened mid-session): those older than every kept one go
   * first, the newest kept when more than the cap.
   */
  insertOlder(samples: readonly PerfSample[]): void {
    const first = this.t[0];
    const older = samples.filter((s) => first === undefined || s.t / 1000 < first);
    this.t.unshift(...older.map((s) => s.t / 1000));
    this.cpu.unshift(...older.map((s) => s.cpuUsagePercent));
    this.memory.unshift(...older.map((s) => s.memoryUsageMb));
    const over = this.t.length - MAX_STRIP_SAMPLES;
    if (over > 0) {
      this.t.splice(0, over);
      this.cpu.splice(0, over);
      this.memory.splice(0, over);
    }
    this.lastSample ??= older[older.length - 1];
  }

  get latest(): PerfSample | undefined {
    return this.lastSample;
  }

  get size(): number {
    return this.t.length;
  }

  cpuData(): [number[], (number | null)[]] {
    return [this.t, this.cpu];
  }

  memoryData(): [number[], (number | null)[]] {
    return [this.t, this.memory];
  }
}

/**
 * The strip's own time on the page's main thread (R-PERFSTRIP-03): taking a push, handing it to the
 * plots and their drawing, summed, so a bench reads what the strip costs per second of live mode.
 */
export class StripCost {
  totalMs = 0;
  updates = 0;

  measure<T>(work: () => T, now: () => number = () => performance.now()): T {
    const start = now();
    try {
      return work();
    } finally {
      this.totalMs += now() - start;
    }
  }
}
