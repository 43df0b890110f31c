/**
 * Actions tell the truth (docs/rules.md#r-actions), through the UI in Chromium against the demo iPhone
 * that `parallax demo-device` starts: clicks are sent in points with and without a tree, on every screen;
 * typing goes into the field tapped last (native, bridge, DOM); a slow action shows as running with its
 * stages and holds the device until its result; each outcome class shows with the device's own words;
 * a badge takes its own click.
 */
import { expect, type Page } from '@playwright/test';
import { boxCentre, postAdmin, sharedDemoDevice, stopAfterEach, urlIn, type DemoUrls, serveDevice, test } from './harness';

const running = stopAfterEach();
const SCREEN = { width: 402, height: 874 };
/** The tab bar's buttons (screen points): login, feed, checkout, hostile, edges. */
const TABS = { login: { x: 40, y: 816 }, feed: { x: 120, y: 816 }, checkout: { x: 200, y: 816 }, hostile: { x: 281, y: 816 }, edges: { x: 361, y: 816 } };

/** Every test acts on the device: one demo process for the file, its app relaunched for each test (harness). */
const demoDevice = sharedDemoDevice();

async function start(page: Page, faults: readonly string[] = []): Promise<DemoUrls> {
  const urls = await demoDevice({ screen: 'login', faults });
  const host = await serveDevice(running, urls.runnerUrl);
  await page.goto(urlIn(host.line));
  await expect(page.getByTestId('device-item')).toHaveAttribute('data-state', 'connected');
  await expect(page.getByTestId('screen-image')).toBeVisible();
  return urls;
}

async function interact(page: Page): Promise<void> {
  await page.getByTestId('search-input').blur();
  const toggle = page.getByTestId('mode-toggle');
  if ((await toggle.getAttribute('data-mode')) !== 'interact') await toggle.click();
  await expect(toggle).toHaveAttribute('data-mode', 'interact');
}

/** Clicks the screen at a point given in screen points, converting through the displayed screen. */
async function clickPoint(page: Page, p: { x: number; y: number }): Promise<void> {
  const rect = await page.getByTestId('screen').boundingBox();
  if (!rect) throw new Error('no screen');
  await page.mouse.click(rect.x + (p.x * rect.width) / SCREEN.width, rect.y + (p.y * rect.height) / SCREEN.height);
}

async function deviceScreen(demo: DemoUrls): Promise<string> {
  return ((await (await fetch(`${demo.adminUrl}/screen`)).json()) as { screen: string }).screen;
}

test('R-TAP-11, R-TAP-10: a click without a tree is sent in points on every screen; before any read said the size, it is refused', async ({ page }) => {
  test.setTimeout(120_000);
  // No tree from the start: XCTest fails and no bridge is registered.
  const demo = await start(page, ['xctest-ax-error', 'bridge-unregistered']);
  await interact(page);
  const screen = page.getByTestId('screen');
  await expect(screen).toHaveAttribute('data-points', 'false');
  await clickPoint(page, TABS.feed);
  await expect(page.getByTestId('gesture-refused')).toContainText("the screen's size in points is not known yet");
  await expect(page.getByTestId('timeline-step')).toHaveCount(0);
  expect(await deviceScreen(demo)).toBe('login');

  // One read reports the size; from then on the screenshot alone converts (the device remembers it).
  await postAdmin(demo, 'faults', { faults: [] });
  await expect(page.locator('[data-testid="box"]').first()).toBeVisible();
  await postAdmin(demo, 'faults', { faults: ['xctest-ax-error', 'bridge-unregistered'] });
  await expect(page.locator('[data-testid="box"]')).toHaveCount(0);
  await expect(screen).toHaveAttribute('data-points', 'true');
  await expect(screen).toHaveAttribute('data-screen-width', '402');

  const steps = page.getByTestId('timeline-step');
  let n = 0;
  for (const name of ['feed', 'checkout', 'hostile', 'edges'] as const) {
    await clickPoint(page, TABS[name]);
    await expect(steps).toHaveCount(++n);
    const step = steps.first();
    await expect(step).toHaveAttribute('data-success', 'true');
    // Sent as the point clicked, in points (a 3x screenshot would have made it 3 times larger).
    await expect(step.getByTestId('step-target')).toHaveAttribute('data-resolved-by', 'point');
    await expect(step.getByTestId('step-target')).toContainText(`at ${TABS[name].x}, ${TABS[name].y}`);
    await expect.poll(() => deviceScreen(demo)).toBe(name);
  }
  // Edges has no tab bar: its Close button, by its point.
  await clickPoint(page, { x: 48, y: 30 });
  await expect(steps).toHaveCount(++n);
  await expect.poll(() => deviceScreen(demo)).not.toBe('edges');
});

