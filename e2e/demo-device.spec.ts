/**
 * The default device: `parallax serve` with no device starts the demo iPhone (a page rendered by
 * Chromium) and connects to it, as `npm start` does for a new user.
 */
import { expect } from '@playwright/test';
import { runParallax, urlIn, type Running, test } from './harness';

let host: Running | undefined;
test.afterEach(async () => {
  await host?.stop();
  host = undefined;
});

test('a new user sees the demo iPhone: its real screenshot with the boxes over it', async ({ page }) => {
  host = await runParallax(['serve'], /^Parallax web host: /, 60_000);
  await page.goto(urlIn(host.line));

  // One app, two device kinds: the runner and the AppReveal server embedded in the same app.
  const items = page.getByTestId('device-item');
  await expect(items).toHaveCount(2);
  const appReveal = items.filter({ hasText: 'AppReveal' });
  await expect(appReveal).toHaveAttribute('data-state', 'connected');
  const device = items.filter({ hasNotText: 'AppReveal' });
  await expect(device).toHaveAttribute('data-state', 'connected');
  await expect(device).toContainText('Demo');
  await device.click();

  const image = page.getByTestId('screen-image');
  await expect(image).toBeVisible();
  const natural = await image.evaluate((img: HTMLImageElement) => ({ width: img.naturalWidth, height: img.naturalHeight }));
  expect(natural).toEqual({ width: 1206, height: 2622 });

  // The Login screen's password field, found by search, is drawn where the device says it is. The SDK
  // bridge describes it, so its XCTest twin was merged away (docs/rules.md#r-obs-05) and one node remains.
  await page.getByTestId('search-input').fill('login.password');
  const match = page.locator('[data-testid="tree-node"][data-match="true"]');
  await expect(match).toHaveCount(1);
  await expect(match).toHaveAttribute('data-source', 'sdkBridge');
  await match.click();
  await expect(page.locator('[data-testid="attr-row"][data-name="resource-id"]')).toContainText('login.password');
  const key = await match.getAttribute('data-node-key');
  const box = await page.locator(`[data-testid="box"][data-node-key="${key}"]`).boundingBox();
  const screen = await image.boundingBox();
  if (!box || !screen) throw new Error('not rendered');
  expect(box.x).toBeGreaterThan(screen.x);
  expect(box.x + box.width).toBeLessThan(screen.x + screen.width);
  expect(box.y).toBeGreaterThan(screen.y + screen.height * 0.1);
  expect(box.y + box.height).toBeLessThan(screen.y + screen.height * 0.9);
});

test('the demo app through AppReveal: its elements drawn over its screenshot, no token on the page', async ({ page }) => {
  host = await runParallax(['serve'], /^Parallax web host: /, 60_000);
  await page.goto(urlIn(host.line));
  const appReveal = page.getByTestId('device-item').filter({ hasText: 'AppReveal' });
  await expect(appReveal).toHaveAttribute('data-state', 'connected');
  await appReveal.click();
  await expect(page.getByTestId('screen-image')).toBeVisible();
  await page.getByTestId('search-input').fill('login.submit');
  await expect(page.locator('[data-testid="box"][data-match="true"]')).toHaveCount(1);
  // The session token lives in the main process only: not in the device list, not anywhere on the page.
  const html = await page.content();
  expect(html).not.toMatch(/appreveal_session_token=[0-9a-f]{8,}/);
  expect(host.output()).not.toMatch(/appreveal_session_token=[0-9a-f]{8,}/);
});
