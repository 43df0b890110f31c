/**
 * The audit worker's memory through the worker itself (docs/rules.md#r-a11y-26): live frames sent as the
 * host sends them (`auditFrameOffThread`, each its own message, so each screenshot a new string in the
 * worker) and a stored frame (`auditStoredFrameOffThread`, its PNG's bytes moved). Counted from the
 * worker's answers (`auditWorkerMemory`), not timed.
 */
import { describe, expect, it } from 'vitest';
import { auditFrameOffThread, auditStoredFrameOffThread, auditWorkerMemory } from '@main/a11y/off-thread';
import { DARK, FAINT, labelFrame, labelScreenshot } from '../support/a11y-frame';

/** The worker's counts now, less those at `from` (the same thread: a new one would start from nothing). */
function since(from: NonNullable<ReturnType<typeof auditWorkerMemory>>) {
  const now = auditWorkerMemory()!;
  expect(now.threadId).toBe(from.threadId);
  return { decoded: now.decoded - from.decoded, pixelsReused: now.pixelsReused - from.pixelsReused, auditsReused: now.auditsReused - from.auditsReused };
}

describe('R-A11Y-26: the audit worker decodes a screenshot sent again once', () => {
  it('R-A11Y-26: an unchanged live frame sent three times is decoded and audited once; a changed screenshot is decoded again', async () => {
    await auditFrameOffThread(labelFrame('Warm-up', 1, null));
    const from = auditWorkerMemory()!;
    const answers = [];
    for (const now of [1_000, 2_000, 3_000]) answers.push(await auditFrameOffThread(labelFrame('Delivery', now, labelScreenshot(FAINT))));
    expect(since(from)).toEqual({ decoded: 1, pixelsReused: 0, auditsReused: 2 });
    for (const audit of answers) expect(audit?.violations.filter((f) => f.kind === 'contrast').map((f) => f.element.label)).toEqual(['Delivery']);
    const changed = await auditFrameOffThread(labelFrame('Delivery', 4_000, labelScreenshot(DARK)));
    expect(since(from)).toEqual({ decoded: 2, pixelsReused: 0, auditsReused: 2 });
    expect(changed?.violations.filter((f) => f.kind === 'contrast')).toEqual([]);
    // The tree changed, the screenshot did not: audited again, on the pixels kept.
    await auditFrameOffThread(labelFrame('Arrives soon', 5_000, labelScreenshot(DARK)));
    expect(since(from)).toEqual({ decoded: 2, pixelsReused: 1, auditsReused: 2 });
  }, 60_000);

  it('R-A11Y-26: a stored frame whose screenshot the worker holds uses the kept pixels', async () => {
    const shot = labelScreenshot(FAINT);
    const { observation } = labelFrame('Stored', 1, null);
    await auditFrameOffThread(labelFrame('Live', 1, shot));
    const from = auditWorkerMemory()!;
    const audit = await auditStoredFrameOffThread(observation, Buffer.from(shot, 'base64'));
    expect(since(from)).toEqual({ decoded: 0, pixelsReused: 1, auditsReused: 0 });
    expect(audit?.violations.filter((f) => f.kind === 'contrast').map((f) => f.element.label)).toEqual(['Stored']);
  }, 60_000);
});
