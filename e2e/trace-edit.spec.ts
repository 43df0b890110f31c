/**
 * Editing a trace in the trace view (docs/rules.md#r-edit), in Chromium against the web host over the
 * demo iPhone: three taps recorded, the trace opened, a step named, an assertion inserted and a step
 * deleted, saved as an edited copy that opens with its edits and replays matched; a single step run on
 * the device; a run from a step, whose steps alone get verdicts, counted by the demo's own stats; a step
 * moved earlier, saved and exported in its new order; an assertion that does not hold on the recorded
 * screen refused with what it shows. Each step's tap point is drawn on its before frame.
 */
import { readFile } from 'node:fs/promises';
import { expect, type Page } from '@playwright/test';
import { demoStats, hostDemoInteractive, postAdmin, recordTaps, sharedDemoDevice, stopAfterEach, type DemoUrls, test } from './harness';

const running = stopAfterEach();
/**
 * One demo device for the file, booted by the first test; before each later test its app is relaunched on
 * Sign In through the admin reset (faults off, no variants, request counts from zero), which undoes where
 * the previous test's replay left it (Checkout). The recording, the opened trace, its pending edits and
 * the saved copies belong to the test's own web host and page (new each test), or to files it names.
 */
const demoDevice = sharedDemoDevice();

/** The shared demo iPhone on Sign In, taps on these ids recorded, and the trace opened in the trace view. */
async function openRecordedTrace(page: Page, ids: string[]): Promise<{ urls: DemoUrls; tracePath: string }> {
  const urls = await demoDevice({ screen: 'login' });
  expect((await demoStats(urls)).screen).toBe('login');
  await hostDemoInteractive(page, running, urls);
  const tracePath = await recordTaps(page, ids);
  await page.getByTestId('open-trace').setInputFiles(tracePath);
  await expect(page.getByTestId('trace-filmstrip').getByTestId('trace-step')).toHaveCount(ids.length);
  return { urls, tracePath };
}

test('edit and save: a named step, an inserted assertion and a deleted step make an edited copy that opens with its edits and replays matched', async ({
  page,
}) => {
  test.setTimeout(150_000);
  const { urls } = await openRecordedTrace(page, ['login.submit', 'login.username', 'tab.checkout']);
  const steps = page.getByTestId('trace-filmstrip').getByTestId('trace-step');
  // R-EDIT-08: the tap point on the before frame.
  await expect(page.getByTestId('trace-before').getByTestId('gesture-mark')).toHaveAttribute('data-kind', 'tap');

  const editor = page.getByTestId('trace-editor');
  await editor.getByTestId('edit-label').fill('Submit empty');
  await editor.getByTestId('edit-rename').click();
  await steps.nth(1).click();
  await editor.getByTestId('edit-delete').click();
  await steps.nth(2).click();
  await editor.getByTestId('edit-assert-what').fill('login.submit');
  await editor.getByTestId('edit-assert-check').selectOption('notVisible');
  await editor.getByTestId('edit-insert-assert').click();
  await expect(editor.getByTestId('edit-pending-item')).toHaveText([
    /name step 1 “Submit empty”/,
    /delete step 2/,
    /assert id login\.submit not visible after step 3/,
  ]);
  await editor.getByTestId('edit-save').click();

  await expect(page.getByTestId('trace-edited')).toContainText('edited copy of');
  await expect(page.getByTestId('trace-manifest')).toContainText('-edited.parallax-trace');
  await expect(steps).toHaveCount(3);
  await expect(steps.nth(0)).toContainText('1. Submit empty');
  await expect(steps.nth(2)).toContainText('assert');

  await postAdmin(urls, 'screen', { screen: 'login' });
  await page.getByTestId('replay-start').click();
  await expect(page.getByTestId('replay-summary')).toHaveText(/^3 of 3 replayed: 3 matched( \(1 with changes\))?, 0 diverged, 0 failed/, { timeout: 30_000 });
});

test('Run this step replays the selected step alone on the device', async ({ page }) => {
  test.setTimeout(150_000);
  const { urls } = await openRecordedTrace(page, ['login.submit', 'tab.checkout']);
  await postAdmin(urls, 'screen', { screen: 'login' });
  await page.getByTestId('trace-editor').getByTestId('edit-run-step').click();
  await expect(page.getByTestId('replay-summary')).toHaveText(/^1 of 1 replayed: 1 matched( \(1 with changes\))?, 0 diverged, 0 failed/, { timeout: 30_000 });
  await expect(page.getByTestId('trace-filmstrip').getByTestId('trace-step').nth(0).getByTestId('replay-badge')).toHaveAttribute('data-verdict', 'matched');
});

