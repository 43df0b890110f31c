/**
 * Many demo devices in one process (docs/rules.md#r-perf-09): they share one browser, each in its own
 * context, so each is still its own device (its own screen, its own pictures), and closing one leaves
 * the others working. Talks to the devices over their runner sockets, as the host does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { PNG } from 'pngjs';
import { startDemoDevices, type FleetDevice } from '@demo/index';
import { connectionFor } from '@main/devices/manager';
import { startAppServices } from '@main/host/app-services';
import { connectDefaultDevice, startDefaultDevice } from '@main/host/default-device';

async function screenshotOf(device: FleetDevice): Promise<Buffer> {
  const connection = connectionFor(device.runnerUrl);
  connection.start();
  try {
    await connection.waitUntilConnected(10_000);
    const shot = await connection.screenshot();
    if (!shot.screenshot) throw new Error(`no screenshot: ${shot.screenshotError ?? '?'}`);
    return Buffer.from(shot.screenshot.dataBase64, 'base64');
  } finally {
    await connection.close();
  }
}

/** The browser processes this test process started (a browser's own helpers have a --type= flag). */
function browsersStartedHere(): number {
  const out = execFileSync('ps', ['-o', 'args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  return out.split('\n').filter((line) => /chrom/i.test(line) && !line.includes('--type=')).length;
}

async function screenOf(device: FleetDevice): Promise<string> {
  const response = await fetch(`${device.adminUrl}/screen`);
  const state = (await response.json()) as { screen: string };
  return state.screen;
}

describe('R-PERF-09: many demo devices in one process', () => {
  let fleet: FleetDevice[] = [];

  beforeAll(async () => {
    fleet = await startDemoDevices(3);
  }, 120_000);
  afterAll(async () => {
    for (const device of fleet) await device.close();
  });

  it('R-PERF-09: opens them on different screens, AppReveal in the first only', async () => {
    expect(fleet.map((d) => d.screen)).toEqual(['login', 'feed', 'checkout']);
    expect(await Promise.all(fleet.map(screenOf))).toEqual(['login', 'feed', 'checkout']);
    expect(fleet[0]!.appRevealUrl).toBeDefined();
    expect(fleet.slice(1).every((d) => d.appRevealUrl === undefined)).toBe(true);
    // Three devices, one browser process.
    expect(browsersStartedHere()).toBe(1);
  });

  it('R-PERF-09: each device shows its own screen, and closing one leaves the others working', async () => {
    const before = await Promise.all(fleet.map(screenshotOf));
    for (const png of before) expect(PNG.sync.read(png).width).toBeGreaterThan(0);
    // Different screens, different pictures: one shared browser, not one shared page.
    expect(before[0]!.equals(before[1]!)).toBe(false);
    expect(before[1]!.equals(before[2]!)).toBe(false);

    await fleet[1]!.close();
    const after = await Promise.all([screenshotOf(fleet[0]!), screenshotOf(fleet[2]!)]);
    expect(PNG.sync.read(after[0]!).width).toBe(PNG.sync.read(before[0]!).width);
    expect(PNG.sync.read(after[1]!).width).toBe(PNG.sync.read(before[2]!).width);
    // The survivors still take input: a screen change on one shows on it alone.
    const response = await fetch(`${fleet[2]!.adminUrl}/screen`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ screen: 'login' }),
    });
    expect(response.status).toBe(200);
    expect(await screenOf(fleet[2]!)).toBe('login');
    expect(await screenOf(fleet[0]!)).toBe('login');
  }, 60_000);

  it('R-PERF-09: refuses a number of devices out of range before starting any', async () => {
    await expect(startDemoDevices(0)).rejects.toThrow(/1–16/);
    await expect(startDemoDevices(17)).rejects.toThrow(/1–16/);
  });
});

describe('R-PERF-09: the default start with --demo-devices', () => {
  it('R-PERF-09: connects every demo runner under a name that says its screen, and AppReveal for the first only', async () => {
    const services = await startAppServices('web');
    const device = await startDefaultDevice(2);
    try {
      expect(device.kind).toBe('demo');
      connectDefaultDevice(services.manager, device);
      const list = services.manager.list();
      expect(list.map((d) => d.name)).toEqual(['Demo iPhone 17', 'Demo iPhone 17 (AppReveal)', 'Demo iPhone 17 #2 (Feed)']);
      for (const d of list) await services.manager.connectionOf(d.id).waitUntilConnected(20_000);
      expect(services.manager.list().map((d) => d.state)).toEqual(['connected', 'connected', 'connected']);
    } finally {
      await services.close();
      await device.close();
    }
  }, 120_000);
});
