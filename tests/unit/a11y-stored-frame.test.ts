import pngjs from 'pngjs';
import { describe, expect, it } from 'vitest';
import { auditStoredFrame } from '@main/a11y/audit-frame';
import type { UiNode } from '@shared/protocol/runner';

const b = (left: number, top: number, w: number, h: number) => ({ left, top, right: left + w, bottom: top + h });
// A button with no label (R-A11Y-03) beside one labelled "Settings": the access screen's pair in miniature.
const root: UiNode = {
  className: 'XCUIApplication',
  text: 'App',
  bounds: b(0, 0, 402, 874),
  node: [
    { className: 'UIButton', role: 'button', 'resource-id': 'access.gear', bounds: b(20, 100, 60, 60) },
    { className: 'UIButton', role: 'button', 'resource-id': 'access.settings', 'content-desc': 'Settings', bounds: b(100, 100, 60, 60) },
  ],
};

describe('R-A11Y-20: a stored frame audited offline (a trace recorded before findings were kept)', () => {
  it('audits the ViewHierarchy an action step stores', () => {
    const audit = auditStoredFrame({ hierarchy: root }, undefined);
    const fingerprints = audit?.violations.map((f) => f.fingerprint) ?? [];
    expect(fingerprints).toContain('R-A11Y-03|access.gear');
    expect(fingerprints.some((f) => f.includes('access.settings'))).toBe(false);
  });

  it('judges a ViewHierarchy on the application’s frame as the screen, so the contrast of its stored screenshot is read', () => {
    // The screenshot at 1x: white, with grey strokes inside the label's frame (#999999 on white: 2.85:1).
    const png = new pngjs.PNG({ width: 402, height: 874 });
    png.data.fill(0xff);
    for (let y = 106; y < 114; y++)
      for (let x = 30; x < 200; x++) {
        const at = (y * 402 + x) * 4;
        png.data[at] = png.data[at + 1] = png.data[at + 2] = 0x99;
      }
    const faint: UiNode = {
      ...root,
      node: [...root.node!, { className: 'UILabel', role: 'text', text: 'Delivery may take longer', bounds: b(20, 100, 200, 20) }],
    };
    const audit = auditStoredFrame({ hierarchy: faint }, pngjs.PNG.sync.write(png));
    expect(audit?.summary.notEvaluated.map((n) => n.kind)).not.toContain('contrast');
    expect(audit?.violations.find((f) => f.rule === 'R-A11Y-09')?.colors).toMatchObject({ foreground: '#999999', background: '#ffffff' });
  });

  it('says nothing for stored JSON that is no screen', () => {
    expect(auditStoredFrame({ unrelated: true }, undefined)).toBeUndefined();
    expect(auditStoredFrame('text', undefined)).toBeUndefined();
  });
});