test('R-PICK-05: with a tree, a click on every screen taps the box a finger hits there', async ({ page }) => {
  test.setTimeout(90_000);
  const demo = await start(page);
  await interact(page);
  const steps = page.getByTestId('timeline-step');
  let n = 0;
  for (const name of ['feed', 'checkout', 'hostile', 'edges'] as const) {
    // The tab's own box (the bridge's), found where a finger would press it.
    const at = await boxCentre(page, `tab.${name}`);
    await page.mouse.click(at.x, at.y);
    await expect(steps).toHaveCount(++n);
    await expect(steps.first()).toHaveAttribute('data-success', 'true');
    await expect(steps.first().getByTestId('step-target')).toContainText(`tab.${name}`);
    await expect.poll(() => deviceScreen(demo)).toBe(name);
  }
  // Feed scrolled: the Login tab lies over the cells under it, and is what the click taps.
  await postAdmin(demo, 'screen', { screen: 'feed' });
  await expect.poll(() => deviceScreen(demo)).toBe('feed');
  const list = await boxCentre(page, 'feed.list');
  await page.mouse.move(list.x, list.y + 150);
  await page.mouse.down();
  await page.mouse.move(list.x, list.y - 150, { steps: 8 });
  await page.mouse.up();
  await expect(steps).toHaveCount(++n);
  await clickPoint(page, { x: TABS.login.x - 25, y: TABS.login.y + 10 });
  await expect(steps).toHaveCount(++n);
  await expect(steps.first().getByTestId('step-target')).toContainText('tab.login');
  await expect.poll(() => deviceScreen(demo)).toBe('login');
});

test('R-ACT-03: typing goes into the field tapped last, native, bridge and DOM, named by its label; Tab lets it go', async ({ page }) => {
  test.setTimeout(120_000);
  const demo = await start(page);
  await interact(page);
  const steps = page.getByTestId('timeline-step');
  const field = page.getByTestId('type-field');
  let n = 0;
  const typeInto = async (text: string) => {
    await page.getByTestId('type-input').fill(text);
    await page.getByTestId('type-submit').click();
    await expect(steps).toHaveCount(++n);
    await expect(steps.first()).toHaveAttribute('data-action', 'sendKeys');
    await expect(steps.first()).toHaveAttribute('data-success', 'true');
    await expect(steps.first().getByTestId('step-warnings')).toHaveCount(0);
  };

  // A bridge field (the SDK describes Login).
  const username = await boxCentre(page, 'login.username');
  await page.mouse.click(username.x, username.y);
  await expect(steps).toHaveCount(++n);
  await expect(field).toHaveAttribute('data-target', 'tapped');
  await expect(field).toContainText('Username');
  await typeInto('qa');
  await expect(steps.first()).toHaveAttribute('data-backend', 'sdk');
  await expect(steps.first().getByTestId('step-target')).toContainText('Username');

  // Tab moves focus: the bar lets the field go and follows keyboard focus.
  await page.getByTestId('key-tab').click();
  await expect(steps).toHaveCount(++n);
  await expect(field).toHaveAttribute('data-target', 'focus');

  // A native field XCTest alone sees (no bridge registered).
  await postAdmin(demo, 'faults', { faults: ['bridge-unregistered'] });
  await expect(page.locator('[data-testid="box"][data-source="sdkBridge"]')).toHaveCount(0);
  const plain = await boxCentre(page, 'login.username');
  await page.mouse.click(plain.x, plain.y);
  await expect(steps).toHaveCount(++n);
  await expect(field).toContainText('Username');
  await typeInto('x');
  await expect(steps.first()).toHaveAttribute('data-backend', '');

  // A DOM field in Checkout's web view, named by its label, never "e5".
  await postAdmin(demo, 'faults', { faults: [] });
  await postAdmin(demo, 'screen', { screen: 'checkout' });
  await expect(page.locator('[data-testid="box"][data-source="sdkWebBridge"]').first()).toBeVisible();
  await page.getByTestId('search-input').fill('Jane Appleseed');
  const fullName = page.locator('[data-testid="box"][data-match="true"][data-source="sdkWebBridge"]').first();
  const rect = await fullName.boundingBox();
  await page.getByTestId('search-input').fill('');
  await page.getByTestId('search-input').blur();
  if (!rect) throw new Error('no Full name box');
  await page.mouse.click(rect.x + rect.width / 2, rect.y + rect.height / 2);
  await expect(steps).toHaveCount(++n);
  await expect(steps.first().getByTestId('step-target')).toContainText('Full name');
  await expect(steps.first().getByTestId('step-target')).not.toContainText('e5');
  await expect(field).toContainText('Full name');
  await typeInto('Jane');
  await expect(steps.first().getByTestId('step-target')).toContainText('Full name');
});

