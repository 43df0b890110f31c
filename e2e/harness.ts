/**
 * Starts the real `parallax` command as child processes (web host, replay device), the way a user runs
 * it, and reads the URLs they print.
 */
import { expect, test as base, type Page, type TestInfo } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { redactString } from '@shared/trace/redact';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The recorded runner session Parallax ships (resources/recordings, with its provenance). */
export const GOLDEN = join(ROOT, 'resources', 'recordings', 'settings-tap-general');

/** The app under test keeps its settings and traces here, and sends no multicast on the real network. */
const TEST_ENV = { ...process.env, PARALLAX_HOME: mkdtempSync(join(tmpdir(), 'parallax-e2e-home-')), PARALLAX_MDNS: 'off' };

export interface Running {
  process: ChildProcess;
  /** The first line matching the pattern the command printed. */
  line: string;
  output: () => string;
  stop(): Promise<void>;
}

export async function runParallax(args: string[], ready: RegExp, timeoutMs = 30_000): Promise<Running> {
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'parallax.mjs'), ...args], {
    cwd: ROOT,
    env: TEST_ENV,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const line = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`parallax ${args.join(' ')} printed no ${ready} in ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = output.split('\n').find((l) => ready.test(l));
      if (match) {
        clearTimeout(timer);
        resolve(match);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`parallax ${args.join(' ')} exited (${code}) before it was ready:\n${output}`));
    });
  });
  return {
    process: child,
    line,
    output: () => output,
    stop: () => stopProcess(child),
  };
}

export function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}

export function urlIn(line: string): string {
  const match = /(https?|wss?):\/\/\S+/.exec(line);
  if (!match) throw new Error(`no URL in "${line}"`);
  return match[0];
}

// ---- What the specs share --------------------------------------------------------------------------

/** What `parallax demo-device` prints when it is ready. */
export interface DemoUrls {
  runnerUrl: string;
  adminUrl: string;
  appRevealUrl: string;
}

/** The processes a test started, stopped after it (newest first) whatever its outcome. */
export function stopAfterEach(): Running[] {
  const running: Running[] = [];
  test.afterEach(async ({}, testInfo) => {
    const stopped = running.splice(0).reverse();
    for (const process of stopped) await process.stop();
    // A failed test keeps what its processes printed (a host that died says why there), without the
    // tokens in the URLs they printed: the report is an artifact people pass around.
    if (testInfo.status !== testInfo.expectedStatus) {
      for (const [i, process] of stopped.entries()) {
        await testInfo.attach(`process-${i}-output`, { body: redactString(process.output()), contentType: 'text/plain' });
      }
    }
  });
  return running;
}

/** Starts `parallax demo-device` with these arguments, stopped after the test; the URLs it printed. */
export async function startDemo(running: Running[], args: string[] = []): Promise<DemoUrls> {
  const demo = await runParallax(['demo-device', ...args], /runnerUrl/, 60_000);
  running.push(demo);
  return JSON.parse(demo.line) as DemoUrls;
}

/** One of the demo devices `parallax demo-device --count N` started (they share one browser). */
export interface FleetUrls {
  runnerUrl: string;
  adminUrl: string;
  screen: string;
}

/** Starts `count` demo devices in one `parallax demo-device --count` process, stopped after the test. */
export async function startDemoFleet(running: Running[], count: number): Promise<FleetUrls[]> {
  const demo = await runParallax(['demo-device', '--count', String(count)], /runnerUrl/, 120_000);
  running.push(demo);
  return JSON.parse(demo.line) as FleetUrls[];
}

/** Starts the web host on one runner (or several), stopped after the test. */
export async function serveDevice(running: Running[], runnerUrl: string | readonly string[], adminUrls: readonly string[] = []): Promise<Running> {
  const urls = typeof runnerUrl === 'string' ? [runnerUrl] : runnerUrl;
  const host = await runParallax(
    ['serve', ...urls.flatMap((url) => ['--device', url]), ...adminUrls.flatMap((url) => ['--demo-admin', url])],
    /^Parallax web host: /,
  );
  running.push(host);
  return host;
}

/** Serves one runner in a web host, opens it in `page`, selects the device and waits for its first picture. */
export async function openDevice(page: Page, running: Running[], runnerUrl: string): Promise<void> {
  const host = await serveDevice(running, runnerUrl);
  await page.goto(urlIn(host.line));
  const device = page.getByTestId('device-item');
  await expect(device).toHaveAttribute('data-state', 'connected');
  await device.click();
  await expect(page.getByTestId('screen-image')).toBeVisible();
}

/**
 * Starts a demo device on `screen` and a web host on it (with its admin, for the demo panel), opens the
 * host in `page` at the window size a layout test asks for, and waits for the device's first picture.
 */
export async function openDemoAt(page: Page, running: Running[], size: { width: number; height: number }, screen = 'login'): Promise<DemoUrls> {
  const urls = await startDemo(running, ['--screen', screen]);
  await hostDemoAt(page, running, urls, size);
  return urls;
}

/**
 * Starts a web host on a demo device that is already running (with its admin, for the demo panel), opens
 * it in `page` at this window size and waits for the device's first picture. The host is stopped after the test.
 */
export async function hostDemoAt(page: Page, running: Running[], urls: DemoUrls, size: { width: number; height: number }): Promise<void> {
  const host = await serveDevice(running, urls.runnerUrl, [urls.adminUrl]);
  await page.setViewportSize(size);
  await page.goto(urlIn(host.line));
  await expect(page.getByTestId('device-item')).toHaveAttribute('data-state', 'connected');
  await expect(page.getByTestId('screen-image')).toBeVisible();
}

/**
 * Starts a demo device on `screen` and a web host on it, opens the host in `page`, waits for the
 * device's first picture and turns Interact mode on, so clicks on the screen are taps on the device.
 */
export async function openDemoInteractive(page: Page, running: Running[], screen = 'login'): Promise<DemoUrls> {
  const urls = await startDemo(running, ['--screen', screen]);
  await hostDemoInteractive(page, running, urls);
  return urls;
}

/**
 * Starts a web host on a demo device that is already running (one a file shares, say), opens it in `page`,
 * waits for the device's first picture and turns Interact mode on. The host is stopped after the test.
 */
export async function hostDemoInteractive(page: Page, running: Running[], urls: Pick<DemoUrls, 'runnerUrl'>): Promise<void> {
  const host = await serveDevice(running, urls.runnerUrl);
  await page.goto(urlIn(host.line));
  await expect(page.getByTestId('device-item')).toHaveAttribute('data-state', 'connected');
  await expect(page.getByTestId('screen-image')).toBeVisible();
  await page.getByTestId('mode-toggle').click();
  await expect(page.getByTestId('mode-toggle')).toHaveAttribute('data-mode', 'interact');
}

/**
 * Pastes an AppReveal session URL into the device list's connect box and waits until the app's entry
 * is connected; the entry.
 */
export async function connectAppReveal(page: Page, sessionUrl: string) {
  await page.getByTestId('connect-url').fill(sessionUrl);
  await page.getByTestId('connect-submit').click();
  const item = page.locator('[data-testid="device-item"]').filter({ hasText: `127.0.0.1:${new URL(sessionUrl).port}` });
  await expect(item).toHaveAttribute('data-state', 'connected');
  return item;
}

/**
 * Starts a demo device on `screen` and a web host with no device of its own, connects the demo's
 * AppReveal app by its session URL, and waits for the app's first picture: every action then goes
 * through AppReveal's tools, none through the runner.
 */
export async function openDemoAppReveal(page: Page, running: Running[], screen = 'login'): Promise<DemoUrls> {
  const urls = await startDemo(running, ['--screen', screen]);
  await hostDemoAppReveal(page, running, urls);
  return urls;
}

/**
 * Starts a web host with no device of its own on a demo device that is already running, connects the
 * demo's AppReveal app by its session URL and waits for the app's first picture. The host is stopped after the test.
 */
export async function hostDemoAppReveal(page: Page, running: Running[], urls: Pick<DemoUrls, 'appRevealUrl'>): Promise<void> {
  const host = await runParallax(['serve', '--no-default-device'], /^Parallax web host: /);
  running.push(host);
  await page.goto(urlIn(host.line));
  const item = await connectAppReveal(page, urls.appRevealUrl);
  await expect(item).toHaveAttribute('data-selected', 'true');
  await expect(page.getByTestId('frame-backend')).toHaveAttribute('data-backend', 'appreveal');
  await expect(page.getByTestId('screen-image')).toBeVisible();
}

/**
 * How long a test waits for an action to become a step (on the timeline, or counted by the recording):
 * a step counts once the action and the read after it are done, and on the shared, busy 2-core machine
 * that has taken over 10 s (the default wait). The wait is wide; it gates, it measures nothing.
 */
export const STEP_RECORDED_MS = 45_000;

/**
 * Records taps on the nodes with these ids (Interact mode on) with the Record button and returns the
 * trace file's path. Every box is found before the first tap: a tap may move the app to another screen.
 */
export async function recordTaps(page: Page, ids: readonly string[]): Promise<string> {
  const points = [];
  for (const id of ids) points.push(await boxCentre(page, id));
  const record = page.getByTestId('record-button');
  await record.click();
  await expect(record).toHaveAttribute('data-recording', 'true');
  const status = page.getByTestId('record-status');
  for (const [i, point] of points.entries()) {
    await page.mouse.click(point.x, point.y);
    await expect(status).toHaveAttribute('data-steps', String(i + 1), { timeout: STEP_RECORDED_MS });
  }
  return stopRecording(page);
}

/** Switches the demo device's screen or faults through its admin endpoint. */
export async function postAdmin(demo: Pick<DemoUrls, 'adminUrl'>, path: 'screen' | 'faults', body: unknown): Promise<void> {
  const response = await fetch(`${demo.adminUrl}/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status, await response.text()).toBe(200);
}

