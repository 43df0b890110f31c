/**
 * Eight demo devices at once (docs/rules.md#r-perf-09), through the built web host in Chromium: the grid
 * shows one live tile per device, each tile the picture of its own device, and a tile opens its device.
 * Behaviour, not timing: how fast is the bench's (`npm run bench -- grid`).
 */
import { expect, type Locator, type Page } from '@playwright/test';
import { demoStats, postAdmin, resetDemo, serveDevice, sharedAcrossFile, startDemoFleet, stopAfterEach, urlIn, test } from './harness';

const running = stopAfterEach();
const COUNT = 8;
/**
 * One fleet of eight demo devices for the file (its boot is the longest of any e2e file's), booted by the
 * first test; before the next each device's app is relaunched on the screen it opened on through the admin
 * reset, which undoes the first test's move of the Feed device to Sign In. The second test's disconnect
 * and reconnect, the paused grid and the selected device belong to the test's own web host and page.
 */
const demoFleet = sharedAcrossFile(
  (shared) => startDemoFleet(shared, COUNT),
  async (fleet) => {
    await Promise.all(fleet.map((device) => resetDemo(device, device.screen)));
  },
);

/** The tile's picture as PNG data (its canvas, drawn at the tile's size). */
const picture = (tile: Locator) => tile.locator('canvas[data-testid="grid-picture"]').evaluate((canvas: HTMLCanvasElement) => canvas.toDataURL());
const attribute = async (tile: Locator, name: string) => Number((await tile.getAttribute(name)) ?? '0');

async function openGrid(page: Page) {
  const fleet = await demoFleet();
  // Every device on the screen it opened on, whatever the test before did.
  expect(await Promise.all(fleet.map(async (device) => (await demoStats(device)).screen))).toEqual(fleet.map((device) => device.screen));
  const host = await serveDevice(
    running,
    fleet.map((device) => device.runnerUrl),
  );
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(urlIn(host.line));
  await expect(page.locator('[data-testid="device-item"][data-state="connected"]')).toHaveCount(COUNT, { timeout: 60_000 });
  await page.getByTestId('grid-open').click();
  await expect(page.getByTestId('grid-view')).toBeVisible();
  return fleet;
}

test('R-PERF-09: eight devices live side by side, each tile its own device, a click opens it', async ({ page }) => {
  test.setTimeout(240_000);
  const fleet = await openGrid(page);
  const tiles = page.getByTestId('grid-tile');
  await expect(tiles).toHaveCount(COUNT);

  // Every tile gets pictures and its frame counter rises.
  for (let i = 0; i < COUNT; i++) await expect.poll(() => attribute(tiles.nth(i), 'data-pictures'), { timeout: 60_000 }).toBeGreaterThan(0);
  const framesBefore = await Promise.all(Array.from({ length: COUNT }, (_, i) => attribute(tiles.nth(i), 'data-frames')));
  for (let i = 0; i < COUNT; i++) await expect.poll(() => attribute(tiles.nth(i), 'data-frames'), { timeout: 30_000 }).toBeGreaterThan(framesBefore[i]!);
  for (let i = 0; i < COUNT; i++) await expect(tiles.nth(i).getByTestId('grid-rate')).toHaveText(/\d+(\.\d)? fps/);

  // Tiles are in the devices' order; devices on different screens show different pictures.
  const ids = await page.locator('[data-testid="device-item"]').evaluateAll((items) => items.map((item) => item.getAttribute('data-device-id')));
  expect(await tiles.evaluateAll((items) => items.map((item) => item.getAttribute('data-device-id')))).toEqual(ids);
  expect(fleet.slice(0, 3).map((device) => device.screen)).toEqual(['login', 'feed', 'checkout']);
  const [login, feed, checkout] = await Promise.all([picture(tiles.nth(0)), picture(tiles.nth(1)), picture(tiles.nth(2))]);
  expect(login).not.toBe(feed);
  expect(feed).not.toBe(checkout);

  // A change made on one device shows on its tile alone: the feed device goes to login.
  await postAdmin(fleet[1]!, 'screen', { screen: 'login' });
  await expect.poll(() => picture(tiles.nth(1)), { timeout: 30_000 }).not.toBe(feed);
  expect(await picture(tiles.nth(2))).toBe(checkout);

  // What is at a tile's centre is that tile (nothing covers it).
  for (let i = 0; i < COUNT; i++) {
    const box = await tiles.nth(i).boundingBox();
    if (!box) throw new Error(`tile ${i} has no box`);
    expect(box.width).toBeGreaterThan(100);
    const hit = await page.evaluate(
      ({ x, y }) => document.elementFromPoint(x, y)?.closest('[data-testid="grid-tile"]')?.getAttribute('data-device-id') ?? null,
      { x: box.x + box.width / 2, y: box.y + box.height / 2 },
    );
    expect(hit).toBe(ids[i]);
  }

  // A click on the checkout device's tile opens it in the device view: its name, its tree.
  const name = await tiles.nth(2).getByTestId('grid-name').textContent();
  await tiles.nth(2).click();
  await expect(page.getByTestId('grid-view')).toHaveCount(0);
  await expect(page.locator(`[data-testid="device-item"][data-device-id="${ids[2]}"]`)).toHaveAttribute('data-selected', 'true');
  expect(name).toBe(fleet[2]!.runnerUrl);
  await expect(page.getByTestId('device-status')).toContainText(name ?? '');
  await expect(page.getByTestId('tree-node').first()).toBeVisible({ timeout: 30_000 });
  await expect(page.locator('[data-testid="tree-node"]', { hasText: /checkout/i }).first()).toBeVisible();
});