test('an assertion that does not hold on the recorded screen is refused with what the screen shows, and nothing is saved', async ({ page }) => {
  test.setTimeout(150_000);
  await openRecordedTrace(page, ['login.submit', 'tab.checkout']);
  const editor = page.getByTestId('trace-editor');
  await editor.getByTestId('edit-assert-what').fill('login.submit');
  await editor.getByTestId('edit-assert-check').selectOption('textEquals');
  await editor.getByTestId('edit-assert-expected').fill('Log In');
  await editor.getByTestId('edit-insert-assert').click();
  await editor.getByTestId('edit-save').click();
  await expect(editor.getByTestId('edit-error')).toContainText(
    'the assertion does not hold on the recorded screen: expected login.submit with label "Log In", found "Sign In"',
  );
  await expect(page.getByTestId('trace-edited')).toHaveCount(0);
});

/**
 * The commands the demo device received that act on the app (a tap is a coordinate tap or an SDK
 * action, whichever the host chose): every request but the reads.
 */
async function actionsReceived(urls: DemoUrls): Promise<number> {
  const stats = await demoStats(urls);
  const reads = /^(request_hierarchy|request_screenshot|request_sdk_observation|request_sdk_web_snapshot|get_sdk_capabilities)/;
  return Object.entries(stats.requests)
    .filter(([command]) => !reads.test(command))
    .reduce((sum, [, n]) => sum + n, 0);
}

test('R-EDIT-07, R-EDIT-02: Run from here replays the selected step and the ones after it on the device; Move earlier saves a copy in the new order, exported in that order', async ({
  page,
}) => {
  test.setTimeout(200_000);
  const { urls } = await openRecordedTrace(page, ['login.submit', 'login.username', 'tab.checkout']);
  const steps = page.getByTestId('trace-filmstrip').getByTestId('trace-step');
  const editor = page.getByTestId('trace-editor');

  // Run from step 2 on Sign In: two taps (and nothing else) reach the device, step 1 is not replayed, the app ends on Checkout.
  await postAdmin(urls, 'screen', { screen: 'login' });
  const actionsBefore = await actionsReceived(urls);
  await steps.nth(1).click();
  await editor.getByTestId('edit-run-from').click();
  await expect(page.getByTestId('replay-summary')).toHaveText(/^2 of 2 replayed: 2 matched( \(\d with changes\))?, 0 diverged, 0 failed/, { timeout: 30_000 });
  await expect(steps.nth(0).getByTestId('replay-badge')).toHaveCount(0);
  await expect(steps.nth(1).getByTestId('replay-badge')).toHaveAttribute('data-verdict', 'matched');
  await expect(steps.nth(2).getByTestId('replay-badge')).toHaveAttribute('data-verdict', 'matched');
  expect(await actionsReceived(urls)).toBe(actionsBefore + 2);
  expect((await demoStats(urls)).screen).toBe('checkout');

  // Move step 2 (the username tap) earlier: the saved copy has it first, the recording keeps its order.
  await editor.getByTestId('edit-move-up').click();
  await expect(editor.getByTestId('edit-pending-item')).toHaveText([/move step 2 to place 1/]);
  await editor.getByTestId('edit-save').click();
  await expect(page.getByTestId('trace-edited')).toContainText('edited copy of');
  await expect(steps).toHaveCount(3);
  await expect(steps.nth(0)).toHaveAttribute('title', /login\.username/);
  await expect(steps.nth(1)).toHaveAttribute('title', /login\.submit/);
  await expect(steps.nth(2)).toHaveAttribute('title', /tab\.checkout/);
  const download = page.waitForEvent('download');
  await page.getByTestId('export-maestro').click();
  const yaml = await readFile((await (await download).path())!, 'utf8');
  const ids = [...yaml.matchAll(/^ {4}id: '([^']+)'$/gm)].map((m) => m[1]);
  expect(ids).toEqual(['login\\.username', 'login\\.submit', 'tab\\.checkout']);
});
