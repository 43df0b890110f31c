/**
 * Launch, relaunch and deep links on the demo device over its real ports (docs/rules.md#r-life-01 …
 * #r-life-05): the runner's request_launch_app, AppReveal's open_deeplink, `parallax launch`, traces
 * that begin with a relaunch, their exports, and replays started on another screen with "relaunch first".
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActionRequest } from '@shared/protocol/action';
import type { UiNode } from '@shared/protocol/runner';
import { flattenTree } from '@shared/model/tree';
import { startDemoDevice, type DemoDeviceHandle } from '@demo/index';
import { connectionFor } from '@main/devices/manager';
import type { DeviceConnection } from '@main/connection/connection';
import { recordActionStep } from '@main/trace/replay';
import { TraceRecorder } from '@main/trace/index';
import { runTraceCommand, type TraceCommand } from '@main/cli/traces';
import { runActionCommand } from '@main/cli/actions';
import type { ObservedFrame } from '@shared/protocol/device';
import { watchFrames, type FrameWatch } from '../support/frame-watch';

let device: DemoDeviceHandle;
let connection: DeviceConnection;
let dir: string;
/** Recorded from launch: relaunch, tap Sign In, tap the Checkout tab. */
let fromLaunch: string;
/** Recorded on Sign In without a launch: tap Sign In, tap the Checkout tab. */
let onLogin: string;

/** What the file's live connection has observed of the demo's screen. */
let frames: FrameWatch;
/** A relaunched app on `screen`, once the connection has observed its first frame. */
async function reset(screen: string): Promise<void> {
  const res = await fetch(`${device.adminUrl}/reset`, { method: 'POST', body: JSON.stringify({ screen, faults: [] }) });
  expect(res.status).toBe(200);
  await frames.until(device.adminUrl);
}
async function showScreen(screen: string): Promise<void> {
  // The tab bar, as a user would move away from the first screen.
  const { result } = await connection.act({ action: 'tap', target: { id: `tab.${screen}` } });
  expect(result.success).toBe(true);
  await frames.until(device.adminUrl);
}
const ids = (frame: ObservedFrame | undefined): string[] => {
  const root: UiNode | undefined = frame?.observation?.viewHierarchy?.hierarchy;
  return root ? flattenTree(root).map((f) => f.node['resource-id'] ?? '') : [];
};
async function cli(kind: 'trace' | 'action', command: string, ...args: string[]) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const out = { log: (l: string) => stdout.push(l), error: (l: string) => stderr.push(l) };
  const code =
    kind === 'trace'
      ? await runTraceCommand(command as TraceCommand, args, out)
      : await runActionCommand(command as Parameters<typeof runActionCommand>[0], args, out);
  return { code, stdout: stdout.join('\n'), stderr: stderr.join('\n') };
}

async function record(name: string, requests: ActionRequest[]): Promise<string> {
  let before: ObservedFrame | undefined = await connection.observe({});
  const recorder = await TraceRecorder.start({
    dir,
    manifest: { device: { name: 'Demo iPhone', kind: 'demo', url: device.runnerUrl }, app: { bundleId: 'dev.parallax.demo' } },
  });
  for (const [i, request] of requests.entries()) {
    await frames.until(device.adminUrl);
    const { result, after } = await connection.act(request);
    expect(result.success).toBe(true);
    await recordActionStep(recorder, { callId: `call-${i + 1}`, request, before, result, after });
    before = after;
  }
  return recorder.stop({ outFile: join(dir, name) });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parallax-lifecycle-'));
  device = await startDemoDevice({ port: 0 });
  connection = connectionFor(device.runnerUrl);
  frames = watchFrames(connection);
  connection.start();
  await connection.waitUntilConnected();
  await reset('feed');
  fromLaunch = await record('from-launch.parallax-trace', [
    { action: 'launch', relaunch: true },
    { action: 'tap', target: { id: 'login.submit' } },
    { action: 'tap', target: { id: 'tab.checkout' } },
  ]);
  await reset('login');
  onLogin = await record('on-login.parallax-trace', [
    { action: 'tap', target: { id: 'login.submit' } },
    { action: 'tap', target: { id: 'tab.checkout' } },
  ]);
}, 120_000);

