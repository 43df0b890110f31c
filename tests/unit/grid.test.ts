/**
 * The grid of many devices (docs/rules.md#r-perf-09): which devices get a tile, how the tiles fit the
 * window, and how the screenshot loop shares its requests among the devices.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { gridDevices, gridLayout, nextShot, type PaceSlot } from '@shared/inspect/grid';
import { GridLoop } from '@renderer/api/grid-live';
import type { DeviceSummary, ScreenshotFrame } from '@shared/protocol/device';

const LAYOUT = { aspect: 402 / 874, gap: 12, chrome: 54, sideChrome: 14 };
const PACE = { minIntervalMs: 100, maxWaitMs: 250 };

describe('R-PERF-09: the grid', () => {
  it('R-PERF-09: a tile for every connected device that takes screenshots, and for those not connected', () => {
    const devices: Array<Pick<DeviceSummary, 'id' | 'state' | 'supportedCommands'>> = [
      { id: 'runner', state: 'connected', supportedCommands: ['request_hierarchy', 'request_screenshot'] },
      { id: 'appreveal', state: 'connected', supportedCommands: ['screenshot'] },
      { id: 'blind', state: 'connected', supportedCommands: ['request_hierarchy'] },
      { id: 'gone', state: 'disconnected', supportedCommands: [] },
      { id: 'coming', state: 'connecting', supportedCommands: [] },
    ];
    expect(gridDevices(devices).map((d) => d.id)).toEqual(['runner', 'appreveal', 'gone', 'coming']);
  });

  it('R-PERF-09: the tiles always fit the area, eight at 1440x900 side by side in two rows', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 16 }), fc.integer({ min: 200, max: 4000 }), fc.integer({ min: 300, max: 3000 }), (count, width, height) => {
        const layout = gridLayout(count, width, height, LAYOUT);
        const rows = Math.ceil(count / layout.columns);
        expect(layout.columns * (layout.pictureWidth + LAYOUT.sideChrome) + (layout.columns - 1) * LAYOUT.gap).toBeLessThanOrEqual(width);
        expect(rows * (layout.pictureHeight + LAYOUT.chrome) + (rows - 1) * LAYOUT.gap).toBeLessThanOrEqual(height);
        expect(layout.pictureHeight).toBeGreaterThan(0);
      }),
    );
    // The grid's area at 1440x900 beside the 250 px device list.
    const layout = gridLayout(8, 1150, 800, LAYOUT);
    expect(layout.columns).toBe(4);
    expect(layout.pictureHeight).toBeGreaterThan(300);
  });

  it('R-PERF-09: never two requests for one device, never faster than its interval, the longest-waiting first', () => {
    const slots: PaceSlot[] = [
      { id: 'a', inFlight: true, lastStartedAt: 0 },
      { id: 'b', inFlight: false, lastStartedAt: 50 },
      { id: 'c', inFlight: false, lastStartedAt: 20 },
      { id: 'new', inFlight: false, lastStartedAt: undefined },
    ];
    expect(nextShot(slots, 60, PACE)).toEqual({ id: 'new' });
    slots[3]!.inFlight = true;
    // c waits longer than b, but both asked within the interval: wait for c's.
    expect(nextShot(slots.slice(0, 3), 60, { minIntervalMs: 100, maxWaitMs: 0 })).toEqual({ waitMs: 60 });
    expect(nextShot(slots.slice(0, 3), 130, { minIntervalMs: 100, maxWaitMs: 0 })).toEqual({ id: 'c' });
    expect(nextShot([{ id: 'a', inFlight: true, lastStartedAt: 0 }], 10_000, PACE)).toBeNull();
  });

  it('R-PERF-09: a device asked after a slow one waits its turn, up to the floor of its rate', () => {
    const slow: PaceSlot = { id: 'slow', inFlight: true, lastStartedAt: 0 };
    const fast: PaceSlot = { id: 'fast', inFlight: false, lastStartedAt: 10 };
    expect(nextShot([slow, fast], 120, PACE)).toEqual({ waitMs: 140 });
    expect(nextShot([slow, fast], 260, PACE)).toEqual({ id: 'fast' });
    // Once the slow one answered, the fast one goes at its own pace again.
    slow.inFlight = false;
    slow.lastStartedAt = 5;
    expect(nextShot([slow, fast], 120, PACE)).toEqual({ id: 'slow' });
  });
});

/** A host whose devices answer after their own delay; counts what is in flight. */
function fakeHost(delays: Record<string, number>) {
  const state = { inFlight: 0, maxInFlight: 0, perDevice: new Map<string, number>(), maxPerDevice: 0, calls: new Map<string, number>() };
  const api = {
    call: (async (_method: 'device.screenshot', input: { deviceId: string }) => {
      const { deviceId } = input;
      state.inFlight++;
      state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
      state.perDevice.set(deviceId, (state.perDevice.get(deviceId) ?? 0) + 1);
      state.maxPerDevice = Math.max(state.maxPerDevice, state.perDevice.get(deviceId)!);
      state.calls.set(deviceId, (state.calls.get(deviceId) ?? 0) + 1);
      await new Promise((resolve) => setTimeout(resolve, delays[deviceId] ?? 10));
      state.inFlight--;
      state.perDevice.set(deviceId, state.perDevice.get(deviceId)! - 1);
      return { deviceId, screenshot: { format: 'png', dataBase64: 'AAAA' }, receivedAt: Date.now() } satisfies ScreenshotFrame;
    }) as never,
  };
  return { api, state };
}