test('R-ACT-05: a slow action stays running with its stages, holds the device, and its result replaces the row', async ({ page }) => {
  test.setTimeout(90_000);
  const demo = await start(page);
  await interact(page);
  const signIn = await boxCentre(page, 'login.submit');
  // Each XCTest read grinds for 4 s: the fresh read and the observation after make the action slow.
  await postAdmin(demo, 'faults', { faults: ['xctest-slow=4000'] });
  await page.mouse.click(signIn.x, signIn.y);
  const pending = page.getByTestId('timeline-pending');
  await expect(pending).toHaveCount(1);
  await expect(pending).toHaveAttribute('data-stage', /freshRead|resolve|dispatch|observeAfter/);
  await expect(page.getByTestId('device-busy')).toBeVisible();
  // A second action waits for the first one's result: not sent, and the user is told why.
  await page.mouse.click(signIn.x, signIn.y);
  await expect(page.getByTestId('gesture-refused')).toContainText('an action is still running on this device');
  await expect(pending.getByTestId('pending-stages')).toContainText('dispatch');
  // The result comes when the host has it, and takes the row's place.
  const steps = page.getByTestId('timeline-step');
  await expect(steps).toHaveCount(1, { timeout: 30_000 });
  await expect(pending).toHaveCount(0);
  await expect(steps.first()).toHaveAttribute('data-success', 'true');
  await expect(page.getByTestId('device-busy')).toHaveCount(0);
});

