/**
 * A recording keeps each step's accessibility findings, and a replay says which are new, gone or
 * unchanged against them (docs/rules.md#r-a11y-19, #r-a11y-20): recorded through the real recorder on
 * the demo's access screen over its real ports, replayed with `parallax replay --json`, once as it was
 * and once with XCTest unable to read the screen (a real demo fault: VoiceOver then reaches nothing).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoDevice, type DemoDeviceHandle } from '@demo/index';
import { DeviceManager } from '@main/devices/manager';
import { SessionRecording } from '@main/trace/recording';
import { openTraceFile } from '@main/trace/open';
import { runTraceCommand } from '@main/cli/traces';
import type { ReplayReport } from '@shared/trace/replay-report';
import { admin } from '../support/demo-admin';

let demo: DemoDeviceHandle;
let manager: DeviceManager;
let dir: string;
let tracePath: string;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function reset(faults: string[]): Promise<void> {
  await admin(demo.adminUrl, '/reset', { screen: 'access', faults });
  await sleep(600);
}

async function replay(): Promise<ReplayReport> {
  const out: string[] = [];
  await runTraceCommand('replay', [tracePath, '--device', demo.runnerUrl, '--json'], { log: (l) => out.push(l), error: () => {} });
  return JSON.parse(out.join('\n')) as ReplayReport;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parallax-a11y-replay-'));
  demo = await startDemoDevice({ port: 0, appReveal: false });
  manager = new DeviceManager();
  const recording = new SessionRecording(manager, { dir, version: 'test' });
  const deviceId = manager.connect(demo.runnerUrl, { kind: 'demo', name: 'Demo' }).id;
  await manager.connectionOf(deviceId).waitUntilConnected(10_000);
  await reset([]);
  await manager.observe(deviceId);
  await recording.start(deviceId);
  await sleep(400);
  await manager.act(deviceId, { action: 'tap', target: { id: 'access.visible' } });
  await sleep(300);
  tracePath = (await recording.stop()).lastTrace!;
}, 180_000);

afterAll(async () => {
  await demo?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('R-A11Y-19/R-A11Y-20: findings recorded per step and compared on replay (demo access screen)', () => {
  it('R-A11Y-19: the recording keeps the step’s findings: counts and fingerprints of the planted problems', async () => {
    const trace = await openTraceFile(tracePath);
    const a11y = trace.timeline.find((s) => s.kind === 'action')?.after?.a11y;
    expect(a11y?.total).toBeGreaterThan(5);
    expect(a11y?.findings.map((f) => f.fingerprint)).toContain('R-A11Y-03|access.gear');
    expect(a11y?.findings.some((f) => f.fingerprint.includes('access.settings'))).toBe(false);
  }, 60_000);

  it('R-A11Y-20: replayed on the same screen, every finding is unchanged and none new or gone', async () => {
    await reset([]);
    const step = (await replay()).steps[0]!;
    expect(step.a11y).toMatchObject({ new: [], gone: [] });
    expect(step.a11y!.unchanged).toBeGreaterThan(5);
    expect(step.notes.join('\n')).not.toMatch(/accessibility:/);
  }, 120_000);

  it('R-A11Y-20: replayed where XCTest cannot read the screen, the report names the new finding', async () => {
    await reset(['xctest-sparse']);
    const step = (await replay()).steps[0]!;
    expect(step.a11y?.new.map((f) => f.rule)).toContain('R-A11Y-02');
    expect(step.notes.join('\n')).toMatch(/accessibility: \d+ new \([^)]*R-A11Y-02/);
  }, 120_000);
});
