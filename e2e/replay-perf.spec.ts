/**
 * Replay's per-step performance in the trace view, in Chromium against the web host on the demo iPhone
 * (docs/rules.md#r-perfstep-05): a tap on Sign In recorded with the device idle keeps its perf window;
 * replayed with `perf-memory-growth` on (the demo retains 16 MiB a push, real memory of its process),
 * the step shows its recorded and replayed figures side by side and is flagged on the replayed side,
 * against the threshold the view sets (one value for the step's window and the replay's figures).
 */
import { expect, type Page } from '@playwright/test';
import { boxCentre, openDevice, postAdmin, startDemo, stopAfterEach, stopRecording, test } from './harness';

const running = stopAfterEach();

const samples = async (page: Page) => Number(await page.getByTestId('perf-strip').getAttribute('data-samples'));

/** The replayed and recorded cells of one figure's row, as numbers (NaN for "—"). */
async function figure(page: Page, name: string): Promise<{ recorded: number; replayed: number }> {
  const row = page.getByTestId('replay-perf').locator(`[data-testid="replay-perf-row"][data-figure="${name}"]`);
  return {
    recorded: Number(await row.locator('[data-side="recorded"]').textContent()),
    replayed: Number(await row.locator('[data-side="replayed"]').textContent()),
  };
}

test('R-PERFSTEP-05: a tap replayed while memory grows shows recorded vs replayed figures and is flagged on the replayed side', async ({ page }) => {
  test.setTimeout(150_000);
  const urls = await startDemo(running, ['--screen', 'login']);
  await openDevice(page, running, urls.runnerUrl);
  await expect.poll(() => samples(page), { timeout: 20_000 }).toBeGreaterThanOrEqual(2);

  // Recorded on the idle device, through Interact mode; the after window closes with its pushes.
  await page.getByTestId('mode-toggle').click();
  await expect(page.getByTestId('mode-toggle')).toHaveAttribute('data-mode', 'interact');
  const submit = await boxCentre(page, 'login.submit');
  await page.getByTestId('record-button').click();
  await expect(page.getByTestId('record-button')).toHaveAttribute('data-recording', 'true');
  // The step's before window holds the pushes the recording has seen: two of them first, so the recorded
  // side has a growth figure (tapped at once, on a busy machine it had none: "0 pushes in 5 s").
  const atStart = await samples(page);
  await expect.poll(() => samples(page), { timeout: 20_000 }).toBeGreaterThanOrEqual(atStart + 2);
  await page.mouse.click(submit.x, submit.y);
  await expect(page.getByTestId('record-status')).toHaveAttribute('data-steps', '1');
  const afterTap = await samples(page);
  await expect.poll(() => samples(page), { timeout: 20_000 }).toBeGreaterThanOrEqual(afterTap + 4);
  const tracePath = await stopRecording(page);

  await postAdmin(urls, 'screen', { screen: 'login' });
  await postAdmin(urls, 'faults', { faults: ['perf-memory-growth'] });
  await page.getByTestId('open-trace').setInputFiles(tracePath);
  await expect(page.getByTestId('trace-filmstrip').getByTestId('trace-step')).toHaveCount(1);
  // The recorded window, as the trace kept it.
  await expect(page.getByTestId('step-perf')).toBeVisible();
  await expect(page.getByTestId('replay-perf')).toHaveCount(0);

  await page.getByTestId('replay-start').click();
  // Reported, not judged: the figures are shown whatever the verdict (a crowded machine can time the bridge out).
  await expect(page.getByTestId('replay-summary')).toHaveText(/^1 of 1 replayed: /, { timeout: 60_000 });
  const perf = page.getByTestId('replay-perf');
  await expect(perf).toBeVisible();
  const growth = await figure(page, 'memory growth (MB)');
  const after = await figure(page, 'memory after (MB)');
  expect(Number.isFinite(growth.recorded) && Number.isFinite(after.recorded) && Number.isFinite(after.replayed)).toBe(true);
  // 16 MiB retained at each push after the tap: how many pushes the step's window holds depends on the
  // machine's pace, so the replayed growth is at least most of one push, and the flag agrees with the
  // figure against the default 20 MB whatever it is.
  expect(growth.replayed - growth.recorded).toBeGreaterThan(8);
  await expect(perf).toHaveAttribute('data-flagged-replayed', String(growth.replayed > 20));
  // A threshold between the two sides flags the replayed side alone, and says so.
  const between = Math.floor((growth.recorded + growth.replayed) / 2);
  await page.getByLabel('memory growth threshold (MB)').fill(String(between));
  await expect(perf).toHaveAttribute('data-flagged-replayed', 'true');
  await expect(perf).toHaveAttribute('data-flagged-recorded', 'false');
  await expect(perf.getByTestId('replay-perf-flag')).toContainText(new RegExp(`^Memory grew over ${between} MB when replayed`));
  // The step's one threshold re-judges both: above the replayed growth, nothing is flagged.
  await page.getByLabel('memory growth threshold (MB)').fill(String(Math.ceil(Math.max(growth.replayed, growth.recorded)) + 1));
  await expect(perf).toHaveAttribute('data-flagged-replayed', 'false');
  await expect(perf).toHaveAttribute('data-flagged-recorded', 'false');
  await expect(perf.getByTestId('replay-perf-flag')).toHaveCount(0);
});
