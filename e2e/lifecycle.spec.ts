/**
 * Replays from a known state (docs/rules.md#r-life-05, issue 27), in Chromium against the web host over
 * the demo iPhone: a trace recorded on Sign In whose last tap leaves the app on Checkout diverges at step
 * 1 when replayed as it is, and matches every step with the Replay panel's "relaunch first"; "Record
 * from launch" makes a trace whose first step is the relaunch, that replays with "relaunch first" on by
 * default and exports a Maestro flow beginning with launchApp. Every launch is checked where it must
 * land: the demo device's own count of the runner's request_launch_app (its admin stats), not the page.
 */
import { readFile } from 'node:fs/promises';
import { expect, type Page } from '@playwright/test';
import {
  boxCentre,
  demoStats,
  hostDemoAppReveal,
  hostDemoInteractive,
  postAdmin,
  recordTaps,
  sharedDemoDevice,
  stopAfterEach,
  stopRecording,
  type DemoUrls,
  test,
} from './harness';

const running = stopAfterEach();
/**
 * One demo device for the file, booted by the first test; before each later test its app is relaunched
 * on that test's screen through the admin reset (faults off, no variants, request counts from zero). What
 * a test leaves behind is thereby gone: the app on Checkout or Sign In where its replay's last tap took it,
 * a deep link's screen, the launches it counted. The recording, the opened trace and the Replay panel's
 * choices (relaunch first, stop at divergence) live in the test's own web host and page, both new for
 * each test and stopped after it.
 */
const demoDevice = sharedDemoDevice();

/** The shared device, reset onto `screen` and checked there with no launch counted yet. */
async function freshDevice(screen: string): Promise<DemoUrls> {
  const urls = await demoDevice({ screen });
  expect((await demoStats(urls)).screen).toBe(screen);
  expect(await launchesReceived(urls)).toBe(0);
  return urls;
}

/** The shared device on `screen`, in a web host of the test's own, Interact mode on. */
async function openInteractive(page: Page, screen: string): Promise<DemoUrls> {
  const urls = await freshDevice(screen);
  await hostDemoInteractive(page, running, urls);
  return urls;
}

/** The runner's request_launch_app the demo device received since it started (or was last reset). */
async function launchesReceived(demo: DemoUrls): Promise<number> {
  return (await demoStats(demo)).requests['request_launch_app'] ?? 0;
}

async function exported(page: Page, testId: string): Promise<string> {
  const download = page.waitForEvent('download');
  await page.getByTestId(testId).click();
  return readFile((await (await download).path())!, 'utf8');
}

/** The flow's commands (lines starting `- `), after its header. */
function maestroCommands(yaml: string): string[] {
  return yaml
    .split(/^---$/m)[1]!
    .split('\n')
    .filter((l) => l.startsWith('- '));
}

function filmstrip(page: Page) {
  return page.getByTestId('trace-filmstrip').getByTestId('trace-step');
}

test('R-LIFE-05: a trace recorded on Sign In, the app left on Checkout: without relaunch first it diverges at step 1, with it the app is relaunched and every step matches', async ({
  page,
}) => {
  test.setTimeout(300_000);
  const urls = await openInteractive(page, 'login');
  // The recording's last tap moves the app to another screen, as a session ends wherever the user was.
  const tracePath = await recordTaps(page, ['login.submit', 'tab.checkout']);
  await expect.poll(async () => (await demoStats(urls)).screen).toBe('checkout');

  await page.getByTestId('open-trace').setInputFiles(tracePath);
  await expect(filmstrip(page)).toHaveCount(2);
  const relaunchFirst = page.getByTestId('replay-relaunch-first');
  // Off by default: the recording did not begin with a launch.
  await expect(relaunchFirst).not.toBeChecked();
  const summary = page.getByTestId('replay-summary');
  const badges = filmstrip(page).getByTestId('replay-badge');
  const launchesBefore = await launchesReceived(urls);

  // As it is: Sign In is not on Checkout, so step 1 diverges and nothing launched the app.
  await page.getByTestId('replay-on-divergence').selectOption('stop');
  await page.getByTestId('replay-start').click();
  await expect(summary).toHaveText(
    '1 of 2 replayed: 0 matched, 1 diverged, 0 failed; stopped at the first divergence, 1 not reached (did not run: 1 · not reached: 2)',
    { timeout: 30_000 },
  );
  await expect(badges.nth(0)).toHaveAttribute('data-verdict', 'diverged');
  await expect(page.getByTestId('replay-verdict').getByTestId('replay-differences')).toContainText('target missing');
  expect(await launchesReceived(urls)).toBe(launchesBefore);
  expect((await demoStats(urls)).screen).toBe('checkout');

  // Relaunch first: one cold launch reaches the device, then both steps match from Sign In.
  await relaunchFirst.check();
  await page.getByTestId('replay-start').click();
  await expect(summary).toHaveText('relaunched first; 2 of 2 replayed: 2 matched, 0 diverged, 0 failed (ran: 1, 2)', { timeout: 30_000 });
  await expect(summary).toHaveAttribute('data-all-matched', 'true');
  for (const badge of await badges.all()) await expect(badge).toHaveAttribute('data-verdict', 'matched');
  expect(await launchesReceived(urls)).toBe(launchesBefore + 1);
  // The replay's own last tap took the app to Checkout again: the steps ran on the device, not only the launch.
  expect((await demoStats(urls)).screen).toBe('checkout');
});

