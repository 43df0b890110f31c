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
});
