import { describe, expect, it } from 'vitest';
import { auditsDiffFindings, diffAudits, diffFindings, findingsDiffSummary, stepFindings, type StepFindings } from '@shared/a11y';
import type { AccessibilityAudit, A11yFinding } from '@shared/protocol/accessibility';

const f = (rule: string, who: string, severity: 'error' | 'warning' | 'info' = 'error') => ({ fingerprint: `${rule}|${who}`, rule, severity });
const step = (findings: ReturnType<typeof f>[], truncated?: boolean): StepFindings => ({
  total: findings.length + (truncated ? 10 : 0),
  bySeverity: { error: findings.length, warning: 0, info: 0 },
  findings,
  ...(truncated ? { truncated } : {}),
});

describe('R-A11Y-18: findings of a recorded step against the replayed one, by fingerprint', () => {
  const label = f('R-A11Y-03', 'id:login.submit');
  const small = f('R-A11Y-06', 'label:Help', 'warning');
  const contrast = f('R-A11Y-09', 'label:Terms');
  const cases: { name: string; recorded: StepFindings; compared: StepFindings; new: string[]; gone: string[]; unchanged: number; partial?: boolean }[] = [
    { name: 'the same screen: all unchanged', recorded: step([label, small]), compared: step([small, label]), new: [], gone: [], unchanged: 2 },
    { name: 'a problem added', recorded: step([label]), compared: step([label, contrast]), new: [contrast.fingerprint], gone: [], unchanged: 1 },
    { name: 'a problem fixed', recorded: step([label, small]), compared: step([label]), new: [], gone: [small.fingerprint], unchanged: 1 },
    { name: 'both at once', recorded: step([small]), compared: step([contrast]), new: [contrast.fingerprint], gone: [small.fingerprint], unchanged: 0 },
    { name: 'nothing on either side', recorded: step([]), compared: step([]), new: [], gone: [], unchanged: 0 },
    // The same element under another rule is another finding: a label fixed but the target still small.
    {
      name: 'same element, other rule',
      recorded: step([label]),
      compared: step([f('R-A11Y-06', 'id:login.submit')]),
      new: ['R-A11Y-06|id:login.submit'],
      gone: [label.fingerprint],
      unchanged: 0,
    },
    {
      name: 'a duplicate fingerprint counts once',
      recorded: step([]),
      compared: step([contrast, contrast]),
      new: [contrast.fingerprint],
      gone: [],
      unchanged: 0,
    },
    // A list cut at its cap: what is missing from it may be past the cap, so it is never called new or gone.
    {
      name: 'recorded list cut: nothing new',
      recorded: step([label], true),
      compared: step([label, contrast]),
      new: [],
      gone: [],
      unchanged: 1,
      partial: true,
    },
    { name: 'replayed list cut: nothing gone', recorded: step([label, small]), compared: step([label], true), new: [], gone: [], unchanged: 1, partial: true },
  ];
  it.each(cases)('$name', (c) => {
    const diff = diffFindings(c.recorded, c.compared);
    expect(diff.new.map((x) => x.fingerprint)).toEqual(c.new);
    expect(diff.gone.map((x) => x.fingerprint)).toEqual(c.gone);
    expect(diff.unchanged).toBe(c.unchanged);
    expect(diff.partial).toBe(c.partial);
  });

  it('says it in one line, naming the rules of what is new and gone', () => {
    expect(findingsDiffSummary(diffFindings(step([small, label]), step([label, contrast])))).toBe(
      'accessibility: 1 new (R-A11Y-09), 1 gone (R-A11Y-06), 1 unchanged',
    );
  });
});

describe('R-A11Y-18: what a step keeps of its audit', () => {
  const finding = (fingerprint: string): A11yFinding => ({
    rule: 'R-A11Y-03',
    kind: 'sufficientElementDescription',
    severity: 'error',
    nodeKey: '0.1',
    element: { source: 'xctest' },
    bounds: { left: 0, top: 0, right: 10, bottom: 10 },
    message: 'no label',
    evidence: { label: '' },
    fix: 'give it a label',
    fingerprint,
  });
  const audit = (violations: A11yFinding[], total = violations.length): AccessibilityAudit => ({
    violations,
    summary: {
      total,
      bySeverity: { error: total, warning: 0, info: 0 },
      byKind: { elementDetection: 0, sufficientElementDescription: total, hitRegion: 0, contrast: 0, trait: 0, textClipped: 0 },
      notEvaluated: [],
    },
    ...(total > violations.length ? { truncated: { total, omitted: total - violations.length } } : {}),
  });

  it('keeps fingerprint, rule and severity of each finding and the counts, not the evidence', () => {
    expect(stepFindings(audit([finding('R-A11Y-03|at:0,0,10x10')]))).toEqual({
      total: 1,
      bySeverity: { error: 1, warning: 0, info: 0 },
      findings: [{ fingerprint: 'R-A11Y-03|at:0,0,10x10', rule: 'R-A11Y-03', severity: 'error' }],
    });
  });

  it('marks a capped audit as truncated', () => {
    expect(stepFindings(audit([finding('a')], 600)).truncated).toBe(true);
  });

  // R-A11Y-21: Compare lists the findings whole, each from the side it is on.
  it('R-A11Y-21: two audits compared: new and unchanged from the compared side (its node keys), gone from the recorded one', () => {
    const at = (fingerprint: string, nodeKey: string) => ({ ...finding(fingerprint), nodeKey });
    const recorded = audit([at('kept', '0.1'), at('fixed', '0.2')]);
    const compared = audit([at('kept', '0.0.5'), at('added', '0.3'), at('added', '0.4')]);
    const diff = diffAudits(recorded, compared);
    expect(diff.new.map((f) => [f.fingerprint, f.nodeKey])).toEqual([['added', '0.3']]);
    expect(diff.gone.map((f) => [f.fingerprint, f.nodeKey])).toEqual([['fixed', '0.2']]);
    expect(diff.unchanged.map((f) => [f.fingerprint, f.nodeKey])).toEqual([['kept', '0.0.5']]);
    expect(diff.partial).toBeUndefined();
    expect(findingsDiffSummary(auditsDiffFindings(diff))).toBe('accessibility: 1 new (R-A11Y-03), 1 gone (R-A11Y-03), 1 unchanged');
    // A compared side cut at its cap names nothing gone, and says it is partial.
    const cut = diffAudits(recorded, audit([at('kept', '0.1')], 600));
    expect(cut.gone).toEqual([]);
    expect(cut.partial).toBe(true);
  });
});
