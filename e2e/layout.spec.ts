/**
 * A phone you can see (docs/rules.md#r-layout): measured in Chromium at the two window sizes QA works at,
 * with the timeline open, as a user sees it: the picture's size, what covers what (elementFromPoint), zoom
 * that centres on the selection, a timeline whose columns read whole, sizes kept across a reload, and a
 * selection that follows its element across observations.
 */
import { expect, type Page } from '@playwright/test';
import { PNG } from 'pngjs';
import { SCREENS } from '@demo/phone/app-page';
import {
  boxCentre,
  hostDemoAt,
  postAdmin,
  sharedDemoDevice,
  sharedDemoHost,
  stopAfterEach,
  stopRecording,
  STEP_RECORDED_MS,
  type DemoUrls,
  test,
} from './harness';

const running = stopAfterEach();
// Each test starts its own web host (and the first the file's demo device), which take a while on a busy machine: a wide margin, not a speed limit.
test.describe.configure({ timeout: 180_000 });

/** The window sizes and the least width the phone's picture may have at Fit there. */
const SIZES = [
  { width: 1280, height: 720, phone: 200 },
  { width: 1440, height: 900, phone: 300 },
] as const;

/**
 * The tests that record, tap or keep sizes in their host each get their own web host, on one demo device for
 * the file whose app is relaunched on `screen` (faults off, counts from zero) before each of them.
 */
const demoDevice = sharedDemoDevice();
async function start(page: Page, size: { width: number; height: number }, screen = 'login'): Promise<DemoUrls> {
  const urls = await demoDevice({ screen });
  await hostDemoAt(page, running, urls, size);
  return urls;
}
/** The tests that only look, pick and zoom share one demo device and host (nothing they do reaches either). */
const look = sharedDemoHost();

type Box = { x: number; y: number; width: number; height: number };
const overlap = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** What a finger would hit at points spread over the element's box: each must be inside `inside`. */
async function hitsInside(page: Page, box: Box, inside: string): Promise<string[]> {
  return page.evaluate(
    ({ box, inside }) => {
      const bad: string[] = [];
      for (const fx of [0.1, 0.5, 0.9])
        for (const fy of [0.05, 0.5, 0.95]) {
          const x = box.x + box.width * fx;
          const y = box.y + box.height * fy;
          const hit = document.elementFromPoint(x, y);
          if (!hit?.closest(inside)) bad.push(`${Math.round(x)},${Math.round(y)}: ${hit?.className ?? 'nothing'}`);
        }
      return bad;
    },
    { box, inside },
  );
}

/** Selects the node with this identifier by clicking its box, as a user does. */
async function select(page: Page, id: string): Promise<void> {
  const at = await boxCentre(page, id);
  await page.mouse.click(at.x, at.y);
  await expect(page.locator('[data-testid="attr-ios-row"][data-name="identifier"]')).toContainText(id);
}

/** The demo app as a designer changed it (`POST /admin/variants`, src-demo/phone/variants.ts). */
async function setVariants(demo: DemoUrls, variants: string[]): Promise<void> {
  const response = await fetch(`${demo.adminUrl}/variants`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ variants }),
  });
  expect(response.status, await response.text()).toBe(200);
}

