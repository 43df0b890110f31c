/**
 * The host keeps each device's action steps, so a window opened or reloaded mid-session shows the
 * timeline so far: over the demo device's real sockets, through the API both hosts serve.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoDevice, type DemoDeviceHandle } from '@demo/index';
import { createApiService, type ApiService } from '@main/host/api';
import { DeviceManager, HISTORY_FRAMES } from '@main/devices/manager';
import type { ActionStep } from '@shared/api/api';

let device: DemoDeviceHandle;
let manager: DeviceManager;
let api: ApiService;
let deviceId: string;

beforeAll(async () => {
  device = await startDemoDevice({ port: 0 });
  await fetch(`${device.adminUrl}/reset`, { method: 'POST', body: JSON.stringify({ screen: 'login', faults: [] }) });
  manager = new DeviceManager();
  api = createApiService({ manager }, { host: 'web', version: 'test' });
  deviceId = manager.connect(device.runnerUrl, { name: 'Demo' }).id;
  await manager.connectionOf(deviceId).waitUntilConnected();
  await manager.observe(deviceId);
}, 60_000);
afterAll(async () => {
  await manager?.closeAll();
  await device?.close();
});

async function history(): Promise<ActionStep[]> {
  const reply = await api.handle('device.history', { deviceId });
  if (!reply.ok) throw new Error(reply.error.message);
  return reply.result as ActionStep[];
}

describe('device.history', () => {
  it('lists every step oldest first; only the newest keep their frames', async () => {
    expect(await history()).toEqual([]);
    const sent: string[] = [];
    const taps = HISTORY_FRAMES + 2;
    for (let i = 0; i < taps; i++) {
      const step = await manager.act(deviceId, { action: 'tap', target: { id: 'login.submit' } });
      expect(step.result.success).toBe(true);
      sent.push(step.callId);
    }
    const steps = await history();
    expect(steps.map((s) => s.callId)).toEqual(sent);
    const framed = steps.map((s) => s.after?.screenshot !== null && s.after?.observation !== null);
    expect(framed).toEqual([false, false, ...Array<boolean>(HISTORY_FRAMES).fill(true)]);
    // A step whose frames were let go still says what happened.
    expect(steps[0]!.result).toMatchObject({ success: true, backend: 'sdk' });
    expect(steps[0]!.request).toEqual({ action: 'tap', target: { id: 'login.submit' } });
  }, 60_000);

  it('a failed action is kept with its reason, and an unknown device is not_found', async () => {
    await fetch(`${device.adminUrl}/faults`, { method: 'POST', body: JSON.stringify({ faults: ['bridge-reject=stale_observation'] }) });
    try {
      await manager.act(deviceId, { action: 'tap', target: { id: 'login.submit' } });
    } finally {
      await fetch(`${device.adminUrl}/faults`, { method: 'POST', body: JSON.stringify({ faults: [] }) });
    }
    expect((await history()).at(-1)!.result).toMatchObject({ success: false, failureReason: 'stale_observation' });
    expect(await api.handle('device.history', { deviceId: 'device-404' })).toMatchObject({ ok: false, error: { code: 'not_found' } });
  }, 30_000);
});