test('R-LIFE-05, R-LIFE-01, R-LIFE-04: the header relaunches the app; Record from launch begins the trace with the relaunch, replays with relaunch first on, and exports launchApp first', async ({
  page,
}) => {
  test.setTimeout(300_000);
  const urls = await openInteractive(page, 'feed');
  const launchesAtStart = await launchesReceived(urls);

  // R-LIFE-01: the device header's Relaunch puts the app back at its first screen.
  await page.getByTestId('relaunch-app').click();
  // Its result on the timeline, like any action's; until then Record from launch waits (its relaunch
  // would not be sent while this one runs).
  const row = page.getByTestId('timeline-step');
  await expect(row).toHaveCount(1, { timeout: 45_000 });
  await expect(row).toHaveAttribute('data-success', 'true');
  await expect(row).toContainText('relaunch');
  await expect(page.getByTestId('record-from-launch')).toBeEnabled();
  expect((await demoStats(urls)).screen).toBe('login');
  expect(await launchesReceived(urls)).toBe(launchesAtStart + 1);
  await postAdmin(urls, 'screen', { screen: 'feed' });

  // Record from launch, started on the Feed: the relaunch is the trace's first step.
  await page.getByTestId('record-from-launch').click();
  await expect(page.getByTestId('record-button')).toHaveAttribute('data-recording', 'true');
  const status = page.getByTestId('record-status');
  await expect(status).toHaveAttribute('data-steps', '1', { timeout: 45_000 });
  await expect(row).toHaveCount(2, { timeout: 45_000 });
  expect((await demoStats(urls)).screen).toBe('login');
  expect(await launchesReceived(urls)).toBe(launchesAtStart + 2);
  const submit = await boxCentre(page, 'login.submit');
  await page.mouse.click(submit.x, submit.y);
  await expect(status).toHaveAttribute('data-steps', '2', { timeout: 45_000 });
  const tracePath = await stopRecording(page);

  await page.getByTestId('open-trace').setInputFiles(tracePath);
  const steps = filmstrip(page);
  await expect(steps).toHaveCount(2);
  await expect(steps.nth(0)).toHaveAttribute('title', /launch/i);
  await expect(steps.nth(1)).toHaveAttribute('title', /tap/);
  // On by default: the recording began with a launch.
  await expect(page.getByTestId('replay-relaunch-first')).toBeChecked();

  // R-LIFE-04: the Maestro flow's first command is the relaunch, a plain launchApp (it stops the app first).
  const yaml = await exported(page, 'export-maestro');
  const commands = maestroCommands(yaml);
  expect(commands[0]).toBe('- launchApp');
  expect(commands[1]).toBe('- tapOn:');
  expect(yaml).toMatch(/^ {4}id: 'login\\\.submit'$/m);
  expect(yaml).not.toMatch(/clearState|stopApp/);
  const swift = await exported(page, 'export-maestro-xcuitest');
  expect(swift.indexOf('app.terminate()')).toBeGreaterThanOrEqual(0);
  expect(swift.indexOf('app.launch()')).toBeGreaterThan(swift.indexOf('app.terminate()'));
  expect(swift.indexOf('app.launch()')).toBeLessThan(swift.indexOf('login.submit'));

  // Replayed from Checkout with the default: relaunched before step 1, and step 1 relaunches again.
  await postAdmin(urls, 'screen', { screen: 'checkout' });
  const launchesBefore = await launchesReceived(urls);
  await page.getByTestId('replay-start').click();
  const summary = page.getByTestId('replay-summary');
  await expect(summary).toHaveText('relaunched first; 2 of 2 replayed: 2 matched, 0 diverged, 0 failed (ran: 1, 2)', { timeout: 30_000 });
  expect(await launchesReceived(urls)).toBe(launchesBefore + 2);
  expect((await demoStats(urls)).screen).toBe('login');
});

