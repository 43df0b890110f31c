/**
 * A device view you can read (docs/rules.md#r-qa-16 … #r-qa-19), at the three window sizes QA uses:
 * every toolbar control visible and taking its own click, the legend beside the device, zoom that
 * changes the device's size, panes that keep their size after a reload, the saved recording as a
 * notice, and the demo's faults switched from the UI.
 */
import { expect, type Page } from '@playwright/test';
import { boxCentre, hostDemoAt, sharedDemoDevice, sharedDemoHost, stopAfterEach, stopRecording, STEP_RECORDED_MS, type DemoUrls, test } from './harness';

const running = stopAfterEach();
// Each test waits on its own web host, and some on steps over 10 s each on the busy machine: a wide margin, not a speed limit.
test.describe.configure({ timeout: 180_000 });

const SIZES = [
  { width: 1280, height: 720 },
  { width: 1440, height: 900 },
  { width: 1920, height: 1080 },
] as const;

/**
 * The tests that record, tap or switch faults each get their own web host, on one demo device for the file
 * whose app is relaunched on Sign In (faults off, counts from zero) before each of them.
 */
const demoDevice = sharedDemoDevice();
async function start(page: Page, size: { width: number; height: number } = SIZES[0]): Promise<DemoUrls> {
  const urls = await demoDevice({ screen: 'login' });
  await hostDemoAt(page, running, urls, size);
  return urls;
}
/** The tests that only look, zoom and pick share one demo device and host (nothing they do reaches either). */
const look = sharedDemoHost();

/**
 * Every control of the device toolbar, of the view's column beside the screen (docs/rules.md#r-layout-01)
 * and of the saved-recording notice: its centre is in the window
 * and the element there is the control itself, and it lies wholly inside its bar (nothing clipped).
 */
async function unreachableControls(page: Page): Promise<{ checked: string[]; bad: string[] }> {
  return page.evaluate(() => {
    const checked: string[] = [];
    const bad: string[] = [];
    const controls = document.querySelectorAll<HTMLElement>(
      '.canvas > .canvas-bar :is(button, input, select), .canvas > .saved-trace :is(button, input, select), .stage-tools :is(button, input, select)',
    );
    for (const el of controls) {
      const r = el.getBoundingClientRect();
      const name = el.dataset.testid ?? el.getAttribute('aria-label') ?? el.textContent?.trim() ?? el.tagName;
      if (r.width === 0 && r.height === 0) continue;
      checked.push(name);
      const x = r.left + r.width / 2;
      const y = r.top + r.height / 2;
      const hit = document.elementFromPoint(x, y);
      const bar = el.closest('.canvas-bar, .saved-trace, .stage-tools')!.getBoundingClientRect();
      const inside = r.left >= bar.left - 0.5 && r.right <= bar.right + 0.5 && r.top >= bar.top - 0.5 && r.bottom <= bar.bottom + 0.5;
      const own = hit !== null && (hit === el || el.contains(hit) || (hit.tagName === 'LABEL' && hit.contains(el)));
      if (!inside || !own || x > window.innerWidth || y > window.innerHeight)
        bad.push(`${name} (${Math.round(r.left)},${Math.round(r.top)} ${Math.round(r.width)}×${Math.round(r.height)})`);
    }
    return { checked, bad };
  });
}

/** Zooms in with the wheel over the node with this id; answers the point the pointer was at. */
async function wheelZoomAt(page: Page, id: string): Promise<{ x: number; y: number }> {
  const at = await boxCentre(page, id);
  const fit = (await page.getByTestId('screen').boundingBox())!;
  await page.mouse.move(at.x, at.y);
  await page.mouse.wheel(0, -300);
  await expect.poll(async () => (await page.getByTestId('screen').boundingBox())!.width).toBeGreaterThan(fit.width * 1.3);
  return at;
}

function overlap(a: { x: number; y: number; width: number; height: number }, b: { x: number; y: number; width: number; height: number }): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

