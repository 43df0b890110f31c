/**
 * The host keeps each device's action steps, so a window opened or reloaded mid-session shows the
 * timeline so far: over the demo device's real sockets, through the API both hosts serve.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoDevice, type DemoDeviceHandle } from '@demo/index';
import { createApiService, type ApiService } from '@main/host/api';
import { DeviceManager, HISTORY_FRAMES } from '@main/devices/manager';
import type { ActionStep } from '@shared/protocol/device';
import { FRAME_NODE_BUDGET } from '@shared/inspect';
import { flattenTree } from '@shared/model/tree';

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

  it('R-PERF-12: on a heavy screen only the newest steps that fit the node budget keep their frames, the newest always', async () => {
    // The budget scaled down with the screen (5,000 views against 50,000), so the test stays quick.
    const budget = FRAME_NODE_BUDGET / 10;
    const heavyManager = new DeviceManager({}, budget);
    const heavyApi = createApiService({ manager: heavyManager }, { host: 'web', version: 'test' });
    const id = heavyManager.connect(device.runnerUrl, { name: 'Heavy' }).id;
    await heavyManager.connectionOf(id).waitUntilConnected();
    await fetch(`${device.adminUrl}/screen`, { method: 'POST', body: JSON.stringify({ screen: 'heavy', nodes: 5_000 }) });
    try {
      await heavyManager.observe(id);
      const taps = 3;
      const sent: string[] = [];
      for (let i = 0; i < taps; i++) sent.push((await heavyManager.act(id, { action: 'tap', target: { point: { x: 20 + i, y: 300 } } })).callId);
      const reply = await heavyApi.handle('device.history', { deviceId: id });
      if (!reply.ok) throw new Error(reply.error.message);
      const steps = reply.result as ActionStep[];
      expect(steps.map((s) => s.callId)).toEqual(sent);
      const nodesOf = (s: ActionStep) =>
        [s.before, s.after].reduce((n, f) => n + (f?.observation?.viewHierarchy?.hierarchy ? flattenTree(f.observation.viewHierarchy.hierarchy).length : 0), 0);
      const framed = steps.filter((s) => s.after?.observation);
      // Each step holds two trees of at least 5,000 nodes: the budget holds fewer steps than were taken.
      expect(nodesOf(steps.at(-1)!)).toBeGreaterThanOrEqual(10_000);
      expect(framed.length).toBeGreaterThanOrEqual(1);
      expect(framed.length).toBeLessThan(taps);
      expect(framed.at(-1)!.callId).toBe(sent.at(-1));
      // The framed ones are the newest, together within the budget (or the newest alone).
      expect(steps.slice(-framed.length).map((s) => s.callId)).toEqual(framed.map((s) => s.callId));
      if (framed.length > 1) expect(framed.reduce((n, s) => n + nodesOf(s), 0)).toBeLessThanOrEqual(budget);
      // The dropped ones still say what happened.
      for (const s of steps.slice(0, -framed.length)) expect(s.result.success).toBe(true);
    } finally {
      await heavyManager.closeAll();
      await fetch(`${device.adminUrl}/screen`, { method: 'POST', body: JSON.stringify({ screen: 'login' }) });
    }
  }, 60_000);
});