describe('R-PERF-09: the grid loop', () => {
  // The loop's clock (performance.now, its timers) is the test's: the fake devices' delays and the loop's
  // pacing are moved on together by the test, so a busy machine cannot starve a device within the window
  // the test looks at (docs/rules.md#r-suite-01).
  beforeEach(() => void vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'performance', 'Date'] }));
  afterEach(() => void vi.useRealTimers());
  const elapse = (ms: number) => vi.advanceTimersByTimeAsync(ms);

  it('R-PERF-09: keeps its bound in flight, one per device, every device served, nothing after it stops', async () => {
    const delays = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`d${i}`, i === 7 ? 400 : 30]));
    const { api, state } = fakeHost(delays);
    const loop = new GridLoop(api, 4);
    const shown = new Map<string, number>();
    for (const id of Object.keys(delays)) loop.attach(id, { show: async () => void shown.set(id, (shown.get(id) ?? 0) + 1), rate: () => {}, failed: () => {} });
    loop.setDevices(Object.keys(delays));
    loop.start();
    await elapse(1_200);
    loop.stop();
    const calls = new Map(state.calls);
    await elapse(600);
    expect(state.maxInFlight).toBeLessThanOrEqual(4);
    expect(state.maxPerDevice).toBe(1);
    // Every device had pictures, the slow one too; the fast ones were not starved by it either.
    for (const id of Object.keys(delays)) expect(shown.get(id) ?? 0, id).toBeGreaterThan(0);
    for (let i = 0; i < 7; i++) expect(calls.get(`d${i}`) ?? 0).toBeGreaterThanOrEqual(3);
    // Stopped means stopped: no new request after stop().
    expect(state.calls).toEqual(calls);
  });

  it('R-PERF-09: a device that leaves the grid is asked no more', async () => {
    const { api, state } = fakeHost({ a: 10, b: 10 });
    const loop = new GridLoop(api, 2);
    loop.setDevices(['a', 'b']);
    loop.start();
    await elapse(300);
    loop.setDevices(['a']);
    await elapse(50);
    const before = state.calls.get('b');
    await elapse(300);
    loop.stop();
    expect(state.calls.get('b')).toBe(before);
    expect(state.calls.get('a')!).toBeGreaterThan(3);
  });
});
