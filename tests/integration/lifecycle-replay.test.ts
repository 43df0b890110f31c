/**
 * Recordings made after a cold relaunch, replayed with "relaunch first" (docs/rules.md#r-life-01,
 * #r-life-05), on the demo device over its real ports, several times over so an intermittent failure
 * shows: the relaunch answers once the app's first screen is the device's current frame, and every
 * step of a recording made from launch matches when it is replayed from another screen.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flattenTree } from '@shared/model/tree';
import type { ObservedFrame } from '@shared/protocol/device';
import { startDemoDevice, type DemoDeviceHandle } from '@demo/index';
import { DeviceManager } from '@main/devices/manager';
import { SessionRecording } from '@main/trace/recording';
import { openTraceFile } from '@main/trace/open';
import { replayTrace } from '@main/trace/replay';
import { admin, type DemoStats } from '../support/demo-admin';
import { watchFrames, type FrameWatch } from '../support/frame-watch';
import { recordCase, REPLAY_CASES, resetApp, SECRET_VALUE } from '../support/replay-cases';

const ROUNDS = 3;
let dir: string;
let demo: DemoDeviceHandle;
let manager: DeviceManager;
let recording: SessionRecording;
let deviceId: string;
let frames: FrameWatch;

const contextOf = (frame: ObservedFrame | null | undefined) => frame?.hierarchyFrameContext ?? frame?.observation?.frameContext;
const ids = (frame: ObservedFrame | null | undefined) => {
  const root = frame?.observation?.viewHierarchy?.hierarchy;
  return root ? flattenTree(root).map((f) => f.node['resource-id'] ?? '') : [];
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parallax-lifecycle-replay-'));
  demo = await startDemoDevice({ port: 0, appReveal: false });
  manager = new DeviceManager();
  recording = new SessionRecording(manager, { dir, version: 'test' });
  deviceId = manager.connect(demo.runnerUrl, { kind: 'demo', name: 'Demo' }).id;
  frames = watchFrames(manager.connectionOf(deviceId));
  await manager.connectionOf(deviceId).waitUntilConnected(10_000);
}, 60_000);

afterAll(async () => {
  await recording?.close();
  await manager?.closeAll();
  await demo?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('R-LIFE-01, R-LIFE-05: a cold relaunch, then replays of what was recorded after it', () => {
  it(`R-LIFE-01: a relaunch from Checkout answers with Sign In as the device's current frame, its frame context moved (${ROUNDS} times)`, async () => {
    for (let round = 1; round <= ROUNDS; round++) {
      await resetApp(demo.adminUrl, 'checkout', [], [], frames);
      const onCheckout = await manager.observe(deviceId);
      const step = await manager.act(deviceId, { action: 'launch', relaunch: true });
      const stats = await admin<DemoStats>(demo.adminUrl, '/stats');
      const seen = { round, success: step.result.success, signIn: ids(step.after).includes('login.submit') };
      expect(seen).toEqual({ round, success: true, signIn: true });
      // Not the screen before the relaunch, and nothing newer on the device than what the answer showed.
      expect(contextOf(step.after)).not.toBe(contextOf(onCheckout));
      expect({ round, context: contextOf(step.after), settling: stats.settling }).toEqual({ round, context: stats.frameContext, settling: false });
    }
  }, 120_000);

  const feedB = REPLAY_CASES.find((c) => c.name === 'feed-B')!;
  it(`R-LIFE-05: ${feedB.name} recorded from launch (relaunch, the Feed tab, its steps), replayed from Checkout with relaunch first: every step matches (${ROUNDS} rounds)`, async () => {
    for (let round = 1; round <= ROUNDS; round++) {
      const path = await recordCase({ manager, recording, deviceId, adminUrl: demo.adminUrl }, feedB, [], { fromLaunch: true });
      await resetApp(demo.adminUrl, 'checkout', [], [], frames);
      const report = await replayTrace(await openTraceFile(path), manager.connectionOf(deviceId), {
        stopOnDivergence: false,
        relaunchFirst: {},
        variables: new Map([['LOGIN_PASSWORD', SECRET_VALUE]]),
      });
      // Each step named with what differed, so a failing round says where and why.
      const steps = report.steps.map((s) => `${s.number} ${s.verdict}${s.differences.length > 0 ? `: ${s.differences.join('; ')}` : ''}`);
      expect({ round, relaunchedFirst: report.relaunchedFirst?.success, steps }).toEqual({
        round,
        relaunchedFirst: true,
        steps: report.steps.map((s) => `${s.number} matched`),
      });
      expect(report.steps).toHaveLength(feedB.steps.length + 2);
    }
  }, 600_000);
});
