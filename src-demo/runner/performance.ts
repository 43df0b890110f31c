/**
 * The demo runner's `performance_update` pushes, as the real CtrlProxy sends them (recorded in
 * tests/fixtures/ctrlproxy-perf/): about once a second to every connection, `performanceData` with all six
 * fields and the same `timestamp` on the push. Like the real runner, it measures its own process: the CPU
 * and resident memory of the demo device's Node process. The frame figures are the recorded simulator's
 * steady 60 fps (the demo draws no frames of its own to count).
 *
 * Two faults put real load on that process so the figures move (docs/rules.md#r-perfsnap):
 * `perf-cpu-spin` spins a worker thread 80 ms of every 100 ms; `perf-memory-growth` retains 16 MiB more at
 * each push (touched, so it is resident) up to 1 GiB. Clearing a fault ends its load.
 */
import { Worker } from 'node:worker_threads';
import type { PerformanceUpdate } from '@shared/protocol/runner';
import type { Faults, FaultName } from '@demo/phone/faults';

/** The real runner's cadence (its recorded pushes are 1,000–1,017 ms apart). */
export const PERFORMANCE_PUSH_MS = 1_000;
const GROWTH_BYTES = 16 * 1024 * 1024;
// 64 pushes (a minute): a replay test on a loaded machine runs long enough to reach a lower cap, after which memory no longer grows.
const MAX_GROWTH_BYTES = 1024 * 1024 * 1024;
const MIB = 1024 * 1024;
/** Busy 80 % of each 100 ms: load a QA engineer would see, and it still yields the core between periods. */
const SPIN_SOURCE = `
const { workerData } = require('node:worker_threads');
const pause = new Int32Array(new SharedArrayBuffer(4));
for (;;) {
  const until = Date.now() + workerData.busyMs;
  while (Date.now() < until) {}
  Atomics.wait(pause, 0, 0, workerData.idleMs);
}`;

export class DemoPerformance {
  private timer: NodeJS.Timeout | undefined;
  private spinner: Worker | undefined;
  private retained: Buffer[] = [];
  private last = { wall: performance.now(), cpu: process.cpuUsage() };
  private readonly onFaults = (changed: FaultName[]) => {
    if (changed.includes('perf-cpu-spin')) this.followSpin();
    if (changed.includes('perf-memory-growth') && !this.faults.has('perf-memory-growth')) this.retained = [];
  };

  constructor(
    private readonly faults: Faults,
    private readonly push: (update: PerformanceUpdate) => void,
  ) {
    faults.on('changed', this.onFaults);
    this.followSpin();
  }

  /** Pushes run while someone listens. */
  setListening(listening: boolean): void {
    if (listening && !this.timer) {
      this.last = { wall: performance.now(), cpu: process.cpuUsage() };
      this.timer = setInterval(() => this.tick(), PERFORMANCE_PUSH_MS);
      this.timer.unref();
    } else if (!listening && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  close(): void {
    this.setListening(false);
    this.faults.off('changed', this.onFaults);
    void this.spinner?.terminate();
    this.spinner = undefined;
    this.retained = [];
  }

  /** One push: CPU as a percentage of one core since the last push, resident memory in MiB. */
  private tick(): void {
    if (this.faults.has('perf-memory-growth') && this.retained.length * GROWTH_BYTES < MAX_GROWTH_BYTES) {
      this.retained.push(Buffer.alloc(GROWTH_BYTES, 1));
    }
    const wall = performance.now();
    const cpu = process.cpuUsage(this.last.cpu);
    const elapsedMs = Math.max(1, wall - this.last.wall);
    this.last = { wall, cpu: process.cpuUsage() };
    const timestamp = Date.now();
    this.push({
      type: 'performance_update',
      performanceData: {
        cpuUsagePercent: Math.round(((cpu.user + cpu.system) / 1000 / elapsedMs) * 1000) / 10,
        fps: 60,
        frameTimeMs: 16.666666,
        jankFrames: 0,
        memoryUsageMb: Math.round((process.memoryUsage().rss / MIB) * 100000) / 100000,
        timestamp,
      },
      timestamp,
    });
  }

  private followSpin(): void {
    if (this.faults.has('perf-cpu-spin') && !this.spinner) {
      this.spinner = new Worker(SPIN_SOURCE, { eval: true, workerData: { busyMs: 80, idleMs: 20 } });
      this.spinner.unref();
    } else if (!this.faults.has('perf-cpu-spin') && this.spinner) {
      void this.spinner.terminate();
      this.spinner = undefined;
    }
  }
}