/** What the e2e tests read of the demo device's admin `/stats`: what the device itself did. */
export interface DemoStats {
  screen: string;
  requests: Record<string, number>;
  sdkRequests: Record<string, number>;
}

export async function demoStats(demo: Pick<DemoUrls, 'adminUrl'>): Promise<DemoStats> {
  const response = await fetch(`${demo.adminUrl}/stats`);
  expect(response.status).toBe(200);
  return (await response.json()) as DemoStats;
}

/** Actions the demo app's SDK bridge has been asked to perform since it started. */
export async function bridgeActionsSent(demo: Pick<DemoUrls, 'adminUrl'>): Promise<number> {
  return (await demoStats(demo)).sdkRequests['POST /observation/action'] ?? 0;
}

/** The page point at the centre of the box of the node with this id (found through the search box). */
export async function boxCentre(page: Page, id: string): Promise<{ x: number; y: number }> {
  await page.getByTestId('search-input').fill(id);
  const box = page.locator('[data-testid="box"][data-match="true"]').first();
  await expect(box).toBeVisible();
  const rect = await box.boundingBox();
  await page.getByTestId('search-input').fill('');
  await page.getByTestId('search-input').blur();
  if (!rect) throw new Error(`no box for ${id}`);
  return { x: rect.x + rect.width / 2, y: rect.y + rect.height / 2 };
}

