/**
 * The recorder's per-step findings (docs/rules.md#r-a11y-19) are audited in the audit worker, as the live
 * panel's are (docs/rules.md#r-a11y-24): recordActionStep runs on the host's thread, which forwards the live
 * view's frames, so a frame's PNG decode and tree walk are sent to the worker, one job a frame. What the
 * event keeps is what the in-thread audit finds, contrast read from the screenshot included. Nothing timed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stepFindings } from '@shared/a11y';
import { auditFrame } from '@main/a11y/audit-frame';
import { auditWorkerJobs, auditWorkerThreadId } from '@main/a11y/off-thread';
import { openTraceFile } from '@main/trace/open';
import type { ActionResult } from '@shared/protocol/action';
import { TraceRecorder } from '@main/trace/recorder';
import { recordActionStep } from '@main/trace/replay';
import { FAINT, box, labelNode, labelScreenshot, screenOf, xctestObservation } from '../support/a11y-frame';

/** A tap that ran, as the runner reports one. */
const TAPPED: ActionResult = {
  success: true,
  backend: 'xctest',
  warnings: [],
  target: { resolvedBy: 'id', selector: 'save' },
  timings: { total: 5 },
  requestsSent: 1,
};

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parallax-a11y-recorded-'));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A screen with three planted problems: an unlabelled button, a 30 x 30 target, a faint label. */
function frame(buttonId: string) {
  const observation = xctestObservation(
    screenOf([
      { className: 'UIButton', role: 'button', 'resource-id': buttonId, clickable: 'true', enabled: 'true', bounds: box(300, 200, 30, 30) },
      labelNode('Delivery may take longer'),
    ]),
  );
  return { observation, screenshot: { format: 'png' as const, dataBase64: labelScreenshot(FAINT) }, receivedAt: 1 };
}

describe('R-A11Y-24: the recorder’s per-step findings are audited off the host thread', () => {
  it('R-A11Y-24: recordActionStep sends each frame’s audit to the audit worker, and the events keep what the in-thread audit finds', async () => {
    const recorder = await TraceRecorder.start({ dir, manifest: { device: { name: 'Demo', kind: 'demo', url: 'ws://127.0.0.1:1/ws' } } });
    const before = frame('gear.before');
    const after = frame('gear.after');
    const jobs = auditWorkerJobs();
    await recordActionStep(recorder, {
      callId: 'tap_1',
      request: { action: 'tap', target: { id: 'gear.before' } },
      before,
      after,
      result: TAPPED,
    });
    // One job a frame, in a thread that is not this one.
    expect(auditWorkerJobs() - jobs).toBe(2);
    expect(auditWorkerThreadId()).toBeDefined();
    expect(auditWorkerThreadId()).not.toBe(threadId);
    const trace = await openTraceFile(await recorder.stop());
    const step = trace.timeline.find((s) => s.kind === 'action');
    expect(step?.before?.a11y).toEqual(stepFindings(auditFrame(before)!));
    expect(step?.after?.a11y).toEqual(stepFindings(auditFrame(after)!));
    const rules = step?.after?.a11y?.findings.map((f) => f.rule) ?? [];
    // The label-less button, its small target, and the faint label read from the screenshot's pixels.
    expect(rules).toEqual(expect.arrayContaining(['R-A11Y-03', 'R-A11Y-07', 'R-A11Y-09']));
    expect(step?.after?.a11y?.findings.map((f) => f.fingerprint).join(' ')).toContain('gear.after');
  }, 60_000);

  it('R-A11Y-24: a frame that is both a step’s after and the next one’s before is audited once, both events keeping its findings', async () => {
    const recorder = await TraceRecorder.start({ dir, manifest: { device: { name: 'Demo', kind: 'demo', url: 'ws://127.0.0.1:1/ws' } } });
    const [first, shared, last] = [frame('one'), frame('two'), frame('three')];
    const jobs = auditWorkerJobs();
    await recordActionStep(recorder, { callId: 'tap_1', request: { action: 'tap', target: { id: 'one' } }, before: first, after: shared, result: TAPPED });
    await recordActionStep(recorder, { callId: 'tap_2', request: { action: 'tap', target: { id: 'two' } }, before: shared, after: last, result: TAPPED });
    expect(auditWorkerJobs() - jobs).toBe(3);
    const steps = (await openTraceFile(await recorder.stop())).timeline.filter((s) => s.kind === 'action');
    expect(steps[1]?.before?.a11y).toEqual(steps[0]?.after?.a11y);
    expect(steps[1]?.before?.a11y?.findings.map((f) => f.fingerprint).join(' ')).toContain('two');
  }, 60_000);

  it('R-A11Y-19: a step without frames keeps no findings and sends nothing to the worker', async () => {
    const recorder = await TraceRecorder.start({ dir, manifest: { device: { name: 'Demo', kind: 'demo', url: 'ws://127.0.0.1:1/ws' } } });
    const jobs = auditWorkerJobs();
    await recordActionStep(recorder, {
      callId: 'tap_1',
      request: { action: 'tap', target: { id: 'gear' } },
      before: null,
      after: null,
      result: TAPPED,
    });
    expect(auditWorkerJobs()).toBe(jobs);
    const trace = await openTraceFile(await recorder.stop());
    const step = trace.timeline.find((s) => s.kind === 'action');
    expect(step?.after).toBeDefined();
    expect(step?.after?.a11y).toBeUndefined();
  }, 60_000);
});
