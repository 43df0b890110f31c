/**
 * AppReveal in the UI, end to end against the demo app's embedded AppReveal server: the device
 * list's Discovered section finds the demo's runner by the port probe, a pasted session URL connects the
 * app (and the token never shows again), the frame header says which screen the app is on, and a tap
 * from Interact mode runs through AppReveal and lands on the timeline with backend appreveal. Only the
 * tools the app registered are offered.
 */
import { expect } from '@playwright/test';
import { boxCentre, demoStats, resetDemo, serveDevice, sharedAcrossFile, startDemo, stopAfterEach, urlIn, type DemoUrls, test } from './harness';

const running = stopAfterEach();
/**
 * One demo device for the file, on a runner port inside the probed range (8765–8864), away from its start
 * so a default runner is not hit; booted by the first test. Before each later test its app is relaunched
 * on Sign In through the admin reset (faults off, no variants, request counts from zero), which undoes the
 * text typed into the username field and the Checkout the second test leaves; the app's history for
 * navigate_back is its page's, new at a relaunch (src-demo/phone/app-page.ts relaunch). The connections,
 * the remembered entry and the timeline belong to the test's own web host and page.
 */
const port = 8800 + Math.floor(Math.random() * 60);
const demoDevice = sharedAcrossFile(
  (shared) => startDemo(shared, ['--port', String(port), '--screen', 'login']),
  (urls) => resetDemo(urls, 'login'),
);

/** The shared device, reset onto Sign In and checked there with no runner request counted yet. */
async function freshDevice(): Promise<DemoUrls> {
  const urls = await demoDevice();
  const stats = await demoStats(urls);
  expect(stats.screen).toBe('login');
  expect(stats.requests).toEqual({});
  return urls;
}

test('a pasted session URL connects the demo app through AppReveal; its screen, its tools and a tap on the timeline', async ({ page }, testInfo) => {
  test.setTimeout(90_000);
  const urls = await freshDevice();
  const token = new URL(urls.appRevealUrl).searchParams.get('appreveal_session_token');
  expect(token).toBeTruthy();
  const host = await serveDevice(running, urls.runnerUrl);
  await page.goto(urlIn(host.line));

  // Discovery's port probe lists the demo's runner, live, with its kind and state.
  const discovered = page.locator(`[data-testid="discovered-item"][data-url*=":${port}/"]`);
  await expect(discovered).toHaveAttribute('data-kind', 'runner');
  await expect(discovered).toHaveAttribute('data-state', 'available');
  await expect(page.getByTestId('discovered-list')).toBeVisible();

  // Paste the session URL: masked as soon as it holds the token, emptied on submit.
  const input = page.getByTestId('connect-url');
  await page.getByTestId('connect-remember').check();
  await input.fill(urls.appRevealUrl);
  await expect(input).toHaveAttribute('type', 'password');
  await page.getByTestId('connect-submit').click();
  await expect(input).toHaveValue('');
  const appReveal = page.locator('[data-testid="device-item"]').filter({ hasText: `127.0.0.1:${new URL(urls.appRevealUrl).port}` });
  await expect(appReveal).toHaveAttribute('data-state', 'connected');
  await expect(appReveal).toHaveAttribute('data-selected', 'true');
  await expect(page.getByTestId('screen-image')).toBeVisible();

  // get_screen in the header; get_elements as boxes that say where their ids came from.
  const screen = page.getByTestId('appreveal-screen');
  await expect(screen).toHaveAttribute('data-screen-key', 'login');
  await expect(screen).toContainText('login');
  await expect(page.getByTestId('frame-backend')).toHaveAttribute('data-backend', 'appreveal');
  await expect(page.locator('[data-testid="box"][data-id-source]').first()).toBeVisible();
  // The app has only its own view of its screen: nothing to compare it with, so Compare is off.
  await expect(page.getByTestId('compare-button')).toBeDisabled();
  await expect(page.getByTestId('compare-button')).toHaveAttribute('title', /Compare needs a runner/);

  // Interact: only what the app's tools can do. No IME or Tab tool, so no such keys; type_text is there.
  await page.getByTestId('mode-toggle').click();
  await expect(page.getByTestId('mode-toggle')).toHaveAttribute('data-mode', 'interact');
  await expect(page.getByTestId('type-input')).toBeEnabled();
  await expect(page.getByTestId('key-ime-done')).toHaveCount(0);
  await expect(page.getByTestId('key-tab')).toHaveCount(0);
  const signIn = await boxCentre(page, 'login.submit');
  await page.mouse.click(signIn.x, signIn.y);
  const step = page.getByTestId('timeline-step').first();
  await expect(step).toHaveAttribute('data-backend', 'appreveal');
  await expect(step).toHaveAttribute('data-success', 'true');
  await expect(step.getByTestId('step-thumb-after')).toBeVisible();

  // AppReveal types by element id: a tapped field is where the type box types.
  const username = await boxCentre(page, 'login.username');
  await page.mouse.click(username.x, username.y);
  await expect(page.getByTestId('timeline-step')).toHaveCount(2);
  await expect(page.getByTestId('type-field')).toContainText('login.username');
  await page.getByTestId('type-input').fill('qa.reveal');
  await page.getByTestId('type-submit').click();
  await expect(page.getByTestId('timeline-step')).toHaveCount(3);
  const typed = page.getByTestId('timeline-step').first();
  await expect(typed).toHaveAttribute('data-action', 'sendKeys');
  await expect(typed).toHaveAttribute('data-backend', 'appreveal');
  await expect(typed).toHaveAttribute('data-success', 'true');
  await page.getByTestId('search-input').fill('qa.reveal');
  await expect(page.locator('[data-testid="tree-node"][data-match="true"]').first()).toBeVisible();
  await page.getByTestId('search-input').fill('');
  await page.screenshot({ path: testInfo.outputPath('appreveal-ui.png') });

  // Remembered (without its token), it is in the Discovered list; connecting it from there asks for the token.
  const appRevealPort = new URL(urls.appRevealUrl).port;
  const remembered = page.locator(`[data-testid="discovered-item"][data-kind="appreveal"][data-url*=":${appRevealPort}/"]`);
  await expect(remembered).toHaveAttribute('data-state', 'available');
  expect(await remembered.getAttribute('data-url')).not.toContain('token');
  await appReveal.getByTestId('device-disconnect').click();
  await expect(appReveal).toHaveCount(0);
  await remembered.getByTestId('discovered-connect').click();
  const tokenInput = remembered.getByTestId('discovered-token');
  await expect(tokenInput).toHaveAttribute('type', 'password');
  await tokenInput.fill(token as string);
  await tokenInput.press('Enter');
  await expect(appReveal).toHaveAttribute('data-state', 'connected');
  await expect(tokenInput).toHaveCount(0);

  // Host, port and token typed separately connect the same app (after a disconnect); the token field is masked.
  await appReveal.getByTestId('device-disconnect').click();
  await expect(appReveal).toHaveCount(0);
  await page.getByTestId('connect-form-parts').click();
  await page.getByTestId('connect-host').fill('127.0.0.1');
  await page.getByTestId('connect-port').fill(appRevealPort);
  await expect(page.getByTestId('connect-token')).toHaveAttribute('type', 'password');
  await page.getByTestId('connect-token').fill(token as string);
  await page.getByTestId('connect-submit').click();
  await expect(page.getByTestId('connect-token')).toHaveValue('');
  await expect(appReveal).toHaveAttribute('data-state', 'connected');
  await expect(page.getByTestId('appreveal-screen')).toHaveAttribute('data-screen-key', 'login');

  // The token is nowhere on the page: not in the device list, the form, the timeline or the header.
  expect(await page.content()).not.toContain(token as string);
  expect(await page.evaluate(() => document.body.innerText)).not.toContain(token as string);
});