afterAll(async () => {
  await connection?.close();
  await device?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('R-LIFE-01: launch and relaunch through request_launch_app', () => {
  it('a relaunch from Checkout puts the app back at Sign In, with a result like any action', async () => {
    await reset('login');
    await showScreen('checkout');
    const { result, after } = await connection.act({ action: 'launch', relaunch: true });
    expect(result).toMatchObject({ success: true, target: { resolvedBy: 'screen', selector: 'dev.parallax.demo' } });
    expect(result.requestsSent).toBeGreaterThan(0);
    expect(ids(after)).toContain('login.submit');
  });

  it('a launch without relaunch brings the app to the front as it is: Feed stays Feed', async () => {
    await reset('feed');
    const { result, after } = await connection.act({ action: 'launch', relaunch: false });
    expect(result.success).toBe(true);
    expect(ids(after)).not.toContain('login.submit');
    expect(ids(after).some((id) => id.startsWith('feed.'))).toBe(true);
  });

  it('an app that is not installed fails closed with the runner’s own words', async () => {
    const { result } = await connection.act({ action: 'launch', relaunch: true, bundleId: 'com.example.absent' });
    expect(result).toMatchObject({ success: false, failureReason: 'runner_error', mayHaveRun: false });
    expect(result.deviceMessage).toContain('com.example.absent');
  });

  it('R-LIFE-03: a runner opens no deep links: refused, nothing sent', async () => {
    const { result } = await connection.act({ action: 'openLink', url: 'parallax-demo://screen/feed' });
    expect(result).toMatchObject({ success: false, failureReason: 'no_lifecycle_form', mayHaveRun: false, requestsSent: 0 });
  });

  it('parallax launch --device URL --relaunch exits 0; an unknown option is a usage error', async () => {
    await reset('feed');
    const ok = await cli('action', 'launch', '--device', device.runnerUrl, '--relaunch', '--json');
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ success: true, target: { selector: 'dev.parallax.demo' } });
    const bad = await cli('action', 'launch', '--device', device.runnerUrl, '--look-for', 'x');
    expect(bad.code).toBe(2);
    const absent = await cli('action', 'launch', '--device', device.runnerUrl, '--bundle-id', 'com.example.absent');
    expect(absent.code).toBe(1);
    expect(absent.stdout).toContain('failed: runner_error');
  });
});

describe('R-LIFE-02: an AppReveal app opens deep links through open_deeplink', () => {
  it('open_deeplink takes the app to the screen the link names', async () => {
    await reset('login');
    const appReveal = connectionFor(device.appRevealUrl!);
    appReveal.start();
    try {
      await appReveal.waitUntilConnected();
      const { result } = await appReveal.act({ action: 'openLink', url: 'parallax-demo://screen/feed' });
      expect(result).toMatchObject({ success: true, backend: 'appreveal' });
      const frame = await connection.observe({});
      expect(ids(frame).some((id) => id.startsWith('feed.'))).toBe(true);
      const launch = await appReveal.act({ action: 'launch', relaunch: true });
      expect(launch.result).toMatchObject({ success: false, failureReason: 'no_lifecycle_form', requestsSent: 0 });
    } finally {
      await appReveal.close();
    }
  });
});

describe('R-LIFE-04: a trace recorded from launch exports its launch', () => {
  it('Maestro: the relaunch is a plain launchApp (it stops the app first), never clearState', async () => {
    const { code, stdout } = await cli('trace', 'export', fromLaunch, '--maestro');
    expect(code).toBe(0);
    const commands = stdout.split('\n').filter((l) => l.startsWith('- '));
    expect(commands[0]).toBe('- launchApp');
    expect(stdout).not.toContain('clearState');
  });

  it('XCUITest: the relaunch is app.terminate() then app.launch()', async () => {
    const { code, stdout } = await cli('trace', 'export', fromLaunch, '--xcuitest');
    expect(code).toBe(0);
    expect(stdout).toMatch(/app\.terminate\(\)\n\s*app\.launch\(\)/);
  });
});

describe('R-LIFE-05: replays from a known state', () => {
  it('a trace recorded from launch, replayed from Checkout, relaunches first by default and matches every step', async () => {
    await reset('login');
    await showScreen('checkout');
    const { code, stdout } = await cli('trace', 'replay', fromLaunch, '--device', device.runnerUrl, '--json');
    const report = JSON.parse(stdout) as { matched: number; total: number; relaunchedFirst?: { success: boolean } };
    expect(report.relaunchedFirst).toMatchObject({ success: true });
    expect(report).toMatchObject({ matched: 3, total: 3 });
    expect(code).toBe(0);
  }, 60_000);

  it('a trace recorded on Sign In, replayed from Checkout: diverges without relaunch first, matches with it', async () => {
    await reset('login');
    await showScreen('checkout');
    const without = await cli('trace', 'replay', onLogin, '--device', device.runnerUrl, '--json', '--stop-on-divergence');
    expect(without.code).toBe(1);
    expect(JSON.parse(without.stdout)).toMatchObject({ diverged: 1 });
    await showScreen('checkout');
    const withRelaunch = await cli('trace', 'replay', onLogin, '--device', device.runnerUrl, '--relaunch-first');
    expect(withRelaunch.stdout).toContain('relaunched first; 2 of 2 replayed: 2 matched');
    expect(withRelaunch.code).toBe(0);
  }, 60_000);
});
