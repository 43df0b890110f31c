/**
 * The walking skeleton, end to end: the real `parallax` processes, the web host in Chromium, and the
 * recorded Settings session (iPhone 17 simulator, iOS 26.5) played back over a real WebSocket.
 */
import { expect, type Page } from '@playwright/test';
import { GOLDEN, runParallax, stopAfterEach, stopProcess, urlIn, test } from './harness';

const running = stopAfterEach();

async function serve(args: string[]): Promise<string> {
  const host = await runParallax(['serve', ...args], /^Parallax web host: /);
  running.push(host);
  return urlIn(host.line);
}

/** Where a box sits on the device screen, in the device's points. */
async function boxInPoints(page: Page, nodeKey: string) {
  const screen = page.getByTestId('screen-outline');
  const screenBox = await screen.boundingBox();
  const box = await page.locator(`[data-testid="box"][data-node-key="${nodeKey}"]`).boundingBox();
  if (!screenBox || !box) throw new Error('screen or box not rendered');
  const scale = screenBox.width / 402;
  return {
    left: (box.x - screenBox.x) / scale,
    top: (box.y - screenBox.y) / scale,
    right: (box.x + box.width - screenBox.x) / scale,
    bottom: (box.y + box.height - screenBox.y) / scale,
    aspect: screenBox.height / screenBox.width,
  };
}

test('the recorded Settings screen: boxes where the recording says, tree selection shows the node', async ({ page }) => {
  const url = await serve(['--replay', GOLDEN]);
  await page.goto(url);

  const device = page.getByTestId('device-item');
  await expect(device).toHaveAttribute('data-state', 'connected');
  await device.click();

  // No screenshot in this recording: the screen outline at the device's aspect ratio.
  await expect(page.getByTestId('screen-outline')).toBeVisible();
  await expect(page.getByTestId('screenshot-error')).toContainText('no screenshot');

  await page.getByTestId('search-input').fill('com.apple.settings.general');
  const match = page.locator('[data-testid="tree-node"][data-match="true"]');
  await expect(match).toHaveCount(1);
  await match.click();
  const key = await match.getAttribute('data-node-key');
  expect(key).toBeTruthy();

  const box = page.locator(`[data-testid="box"][data-node-key="${key}"]`);
  await expect(box).toHaveAttribute('data-selected', 'true');
  await expect(page.locator('[data-testid="attr-row"][data-name="resource-id"]')).toContainText('com.apple.settings.general');

  const points = await boxInPoints(page, key as string);
  expect(points.aspect).toBeCloseTo(874 / 402, 2);
  expect(points.left).toBeCloseTo(16, 0);
  expect(points.top).toBeCloseTo(380, 0);
  expect(points.right).toBeCloseTo(386, 0);
  expect(points.bottom).toBeCloseTo(432, 0);
});

test('hover and selection follow each other between the screen and the tree', async ({ page }) => {
  const url = await serve(['--replay', GOLDEN]);
  await page.goto(url);
  await page.getByTestId('device-item').click();
  await expect(page.getByTestId('screen-outline')).toBeVisible();

  // Click the General row on the screen: the smallest box under the point is selected in both places.
  const screen = await page.getByTestId('screen-outline').boundingBox();
  if (!screen) throw new Error('no screen');
  const scale = screen.width / 402;
  await page.mouse.click(screen.x + 201 * scale, screen.y + 406 * scale);
  const stack = page.getByTestId('pick-stack');
  await expect(stack).toHaveAttribute('data-index', '0');
  const count = Number(await stack.getAttribute('data-count'));
  expect(count).toBeGreaterThan(1);
  const selectedKey = await page.locator('[data-testid="attributes"]').getAttribute('data-node-key');
  await expect(page.locator(`[data-testid="tree-node"][data-node-key="${selectedKey}"]`)).toHaveAttribute('data-selected', 'true');

  // Clicking the same point again walks up the stack of overlapping boxes.
  await page.mouse.click(screen.x + 201 * scale, screen.y + 406 * scale);
  await expect(stack).toHaveAttribute('data-index', '1');
  const parentKey = await page.locator('[data-testid="attributes"]').getAttribute('data-node-key');
  expect(parentKey).not.toBe(selectedKey);
  expect(selectedKey?.startsWith(`${parentKey}.`)).toBe(true);

  // Hovering a tree row lights its box on the screen. Only rows in view are drawn: scroll until it shows.
  const tree = page.getByTestId('tree');
  const row = page.locator('[data-testid="tree-node"]').filter({ hasText: 'Search' }).first();
  await tree.evaluate((el) => (el.scrollTop = 0));
  for (let page = 0; page < 20 && (await row.count()) === 0; page++) await tree.evaluate((el) => (el.scrollTop += el.clientHeight));
  const hoveredKey = await row.getAttribute('data-node-key');
  await page.locator(`[data-testid="tree-node"][data-node-key="${hoveredKey}"]`).hover();
  await expect(page.locator(`[data-testid="box"][data-node-key="${hoveredKey}"]`)).toHaveAttribute('data-hovered', 'true');
});

test('search highlights every match on the screen', async ({ page }) => {
  const url = await serve(['--replay', GOLDEN]);
  await page.goto(url);
  await page.getByTestId('device-item').click();
  await page.getByTestId('search-input').fill('UIButton');
  const count = Number(await page.getByTestId('search-count').getAttribute('data-count'));
  expect(count).toBeGreaterThan(3);
  await expect(page.locator('[data-testid="box"][data-match="true"]')).toHaveCount(count);
});

test('the web host refuses a request without its token', async ({ page, request }) => {
  const url = await serve(['--replay', GOLDEN]);
  const origin = new URL(url).origin;
  const refused = await request.get(`${origin}/`);
  expect(refused.status()).toBe(401);
  const response = await page.goto(`${origin}/`);
  expect(response?.status()).toBe(401);
  await expect(page.locator('body')).toContainText('needs the token');
});

test('a runner killed mid-session shows the device disconnected and the app keeps running', async ({ page }) => {
  const replay = await runParallax(['replay-device', GOLDEN], /^ws:\/\//);
  running.push(replay);
  const url = await serve(['--device', urlIn(replay.line)]);
  await page.goto(url);
  const device = page.getByTestId('device-item');
  await expect(device).toHaveAttribute('data-state', 'connected');
  await device.click();
  await expect(page.locator('[data-testid="box"]').first()).toBeVisible();

  await stopProcess(replay.process, 'SIGKILL');

  await expect(device).not.toHaveAttribute('data-state', 'connected');
  await expect(page.getByTestId('disconnected-banner')).toBeVisible();
  // The last frame stays on screen, and the host is still serving.
  await expect(page.locator('[data-testid="box"]').first()).toBeVisible();
  await expect(page.getByTestId('host-status')).toHaveAttribute('data-state', 'connected');
  await page.getByTestId('search-input').fill('General');
  await expect(page.getByTestId('search-count')).not.toHaveAttribute('data-count', '0');
});