test('R-PERF-09: devices that go away or connect while the grid shows leave it or join it; pause stops it; Enter on a tile opens it', async ({ page }) => {
  test.setTimeout(240_000);
  const fleet = await openGrid(page);
  const tiles = page.getByTestId('grid-tile');
  await expect(tiles).toHaveCount(COUNT);
  await expect.poll(() => attribute(tiles.nth(0), 'data-pictures'), { timeout: 60_000 }).toBeGreaterThan(0);

  // The last device goes away (disconnected from the list beside the grid): its tile goes with it.
  const lastId = await tiles.nth(COUNT - 1).getAttribute('data-device-id');
  await page.locator(`[data-testid="device-item"][data-device-id="${lastId}"] [data-testid="device-disconnect"]`).click();
  await expect(tiles).toHaveCount(COUNT - 1);
  await expect(page.locator(`[data-testid="grid-tile"][data-device-id="${lastId}"]`)).toHaveCount(0);

  // It connects again: a new tile, live.
  await page.getByTestId('connect-url').fill(fleet[COUNT - 1]!.runnerUrl);
  await page.getByTestId('connect-submit').click();
  await expect(tiles).toHaveCount(COUNT);
  await expect.poll(() => attribute(tiles.nth(COUNT - 1), 'data-pictures'), { timeout: 60_000 }).toBeGreaterThan(0);

  // Paused, no tile is asked for pictures; resumed, they come again.
  await page.getByTestId('grid-live-toggle').click();
  await expect(page.getByTestId('grid-paused')).toBeVisible();
  await page.waitForTimeout(500);
  const paused = await Promise.all(Array.from({ length: COUNT }, (_, i) => attribute(tiles.nth(i), 'data-frames')));
  await page.waitForTimeout(2_000);
  expect(await Promise.all(Array.from({ length: COUNT }, (_, i) => attribute(tiles.nth(i), 'data-frames')))).toEqual(paused);
  await page.getByTestId('grid-live-toggle').click();
  await expect.poll(() => attribute(tiles.nth(0), 'data-frames'), { timeout: 30_000 }).toBeGreaterThan(paused[0]!);

  // Enter on a focused tile opens that device.
  const second = tiles.nth(1);
  const secondId = await second.getAttribute('data-device-id');
  await second.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('grid-view')).toHaveCount(0);
  await expect(page.locator(`[data-testid="device-item"][data-device-id="${secondId}"]`)).toHaveAttribute('data-selected', 'true');
});
