/**
 * The audit worker's memory (docs/rules.md#r-a11y-26), in this thread: a screenshot sent again (the same
 * text in a new string, as each message brings) is decoded once, an unchanged live frame (a new time, new
 * timings) is answered with the last audit, and anything changed is decoded or audited again. Counted, not timed.
 */
import { describe, expect, it } from 'vitest';
import { auditFrame } from '@main/a11y/audit-frame';
import { FrameMemory } from '@main/a11y/frame-memory';
import { DARK, FAINT, labelFrame, labelScreenshot } from '../support/a11y-frame';

const contrastOf = (audit: ReturnType<typeof auditFrame>) => audit?.violations.filter((f) => f.kind === 'contrast').map((f) => f.element.label);

describe('R-A11Y-26: the audit worker decodes a screenshot once and audits an unchanged frame once', () => {
  it('R-A11Y-26: the same frame read three times: one decode, one audit, the same findings as without the memory', () => {
    const memory = new FrameMemory();
    const audits = [1_000, 2_003, 3_011].map((now) => memory.auditFrame(labelFrame('Delivery', now, labelScreenshot(FAINT))));
    expect(memory.counts).toEqual({ decoded: 1, pixelsReused: 0, auditsReused: 2 });
    const fresh = auditFrame(labelFrame('Delivery', 3_011, labelScreenshot(FAINT)));
    for (const audit of audits) expect(audit).toEqual(fresh);
    expect(contrastOf(fresh)).toEqual(['Delivery']);
  });

  it('R-A11Y-26: a changed screenshot is decoded again and audited; a changed tree over the same screenshot is audited on the kept pixels', () => {
    const memory = new FrameMemory();
    expect(contrastOf(memory.auditFrame(labelFrame('Delivery', 1_000, labelScreenshot(FAINT))))).toEqual(['Delivery']);
    expect(contrastOf(memory.auditFrame(labelFrame('Delivery', 2_000, labelScreenshot(DARK))))).toEqual([]);
    expect(memory.counts).toEqual({ decoded: 2, pixelsReused: 0, auditsReused: 0 });
    expect(contrastOf(memory.auditFrame(labelFrame('Arrives soon', 3_000, labelScreenshot(DARK))))).toEqual([]);
    expect(memory.counts).toEqual({ decoded: 2, pixelsReused: 1, auditsReused: 0 });
    // No screenshot is not the same frame as one with it: contrast is not evaluated there.
    const bare = memory.auditFrame(labelFrame('Arrives soon', 4_000, null));
    expect(bare?.summary.notEvaluated.map((n) => n.kind)).toContain('contrast');
    expect(memory.counts.auditsReused).toBe(0);
  });

  it('R-A11Y-26: two screenshots are kept, the newest used; a third lets the oldest go', () => {
    const memory = new FrameMemory();
    const [faint, dark] = [labelScreenshot(FAINT), labelScreenshot(DARK)];
    const other = labelScreenshot(0x55);
    // Two devices' frames in turn (the live panel's compare): each decoded once.
    for (const [i, shot] of [faint, dark, faint, dark].entries()) memory.auditFrame(labelFrame(`Row ${i}`, i, shot));
    expect(memory.counts).toEqual({ decoded: 2, pixelsReused: 2, auditsReused: 0 });
    memory.auditFrame(labelFrame('Row 4', 4, other)); // dark and other kept now
    memory.auditFrame(labelFrame('Row 5', 5, dark));
    expect(memory.counts).toEqual({ decoded: 3, pixelsReused: 3, auditsReused: 0 });
    memory.auditFrame(labelFrame('Row 6', 6, faint));
    expect(memory.counts).toEqual({ decoded: 4, pixelsReused: 3, auditsReused: 0 });
  });

  it('R-A11Y-26: a screenshot that does not decode is not kept, and its reason stays in the audit given again', () => {
    const memory = new FrameMemory();
    const broken = 'bm90IGEgUE5H';
    const first = memory.auditFrame(labelFrame('Delivery', 1, broken));
    memory.auditFrame(labelFrame('Arrives soon', 2, broken));
    expect(memory.counts).toEqual({ decoded: 0, pixelsReused: 0, auditsReused: 0 });
    const again = memory.auditFrame(labelFrame('Arrives soon', 3, broken));
    expect(memory.counts.auditsReused).toBe(1);
    expect(again?.summary.notEvaluated.find((n) => n.kind === 'contrast')?.reason).toMatch(/not a PNG/);
    expect(first?.summary.notEvaluated.find((n) => n.kind === 'contrast')?.reason).toMatch(/not a PNG/);
  });
});
