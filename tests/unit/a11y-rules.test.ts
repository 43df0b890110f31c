// The accessibility rules as a reader of a finding meets them (docs/rules.md#r-a11y-23): every rule explains
// itself in plain words and cites what it stands on, and a rule id from elsewhere (a newer trace, a hostile
// one) is no rule.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { A11Y_RULES, ruleOf, sourcesLine } from '@shared/a11y';
import { A11Y_KINDS } from '@shared/protocol/accessibility';

const rules = Object.entries(A11Y_RULES);
const doc = readFileSync(join(import.meta.dirname, '../../docs/rules.md'), 'utf8');

describe('R-A11Y-23 every rule explains itself and cites its sources', () => {
  it.each(rules)('R-A11Y-23: %s has an explanation, a fix, Apple’s HIG, WCAG 2.2, the XCTest audit type of its kind and a row in docs/rules.md', (id, rule) => {
    expect(rule.id).toBe(id);
    expect(A11Y_KINDS).toContain(rule.kind);
    expect(rule.explanation.length).toBeGreaterThan(40);
    expect(rule.fix.length).toBeGreaterThan(20);
    expect(rule.sources.hig).toMatch(/^Apple HIG: /);
    expect(rule.sources.wcag).toMatch(/^WCAG 2\.2 SC \d+\.\d+\.\d+ /);
    expect(rule.sources.xctest).toBe(`XCUIAccessibilityAuditType.${rule.kind}`);
    expect(sourcesLine(rule)).toBe(`${rule.sources.hig}; ${rule.sources.wcag}; ${rule.sources.xctest}`);
    expect(doc).toContain(`<a id="${id.toLowerCase()}"></a>${id} |`);
  });

  it('R-A11Y-23: every kind the audit reports has a rule', () => {
    expect(new Set(rules.map(([, r]) => r.kind))).toEqual(new Set(A11Y_KINDS));
  });

  it('R-A11Y-23: an id that is no rule of this build reads as none, whatever it is named', () => {
    expect(ruleOf('R-A11Y-09')?.kind).toBe('contrast');
    for (const id of ['R-A11Y-99', 'constructor', '__proto__', 'toString', 'hasOwnProperty', '']) expect(ruleOf(id)).toBeUndefined();
  });
});
