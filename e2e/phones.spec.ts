/**
 * The device list as its users know their phones (docs/rules.md#r-phone-01..04), through the built web
 * host in Chromium: one entry per phone with its connections under it, named by the phone, dead entries
 * removable, and the demo panel on the screen the device really shows. Ground truth is the demo's own:
 * its runner's /health names its UDID, its admin endpoint its screen.
 */
import { expect } from '@playwright/test';
import { boxCentre, runParallax, serveDevice, sharedDemoDevice, startDemoFleet, stopAfterEach, urlIn, test } from './harness';

const running = stopAfterEach();
/** The one-phone tests share a demo device, its app relaunched on Sign In before each; the two-phone test has its own pair. */
const demoDevice = sharedDemoDevice();

async function udidOf(runnerUrl: string): Promise<string> {
  const health = (await (await fetch(`http://${new URL(runnerUrl).host}/health`)).json()) as { deviceId: string };
  return health.deviceId;
}

test('R-PHONE-01: a phone reached through its runner, its AppReveal app and its SDK bridge is one entry, named by the phone', async ({ page }) => {
  const demo = await demoDevice({ screen: 'login' });
  const host = await serveDevice(running, demo.runnerUrl, [demo.adminUrl]);
  await page.goto(urlIn(host.line));
  await expect(page.getByTestId('device-item')).toHaveAttribute('data-state', 'connected');
  await page.getByTestId('connect-url').fill(demo.appRevealUrl);
  await page.getByTestId('connect-submit').click();

  const phones = page.getByTestId('phone-item');
  await expect(phones).toHaveCount(1);
  const phone = phones.first();
  const rows = phone.getByTestId('device-item');
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toHaveAttribute('data-kind', 'runner');
  await expect(rows.nth(1)).toHaveAttribute('data-kind', 'appreveal');
  await expect(rows.nth(1)).toHaveAttribute('data-state', 'connected');
  await expect(phone.getByTestId('phone-bridge')).toContainText('through the runner');
  // R-PHONE-02: the phone's own name (UIDevice.name, from the app), its model and the UDID its runner's /health gave.
  await expect(phone.getByTestId('phone-name')).toHaveText('iPhone 17 (Parallax demo)');
  const udid = await udidOf(demo.runnerUrl);
  await expect(phone.getByTestId('phone-detail')).toHaveText(`iPhone · iOS 26.5 · UDID ${udid.slice(0, 8)}…`);
  await expect(phone.getByTestId('device-app')).toHaveText('Parallax Demo · dev.parallax.demo');
  // Each connection is still its own view of the phone: picking the app's row shows the app's reading.
  await rows.nth(1).click();
  await expect(rows.nth(1)).toHaveAttribute('data-selected', 'true');
  await expect(page.getByTestId('frame-backend')).toHaveAttribute('data-backend', 'appreveal');
});

test('R-PHONE-01: two phones showing the same app are two entries, each titled by its own UDID, not by the app', async ({ page }) => {
  const fleet = await startDemoFleet(running, 2);
  const host = await serveDevice(
    running,
    fleet.map((d) => d.runnerUrl),
    fleet.map((d) => d.adminUrl),
  );
  await page.goto(urlIn(host.line));
  const phones = page.getByTestId('phone-item');
  await expect(phones).toHaveCount(2);
  const udids = await Promise.all(fleet.map((d) => udidOf(d.runnerUrl)));
  expect(new Set(udids).size).toBe(2);
  for (const udid of udids) {
    await expect(page.getByTestId('phone-name').filter({ hasText: `iOS device ${udid.slice(0, 8)}…` })).toHaveCount(1);
  }
  await expect(page.getByTestId('phone-name').filter({ hasText: 'Parallax Demo' })).toHaveCount(0);
});

test('R-PHONE-03: a dead entry says why in plain words and can be removed', async ({ page }) => {
  const host = await runHostWithoutDevices();
  await page.goto(urlIn(host.line));
  await page.getByTestId('connect-url').fill('ws://127.0.0.1:1/ws');
  await page.getByTestId('connect-submit').click();
  const entry = page.getByTestId('device-item');
  await expect(entry).toHaveAttribute('data-state', 'disconnected', { timeout: 15_000 });
  await expect(entry.getByTestId('device-error')).toContainText('nothing is listening at 127.0.0.1:1');
  await expect(entry.getByTestId('device-disconnect')).toHaveCount(0);
  await entry.getByTestId('device-remove').click();
  await expect(page.getByTestId('device-item')).toHaveCount(0);
  await expect(page.getByTestId('device-list-empty')).toBeVisible();
});

test('R-PHONE-04: the demo panel shows the screen the device is on after a tap changed it', async ({ page }) => {
  const demo = await demoDevice({ screen: 'login' });
  const host = await serveDevice(running, demo.runnerUrl, [demo.adminUrl]);
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(urlIn(host.line));
  await expect(page.getByTestId('device-item')).toHaveAttribute('data-state', 'connected');
  await expect(page.getByTestId('screen-image')).toBeVisible();
  const select = page.getByTestId('demo-screen-select');
  await expect(select).toHaveValue('login');
  await page.getByTestId('mode-toggle').click();
  const tab = await boxCentre(page, 'tab.hostile');
  await page.mouse.click(tab.x, tab.y);
  // The demo's own word for its screen, read through the host, and the panel agree.
  await expect.poll(async () => ((await (await fetch(`${demo.adminUrl}/screen`)).json()) as { screen: string }).screen, { timeout: 15_000 }).toBe('hostile');
  await expect(select).toHaveValue('hostile');
});

async function runHostWithoutDevices() {
  const host = await runParallax(['serve', '--no-default-device'], /^Parallax web host: /);
  running.push(host);
  return host;
}
