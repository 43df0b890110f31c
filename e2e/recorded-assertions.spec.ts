/**
 * Recorded assertions from the web host's UI (docs/rules.md#r-asrt-01 … #r-asrt-03, issue 27), in
 * Chromium over the demo iPhone: while recording, the selected Sign In button offers "text =" and
 * "visible", the try box's one match "visible"; each is a trace step, exported as Maestro assertVisible (with text:) and XCUITest XCTAssert
 * lines, holds on a replay of the same app, and, once the demo's designer renamed Sign In to Log In,
 * the text assertion diverges naming both values while "visible" (found by its id) still matches.
 */
import { readFile } from 'node:fs/promises';
import { expect, type Page } from '@playwright/test';
import { boxCentre, openDevice, stopAfterEach, stopRecording, test, sharedDemoDevice } from './harness';

const running = stopAfterEach();
/** The worker's demo device, its app relaunched on Sign In; the test's own web host. */
const demoDevice = sharedDemoDevice();

/** Selects the node with this id by clicking its box in Inspect mode (nothing is sent to the device). */
async function select(page: Page, id: string): Promise<void> {
  const point = await boxCentre(page, id);
  await page.mouse.click(point.x, point.y);
  await expect(page.locator('[data-testid="attr-ios-row"][data-name="identifier"]')).toContainText(id);
}

async function download(page: Page, testId: string): Promise<string> {
  const next = page.waitForEvent('download');
  await page.getByTestId(testId).click();
  return readFile((await (await next).path())!, 'utf8');
}

test('R-ASRT-01, R-ASRT-02, R-ASRT-03: assertions recorded on the selected element are steps, exported as assertVisible and XCTAssert, and a renamed label diverges naming both values', async ({
  page,
}) => {
  test.setTimeout(300_000);
  const urls = await demoDevice({ screen: 'login' });
  await openDevice(page, running, urls.runnerUrl);
  // Not recording: there is nothing to assert into.
  await select(page, 'login.submit');
  await expect(page.getByTestId('assert-controls')).toHaveCount(0);

  const record = page.getByTestId('record-button');
  await record.click();
  await expect(record).toHaveAttribute('data-recording', 'true');
  const controls = page.getByTestId('assert-controls');
  await expect(controls).toHaveAttribute('data-source', 'selected');
  const status = page.getByTestId('record-status');
  await expect(controls.getByTestId('assert-text')).toHaveText('text = "Sign In"');
  await controls.getByTestId('assert-text').click();
  await expect(status).toHaveAttribute('data-steps', '1', { timeout: 45_000 });
  await controls.getByTestId('assert-visible').click();
  await expect(status).toHaveAttribute('data-steps', '2', { timeout: 45_000 });
  // The try box's one match takes the selected element's place.
  await page.getByTestId('selector-try-input').fill('~login.username');
  await expect(page.getByTestId('selector-try-result')).toHaveAttribute('data-count', '1');
  await expect(controls).toHaveAttribute('data-source', 'try');
  await controls.getByTestId('assert-visible').click();
  await expect(status).toHaveAttribute('data-steps', '3', { timeout: 45_000 });
  const tracePath = await stopRecording(page);

  await page.getByTestId('open-trace').setInputFiles(tracePath);
  const steps = page.getByTestId('trace-filmstrip').getByTestId('trace-step');
  await expect(steps).toHaveCount(3);
  for (const step of await steps.all()) await expect(step).toHaveAttribute('data-success', 'true');

  // R-ASRT-02: the exports check what was asserted, by the selector a tap would use.
  const yaml = await download(page, 'export-maestro');
  expect(yaml).toContain("- assertVisible:\n    id: 'login\\.submit'\n    text: 'Sign In'\n");
  expect(yaml).toMatch(/- assertVisible:\n {4}id: 'login\\\.submit'\n(?! {4}text:)/);
  expect(yaml).toContain("- assertVisible:\n    id: 'login\\.username'");
  const swift = await download(page, 'export-maestro-xcuitest');
  expect(swift).toContain('XCTAssertEqual(app.buttons["login.submit"].label, "Sign In")');
  expect(swift).toContain('XCTAssertTrue(app.buttons["login.submit"].waitForExistence(timeout: 5))');

  // R-ASRT-03: on the same app both hold.
  const summary = page.getByTestId('replay-summary');
  const badges = steps.getByTestId('replay-badge');
  await page.getByTestId('replay-on-divergence').selectOption('continue');
  await page.getByTestId('replay-start').click();
  await expect(summary).toHaveText(/^3 of 3 replayed: 3 matched, 0 diverged, 0 failed/, { timeout: 30_000 });

  // Sign In renamed Log In: the text assertion diverges and says both values; the id still finds the button.
  const variants = await fetch(`${urls.adminUrl}/variants`, { method: 'POST', body: JSON.stringify({ variants: ['renamed-label'] }) });
  expect(variants.status).toBe(200);
  await page.getByTestId('replay-start').click();
  // The rename is named where it was first met (R-RPL-10), and "visible" is matched with it.
  await expect(summary).toHaveText(
    /^3 of 3 replayed: 2 matched \(1 with changes\), 1 diverged, 0 failed; changes: step 1: target renamed: "Sign In" → "Log In"/,
    {
      timeout: 30_000,
    },
  );
  await expect(badges.nth(0)).toHaveAttribute('data-verdict', 'diverged');
  await expect(badges.nth(1)).toHaveAttribute('data-verdict', 'matched');
  await expect(badges.nth(1)).toHaveAttribute('data-changes', '1');
  await expect(badges.nth(2)).toHaveAttribute('data-verdict', 'matched');
  await steps.nth(0).click();
  await expect(page.getByTestId('replay-verdict').getByTestId('replay-differences')).toContainText(
    'the assertion does not hold: expected login.submit with label "Sign In", found "Log In"',
  );
});
