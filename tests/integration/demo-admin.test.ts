/**
 * The demo's screen and faults through the host (docs/rules.md#r-qa-18, docs/protocol.md#p-demo-admin):
 * the page names a device, the host finds out whether it is the demo and talks to its admin endpoint;
 * what the demo refuses comes back with its reason, and any other device has no demo controls.
 */
import { registerDemoAdmin } from '@main/devices/demo-admin';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoDevice, FAULT_NAMES, FAULTS, type DemoDeviceHandle } from '@demo/index';
import { startReplayDevice, type ReplayDevice } from '@demo/replay-device';
import { startAppServices, type AppServices } from '@main/host/app-services';
import { DemoStateSchema } from '@shared/api/api';
import { GOLDEN_DIR } from '../support/golden';
import { admin } from '../support/demo-admin';

let demo: DemoDeviceHandle;
let replay: ReplayDevice;
let services: AppServices;
let demoId: string;
let replayId: string;

beforeAll(async () => {
  demo = await startDemoDevice({ port: 0, screen: 'login' });
  replay = await startReplayDevice(GOLDEN_DIR);
  services = await startAppServices('web');
  // The host learns the admin token as it would from the device it started (R-PEER-02).
  registerDemoAdmin(demo.runnerUrl, demo.adminUrl);
  demoId = services.manager.connect(demo.runnerUrl, { kind: 'demo', name: 'Demo' }).id;
  replayId = services.manager.connect(replay.url, { kind: 'replay', name: 'Recorded' }).id;
  await services.manager.connectionOf(demoId).waitUntilConnected(10_000);
  await services.manager.connectionOf(replayId).waitUntilConnected(10_000);
}, 60_000);
afterAll(async () => {
  await services?.close();
  await replay?.close();
  await demo?.close();
});

const adminGet = (path: string): Promise<unknown> => admin(demo.adminUrl, `/${path}`);

describe('demo controls through the host', () => {
  it('R-QA-18: the demo answers its screen, its screens and every fault with its help text and value kind', async () => {
    const reply = await services.api.handle('demo.state', { deviceId: demoId });
    if (!reply.ok) throw new Error(reply.error.message);
    const state = DemoStateSchema.parse(reply.result);
    expect(state.screen).toBe('login');
    expect(state.screens).toContain('checkout');
    expect(state.faults).toEqual([]);
    expect(state.known.map((k) => k.name)).toEqual([...FAULT_NAMES]);
    for (const known of state.known)
      expect(known).toEqual({ name: known.name, help: FAULTS[known.name as keyof typeof FAULTS].help, value: FAULTS[known.name as keyof typeof FAULTS].value });
  });

  it('R-QA-18: a fault turned on and off and a screen switched through the host reach the demo', async () => {
    const on = await services.api.handle('demo.setFaults', { deviceId: demoId, add: ['bridge-reject=stale_observation', 'xctest-sparse'] });
    expect(on).toMatchObject({ ok: true, result: { faults: expect.arrayContaining(['bridge-reject=stale_observation', 'xctest-sparse']) } });
    expect(await adminGet('faults')).toMatchObject({ faults: expect.arrayContaining(['bridge-reject=stale_observation', 'xctest-sparse']) });
    const off = await services.api.handle('demo.setFaults', { deviceId: demoId, remove: ['bridge-reject', 'xctest-sparse'] });
    expect(off).toMatchObject({ ok: true, result: { faults: [] } });
    expect(await adminGet('faults')).toMatchObject({ faults: [] });

    const switched = await services.api.handle('demo.setScreen', { deviceId: demoId, screen: 'checkout' });
    expect(switched).toMatchObject({ ok: true, result: { screen: 'checkout' } });
    expect(await adminGet('screen')).toMatchObject({ screen: 'checkout' });
    await services.api.handle('demo.setScreen', { deviceId: demoId, screen: 'login' });
  });

  it('R-QA-18: what the demo refuses comes back with its reason, and nothing changes', async () => {
    const fault = await services.api.handle('demo.setFaults', { deviceId: demoId, add: ['no-such-fault'] });
    expect(fault).toMatchObject({ ok: false, error: { code: 'demo_refused', message: expect.stringContaining('no-such-fault') } });
    const screen = await services.api.handle('demo.setScreen', { deviceId: demoId, screen: 'nowhere' });
    expect(screen).toMatchObject({ ok: false, error: { code: 'demo_refused' } });
    expect(await adminGet('faults')).toMatchObject({ faults: [] });
    // A fault spec that is not name or name=value never leaves the host.
    const bad = await services.api.handle('demo.setFaults', { deviceId: demoId, add: ['x y/../../admin'] });
    expect(bad).toMatchObject({ ok: false, error: { code: 'bad_request' } });
  });

  it('R-QA-18: a runner that is not the demo has no demo controls', async () => {
    for (const method of ['demo.state', 'demo.setScreen', 'demo.setFaults'] as const) {
      const params =
        method === 'demo.state'
          ? { deviceId: replayId }
          : method === 'demo.setScreen'
            ? { deviceId: replayId, screen: 'login' }
            : { deviceId: replayId, add: ['xctest-sparse'] };
      expect(await services.api.handle(method, params)).toMatchObject({ ok: false, error: { code: 'not_offered' } });
    }
  });
});
