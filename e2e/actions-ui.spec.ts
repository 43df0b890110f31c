/**
 * Acting from the UI and recording, end to end against the demo iPhone that
 * `parallax serve` starts: Interact mode turns clicks into taps and double taps, the type box types into
 * the focused field, and every action lands on the timeline with its backend, fallback or fail-closed
 * reason (in plain language), time per stage and before / after frames. Record → actions → Stop writes
 * a .parallax-trace file.
 */
import { expect, type Page } from '@playwright/test';
import { FAILURE_EXPLANATIONS } from '@shared/protocol/action';
import { stopProcess, urlIn, boxCentre, postAdmin, stopAfterEach, serveDevice, sharedDemoDevice, STEP_RECORDED_MS, test } from './harness';

const running = stopAfterEach();
/** One demo device for the file: started by the first test, its app relaunched (faults off, counts from zero) before each later one; each test has its own web host. */
const demoDevice = sharedDemoDevice();

/** The current tree holds a node showing `text` (found through the search box, which reads text and values). */
async function expectShown(page: Page, text: string): Promise<void> {
  await page.getByTestId('search-input').fill(text);
  await expect(page.locator('[data-testid="tree-node"][data-match="true"]').first()).toBeVisible();
  await page.getByTestId('search-input').fill('');
  await page.getByTestId('search-input').blur();
}

test('interact: tap, double tap, type and a fail-closed tap on the timeline; record two actions into a trace', async ({ page }, testInfo) => {
  // Seven actions, each a step once it and the read after it are done (over 10 s each on the busy machine): a wide margin.
  test.setTimeout(240_000);
  const urls = await demoDevice({ screen: 'login' });
  const host = await serveDevice(running, urls.runnerUrl);
  await page.goto(urlIn(host.line));
  await expect(page.getByTestId('device-item')).toHaveAttribute('data-state', 'connected');
  await expect(page.getByTestId('screen-image')).toBeVisible();

  // Inspect mode picks, as before; key I switches to interact mode (and back), so does the toggle.
  const toggle = page.getByTestId('mode-toggle');
  await expect(toggle).toHaveAttribute('data-mode', 'inspect');
  await page.getByTestId('search-input').blur();
  await page.keyboard.press('i');
  await expect(toggle).toHaveAttribute('data-mode', 'interact');
  await toggle.click();
  await expect(toggle).toHaveAttribute('data-mode', 'inspect');
  await toggle.click();
  await expect(toggle).toHaveAttribute('data-mode', 'interact');
  const signIn = await boxCentre(page, 'login.submit');
  const username = await boxCentre(page, 'login.username');

  // A click on Sign In taps it through the SDK bridge; the screen shows what the app did.
  const steps = page.getByTestId('timeline-step');
  await page.mouse.click(signIn.x, signIn.y);
  await expect(steps).toHaveCount(1, { timeout: STEP_RECORDED_MS });
  const tap = steps.first();
  await expect(tap).toHaveAttribute('data-success', 'true');
  await expect(tap).toHaveAttribute('data-backend', 'sdk');
  await expect(tap).toHaveAttribute('data-action', 'tap');
  await expect(tap.getByTestId('step-thumb-after')).toBeVisible();
  await expect(tap.getByTestId('step-thumb-before')).toBeVisible();
  await expect(tap.getByTestId('step-target')).toContainText('picked node');
  await expectShown(page, 'Enter a username and a password.');

  // A double click double-taps: the bridge has no double tap, so XCTest stands in and says why.
  await page.mouse.dblclick(signIn.x, signIn.y);
  await expect(steps).toHaveCount(2, { timeout: STEP_RECORDED_MS });
  const doubleTap = steps.first();
  await expect(doubleTap).toHaveAttribute('data-action', 'doubleTap');
  await expect(doubleTap).toHaveAttribute('data-backend', 'xctest');
  await expect(doubleTap).toHaveAttribute('data-fallback', 'unsupported');
  await expect(doubleTap).toHaveAttribute('data-success', 'true');

  // Tap the username field, then type into it through the type box.
  await page.mouse.click(username.x, username.y);
  await expect(steps).toHaveCount(3, { timeout: STEP_RECORDED_MS });
  await page.getByTestId('type-input').fill('qa.tester');
  await page.getByTestId('type-submit').click();
  await expect(steps).toHaveCount(4, { timeout: STEP_RECORDED_MS });
  const typed = steps.first();
  await expect(typed).toHaveAttribute('data-action', 'sendKeys');
  await expect(typed).toHaveAttribute('data-success', 'true');
  await expectShown(page, 'qa.tester');
  for (const key of ['key-clear', 'key-replace', 'key-ime-done', 'key-tab']) await expect(page.getByTestId(key)).toBeVisible();

  // The bridge refuses a stale observation: the step fails closed, stands out, and says what to do.
  await postAdmin(urls, 'faults', { faults: ['bridge-reject=stale_observation'] });
  await page.mouse.click(signIn.x, signIn.y);
  await expect(steps).toHaveCount(5, { timeout: STEP_RECORDED_MS });
  const failed = steps.first();
  await expect(failed).toHaveAttribute('data-success', 'false');
  await expect(failed).toHaveAttribute('data-failure', 'stale_observation');
  await expect(failed).toHaveClass(/is-failed/);
  await expect(failed.getByTestId('step-explanation')).toContainText(FAILURE_EXPLANATIONS.stale_observation.meaning);
  await expect(failed.getByTestId('step-explanation')).toContainText(FAILURE_EXPLANATIONS.stale_observation.whatToDo);
  const background = await failed.evaluate((el) => getComputedStyle(el).backgroundColor);
  const okBackground = await steps.nth(1).evaluate((el) => getComputedStyle(el).backgroundColor);
  expect(background).not.toBe(okBackground);
  await postAdmin(urls, 'faults', { faults: [] });

  // A reload keeps the timeline: the host holds the session's steps, the failed one still says why.
  await page.reload();
  await expect(page.getByTestId('device-item')).toHaveAttribute('data-state', 'connected');
  await expect(steps).toHaveCount(5, { timeout: STEP_RECORDED_MS });
  await expect(failed).toHaveAttribute('data-failure', 'stale_observation');
  await expect(steps.last()).toHaveAttribute('data-action', 'tap');
  await expect(steps.last()).toHaveAttribute('data-backend', 'sdk');
  await expect(toggle).toHaveAttribute('data-mode', 'inspect');
  await toggle.click();
  await expect(toggle).toHaveAttribute('data-mode', 'interact');

  // Clicking a step opens its before and after frames; Escape closes them.
  await failed.click();
  const detail = page.getByTestId('step-detail');
  await expect(detail).toBeVisible();
  await expect(detail.getByTestId('step-frame-before')).toHaveAttribute('data-has-screenshot', 'true');
  await expect(detail.getByTestId('step-frame-after')).toHaveAttribute('data-has-screenshot', 'true');
  await expect(detail.getByTestId('step-detail-explanation')).toContainText('What to do');
  await page.screenshot({ path: testInfo.outputPath('actions-ui-detail.png') });
  await page.keyboard.press('Escape');
  await expect(detail).toHaveCount(0);
  await page.screenshot({ path: testInfo.outputPath('actions-ui.png') });

  // Record → two actions → Stop: the status counts the steps, then the notice names the trace file.
  const record = page.getByTestId('record-button');
  await record.click();
  await expect(record).toHaveAttribute('data-recording', 'true');
  await page.mouse.click(signIn.x, signIn.y);
  await expect(steps).toHaveCount(6, { timeout: STEP_RECORDED_MS });
  await page.mouse.click(username.x, username.y);
  await expect(steps).toHaveCount(7, { timeout: STEP_RECORDED_MS });
  await expect(page.getByTestId('record-status')).toHaveAttribute('data-steps', '2', { timeout: STEP_RECORDED_MS });
  await expect(page.getByTestId('record-status')).toContainText('2 steps');
  await record.click();
  await expect(record).toHaveAttribute('data-recording', 'false');
  // The trace it wrote is a notice under the toolbar (docs/rules.md#r-qa-19), not in the toolbar.
  await expect(page.getByTestId('saved-trace')).toContainText('.parallax-trace');
  await expect(page.getByTestId('record-status')).toHaveAttribute('data-trace', /\.parallax-trace$/);
});

