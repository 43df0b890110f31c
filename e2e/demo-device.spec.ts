/**
 * The default device: `parallax serve` with no device starts the demo iPhone (a page rendered by
 * Chromium) and connects to it, as `npm start` does for a new user.
 */
import { expect, test } from '@playwright/test';
import { runParallax, urlIn, type Running } from './harness';

let host: Running | undefined;
test.afterEach(async () => {
  await host?.stop();
  host = undefined;
});

test('a new user sees the demo iPhone: its real screenshot with the boxes over it', async ({ page }) => {
  host = await runParallax(['serve'], /^Parallax web host: /, 60_000);
  await page.goto(urlIn(host.line));

  const device = page.getByTestId('device-item');
  await expect(device).toHaveAttribute('data-state', 'connected');
  await expect(device).toContainText('Demo');
  await device.click();

  const image = page.getByTestId('screen-image');
  await expect(image).toBeVisible();
  const natural = await image.evaluate((img: HTMLImageElement) => ({ width: img.naturalWidth, height: img.naturalHeight }));
  expect(natural).toEqual({ width: 1206, height: 2622 });

  // The Login screen's fields, found by search, are drawn where the device says they are.
  await page.getByTestId('search-input').fill('UISecureTextField');
  const match = page.locator('[data-testid="tree-node"][data-match="true"]');
  await expect(match).toHaveCount(1);
  await match.click();
  await expect(page.locator('[data-testid="attr-row"][data-name="password"]')).toContainText('true');
  const key = await match.getAttribute('data-node-key');
  const box = await page.locator(`[data-testid="box"][data-node-key="${key}"]`).boundingBox();
  const screen = await image.boundingBox();
  if (!box || !screen) throw new Error('not rendered');
  expect(box.x).toBeGreaterThan(screen.x);
  expect(box.x + box.width).toBeLessThan(screen.x + screen.width);
  expect(box.y).toBeGreaterThan(screen.y + screen.height * 0.1);
  expect(box.y + box.height).toBeLessThan(screen.y + screen.height * 0.9);
});
