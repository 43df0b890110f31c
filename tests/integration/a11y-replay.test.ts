/**
 * A recording keeps each step's accessibility findings, and a replay says which are new, gone or
 * unchanged against them (docs/rules.md#r-a11y-19, #r-a11y-20): recorded through the real recorder on
 * the demo's access screen over its real ports, replayed with `parallax replay --json`, once as it was
 * and once with XCTest unable to read the screen (a real demo fault: VoiceOver then reaches nothing).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoDevice, type DemoDeviceHandle } from '@demo/index';
import { DeviceManager } from '@main/devices/manager';
import { SessionRecording } from '@main/trace/recording';
import { openTraceFile } from '@main/trace/open';
import { runTraceCommand } from '@main/cli/traces';
import { main } from '@main/cli/main';
import type { AccessibilityAudit } from '@shared/protocol/accessibility';
import type { ReplayReport } from '@shared/trace/replay-report';
import { auditWorkerJobs } from '@main/a11y/off-thread';
import { admin } from '../support/demo-admin';
import { watchFrames, type FrameWatch } from '../support/frame-watch';

let demo: DemoDeviceHandle;
let manager: DeviceManager;
let dir: string;
let tracePath: string;

let frames: FrameWatch;
async function reset(faults: string[]): Promise<void> {
  await admin(demo.adminUrl, '/reset', { screen: 'access', faults });
  await frames.until(demo.adminUrl);
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
  frames = watchFrames(manager.connectionOf(deviceId));
  await manager.connectionOf(deviceId).waitUntilConnected(10_000);
  await reset([]);
  await manager.observe(deviceId);
  await recording.start(deviceId);
  await frames.until(demo.adminUrl);
  await manager.act(deviceId, { action: 'tap', target: { id: 'access.visible' } });
  await frames.until(demo.adminUrl);
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
    const jobs = auditWorkerJobs();
    const step = (await replay()).steps[0]!;
    // R-A11Y-24: the replayed frame was audited in the audit worker (the recorded side is the event's a11y).
    expect(auditWorkerJobs() - jobs).toBeGreaterThanOrEqual(1);
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

describe('R-A11Y-14 parallax audit TRACE on a trace the recorder wrote (demo access screen, with its screenshots)', () => {
  async function auditTrace(...extra: string[]): Promise<{ code: number; screens: Array<{ title: string; accessibilityAudit: AccessibilityAudit }> }> {
    const lines: string[] = [];
    const code = await main(['audit', tracePath, '--json', ...extra], { log: (l) => lines.push(l), error: (l) => lines.push(l) });
    return { code, screens: JSON.parse(lines.join('\n')).screens };
  }

  it('audits the action step’s stored before and after frames: the planted problems, the contrast read from the stored screenshot', async () => {
    const { code, screens } = await auditTrace();
    const before = screens.find((s) => s.title.startsWith('Step 1 before: '));
    const after = screens.find((s) => s.title.startsWith('Step 1 after: '));
    expect(before?.title).toMatch(/^Step 1 before: tap .*access\.visible/);
    for (const screen of [before!, after!]) {
      const found = screen.accessibilityAudit.violations.map((f) => f.fingerprint);
      expect(found).toContain('R-A11Y-03|access.gear');
      expect(found).toContain('R-A11Y-07|access.info');
      expect(found.some((f) => f.includes('access.settings'))).toBe(false);
      // R-A11Y-12 offline: the application's frame stands for the screen, so the promo it cuts is found and its wrapping look-alike is not.
      expect(found.filter((f) => f.startsWith('R-A11Y-12|'))).toEqual(['R-A11Y-12|access.promo.clipped']);
      // The stored frame is a ViewHierarchy with no screen size: the application's frame is the screen, so contrast is judged.
      expect(screen.accessibilityAudit.summary.notEvaluated.map((n) => n.kind)).not.toContain('contrast');
      const faint = screen.accessibilityAudit.violations.find((f) => f.rule === 'R-A11Y-09');
      expect(faint?.colors?.background).toBe('#ffffff');
      expect(faint!.colors!.ratio).toBeLessThan(4.5);
    }
    // What the recorder kept for the step is what the offline audit finds in its stored frame.
    const recorded = (await openTraceFile(tracePath)).timeline.find((s) => s.kind === 'action')!.after!.a11y!;
    expect(after!.accessibilityAudit.violations.map((f) => f.fingerprint).sort()).toEqual(recorded.findings.map((f) => f.fingerprint).sort());
    expect(code).toBe(1);
  }, 60_000);

  it('writes the trace’s report, each finding with its crop of the stored screenshot and the selector that finds its element', async () => {
    const md = join(dir, 'trace-report.md');
    const html = join(dir, 'trace-report.html');
    await auditTrace('--report', md);
    await auditTrace('--report', html);
    const mdText = await readFile(md, 'utf8');
    expect(mdText).toMatch(/^## Step 1 before: /m);
    expect(mdText).toMatch(/^## Step 1 after: /m);
    expect(mdText).toContain("selector: `id: 'access\\.info'`");
    expect(mdText).toMatch(/!\[R-A11Y-07 Info\]\(data:image\/png;base64,/);
    const htmlText = await readFile(html, 'utf8');
    expect(htmlText).toMatch(/<h2>Step 1 after: /);
    expect(htmlText).toMatch(/<img alt="R-A11Y-09[^"]*" src="data:image\/png;base64,/);
    expect(htmlText).toContain('<code>id: &#39;access\\.gear&#39;</code>');
  }, 60_000);
});