for (const size of SIZES) {
  test(`R-QA-17: at ${size.width}x${size.height} every toolbar control is visible and takes its own click, in inspect and interact mode`, async ({ page }) => {
    await look(page, size);
    for (const mode of ['inspect', 'interact'] as const) {
      if (mode === 'interact') await page.getByTestId('mode-toggle').click();
      await expect(page.getByTestId('screen')).toHaveAttribute('data-mode', mode);
      const { checked, bad } = await unreachableControls(page);
      expect(bad, `${mode}: controls not reachable`).toEqual([]);
      for (const id of [
        'compare-button',
        'record-button',
        'live-toggle',
        'refresh',
        'mode-toggle',
        'search-input',
        'zoom-fit',
        'zoom-1x',
        'zoom-2x',
        'zoom-in',
        'zoom-out',
        'strategy-select',
        'xctest-only-toggle',
      ])
        expect(checked, `${mode}: ${id} is in the toolbar`).toContain(id);
    }
  });

  test(`R-QA-16: at ${size.width}x${size.height} the legend lies beside the device, and zoom changes the device's size`, async ({ page }) => {
    await look(page, size);
    const screen = page.getByTestId('screen');
    const legend = page.getByTestId('source-legend');
    await expect(legend).toBeVisible();
    const fit = (await screen.boundingBox())!;
    expect(overlap(fit, (await legend.boundingBox())!), 'the legend covers the device').toBe(false);
    const width = Number(await screen.getAttribute('data-screen-width'));

    await page.getByTestId('zoom-2x').click();
    await expect.poll(async () => Math.round((await screen.boundingBox())!.width)).toBe(2 * width);
    await expect(page.getByTestId('zoom-level')).toHaveText('200%');
    await expect(page.getByTestId('zoom-2x')).toHaveAttribute('aria-pressed', 'true');
    // Zoomed in, the legend still never covers the device: it is not over the viewport at all.
    const viewport = (await page.locator('.screen-viewport').boundingBox())!;
    expect(overlap(viewport, (await legend.boundingBox())!)).toBe(false);

    await page.getByTestId('zoom-1x').click();
    await expect.poll(async () => Math.round((await screen.boundingBox())!.width)).toBe(width);

    await page.getByTestId('zoom-fit').click();
    await expect.poll(async () => Math.round((await screen.boundingBox())!.width)).toBe(Math.round(fit.width));

    // The wheel zooms about the pointer.
    await page.mouse.move(fit.x + fit.width / 2, fit.y + fit.height / 2);
    await page.mouse.wheel(0, -400);
    await expect.poll(async () => (await screen.boundingBox())!.width).toBeGreaterThan(fit.width * 1.2);
  });
}

test('R-QA-16: the wheel zooms about the pointer, a click there picks what is under it, and a drag pans instead of picking', async ({ page }) => {
  await look(page, SIZES[1]);
  const submit = await wheelZoomAt(page, 'login.submit');
  // The point under the pointer stayed put: the Sign In button is still there.
  await page.waitForTimeout(300);
  await page.mouse.click(submit.x, submit.y);
  await expect(page.locator('[data-testid="attr-ios-row"][data-name="identifier"]')).toContainText('login.submit');

  const before = (await page.getByTestId('screen').boundingBox())!;
  await page.mouse.move(submit.x, submit.y);
  await page.mouse.down();
  await page.mouse.move(submit.x + 60, submit.y + 40, { steps: 8 });
  await page.mouse.up();
  const after = (await page.getByTestId('screen').boundingBox())!;
  expect(Math.round(after.x - before.x)).toBe(60);
  expect(Math.round(after.y - before.y)).toBe(40);
  await expect(page.locator('[data-testid="attr-ios-row"][data-name="identifier"]')).toContainText('login.submit');
});

test('R-QA-17: the panes resize by their separators and keep their sizes after a reload', async ({ page }) => {
  await start(page, SIZES[1]);
  const sidebar = page.locator('.sidebar');
  const inspectorTree = page.locator('[data-testid="pane-tree"]');
  const width0 = (await sidebar.boundingBox())!.width;
  const tree0 = (await inspectorTree.boundingBox())!.height;

  const drag = async (id: string, dx: number, dy: number) => {
    const box = (await page.getByTestId(`separator-${id}`).boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 + dx, box.y + box.height / 2 + dy, { steps: 6 });
    await page.mouse.up();
  };
  await drag('sidebar', 80, 0);
  await drag('tree', 0, -60);
  const width1 = (await sidebar.boundingBox())!.width;
  const tree1 = (await inspectorTree.boundingBox())!.height;
  expect(width1).toBeGreaterThan(width0 + 60);
  expect(tree1).toBeLessThan(tree0 - 40);

  await page.reload();
  await expect(page.getByTestId('screen-image')).toBeVisible();
  await expect.poll(async () => Math.round((await sidebar.boundingBox())!.width)).toBe(Math.round(width1));
  await expect.poll(async () => Math.round((await inspectorTree.boundingBox())!.height)).toBe(Math.round(tree1));
});

