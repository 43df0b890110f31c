/**
 * A replayed step's perf window (docs/rules.md#r-perfstep-05), on a connection the test pushes to and a
 * clock it moves: the step waits for as many pushes after its result as the recorded window held, a
 * refused first try's window is not the step's, a device that never pushed is not waited for, and a stop
 * or the cap ends the wait.
 */
import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PerfSample } from '@shared/protocol/perf';
import { REPLAY_AFTER_WINDOW_CAP_MS, ReplayPerfWindows } from '@main/trace/replay-perf';

let now = 0;
const connection = new EventEmitter<{ perf: [PerfSample] }>();
const push = (memory: number) => connection.emit('perf', { t: now, fps: 60, jankFrames: 0, touchLatencyMs: null, cpuUsagePercent: 5, memoryUsageMb: memory });
let windows: ReplayPerfWindows;

beforeEach(() => {
  vi.useFakeTimers();
  now = 10_000;
  windows = new ReplayPerfWindows(connection, () => now);
});
afterEach(() => {
  windows.dispose();
  vi.useRealTimers();
});

describe('ReplayPerfWindows', () => {
  it('R-PERFSTEP-05: the step waits until its after window holds as many pushes as the recorded one did', async () => {
    push(100);
    now += 500;
    windows.sent('a');
    windows.answered('a', 2);
    let settled = false;
    const window = windows.windowOf('a', true).then((perf) => ((settled = true), perf));
    now += 1_000;
    push(116);
    await Promise.resolve();
    expect(settled).toBe(false);
    now += 1_000;
    push(132);
    const perf = await window;
    expect(perf?.before.memoryMb?.latest).toBe(100);
    expect(perf?.after.sampleCount).toBe(2);
    expect(perf?.after.memoryMb?.latest).toBe(132);
  });

  it('R-PERFSTEP-05: a refusal sent again: the first try’s window is not the step’s', async () => {
    push(100);
    windows.sent('a');
    windows.answered('a', 1);
    now += 100;
    windows.sent('a');
    windows.answered('a', 1);
    now += 1_000;
    push(140);
    const perf = await windows.windowOf('a', true);
    expect(perf?.after.sampleCount).toBe(1);
    expect(perf?.after.memoryMb?.latest).toBe(140);
  });

  it('R-PERFSTEP-05: a device that never pushed is not waited for, and keeps no window', async () => {
    windows.sent('a');
    windows.answered('a', 3);
    await expect(windows.windowOf('a', true)).resolves.toBeUndefined();
    await windows.firstPush(AbortSignal.abort());
  });

  it('R-PERFSTEP-05: a stop ends the wait, and so does the cap, each with what the window holds', async () => {
    push(100);
    windows.sent('a');
    windows.answered('a', 3);
    const stop = new AbortController();
    const stopped = windows.windowOf('a', true, stop.signal);
    stop.abort();
    expect((await stopped)?.after.sampleCount).toBe(0);

    windows.sent('b');
    windows.answered('b', 3);
    const capped = windows.windowOf('b', true);
    now += 1_000;
    push(120);
    vi.advanceTimersByTime(REPLAY_AFTER_WINDOW_CAP_MS);
    expect((await capped)?.after.sampleCount).toBe(1);
  });

  it('R-PERFSTEP-05: before step 1 the replay waits for the first push of a device that has not pushed yet', async () => {
    let heard = false;
    const first = windows.firstPush().then(() => (heard = true));
    await Promise.resolve();
    expect(heard).toBe(false);
    push(100);
    await first;
    expect(heard).toBe(true);
  });
});