test("R-LIFE-01, R-LIFE-04: the header's Launch brings the app to the front as it is: one request_launch_app, the same screen; recorded, it exports launchApp with stopApp: false and activate()", async ({
  page,
}) => {
  test.setTimeout(300_000);
  const urls = await openInteractive(page, 'feed');
  const launchesBefore = await launchesReceived(urls);
  const record = page.getByTestId('record-button');
  await record.click();
  await expect(record).toHaveAttribute('data-recording', 'true');
  await page.getByTestId('launch-app').click();
  const row = page.getByTestId('timeline-step');
  await expect(page.getByTestId('record-status')).toHaveAttribute('data-steps', '1', { timeout: 45_000 });
  await expect(row).toHaveCount(1);
  await expect(row).toHaveAttribute('data-action', 'launch');
  await expect(row).toHaveAttribute('data-success', 'true');
  // The device did launch (its own count), and without a cold boot: the app is still on the Feed.
  expect(await launchesReceived(urls)).toBe(launchesBefore + 1);
  expect((await demoStats(urls)).screen).toBe('feed');
  const tracePath = await stopRecording(page);

  await page.getByTestId('open-trace').setInputFiles(tracePath);
  await expect(filmstrip(page)).toHaveCount(1);
  await expect(filmstrip(page).nth(0)).toHaveAttribute('title', /launch/i);
  // Maestro's launchApp stops a running app unless told not to (Orchestra.kt): this launch did not.
  const commands = maestroCommands(await exported(page, 'export-maestro'));
  expect(commands).toEqual(['- launchApp:']);
  expect(await exported(page, 'export-maestro')).toMatch(/^ {4}stopApp: false$/m);
  const swift = await exported(page, 'export-maestro-xcuitest');
  expect(swift).toContain('app.activate()');
  expect(swift).not.toContain('app.terminate()');

  // Replayed as it is on the Feed: the launch is sent again, and the app stays where it was.
  await page.getByTestId('replay-relaunch-first').uncheck();
  const launchesBeforeReplay = await launchesReceived(urls);
  await page.getByTestId('replay-start').click();
  await expect(page.getByTestId('replay-summary')).toHaveText(/^1 of 1 replayed: 1 matched/, { timeout: 30_000 });
  expect(await launchesReceived(urls)).toBe(launchesBeforeReplay + 1);
  expect((await demoStats(urls)).screen).toBe('feed');
});

test('R-LIFE-02, R-LIFE-03: an AppReveal app opens a deep link from the device header (open_deeplink, no runner launch); recorded, exported as openLink, replayed to the same screen', async ({
  page,
}) => {
  test.setTimeout(300_000);
  const urls = await freshDevice('login');
  await hostDemoAppReveal(page, running, urls);
  const controls = page.getByTestId('launch-controls');
  // AppReveal runs inside the app: it cannot launch it, so the header offers no Launch or Relaunch.
  await expect(controls.getByTestId('open-link')).toBeDisabled();
  await expect(controls.getByTestId('launch-app')).toHaveCount(0);
  await expect(controls.getByTestId('relaunch-app')).toHaveCount(0);
  const launchesBefore = await launchesReceived(urls);

  const record = page.getByTestId('record-button');
  await record.click();
  await expect(record).toHaveAttribute('data-recording', 'true');
  await controls.getByTestId('open-link-url').fill('parallax-demo://screen/checkout');
  await controls.getByTestId('open-link').click();
  await expect(page.getByTestId('record-status')).toHaveAttribute('data-steps', '1', { timeout: 45_000 });
  const row = page.getByTestId('timeline-step');
  await expect(row).toHaveCount(1);
  await expect(row).toHaveAttribute('data-action', 'openLink');
  await expect(row).toHaveAttribute('data-backend', 'appreveal');
  await expect(row).toHaveAttribute('data-success', 'true');
  // The app went where the link says; the runner launched nothing.
  expect((await demoStats(urls)).screen).toBe('checkout');
  expect(await launchesReceived(urls)).toBe(launchesBefore);
  await expect(page.getByTestId('appreveal-screen')).toHaveAttribute('data-screen-key', 'checkout');
  const tracePath = await stopRecording(page);

  await page.getByTestId('open-trace').setInputFiles(tracePath);
  await expect(filmstrip(page)).toHaveCount(1);
  expect(maestroCommands(await exported(page, 'export-maestro'))).toEqual(["- openLink: 'parallax-demo://screen/checkout'"]);

  // Back on Sign In, the replay opens the link again and lands on Checkout.
  await postAdmin(urls, 'screen', { screen: 'login' });
  expect((await demoStats(urls)).screen).toBe('login');
  await page.getByTestId('replay-start').click();
  await expect(page.getByTestId('replay-summary')).toHaveText(/^1 of 1 replayed: 1 matched/, { timeout: 30_000 });
  expect((await demoStats(urls)).screen).toBe('checkout');
  expect(await launchesReceived(urls)).toBe(launchesBefore);
});
