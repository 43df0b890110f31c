/**
 * The audit runs in the audit worker, not on the host's thread (docs/rules.md#r-a11y-24): the live
 * panel's audit of a device's frame and the trace view's of a stored frame. Nothing here is timed: the
 * host's loop is shown free by its turns counted while the worker works (an audit on the caller's thread
 * answers before the loop turns once), and the findings are the same as the in-thread audit's.
 */
import { describe, expect, it } from 'vitest';
import { threadId } from 'node:worker_threads';
import { heavyHierarchy } from '@demo/heavy-recording';
import { auditFrame, auditStoredFrame } from '@main/a11y/audit-frame';
import { auditFrameOffThread, auditStoredFrameOffThread, auditWorkerThreadId } from '@main/a11y/off-thread';
import type { UiNode } from '@shared/protocol/runner';
import { FAINT, labelNode, labelScreenshot, labelScreenshotPng, xctestObservation } from '../support/a11y-frame';

/** The demo's heavy board at 5,000 nodes with one faint label laid over it (a contrast finding to find). */
function heavyFrame() {
  const read = heavyHierarchy(5_000);
  const root = read.hierarchy as UiNode;
  const hierarchy = { ...read, hierarchy: { ...root, node: [...(root.node ?? []), labelNode('Delivery may take longer')] } };
  return { observation: xctestObservation(hierarchy), screenshot: { format: 'png' as const, dataBase64: labelScreenshot(FAINT) }, hierarchy };
}

/** Turns of this thread's event loop until `work` settles. */
async function turnsWhile<T>(work: Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let done = false;
  const tick = () => {
    if (done) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  const value = await work.finally(() => (done = true));
  return { value, turns };
}

describe('R-A11Y-24: the audit off the host thread', () => {
  it("R-A11Y-24: a 5k-node frame with its screenshot is audited in the audit worker, the host's loop turning meanwhile, with the in-thread audit's findings", async () => {
    const frame = heavyFrame();
    const { value: audit, turns } = await turnsWhile(auditFrameOffThread(frame));
    expect(auditWorkerThreadId()).toBeDefined();
    expect(auditWorkerThreadId()).not.toBe(threadId);
    expect(turns).toBeGreaterThan(0);
    const here = auditFrame(frame)!;
    expect(audit?.violations.map((f) => f.fingerprint)).toEqual(here.violations.map((f) => f.fingerprint));
    // The screenshot was decoded there: the faint label's colours were read.
    expect(audit?.summary.notEvaluated.map((n) => n.kind)).not.toContain('contrast');
    const colours = audit?.violations.filter((f) => f.rule === 'R-A11Y-09').map((f) => [f.colors?.foreground, f.colors?.background].sort().join(' on '));
    expect(colours).toContain('#999999 on #ffffff');
    console.log(`a 5k-node frame audited in the worker: ${audit?.summary.total} findings, the host's loop turned ${turns} times meanwhile`);
  });

  it('R-A11Y-24: a stored frame (the ViewHierarchy an action keeps, and its PNG) is audited there as auditStoredFrame audits it', async () => {
    const { hierarchy } = heavyFrame();
    const png = labelScreenshotPng(FAINT);
    const { value: audit, turns } = await turnsWhile(auditStoredFrameOffThread(hierarchy, png));
    expect(turns).toBeGreaterThan(0);
    expect(audit?.violations.map((f) => f.fingerprint)).toEqual(auditStoredFrame(hierarchy, png)?.violations.map((f) => f.fingerprint));
    // The caller's PNG is its own still: what crossed was a copy.
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(await auditStoredFrameOffThread({ unrelated: true }, undefined)).toBeUndefined();
  });

  it('R-A11Y-24: a frame without an observation is not sent: nothing to audit', async () => {
    expect(await auditFrameOffThread({ observation: null, screenshot: null })).toBeUndefined();
  });
});
