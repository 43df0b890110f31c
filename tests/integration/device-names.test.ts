/**
 * The device list names every device by its app and kind: the demo by the app it shows, a recorded
 * session by its folder and the app it recorded (docs/rules.md#r-qa-14), over real sockets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basename } from 'node:path';
import { startDemoDevice, type DemoDeviceHandle } from '@demo/index';
import { startReplayDevice, type ReplayDevice } from '@demo/replay-device';
import { DeviceManager } from '@main/devices/manager';
import { DEVICE_KIND_LABELS, type DeviceSummary } from '@shared/protocol/device';
import { GOLDEN_DIR } from '../support/golden';

let demo: DemoDeviceHandle;
let replay: ReplayDevice;
let manager: DeviceManager;

beforeAll(async () => {
  demo = await startDemoDevice({ port: 0 });
  replay = await startReplayDevice(GOLDEN_DIR);
  manager = new DeviceManager();
}, 60_000);
afterAll(async () => {
  await manager?.closeAll();
  await replay?.close();
  await demo?.close();
});

describe('device names', () => {
  it('R-QA-14: the demo is listed by its app name once it has been observed, and every change of name is announced', async () => {
    const lists: DeviceSummary[][] = [];
    manager.on('devicesChanged', (devices: DeviceSummary[]) => lists.push(devices));
    const id = manager.connect(demo.runnerUrl, { kind: 'demo', name: 'Demo iPhone 17' }).id;
    expect(manager.summaryOf(id).appName).toBeUndefined();
    await manager.connectionOf(id).waitUntilConnected(10_000);
    await manager.observe(id);
    expect(manager.summaryOf(id)).toMatchObject({ kind: 'demo', name: 'Demo iPhone 17', appName: 'Parallax Demo' });
    expect(lists.some((list) => list.find((d) => d.id === id)?.appName === 'Parallax Demo')).toBe(true);
    expect(DEVICE_KIND_LABELS[manager.summaryOf(id).kind]).toBe('Demo device');
  });

  it('R-QA-14: a recorded session is listed by its folder and the app it recorded, not by its bare URL', async () => {
    const id = manager.connect(replay.url, { kind: 'replay', name: 'Recorded: settings-tap-general', recording: { folder: basename(GOLDEN_DIR) } }).id;
    await manager.connectionOf(id).waitUntilConnected(10_000);
    await manager.observe(id);
    expect(manager.summaryOf(id)).toMatchObject({ kind: 'replay', appName: 'Settings', recording: { folder: 'settings-tap-general' } });
    expect(DEVICE_KIND_LABELS.replay).toBe('Recorded session');
  });

  it('R-PHONE-01: the demo runner answers /health as CtrlProxy does ({deviceId, port, status}, plus its device), and its entry carries that UDID', async () => {
    const at = new URL(demo.runnerUrl);
    const health = (await (await fetch(`http://${at.host}/health`)).json()) as Record<string, unknown>;
    expect(Object.keys(health).sort()).toEqual(['device', 'deviceId', 'port', 'status']);
    expect(health).toMatchObject({ status: 'ok', port: Number(at.port), device: 'parallax-demo' });
    expect(health.deviceId).toMatch(/^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/);
    const id = manager.connect(demo.runnerUrl, { kind: 'demo', name: 'Demo iPhone 17' }).id;
    await expect.poll(() => manager.summaryOf(id).phone?.udid, { timeout: 15_000 }).toBe(health.deviceId);
    // The screen's size in points and the bridge come with the first frame the runner pushed.
    await expect.poll(() => manager.summaryOf(id).phone?.screen, { timeout: 15_000 }).toEqual({ width: 402, height: 874 });
    await expect.poll(() => manager.summaryOf(id).phone?.sdkBridge, { timeout: 15_000 }).toBe(true);
  });
});
