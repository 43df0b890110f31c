/**
 * A launch or relaunch through the host drops what discovery cached for the app before it
 * (docs/rules.md#r-life-06): a cached "bridge unavailable" would otherwise stand for
 * UNAVAILABLE_RECHECK_MS (R-DISC-13) although the launched app registers its bridge. The observer's clock
 * is frozen, so the recheck window never runs out here: only the launch can make the host ask again.
 * Probes are counted where they land, in the demo device's admin stats.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDemoDevice, type DemoDeviceHandle } from '@demo/index';
import { RunnerClient } from '@main/runner/client';
import { Observer } from '@main/runner/observer';
import { Dispatcher } from '@main/runner/dispatch/dispatcher';
import { admin, untilQuiet, type DemoStats } from '../support/demo-admin';

const BUNDLE = 'dev.parallax.demo';

let device: DemoDeviceHandle;
let client: RunnerClient;

const probes = async () => (await admin<DemoStats>(device.adminUrl, '/stats')).requests['get_sdk_capabilities'] ?? 0;

beforeAll(async () => {
  device = await startDemoDevice({ port: 0, appReveal: false });
  client = new RunnerClient(device.runnerUrl, { reconnectInitialMs: 50, reconnectMaxMs: 200 });
  client.start();
  await client.waitUntilConnected(10_000);
}, 60_000);

afterAll(async () => {
  await client?.close();
  await device?.close();
});

beforeEach(async () => {
  await admin(device.adminUrl, '/reset', { screen: 'login', faults: ['bridge-unregistered'] });
  await untilQuiet(device.adminUrl);
});

describe('R-LIFE-06: a launch through the host drops the cached discovery', () => {
  it.each([
    ['a relaunch', true],
    ['a launch', false],
  ] as const)('R-LIFE-06: after %s, the observation probes the bridge again, within the recheck window', async (_what, relaunch) => {
    // One connection and one observer for the whole case, as the host keeps them; the clock never moves.
    const observer = new Observer(client, () => 0);
    const dispatcher = new Dispatcher(client, observer, { screenshotAfter: false });

    const first = await observer.observe({ screenshot: false });
    expect(first.observation?.bridge).toEqual({ available: false, reason: 'NOT_REGISTERED' });
    // The app registers its bridge; nothing tells the host, and within the window the cached answer stands.
    await admin(device.adminUrl, '/faults', { faults: [] });
    const cachedFrom = await probes();
    expect((await observer.observe({ screenshot: false })).observation?.bridge).toEqual({ available: false, reason: 'NOT_REGISTERED' });
    expect(await probes()).toBe(cachedFrom);

    const result = await dispatcher.dispatch({ action: 'launch', relaunch, bundleId: BUNDLE });
    expect(result).toMatchObject({ success: true, outcome: 'done' });
    const after = dispatcher.lastFrame?.observation;
    expect(await probes()).toBe(cachedFrom + 1);
    expect(after?.bridge).toMatchObject({ available: true });
    expect(after?.backend).toBe('sdk');

    // The fresh answer is cached as any other: the next observe asks nothing more.
    const next = await observer.observe({ screenshot: false });
    expect(next.observation?.backend).toBe('sdk');
    expect(await probes()).toBe(cachedFrom + 1);
  });
});