for (const size of SIZES) {
  test(`R-LAYOUT-01: at ${size.width}x${size.height} with the timeline open the phone at Fit is at least ${size.phone} px wide on every demo screen, and nothing covers it`, async ({
    page,
  }, testInfo) => {
    const demo = await look(page, size);
    const timeline = page.getByTestId('timeline');
    await expect(timeline).not.toHaveClass(/collapsed/);
    const screen = page.getByTestId('screen');
    await expect(page.getByTestId('zoom-fit')).toHaveAttribute('aria-pressed', 'true');
    const widths: string[] = [];
    // Every screen, since a screen's own status (Hostile's recovered read, Heavy's bridge timeout) must not take the phone's height.
    for (const name of SCREENS) {
      await postAdmin(demo, 'screen', { screen: name });
      await expect(page.locator('[data-testid="tree-node"]', { hasText: `screen.${name}` }).first(), `the tree of ${name}`).toBeVisible({ timeout: 60_000 });
      const fit = (await screen.boundingBox())!;
      widths.push(`${name} ${Math.round(fit.width)}`);
      expect(fit.width, `the phone at Fit on ${name}`).toBeGreaterThanOrEqual(size.phone);
      // The whole picture is in the window, above the timeline, and every point of it is the screen itself.
      const panel = (await timeline.boundingBox())!;
      expect(fit.y + fit.height, name).toBeLessThanOrEqual(panel.y + 0.5);
      expect(fit.x + fit.width, name).toBeLessThanOrEqual(size.width);
      expect(await hitsInside(page, fit, '[data-testid="screen"]'), name).toEqual([]);
      // The view's column (controls, legend, frame status) lies beside it, never over it.
      const side = (await page.getByTestId('stage-side').boundingBox())!;
      expect(overlap(fit, side), name).toBe(false);
      expect(overlap(fit, (await page.getByTestId('source-legend').boundingBox())!), name).toBe(false);
    }
    await testInfo.attach('phone-width', { body: `${size.width}x${size.height}: phone px wide at Fit (limit ${size.phone}): ${widths.join(', ')}` });
    console.log(`R-LAYOUT-01 ${size.width}x${size.height}: phone px wide at Fit (limit ${size.phone}): ${widths.join(', ')}`);
    await postAdmin(demo, 'screen', { screen: 'login' });
    await expect(page.locator('[data-testid="tree-node"]', { hasText: 'screen.login' }).first()).toBeVisible({ timeout: 30_000 });

    // Zoomed in, the legend is still whole and still the legend where it is drawn.
    await page.getByTestId('zoom-2x').click();
    await expect(page.getByTestId('zoom-level')).toHaveText('200%');
    const legend = (await page.getByTestId('source-legend').boundingBox())!;
    expect(await hitsInside(page, legend, '[data-testid="source-legend"]')).toEqual([]);
    expect(overlap(legend, (await page.locator('.screen-viewport').boundingBox())!)).toBe(false);
  });

  test(`R-LAYOUT-02: at ${size.width}x${size.height} 1:1, 2x and + zoom with the selection in the middle of the view`, async ({ page }) => {
    await look(page, size);
    await select(page, 'login.username');
    const viewport = (await page.locator('.screen-viewport').boundingBox())!;
    const middle = { x: viewport.x + viewport.width / 2, y: viewport.y + viewport.height / 2 };
    const selected = page.locator('[data-testid="box"].is-selected');
    const centreOfSelection = async () => {
      const b = (await selected.boundingBox())!;
      return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
    };
    const before = await centreOfSelection();
    // At Fit the username field is well above the middle: the test would pass without centring otherwise.
    expect(Math.abs(before.y - middle.y)).toBeGreaterThan(20);
    for (const id of ['zoom-2x', 'zoom-1x', 'zoom-in'] as const) {
      await page.getByTestId('zoom-fit').click();
      await page.getByTestId(id).click();
      await expect.poll(async () => Math.round(Math.abs((await centreOfSelection()).x - middle.x)), { message: id }).toBeLessThanOrEqual(2);
      await expect.poll(async () => Math.round(Math.abs((await centreOfSelection()).y - middle.y)), { message: id }).toBeLessThanOrEqual(2);
    }
  });

  test(`R-LAYOUT-04: at ${size.width}x${size.height} every timeline column and heading reads whole, and a picked field is named as its row is`, async ({
    page,
  }) => {
    await start(page, size);
    await page.getByTestId('mode-toggle').click();
    const at = await boxCentre(page, 'login.username');
    await page.mouse.click(at.x, at.y);
    const step = page.getByTestId('timeline-step').first();
    await expect(step).toHaveAttribute('data-outcome', 'done', { timeout: 20_000 });
    await expect(step.locator('.step-selector')).toHaveText(/^picked TextField ".+" · login\.username$/);
    const cut = await page.evaluate(() => {
      const panel = document.querySelector('[data-testid="timeline"]')!.getBoundingClientRect();
      const cells = [
        ...document.querySelectorAll<HTMLElement>('.timeline-columns > *'),
        ...document.querySelectorAll<HTMLElement>('[data-testid="timeline-step"]:first-of-type > *'),
      ].filter((el) => el.getClientRects().length > 0);
      const bad: string[] = [];
      const rects = cells.map((el) => ({ el, r: el.getBoundingClientRect() }));
      for (const { el, r } of rects) {
        const name = `${el.className || el.tagName} "${(el.textContent ?? '').trim().slice(0, 30)}"`;
        if (r.left < panel.left - 0.5 || r.right > panel.right + 0.5) bad.push(`${name} outside the panel`);
        // A heading is never cut: its text fits its cell.
        if (el.closest('.timeline-columns') && el.scrollWidth > el.clientWidth + 1) bad.push(`${name} cut`);
      }
      // No two cells of the step lie over each other.
      const own = rects.filter(({ el }) => el.closest('[data-testid="timeline-step"]'));
      for (const [i, a] of own.entries())
        for (const b of own.slice(i + 1)) {
          const o = a.r.left < b.r.right - 1 && b.r.left < a.r.right - 1 && a.r.top < b.r.bottom - 1 && b.r.top < a.r.bottom - 1;
          if (o) bad.push(`${a.el.className} over ${b.el.className}`);
        }
      return { bad, count: cells.length };
    });
    expect(cut.count).toBeGreaterThan(8);
    expect(cut.bad).toEqual([]);
  });
}

