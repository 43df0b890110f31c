/**
 * An AppReveal app that registers only the tools every server has (batch, device_info, get_state,
 * launch_context: the Tauri crate's example shape), through the UI in Chromium: the device list names
 * the app from launch_context, observe says there is no element tree and no screenshot instead of
 * failing, and the App panel shows what the app does offer. Then the Tauri flavour with its UI tools:
 * its elements as boxes, a typed value in the App panel's state after the step, its logs as a list.
 */
import { expect } from '@playwright/test';
import { boxCentre, connectAppReveal, runParallax, urlIn, stopAfterEach, type DemoUrls, startDemo, test, sharedDemoDevice } from './harness';

const running = stopAfterEach();
/** The iOS flavour's device is the worker's demo device (no flags); the Tauri flavours are flags of their own process. */
const demoDevice = sharedDemoDevice();

test('R-AR-22, R-AR-24: an app with only the always-present tools: named, observed honestly, its App panel filled', async ({ page }) => {
  test.setTimeout(90_000);
  const demo = await runParallax(['demo-device', '--appreveal-flavor', 'tauri', '--appreveal-tools', 'always'], /runnerUrl/, 60_000);
  running.push(demo);
  const urls = JSON.parse(demo.line) as DemoUrls;
  const host = await runParallax(['serve', '--no-default-device'], /^Parallax web host: /);
  running.push(host);
  await page.goto(urlIn(host.line));

  const item = await connectAppReveal(page, urls.appRevealUrl);
  // The device list names the app on its phone's entry: launch_context, since no real /health does.
  await expect(page.getByTestId('phone-item').filter({ has: item }).getByTestId('device-app')).toContainText('dev.parallax.demo');

  // Observe shows a frame: the app's own verdict (no element tree), no screenshot, not an error.
  await expect(page.getByTestId('frame-backend')).toHaveAttribute('data-backend', 'appreveal');
  const banner = page.getByTestId('quality-banner');
  await expect(banner).toHaveAttribute('data-reason', 'appreveal_elements_not_offered');
  await expect(banner).toContainText('registered no get_elements tool');
  await expect(page.getByTestId('observe-error')).toHaveCount(0);
  await expect(page.locator('.screen-placeholder')).toContainText('what it does offer is in the App panel');

  // The App panel: the app's name, and every read-only tool it registered.
  const panel = page.getByTestId('app-panel');
  await expect(panel.getByTestId('app-identity')).toContainText('Parallax Demo');
  await expect(panel.getByTestId('app-identity')).toContainText('Linux');
  await expect(panel.locator('[data-testid="app-reading"]')).toHaveCount(3);
  await expect(panel.locator('[data-tool="get_state"]')).toContainText('screen');
  await expect(panel.locator('[data-tool="get_state"]')).toContainText('login');
  await panel.locator('[data-tool="launch_context"] button').click();
  await expect(panel.locator('[data-tool="launch_context"]')).toContainText('frameworkType');
  await expect(panel.locator('[data-tool="launch_context"]')).toContainText('tauri');
  // Refresh reads again, on demand.
  await panel.getByTestId('app-refresh').click();
  await expect(panel.locator('[data-testid="app-reading"]')).toHaveCount(3);
  // The token is never on the page.
  const token = new URL(urls.appRevealUrl).searchParams.get('appreveal_session_token') ?? '';
  expect(await page.content()).not.toContain(token);
});

test('R-AR-10, R-AR-22: the Tauri flavour: DOM-shaped elements as boxes, and the App panel follows each action', async ({ page }) => {
  test.setTimeout(90_000);
  const urls = await startDemo(running, ['--appreveal-flavor', 'tauri']);
  const host = await runParallax(['serve', '--no-default-device'], /^Parallax web host: /);
  running.push(host);
  await page.goto(urlIn(host.line));
  await connectAppReveal(page, urls.appRevealUrl);

  await expect(page.getByTestId('quality-banner')).toHaveCount(0);
  await expect(page.getByTestId('screenshot-error')).toContainText('did not register the screenshot tool');
  await expect(page.locator('[data-testid="box"]').first()).toBeVisible();
  const panel = page.getByTestId('app-panel');
  await expect(panel.locator('[data-tool="get_navigation_stack"]')).toContainText('login');
  await expect(panel.getByTestId('app-network')).toBeVisible();

  // Tap the username field's box, then type into it: AppReveal types by element id.
  // Tauri names it web.main.<n>; its kind is what the projection made of role, tag and type.
  const field = await boxCentre(page, 'textField');
  await page.getByTestId('mode-toggle').click();
  await page.mouse.click(field.x, field.y);
  await expect(page.getByTestId('timeline-step').first()).toHaveAttribute('data-success', 'true');
  await page.getByTestId('type-input').fill('grace');
  await page.getByTestId('type-input').press('Enter');
  await expect(page.getByTestId('timeline-step')).toHaveCount(2);
  await expect(page.getByTestId('timeline-step').first()).toHaveAttribute('data-success', 'true');
  // The reading that came with the step: the state holds the typed text, the log says what happened.
  await expect(panel.locator('[data-tool="get_state"]')).toContainText('grace');
  await expect(panel.getByTestId('app-log')).toContainText('typed 5 characters');
});

test('R-AR-32: the iOS flavour: a network call opens to its request and response, and the panel follows a screen change', async ({ page }) => {
  test.setTimeout(90_000);
  const urls = await demoDevice();
  const host = await runParallax(['serve', '--no-default-device'], /^Parallax web host: /);
  running.push(host);
  await page.goto(urlIn(host.line));
  await connectAppReveal(page, urls.appRevealUrl);
  const panel = page.getByTestId('app-panel');
  await expect(panel.locator('[data-tool="get_state"]')).toContainText('login');

  // The checkout screen's web view loads its page while AppReveal runs: traffic the app captured in full.
  const post = { method: 'POST', headers: { 'content-type': 'application/json' } };
  await fetch(`${urls.adminUrl}/reset`, { ...post, body: '{}' });
  await fetch(`${urls.adminUrl}/screen`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ screen: 'checkout' }) });
  // A screen change the next observation shows reads the app again: no click on ↻.
  const refresh = page.getByTestId('refresh');
  if (await refresh.isEnabled()) await refresh.click();
  await expect(panel.locator('[data-tool="get_state"]')).toContainText('checkout');

  // The page it loaded last: captured while AppReveal ran (the first loads came from timing entries only).
  const row = panel.getByTestId('app-network-row').filter({ hasText: 'app.parallax.test/' }).last();
  await row.click();
  const detail = panel.getByTestId('app-network-detail');
  await expect(detail).toBeVisible();
  await expect(detail.getByTestId('app-network-request')).toContainText(/user-agent|accept/i);
  await expect(detail.getByTestId('app-network-response')).toContainText(/content-type/i);
  await expect(detail.getByTestId('app-network-response').locator('pre')).toContainText('<');
  await row.click();
  await expect(detail).toHaveCount(0);
});