test('a recording cut short by a kill is offered for recovery at the next start, and recovers into a trace file', async ({ page }) => {
  // Two host starts, a demo boot and a recorded tap: a wide margin on the busy machine, not a speed limit.
  test.setTimeout(180_000);
  const urls = await demoDevice({ screen: 'login' });
  const first = await serveDevice(running, urls.runnerUrl);
  await page.goto(urlIn(first.line));
  await expect(page.getByTestId('device-item')).toHaveAttribute('data-state', 'connected');
  await expect(page.getByTestId('screen-image')).toBeVisible();
  // Live view paused: its reads every second do not queue before the tap's own on the busy machine, and
  // the recording holds the tap and the reads around it alone.
  await page.getByTestId('live-toggle').click();
  await expect(page.getByTestId('live-toggle')).toHaveAttribute('data-live', 'false');
  await page.getByTestId('record-button').click();
  await expect(page.getByTestId('record-button')).toHaveAttribute('data-recording', 'true');
  await page.getByTestId('mode-toggle').click();
  const signIn = await boxCentre(page, 'login.submit');
  await page.mouse.click(signIn.x, signIn.y);
  await expect(page.getByTestId('record-status')).toHaveAttribute('data-steps', '1', { timeout: STEP_RECORDED_MS });

  // The host dies mid-recording; the next start offers the trace it left.
  await stopProcess(first.process, 'SIGKILL');
  const second = await serveDevice(running, urls.runnerUrl);
  await page.goto(urlIn(second.line));
  const offer = page.getByTestId('recover-offer');
  await expect(offer).toHaveCount(1);
  await expect(offer).toContainText(urls.runnerUrl);
  // The one tap, not the observations recorded around it.
  await expect(offer.locator('.recover-what')).toContainText('· 1 action');
  await offer.getByTestId('recover-button').click();
  await expect(offer.getByTestId('recover-result')).toContainText('.parallax-trace');
  await expect(offer).toHaveAttribute('data-recovered', 'true');

  // The recovered file opens with the tap in it, its result intact.
  const recovered = await offer.getByTestId('recover-result').locator('.mono').getAttribute('title');
  expect(recovered).toMatch(/\.parallax-trace$/);
  await page.getByTestId('open-trace').setInputFiles(recovered!);
  await expect(page.getByTestId('trace-step')).toHaveCount(1);
  await expect(page.getByTestId('trace-step')).toHaveAttribute('data-success', 'true');
  await expect(page.getByTestId('trace-result')).toContainText('tap');
});