/** Stops the running recording with the Record button and returns the path of the trace file it wrote. */
export async function stopRecording(page: Page): Promise<string> {
  const record = page.getByTestId('record-button');
  await record.click();
  await expect(record).toHaveAttribute('data-recording', 'false');
  const status = page.getByTestId('record-status');
  await expect(status).toHaveAttribute('data-trace', /\.parallax-trace$/);
  return (await status.getAttribute('data-trace')) as string;
}

/**
 * Processes a group of tests shares: `start` boots them for the first use (its processes pushed on
 * `running`), `reset` puts them back before every later use, `stop` ends them (newest first).
 */
class Shared<T, A> {
  readonly running: Running[] = [];
  private booted: { value: T } | undefined;
  constructor(
    private readonly start: (running: Running[], args: A) => Promise<T>,
    private readonly reset: (shared: T, args: A) => Promise<void>,
  ) {}

  async use(args: A): Promise<T> {
    if (!this.booted) this.booted = { value: await this.start(this.running, args) };
    else await this.reset(this.booted.value, args);
    return this.booted.value;
  }

  /** What the processes printed from these offsets on (all of it for a process started since). */
  outputSince(offsets: ReadonlyMap<Running, number> = new Map()): string[] {
    return this.running.map((process) => redactString(process.output().slice(offsets.get(process) ?? 0)));
  }

  offsets(): Map<Running, number> {
    return new Map(this.running.map((process) => [process, process.output().length]));
  }

  async stop(): Promise<void> {
    for (const process of this.running.splice(0).reverse()) await process.stop();
    this.booted = undefined;
  }
}

/** Attaches what shared processes printed to a failed test, without the tokens in the URLs they printed. */
async function attachIfFailed(testInfo: TestInfo, label: string, outputs: readonly string[]): Promise<void> {
  if (testInfo.status === testInfo.expectedStatus) return;
  for (const [i, body] of outputs.entries()) await testInfo.attach(`${label}-${i}-output`, { body, contentType: 'text/plain' });
}

/**
 * What a file's tests share: `start` boots it for the first test that asks, its processes pushed on the
 * list it is given (stopped after the file's last test, their output attached to a failed test); `reset`
 * puts it back before every later test, each with the arguments that test asked with.
 */
