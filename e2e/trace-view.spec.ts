/**
 * Reopening a trace offline: record two taps on the demo iPhone, stop, then open the trace
 * file through "Open trace…": the filmstrip, before / after screenshots with boxes, attributes of a
 * picked box, the step's result. A foreign file names what is wrong with it.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from '@playwright/test';
import {
  ROOT,
  urlIn,
  boxCentre,
  bridgeActionsSent,
  postAdmin,
  stopAfterEach,
  stopRecording,
  serveDevice,
  sharedDemoDevice,
  STEP_RECORDED_MS,
  test,
} from './harness';

const running = stopAfterEach();
/** One demo device for the file: started by the first test, its app relaunched (faults off, counts from zero) before each later one; each test has its own web host. */
const demoDevice = sharedDemoDevice();
/** How long an export may take to reach the browser as a download on the busy machine: wide, a gate. */
const EXPORT_MS = 60_000;

test('a recorded trace reopens offline: filmstrip, before/after with boxes, attributes, result; a foreign file is named', async ({ page }, testInfo) => {
  // A demo boot, two recorded taps, three opens of the trace and two exports saved as downloads: on the
  // busy 2-core machine that has run past the default 60 s, so the margin is wide (a limit, not a speed).
  test.setTimeout(240_000);
  const urls = await demoDevice({ screen: 'login' });
  const host = await serveDevice(running, urls.runnerUrl);
  await page.goto(urlIn(host.line));
  await expect(page.getByTestId('device-item')).toHaveAttribute('data-state', 'connected');
  await expect(page.getByTestId('screen-image')).toBeVisible();

  const record = page.getByTestId('record-button');
  await record.click();
  await expect(record).toHaveAttribute('data-recording', 'true');
  await page.getByTestId('mode-toggle').click();
  await expect(page.getByTestId('mode-toggle')).toHaveAttribute('data-mode', 'interact');
  const signIn = await boxCentre(page, 'login.submit');
  const username = await boxCentre(page, 'login.username');
  await page.mouse.click(signIn.x, signIn.y);
  await expect(page.getByTestId('record-status')).toHaveAttribute('data-steps', '1', { timeout: STEP_RECORDED_MS });
  await page.mouse.click(username.x, username.y);
  await expect(page.getByTestId('record-status')).toHaveAttribute('data-steps', '2', { timeout: STEP_RECORDED_MS });
  const tracePath = await stopRecording(page);

  // Open the file as a user would: the "Open trace…" input.
  await page.getByTestId('open-trace').setInputFiles(tracePath);
  const view = page.getByTestId('trace-view');
  await expect(view).toBeVisible();
  await expect(page.getByTestId('trace-manifest')).toContainText('2 steps');
  const steps = page.getByTestId('trace-filmstrip').getByTestId('trace-step');
  await expect(steps).toHaveCount(2);
  await expect(steps.first()).toHaveAttribute('data-success', /true|false/);
  await expect(steps.first().locator('img')).toBeVisible();
  await expect(page.getByTestId('trace-result')).toContainText('tap');
  // R-RPL-08: the step as the live timeline showed it: the action, backend, target, time per stage, frame times.
  await expect(page.getByTestId('trace-action')).toHaveText(/^tap · #login\.submit/);
  await expect(page.getByTestId('trace-result').locator('.detail-stages .detail-stage').first()).toBeVisible();
  await expect(page.getByTestId('trace-result')).toContainText(/Backend/);
  await expect(page.getByTestId('trace-after')).toContainText(/After · \d/);

  await steps.nth(1).click();
  await expect(steps.nth(1)).toHaveAttribute('data-selected', 'true');
  const before = page.getByTestId('trace-before');
  const after = page.getByTestId('trace-after');
  await expect(before.getByTestId('screen-image')).toBeVisible();
  await expect(after.getByTestId('screen-image')).toBeVisible();
  await expect(before.getByTestId('box').first()).toBeAttached();
  await expect(after.getByTestId('box').first()).toBeAttached();
  expect(await before.getByTestId('box').count()).toBeGreaterThan(2);

  // Picking a box on the before screen shows its attributes and its node in the tree.
  const field = before.getByTestId('box').last();
  const rect = await field.boundingBox();
  if (!rect) throw new Error('no box');
  await page.mouse.click(rect.x + rect.width / 2, rect.y + rect.height / 2);
  await expect(before).toHaveAttribute('data-active', 'true');
  await expect(before.locator('[data-testid="box"][data-selected="true"]')).toHaveCount(1);
  await expect(page.getByTestId('attr-row').first()).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath('trace-view.png') });

  // Export: a Maestro flow file, saved as a download, with one tapOn per recorded tap. Both picked
  // nodes are named by the accessibility identifier XCTest reports for them, Sign In too, although the
  // bridge served it (R-QA-08): no point.
  // The host writes the export before the browser sees a download: a wide wait for it, it measures nothing.
  const download = page.waitForEvent('download', { timeout: EXPORT_MS });
  await page.getByTestId('export-maestro').click();
  const flow = await download;
  expect(flow.suggestedFilename()).toMatch(/\.maestro\.yaml$/);
  const yaml = await readFile((await flow.path())!, 'utf8');
  expect(yaml).toMatch(/^appId: 'dev\.parallax\.demo'$/m);
  expect(yaml.match(/^- tapOn:$/gm)).toHaveLength(2);
  expect(yaml).not.toMatch(/point:/);
  expect(yaml).toMatch(/^ {4}id: 'login\\\.username'$/m);
  expect(yaml).toMatch(/^ {4}id: 'login\\\.submit'$/m);
  await expect(page.getByTestId('export-notes')).toBeAttached();
  // And beside it, the same steps as an XCUITest method.
  const swiftDownload = page.waitForEvent('download', { timeout: EXPORT_MS });
  await page.getByTestId('export-maestro-xcuitest').click();
  const method = await swiftDownload;
  expect(method.suggestedFilename()).toMatch(/\.xcuitest\.swift$/);
  const swift = await readFile((await method.path())!, 'utf8');
  expect(swift).toContain('app.buttons["login.submit"].tap()');
  await expect(page.getByTestId('export-notes-xcuitest')).toBeAttached();

  // Close goes back to the live view.
  await page.getByTestId('trace-close').click();
  await expect(view).toHaveCount(0);
  await expect(page.getByTestId('screen-image')).toBeVisible();

  // The same trace opens in place, with no bytes sent: from Recent, and from the saved recording's Open.
  await page.getByTestId('recent-traces').click();
  const recent = page.getByTestId('recent-trace');
  await expect(recent.first()).toHaveAttribute('title', tracePath);
  await recent.first().click();
  await expect(page.getByTestId('trace-manifest')).toContainText('2 steps');
  await expect(page.getByTestId('trace-manifest').locator('.trace-path')).toHaveAttribute('title', tracePath);
  await page.getByTestId('trace-close').click();
  await page.getByTestId('open-last-trace').click();
  await expect(page.getByTestId('trace-manifest').locator('.trace-path')).toHaveAttribute('title', tracePath);
  await expect(steps).toHaveCount(2);
  await page.getByTestId('trace-close').click();
  await expect(view).toHaveCount(0);

  // A foreign file: an error naming the problem, never a blank screen.
  await page.getByTestId('open-trace').setInputFiles(join(ROOT, 'package.json'));
  const error = page.getByTestId('trace-error');
  await expect(error).toBeVisible();
  await expect(error).toContainText('package.json');
  await expect(error).toContainText(/not a (zip|Parallax trace)/i);
  await page.getByTestId('trace-close').click();
  await expect(view).toHaveCount(0);

  // A corrupt trace (the recorded file, cut short as by an interrupted copy): named, and why.
  const whole = await readFile(tracePath);
  const cut = join(test.info().outputDir, 'cut-short.parallax-trace');
  await mkdir(test.info().outputDir, { recursive: true });
  await writeFile(cut, whole.subarray(0, Math.floor(whole.length / 2)));
  await page.getByTestId('open-trace').setInputFiles(cut);
  await expect(error).toBeVisible();
  await expect(error).toContainText('cut-short.parallax-trace');
  await expect(error).toContainText(/cut short/);
  await page.getByTestId('trace-close').click();
  await expect(view).toHaveCount(0);
});