test('R-ACT-01, R-ACT-02: each outcome class, with the device’s own words', async ({ page }) => {
  test.setTimeout(120_000);
  const demo = await start(page);
  await interact(page);
  const steps = page.getByTestId('timeline-step');
  const signIn = await boxCentre(page, 'login.submit');
  let n = 0;
  const outcome = async (cls: string) => {
    await expect(steps).toHaveCount(++n, { timeout: 20_000 });
    await expect(steps.first()).toHaveAttribute('data-outcome', cls);
    return steps.first();
  };

  await page.mouse.click(signIn.x, signIn.y);
  await outcome('done');

  // notRun: the bridge refused it before acting, and says so in its own words.
  await postAdmin(demo, 'faults', { faults: ['bridge-reject=stale_observation'] });
  await page.mouse.click(signIn.x, signIn.y);
  const notRun = await outcome('notRun');
  await expect(notRun.getByTestId('step-outcome-class')).toContainText('nothing was run');
  await expect(notRun.getByTestId('step-device-message')).toContainText('stale_observation');

  // notRun from the runner itself: typing with no field focused ("No focused text field").
  await postAdmin(demo, 'faults', { faults: [] });
  await page.getByTestId('type-input').fill('qa');
  await page.getByTestId('type-submit').click();
  const refusedTyping = await outcome('notRun');
  await expect(refusedTyping.getByTestId('step-device-message')).toContainText('No focused text field');
  await expect(refusedTyping).toHaveAttribute('data-failure', 'runner_error');

  // mayHaveRun: the runner ran the tap past its deadline (a point on empty space, through XCTest).
  await postAdmin(demo, 'faults', { faults: ['runner-deadline=request_tap_coordinates'] });
  await clickPoint(page, { x: 200, y: 620 });
  const late = await outcome('mayHaveRun');
  await expect(late).toHaveAttribute('data-failure', 'outcome_indeterminate');
  await expect(late.getByTestId('step-outcome-class')).toContainText('may have run');
  await expect(late.getByTestId('step-device-message')).toContainText('outcome is indeterminate');

  // refused: the picked element is gone from the device by the time the click is sent; only the read went out.
  await postAdmin(demo, 'faults', { faults: ['bridge-unregistered'] });
  await expect(page.locator('[data-testid="box"][data-source="sdkBridge"]')).toHaveCount(0);
  await page.getByTestId('live-toggle').click();
  await expect(page.getByTestId('live-toggle')).toHaveAttribute('data-live', 'false');
  await postAdmin(demo, 'screen', { screen: 'feed' });
  await expect.poll(() => deviceScreen(demo)).toBe('feed');
  await page.mouse.click(signIn.x, signIn.y);
  const gone = await outcome('refused');
  await expect(gone).toHaveAttribute('data-failure', 'target_not_found');
  await expect(gone.getByTestId('step-outcome-class')).toContainText('not sent');
});

test('R-ACT-07: a click on a warning badge in Interact mode selects it and sends nothing', async ({ page }) => {
  const demo = await start(page);
  await postAdmin(demo, 'screen', { screen: 'edges' });
  await interact(page);
  await expect(page.getByTestId('layout-warning-tag').first()).toBeVisible();
  // A tag no other tag covers, pressed with the mouse as a user would (pointer down and up on it).
  // (It used to let the press through to the screen, which tapped the device under it.)
  const open = await page.evaluate(() => {
    for (const tag of document.querySelectorAll<HTMLElement>('[data-testid="layout-warning-tag"]')) {
      const r = tag.getBoundingClientRect();
      const x = r.left + r.width / 2;
      const y = r.top + r.height / 2;
      if (document.elementFromPoint(x, y) === tag) return { x, y, key: tag.dataset.nodeKey ?? '' };
    }
    return null;
  });
  if (!open) {
    const why = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>('[data-testid="layout-warning-tag"]')].map((tag) => {
        const r = tag.getBoundingClientRect();
        const el = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return `${JSON.stringify([r.left, r.top, r.width, r.height])} → ${el?.tagName}.${el?.className} ${el?.getAttribute('data-testid')}`;
      }),
    );
    throw new Error(`every warning tag is covered: ${why.join('; ')}`);
  }
  const before = ((await (await fetch(`${demo.adminUrl}/stats`)).json()) as { requests: Record<string, number> }).requests;
  await page.mouse.click(open.x, open.y);
  await expect(page.locator(`[data-testid="tree-node"][data-node-key="${open.key}"]`)).toHaveAttribute('data-selected', 'true');
  await page.waitForTimeout(800);
  await expect(page.getByTestId('timeline-step')).toHaveCount(0);
  await expect(page.getByTestId('timeline-pending')).toHaveCount(0);
  const after = ((await (await fetch(`${demo.adminUrl}/stats`)).json()) as { requests: Record<string, number> }).requests;
  for (const command of ['request_tap_coordinates', 'request_sdk_action']) expect(after[command] ?? 0).toBe(before[command] ?? 0);
});