test('Back (navigate_back) and the web view tools run through AppReveal as recorded steps', async ({ page }, testInfo) => {
  test.setTimeout(90_000);
  const urls = await freshDevice();
  const host = await serveDevice(running, urls.runnerUrl);
  await page.goto(urlIn(host.line));
  await page.getByTestId('connect-url').fill(urls.appRevealUrl);
  await page.getByTestId('connect-submit').click();
  const screen = page.getByTestId('appreveal-screen');
  await expect(screen).toHaveAttribute('data-screen-key', 'login');

  // Back is offered because the app lists navigate_back; it returns to the screen before the tab switch.
  await page.getByTestId('mode-toggle').click();
  const checkoutTab = await boxCentre(page, 'tab.checkout');
  await page.mouse.click(checkoutTab.x, checkoutTab.y);
  await expect(screen).toHaveAttribute('data-screen-key', 'checkout');
  await page.getByTestId('key-back').click();
  await expect(screen).toHaveAttribute('data-screen-key', 'login');
  const back = page.getByTestId('timeline-step').first();
  await expect(back).toHaveAttribute('data-action', 'back');
  await expect(back).toHaveAttribute('data-backend', 'appreveal');
  await expect(back).toHaveAttribute('data-success', 'true');

  // The web view panel lists Checkout's form; Click on its submit is a recorded web_click.
  const again = await boxCentre(page, 'tab.checkout');
  await page.mouse.click(again.x, again.y);
  await expect(screen).toHaveAttribute('data-screen-key', 'checkout');
  const submit = page.locator('[data-testid="web-control"][data-selector="#place-order"]');
  await expect(submit).toBeVisible();
  await expect(page.locator('[data-testid="web-control"][data-selector="#password"]')).toContainText('password');
  await submit.getByTestId('web-click').click();
  await expect(page.getByTestId('timeline-step')).toHaveCount(4);
  const click = page.getByTestId('timeline-step').first();
  await expect(click).toHaveAttribute('data-action', 'webTool');
  await expect(click).toHaveAttribute('data-backend', 'appreveal');
  await expect(click).toHaveAttribute('data-success', 'true');
  await page.screenshot({ path: testInfo.outputPath('appreveal-web.png') });
});