test('R-RPL-09: a failed step of the live timeline runs again as a new action, only when asked', async ({ page }) => {
  // A demo boot and four actions, one slowed on purpose: a wide margin on the busy machine.
  test.setTimeout(180_000);
  const urls = await demoDevice({ screen: 'login' });
  const host = await serveDevice(running, urls.runnerUrl);
  await page.goto(urlIn(host.line));
  await expect(page.getByTestId('screen-image')).toBeVisible();
  await page.getByTestId('mode-toggle').click();
  // The bridge refuses every action for now: the tap fails, and nothing ran.
  await postAdmin(urls, 'faults', { add: ['bridge-reject=element_not_actionable'] });
  const signIn = await boxCentre(page, 'login.submit');
  await page.mouse.click(signIn.x, signIn.y);
  const steps = page.getByTestId('timeline-step');
  await expect(steps).toHaveCount(1, { timeout: STEP_RECORDED_MS });
  await expect(steps.first()).toHaveAttribute('data-success', 'false');
  await expect(steps.first()).toHaveAttribute('data-failure', 'element_not_actionable');
  // Never by itself: a while later it is still the one step.
  await page.waitForTimeout(1000);
  await expect(steps).toHaveCount(1);

  // While another action runs on the device (slowed, within its 2 s budget), Run again is refused: the button is disabled, and the device
  // is sent nothing more than that one action.
  await postAdmin(urls, 'faults', { add: ['bridge-action-slow=1500'] });
  const actionsBefore = await bridgeActionsSent(urls);
  await page.mouse.click(signIn.x, signIn.y);
  await expect(page.getByTestId('timeline-pending')).toHaveCount(1);
  await expect(steps.first().getByTestId('step-retry')).toBeDisabled();
  await steps.first().getByTestId('step-retry').click({ force: true });
  await expect(steps).toHaveCount(2, { timeout: STEP_RECORDED_MS });
  await expect(page.getByTestId('timeline-pending')).toHaveCount(0);
  expect(await bridgeActionsSent(urls)).toBe(actionsBefore + 1);

  // The app is fine again; Run again sends the same action as a new step of its own.
  await postAdmin(urls, 'faults', { remove: ['bridge-reject', 'bridge-action-slow'] });
  const retry = steps.first().getByTestId('step-retry');
  await expect(retry).toBeEnabled();
  await retry.click();
  await expect(steps).toHaveCount(3, { timeout: STEP_RECORDED_MS });
  const ids = await steps.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-call-id')));
  expect(new Set(ids).size).toBe(3);
  await expect(steps.first()).toHaveAttribute('data-success', 'true');
  // A step that succeeded offers no retry; the failed ones still do.
  await expect(steps.first().getByTestId('step-retry')).toHaveCount(0);
  await expect(steps.nth(1).getByTestId('step-retry')).toHaveCount(1);
});