export function sharedAcrossFile<T, A = void>(
  start: (running: Running[], args: A) => Promise<T>,
  reset: (shared: T, args: A) => Promise<void>,
): (args: A) => Promise<T> {
  const shared = new Shared(start, reset);
  test.afterEach(async ({}, testInfo) => attachIfFailed(testInfo, 'shared', shared.outputSince()));
  test.afterAll(async () => shared.stop());
  return (args) => shared.use(args);
}

/** The state a test asks the shared demo device for: its app relaunched on `screen` with these faults. */
export interface DemoState {
  screen?: string;
  faults?: readonly string[];
}

const demoArgs = ({ screen = 'login', faults = [] }: DemoState): string[] => ['--screen', screen, ...faults.flatMap((fault) => ['--fault', fault])];

/**
 * One `parallax demo-device` (no flags beyond a screen and faults) for every test of the Playwright
 * worker, across files: booted by the first test that asks, stopped when the worker ends (Playwright
 * starts a new worker after a failed test, so a failure does not leak into the next test's device).
 */
let workerDemo: Shared<DemoUrls, DemoState> | undefined;

/**
 * Playwright's `test` with what the specs share across files. Every spec imports `test` from here, not
 * from @playwright/test: Playwright keeps one worker only for files whose worker fixtures are the same, so
 * a spec on the plain `test` would end the worker, and the shared device with it, twice.
 */
export const test = base.extend<{ sharedDemoOutput: void }, { sharedDemo: Shared<DemoUrls, DemoState> }>({
  sharedDemo: [
    async ({}, use) => {
      workerDemo = new Shared(
        (running, state: DemoState) => startDemo(running, demoArgs(state)),
        (urls, { screen = 'login', faults = [] }) => resetDemo(urls, screen, faults),
      );
      await use(workerDemo);
      await workerDemo.stop();
      workerDemo = undefined;
    },
    { scope: 'worker', auto: true },
  ],
  // A failed test keeps what the worker's shared device printed while it ran.
  sharedDemoOutput: [
    async ({ sharedDemo }, use, testInfo) => {
      const offsets = sharedDemo.offsets();
      await use();
      await attachIfFailed(testInfo, 'shared-demo', sharedDemo.outputSince(offsets));
    },
    { auto: true },
  ],
});

/**
 * The demo device the worker shares, for tests that each act on it but need no device process of their
 * own: before every test but the worker's first, its app is relaunched through the admin reset (fresh
 * screens and documents, the test's faults, no variants, request counts from zero), so no test sees
 * another's app state, while the device's Chromium boots once per worker instead of once per test or
 * file (about 6 s at load 13 on the 2-core machine). Each test still starts its own web host.
 */
export function sharedDemoDevice(): (state?: DemoState) => Promise<DemoUrls> {
  return (state = {}) => {
    if (!workerDemo) throw new Error("sharedDemoDevice: the spec runs on @playwright/test's test; import test from './harness'");
    return workerDemo.use(state);
  };
}

/**
 * One demo device and web host for the tests of a file that only look and pick (no action, recording,
 * fault or saved setting reaches the device or the host), so a file boots them once instead of once a
 * test (a boot is 5–18 s on the busy 2-core machine, most of such a test's time). Each test gets its own
 * page, and the demo's screen is set again before the page opens, so no test sees another's state.
 * Started by the first test that asks; stopped after the file's last test.
 */
export function sharedDemoHost(): (page: Page, size: { width: number; height: number }, screen?: string) => Promise<DemoUrls> {
  const shared = sharedAcrossFile(
    async (running, screen: string) => {
      const urls = await startDemo(running, ['--screen', screen]);
      const host = await serveDevice(running, urls.runnerUrl, [urls.adminUrl]);
      return { urls, hostUrl: urlIn(host.line) };
    },
    ({ urls }, screen) => postAdmin(urls, 'screen', { screen }),
  );
  return async (page, size, screen = 'login') => {
    const { urls, hostUrl } = await shared(screen);
    await page.setViewportSize(size);
    await page.goto(hostUrl);
    await expect(page.getByTestId('device-item')).toHaveAttribute('data-state', 'connected');
    await expect(page.getByTestId('screen-image')).toBeVisible();
    return urls;
  };
}

/**
 * The demo admin reset (src-demo/runner/admin.ts /admin/reset): the app relaunched on `screen` once no
 * action runs, with these faults and no variants, its request counts from zero.
 */
export async function resetDemo(demo: Pick<DemoUrls, 'adminUrl'>, screen: string, faults: readonly string[] = []): Promise<void> {
  const response = await fetch(`${demo.adminUrl}/reset`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ screen, faults, variants: [] }),
  });
  expect(response.status, await response.text()).toBe(200);
}
