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

  it('says nothing for stored JSON that is no screen', () => {
    expect(auditStoredFrame({ unrelated: true }, undefined)).toBeUndefined();
    expect(auditStoredFrame('text', undefined)).toBeUndefined();
  });
});
