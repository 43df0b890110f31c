/**
 * Recorded assertions on an AppReveal app from the web host's UI (docs/rules.md#r-asrt-01 … #r-asrt-03,
 * issue 27), in Chromium over the demo app's own AppReveal server: while recording, the selected Sign In
 * button's "text =" and "visible" are steps checked on AppReveal's read (backend appreveal, nothing sent
 * to the app), exported as Maestro assertVisible, matched on a replay through AppReveal, and once the
 * designer renamed Sign In to Log In the text assertion diverges naming both values.
 */
import { readFile } from 'node:fs/promises';
import { expect, type Page } from '@playwright/test';
import { boxCentre, hostDemoAppReveal, sharedDemoDevice, stopAfterEach, stopRecording, test } from './harness';

const running = stopAfterEach();
/** The worker's demo device, its app relaunched on Sign In with no variants (the test renames a label); the test's own web host. */
const demoDevice = sharedDemoDevice();

async function download(page: Page, testId: string): Promise<string> {
  const next = page.waitForEvent('download');
  await page.getByTestId(testId).click();
  return readFile((await (await next).path())!, 'utf8');
}

test('R-ASRT-01, R-ASRT-02, R-ASRT-03 on AppReveal: assertions recorded on the selected element are checked on the app’s own read, exported, replayed, and a renamed label diverges naming both values', async ({
  page,
}) => {
  test.setTimeout(300_000);
  const urls = await demoDevice({ screen: 'login' });
  await hostDemoAppReveal(page, running, urls);
  const point = await boxCentre(page, 'login.submit');
  await page.mouse.click(point.x, point.y);
  // AppReveal's attributes panel has no iOS rows: the selection shows in the assert controls once recording.

  const record = page.getByTestId('record-button');
  await record.click();
  await expect(record).toHaveAttribute('data-recording', 'true');
  const controls = page.getByTestId('assert-controls');
  const status = page.getByTestId('record-status');
  await expect(controls.getByTestId('assert-text')).toHaveText('text = "Sign In"');
  await controls.getByTestId('assert-text').click();
  await expect(status).toHaveAttribute('data-steps', '1', { timeout: 45_000 });
  await controls.getByTestId('assert-visible').click();
  await expect(status).toHaveAttribute('data-steps', '2', { timeout: 45_000 });
  const rows = page.getByTestId('timeline-step');
  await expect(rows).toHaveCount(2);
  for (const row of await rows.all()) {
    await expect(row).toHaveAttribute('data-action', 'assert');
    await expect(row).toHaveAttribute('data-backend', 'appreveal');
    await expect(row).toHaveAttribute('data-success', 'true');
  }
  const tracePath = await stopRecording(page);

  await page.getByTestId('open-trace').setInputFiles(tracePath);
  const steps = page.getByTestId('trace-filmstrip').getByTestId('trace-step');
  await expect(steps).toHaveCount(2);
  const yaml = await download(page, 'export-maestro');
  expect(yaml).toContain("- assertVisible:\n    id: 'login\\.submit'\n    text: 'Sign In'\n");

  const summary = page.getByTestId('replay-summary');
  const badges = steps.getByTestId('replay-badge');
  await page.getByTestId('replay-on-divergence').selectOption('continue');
  await page.getByTestId('replay-start').click();
  await expect(summary).toHaveText(/^2 of 2 replayed: 2 matched, 0 diverged, 0 failed/, { timeout: 30_000 });

  const variants = await fetch(`${urls.adminUrl}/variants`, { method: 'POST', body: JSON.stringify({ variants: ['renamed-label'] }) });
  expect(variants.status).toBe(200);
  await page.getByTestId('replay-start').click();
  await expect(summary).toHaveText(/^2 of 2 replayed: 1 matched \(1 with changes\), 1 diverged, 0 failed/, { timeout: 30_000 });
  await expect(badges.nth(0)).toHaveAttribute('data-verdict', 'diverged');
  await expect(badges.nth(1)).toHaveAttribute('data-verdict', 'matched');
  await steps.nth(0).click();
  await expect(page.getByTestId('replay-verdict').getByTestId('replay-differences')).toContainText(
    'the assertion does not hold: expected login.submit with label "Sign In", found "Log In"',
  );
});