test('R-QA-19: after Stop the saved recording is a notice with Open and Reveal, the toolbar keeps every control, and a dismissed notice stays dismissed', async ({
  page,
  context,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await start(page);
  await page.getByTestId('record-button').click();
  await expect(page.getByTestId('record-button')).toHaveAttribute('data-recording', 'true');
  const path = await stopRecording(page);

  const notice = page.getByTestId('saved-trace');
  await expect(notice).toBeVisible();
  await expect(notice).toHaveAttribute('data-trace', path);
  await expect(notice).toContainText(path.split('/').pop()!);
  const { bad, checked } = await unreachableControls(page);
  expect(bad).toEqual([]);
  for (const id of ['compare-button', 'record-button', 'refresh', 'open-last-trace', 'reveal-last-trace', 'dismiss-last-trace']) expect(checked).toContain(id);

  // A browser cannot open a file manager: Reveal shows the folder, with a copy button.
  await page.getByTestId('reveal-last-trace').click();
  const folder = path.slice(0, path.lastIndexOf('/'));
  await expect(page.getByTestId('saved-trace-folder')).toContainText(folder);
  await page.getByTestId('copy-trace-folder').click();
  await expect(page.getByTestId('copy-trace-folder')).toHaveAttribute('data-copied', 'copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(folder);

  await page.getByTestId('dismiss-last-trace').click();
  await expect(notice).toHaveCount(0);
  await page.reload();
  await expect(page.getByTestId('screen-image')).toBeVisible();
  await expect(page.getByTestId('record-status')).toHaveAttribute('data-trace', path);
  await expect(notice).toHaveCount(0);
});

test('R-QA-19: Open in the notice opens the trace it saved', async ({ page }) => {
  await start(page);
  await page.getByTestId('record-button').click();
  await expect(page.getByTestId('record-button')).toHaveAttribute('data-recording', 'true');
  await stopRecording(page);
  await page.getByTestId('open-last-trace').click();
  await expect(page.getByTestId('trace-view')).toBeVisible();
});

test('R-QA-18: the demo panel switches the screen, and a fault switched there changes what the next action reports', async ({ page }) => {
  await start(page);
  const panel = page.getByTestId('demo-panel');
  await expect(panel).toBeVisible();
  const fault = (name: string) => panel.locator(`[data-testid="demo-fault"][data-name="${name}"]`);
  await expect(fault('bridge-reject')).toContainText('rejects every otherwise valid action with REASON');

  // The screen, switched from the panel.
  await panel.getByTestId('demo-screen-select').selectOption('checkout');
  await expect(page.locator('[data-testid="tree-node"]').filter({ hasText: 'screen.checkout' }).first()).toBeVisible({ timeout: 20_000 });
  await panel.getByTestId('demo-screen-select').selectOption('login');
  await expect(page.locator('[data-testid="tree-node"]').filter({ hasText: 'screen.login' }).first()).toBeVisible({ timeout: 20_000 });

  await page.getByTestId('mode-toggle').click();
  const steps = page.getByTestId('timeline-step');
  const signIn = await boxCentre(page, 'login.submit');
  await page.mouse.click(signIn.x, signIn.y);
  await expect(steps).toHaveCount(1, { timeout: STEP_RECORDED_MS });
  await expect(steps.first()).toHaveAttribute('data-outcome', 'done');

  // bridge-reject with the reason chosen in the panel: the next tap is refused in those words.
  await fault('bridge-reject').getByTestId('demo-fault-value').fill('stale_observation');
  await fault('bridge-reject').getByTestId('demo-fault-toggle').click();
  await expect(fault('bridge-reject')).toHaveAttribute('data-on', 'true');
  await expect(fault('bridge-reject')).toHaveAttribute('data-value', 'stale_observation');
  await page.mouse.click(signIn.x, signIn.y);
  await expect(steps).toHaveCount(2, { timeout: STEP_RECORDED_MS });
  await expect(steps.first()).toHaveAttribute('data-outcome', 'notRun');
  await expect(steps.first().getByTestId('step-device-message')).toContainText('stale_observation');

  // Off again: the next tap goes through.
  await fault('bridge-reject').getByTestId('demo-fault-toggle').click();
  await expect(fault('bridge-reject')).toHaveAttribute('data-on', 'false');
  await page.mouse.click(signIn.x, signIn.y);
  await expect(steps).toHaveCount(3, { timeout: STEP_RECORDED_MS });
  await expect(steps.first()).toHaveAttribute('data-outcome', 'done');
});

test('R-QA-16: zoomed in, a click in interact mode taps what is under the pointer, converted with the scale shown', async ({ page }) => {
  await start(page, SIZES[1]);
  await wheelZoomAt(page, 'login.submit');
  await page.waitForTimeout(300);
  await page.getByTestId('mode-toggle').click();
  await expect(page.getByTestId('screen')).toHaveAttribute('data-mode', 'interact');
  const zoomed = await boxCentre(page, 'login.submit');
  await page.mouse.click(zoomed.x, zoomed.y);
  const step = page.getByTestId('timeline-step').first();
  await expect(step).toHaveAttribute('data-action', 'tap', { timeout: STEP_RECORDED_MS });
  await expect(step).toHaveAttribute('data-outcome', 'done');
  await expect(step.getByTestId('step-target')).toContainText('login.submit');
});