test('R-LAYOUT-03: the timeline keeps its height, and being collapsed, across a reload', async ({ page }) => {
  await start(page, SIZES[1]);
  const timeline = page.getByTestId('timeline');
  const height0 = (await timeline.boundingBox())!.height;
  const handle = (await page.getByRole('separator', { name: 'Resize the timeline' }).boundingBox())!;
  await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2);
  await page.mouse.down();
  await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2 - 90, { steps: 6 });
  await page.mouse.up();
  const height1 = (await timeline.boundingBox())!.height;
  expect(height1).toBeGreaterThan(height0 + 60);

  await page.reload();
  await expect(page.getByTestId('screen-image')).toBeVisible();
  await expect.poll(async () => Math.round((await timeline.boundingBox())!.height)).toBe(Math.round(height1));

  await page.locator('.timeline-collapse').click();
  await expect(timeline).toHaveClass(/collapsed/);
  await page.reload();
  await expect(page.getByTestId('screen-image')).toBeVisible();
  await expect(timeline).toHaveClass(/collapsed/);
  await page.locator('.timeline-collapse').click();
  await expect.poll(async () => Math.round((await timeline.boundingBox())!.height)).toBe(Math.round(height1));
});

test('R-LAYOUT-05: the selection follows its element when its place in the tree moves, and clears with a note when it leaves', async ({ page }) => {
  const demo = await start(page, SIZES[1]);
  const attributes = page.getByTestId('attributes');
  const hint = page.locator('[data-testid="tree-node"]').filter({ hasText: 'Tap the tabs below' });
  await hint.click();
  await expect(page.locator('[data-testid="attr-ios-row"][data-name="label"]')).toContainText('Tap the tabs below');
  const keyBefore = (await attributes.getAttribute('data-node-key'))!;

  // The passkey button above it goes (a designer's change): every later key moves up one.
  await setVariants(demo, ['removed-row']);
  await expect(page.locator('[data-testid="tree-node"]').filter({ hasText: 'login.passkey' })).toHaveCount(0, { timeout: 20_000 });
  await expect.poll(async () => attributes.getAttribute('data-node-key')).not.toBe(keyBefore);
  await expect(page.locator('[data-testid="attr-ios-row"][data-name="label"]')).toContainText('Tap the tabs below');
  await expect(page.getByTestId('selection-note')).toHaveCount(0);

  // Hostile's "Notify me" (the variant removed it: back to the app as built), then the device moves to Edges:
  // not a label of Edges under the same key, but nothing, said.
  await setVariants(demo, []);
  await postAdmin(demo, 'screen', { screen: 'hostile' });
  await expect(page.locator('[data-testid="tree-node"]').filter({ hasText: 'screen.hostile' })).toHaveCount(1, { timeout: 40_000 });
  await page.getByRole('treeitem', { name: /StaticText "Notify me"$/ }).click();
  await expect(page.locator('[data-testid="attr-ios-row"][data-name="label"]')).toContainText('Notify me');
  await postAdmin(demo, 'screen', { screen: 'edges' });
  await expect(page.getByTestId('selection-note')).toContainText('"Notify me" is not on this screen', { timeout: 40_000 });
  await expect(attributes).toHaveAttribute('data-node-key', '');
});

