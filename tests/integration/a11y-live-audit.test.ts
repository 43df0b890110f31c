/**
 * The live panel's audits on the host (docs/rules.md#r-a11y-17, #r-a11y-24) when frames come faster than
 * the audit worker answers: the live view re-reads the tree each second, and on a busy machine one audit
 * can take longer. A device has one audit in the worker at a time (a newer frame asked for meanwhile gets
 * that audit, said to be of its own frame), and an unchanged screen re-read is not audited again: its
 * findings are the new frame's too. Counted in the worker's jobs; nothing timed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Frame } from '@shared/protocol/device';
import type { UiNode } from '@shared/protocol/runner';
import { LiveAudits } from '@main/a11y/live-audit';
import { auditWorkerJobs } from '@main/a11y/off-thread';
import { DeviceProfiles } from '@main/a11y/profiles';
import type { DeviceManager } from '@main/devices/manager';
import { box, screenOf, xctestObservation } from '../support/a11y-frame';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parallax-live-audit-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A frame read at `receivedAt` (its observation stamped then too) of a screen with one unlabelled button `id`. */
function frameOf(id: string, receivedAt: number): Frame {
  const button: UiNode = { className: 'UIButton', role: 'button', 'resource-id': id, clickable: 'true', enabled: 'true', bounds: box(100, 200, 44, 44) };
  const observation = xctestObservation(screenOf([button]), receivedAt, { total: receivedAt % 7 });
  return { deviceId: 'device-1', observation, screenshot: null, receivedAt } as Frame;
}

function audits() {
  let shown: Frame | undefined;
  const manager = { summaryOf: () => ({ url: 'ws://127.0.0.1:1/ws' }), lastFrame: () => shown } as unknown as DeviceManager;
  const live = new LiveAudits(manager, new DeviceProfiles(join(dir, `settings-${Math.random()}.json`)));
  return { live, show: (frame: Frame) => void (shown = frame) };
}

describe('R-A11Y-24: the live audits while frames come faster than the worker answers', () => {
  it('R-A11Y-24: a newer frame asked for while an audit runs gets that audit, of its own frame: one job in the worker', async () => {
    const { live, show } = audits();
    const jobs = auditWorkerJobs();
    show(frameOf('first', 1_000));
    const first = live.audit('device-1');
    show(frameOf('second', 2_000));
    const meanwhile = live.audit('device-1');
    const [a, b2] = await Promise.all([first, meanwhile]);
    expect(auditWorkerJobs() - jobs).toBe(1);
    expect(a.receivedAt).toBe(1_000);
    expect(b2.receivedAt).toBe(1_000);
    expect(b2.audit?.violations.map((f) => f.fingerprint)).toContain('R-A11Y-03|first');
    // Asked again once it answered, the newer frame is audited: its own findings, its own time.
    const next = await live.audit('device-1');
    expect(auditWorkerJobs() - jobs).toBe(2);
    expect(next.receivedAt).toBe(2_000);
    expect(next.audit?.violations.map((f) => f.fingerprint)).toContain('R-A11Y-03|second');
  }, 60_000);

  it('R-A11Y-24: the same screen read again (a new time, new timings) is not audited again, and the findings are the new frame’s', async () => {
    const { live, show } = audits();
    const jobs = auditWorkerJobs();
    show(frameOf('same', 1_000));
    const first = await live.audit('device-1');
    show(frameOf('same', 2_003));
    const again = await live.audit('device-1');
    expect(auditWorkerJobs() - jobs).toBe(1);
    expect(again.receivedAt).toBe(2_003);
    expect(again.audit).toEqual(first.audit);
    // A changed screen is audited.
    show(frameOf('changed', 3_000));
    expect((await live.audit('device-1')).audit?.violations.map((f) => f.fingerprint)).toContain('R-A11Y-03|changed');
    expect(auditWorkerJobs() - jobs).toBe(2);
  }, 60_000);
});
