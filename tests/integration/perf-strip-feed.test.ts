/**
 * What the live performance strip reads from the host (docs/rules.md#r-perfstrip-01), over the demo
 * device's real port: every push of a runner device as a `device.perf` event, whatever the perf mode,
 * and the newest ones kept for a strip opened later (`device.perfSamples`), bounded, with the sources
 * that say the frame figures are the runner's own. An AppReveal device keeps none and says so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoDevice, type DemoDeviceHandle } from '@demo/index';
import { createApiService } from '@main/host/api';
import { DeviceManager } from '@main/devices/manager';
import { RunnerConnection } from '@main/devices/runner-connection';
import { apiEvents, apiMethods, type ApiEventPayload } from '@shared/api/api';
import { MAX_STRIP_SAMPLES } from '@shared/protocol/perf';

let device: DemoDeviceHandle;

beforeAll(async () => {
  device = await startDemoDevice({ port: 0 });
}, 30_000);

afterAll(async () => {
  await device?.close();
});

describe('the strip feed', () => {
  it('R-PERFSTRIP-01: each push reaches subscribers as device.perf, and device.perfSamples hands the newest, oldest first', async () => {
    const manager = new DeviceManager();
    try {
      const api = createApiService({ manager }, { host: 'web', version: 'test' });
      const deviceId = manager.connect(device.runnerUrl, { name: 'Demo' }).id;
      await manager.connectionOf(deviceId).waitUntilConnected(10_000);
      const events: ApiEventPayload<'device.perf'>[] = [];
      const unsubscribe = api.subscribe((event, payload) => {
        if (event === 'device.perf') events.push(apiEvents['device.perf'].parse(payload));
      });
      const startedAt = Date.now();
      await expect.poll(() => events.length, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
      unsubscribe();
      // Perf mode is off: the strip's feed does not wait for it.
      for (const { deviceId: id, sample } of events) {
        expect(id).toBe(deviceId);
        expect(sample.cpuUsagePercent).toBeGreaterThanOrEqual(0);
        expect(sample.memoryUsageMb).toBeGreaterThan(0);
        expect(sample.touchLatencyMs).toBeNull();
        // The inspector's clock of arrival, the clock an action step's startedAt is on.
        expect(sample.t).toBeGreaterThanOrEqual(startedAt - 1_000);
      }
      const reply = await api.handle('device.perfSamples', { deviceId });
      if (!reply.ok) throw new Error(reply.error.message);
      const series = apiMethods['device.perfSamples'].output.parse(reply.result);
      expect(series.samples.length).toBeGreaterThanOrEqual(events.length);
      const times = series.samples.map((s) => s.t);
      expect(times).toEqual([...times].sort((a, b) => a - b));
      expect(series.samples).toEqual(expect.arrayContaining(events.map((e) => e.sample)));
      expect(series.sources).toMatchObject({ fps: 'runnerProcessFrames', jank: 'runnerProcessFrames', cpu: 'runnerReported', memoryMb: 'runnerReported' });

      const appReveal = manager.connect(device.appRevealUrl!, { name: 'App' }).id;
      const refused = await api.handle('device.perfSamples', { deviceId: appReveal });
      expect(refused.ok).toBe(false);
      if (!refused.ok) expect(refused.error.code).toBe('not_offered');
    } finally {
      await manager.closeAll();
    }
  }, 30_000);

  it(`R-PERFSTRIP-01: a connection keeps at most ${MAX_STRIP_SAMPLES} samples for the strip, the newest`, () => {
    const connection = new RunnerConnection('runner', 'ws://127.0.0.1:9/ws');
    const push = (i: number) =>
      connection.client.emit('performance', {
        type: 'performance_update',
        performanceData: { fps: 60, frameTimeMs: 16.6, jankFrames: 0, cpuUsagePercent: i, memoryUsageMb: 100, timestamp: i },
        timestamp: i,
      });
    for (let i = 0; i < MAX_STRIP_SAMPLES + 30; i++) push(i);
    const samples = connection.perf.series().samples;
    expect(samples).toHaveLength(MAX_STRIP_SAMPLES);
    expect(samples[0]!.cpuUsagePercent).toBe(30);
    expect(samples.at(-1)!.cpuUsagePercent).toBe(MAX_STRIP_SAMPLES + 29);
  });
});