test("R-LAYOUT-06: at 1280x720 a reopened trace shows its step's before and after frames whole in the window, each filmstrip caption inside its step", async ({
  page,
}) => {
  await start(page, SIZES[0]);
  const record = page.getByTestId('record-button');
  await record.click();
  await expect(record).toHaveAttribute('data-recording', 'true');
  await page.getByTestId('mode-toggle').click();
  const username = await boxCentre(page, 'login.username');
  await page.mouse.click(username.x, username.y);
  await expect(page.getByTestId('record-status')).toHaveAttribute('data-steps', '1', { timeout: STEP_RECORDED_MS });
  const tracePath = await stopRecording(page);

  await page.getByTestId('open-trace').setInputFiles(tracePath);
  await expect(page.getByTestId('trace-view')).toBeVisible();
  const widths: string[] = [];
  for (const side of ['trace-before', 'trace-after'] as const) {
    const image = page.getByTestId(side).getByTestId('screen-image');
    await expect(image).toBeVisible();
    const b = (await image.boundingBox())!;
    expect(b.y + b.height, `${side} ends in the window`).toBeLessThanOrEqual(SIZES[0].height);
    expect(b.x + b.width, `${side} ends in the window`).toBeLessThanOrEqual(SIZES[0].width);
    widths.push(`${side} ${Math.round(b.width)}`);
    // As large as the live view's phone there (R-LAYOUT-01): it was 92 px wide under the step's facts.
    expect(b.width, `${side} at least as wide as the live phone`).toBeGreaterThanOrEqual(SIZES[0].phone);
    // Every point of the picture is the picture: nothing lies over it.
    expect(await hitsInside(page, b, `[data-testid="${side}"] .screen-viewport`), side).toEqual([]);
  }
  console.log(`R-LAYOUT-06 1280x720: trace frames px wide (limit ${SIZES[0].phone}): ${widths.join(', ')}`);
  // The step's result is in the window beside them, not pushed under them.
  const facts = (await page.getByTestId('trace-result').boundingBox())!;
  expect(facts.y, 'the step\u2019s result starts in the window').toBeLessThan(SIZES[0].height / 2);
  const step = page.getByTestId('trace-filmstrip').getByTestId('trace-step').first();
  const caption = (await step.locator('.trace-step-caption').boundingBox())!;
  const own = (await step.boundingBox())!;
  expect(caption.x).toBeGreaterThanOrEqual(own.x);
  expect(caption.x + caption.width).toBeLessThanOrEqual(own.x + own.width);
});

test('R-LAYOUT-07: the selection is drawn with a light and a dark ring, so it shows on the blue Sign In button and on a white field alike', async ({
  page,
}) => {
  await start(page, SIZES[1]);
  for (const id of ['login.submit', 'login.username']) {
    await select(page, id);
    await page.mouse.move(5, 5);
    const box = (await page.locator('[data-testid="box"].is-selected').boundingBox())!;
    // A strip across the box's left edge, at its middle: the pixels just outside it are the rings.
    const y = Math.round(box.y + box.height / 2);
    const x = Math.round(box.x);
    const png = PNG.sync.read(await page.screenshot({ clip: { x: x - 6, y, width: 12, height: 1 } }));
    const lum: number[] = [];
    for (let i = 0; i < png.width; i++) {
      const [r, g, b] = [png.data[i * 4]!, png.data[i * 4 + 1]!, png.data[i * 4 + 2]!];
      lum.push(Math.round(0.2126 * r + 0.7152 * g + 0.0722 * b));
    }
    console.log(`R-LAYOUT-07 ${id}: luminance across the left edge, outside in: ${lum.join(' ')}`);
    // Outside the box's edge, a dark ring and then, towards the box, a white one (the page around is 242, not white):
    // whatever colour the element is, one of the two stands out against it.
    const outside = lum.slice(0, 6);
    const dark = outside.findIndex((l) => l < 60);
    expect(dark, `${id}: a dark ring`).toBeGreaterThanOrEqual(0);
    expect(Math.max(...outside.slice(dark + 1)), `${id}: a white ring inside the dark one`).toBeGreaterThan(250);
  }
});
