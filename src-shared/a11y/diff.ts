/**
 * A step's findings as a recording keeps them, and two of them compared (docs/rules.md#r-a11y-18,
 * #r-a11y-19): which findings are new, gone or unchanged, by fingerprint (rule + element identity,
 * stable across observations of the same screen), so a replay or a comparison shows a regression.
 */
import { z } from 'zod';
import { A11yFindingSchema, A11ySeveritySchema, MAX_A11Y_FINDINGS, type A11yFinding, type AccessibilityAudit } from '@shared/protocol/accessibility';

/** One finding as a step keeps it: enough to say what it is and find it again, not its evidence. */
export const StepFindingSchema = z.object({ fingerprint: z.string().max(2_000), rule: z.string().max(40), severity: A11ySeveritySchema });
export type StepFinding = z.infer<typeof StepFindingSchema>;

/**
 * A step's audit, bounded: the counts of every finding, and at most MAX_A11Y_FINDINGS of them by
 * fingerprint (the audit's own cap). `truncated` says the list is not all of them, so a diff against it
 * never calls an omitted finding gone.
 */
export const StepFindingsSchema = z.object({
  total: z.number().int().nonnegative(),
  bySeverity: z.record(A11ySeveritySchema, z.number().int().nonnegative()),
  findings: z.array(StepFindingSchema).max(MAX_A11Y_FINDINGS),
  truncated: z.boolean().optional(),
});
export type StepFindings = z.infer<typeof StepFindingsSchema>;

/** The audit reduced to what a step keeps. */
export function stepFindings(audit: AccessibilityAudit): StepFindings {
  const findings = audit.violations.map((f) => ({ fingerprint: f.fingerprint, rule: f.rule, severity: f.severity }));
  const out: StepFindings = { total: audit.summary.total, bySeverity: { ...audit.summary.bySeverity }, findings };
  if (audit.truncated || findings.length < audit.summary.total) out.truncated = true;
  return out;
}

export const FindingsDiffSchema = z.object({
  /** On the compared screen, not on the recorded one: a regression. */
  new: z.array(StepFindingSchema),
  /** On the recorded screen, no longer on the compared one: fixed, or the element is gone. */
  gone: z.array(StepFindingSchema),
  unchanged: z.number().int().nonnegative(),
  /** Either side's list was cut at its cap: a finding past it is in neither list. */
  partial: z.boolean().optional(),
});
export type FindingsDiff = z.infer<typeof FindingsDiffSchema>;

/**
 * The findings of a recorded step against those of the replayed (or compared) one. With a side cut at
 * its cap, a finding absent from it may be past the cap: it is then neither new nor gone (`partial`).
 */
export function diffFindings(recorded: StepFindings, compared: StepFindings): FindingsDiff {
  const before = new Set(recorded.findings.map((f) => f.fingerprint));
  const after = new Set(compared.findings.map((f) => f.fingerprint));
  const diff: FindingsDiff = {
    new: recorded.truncated ? [] : unique(compared.findings.filter((f) => !before.has(f.fingerprint))),
    gone: compared.truncated ? [] : unique(recorded.findings.filter((f) => !after.has(f.fingerprint))),
    unchanged: [...after].filter((fp) => before.has(fp)).length,
  };
  if (recorded.truncated || compared.truncated) diff.partial = true;
  return diff;
}

function unique(findings: StepFinding[]): StepFinding[] {
  const seen = new Set<string>();
  return findings.filter((f) => !seen.has(f.fingerprint) && seen.add(f.fingerprint) !== undefined);
}

/** The diff in one line, as a replay note and the CLI say it: "accessibility: 1 new (R-A11Y-03), 2 gone, 5 unchanged". */
export function findingsDiffSummary(diff: FindingsDiff): string {
  const rules = (list: StepFinding[]) => (list.length > 0 ? ` (${[...new Set(list.map((f) => f.rule))].join(', ')})` : '');
  const partial = diff.partial ? '; a side was cut at its cap, so this is partial' : '';
  return `accessibility: ${diff.new.length} new${rules(diff.new)}, ${diff.gone.length} gone${rules(diff.gone)}, ${diff.unchanged} unchanged${partial}`;
}

/**
 * Two audits compared with their findings whole (docs/rules.md#r-a11y-21), for Compare to list what is new,
 * gone or unchanged beside each element: the same fingerprint diff as a replay's (`diffFindings`), each
 * finding taken from the side it is on (a new or unchanged one from the compared audit, so its node key
 * names an element of the compared frame; a gone one from the recorded audit).
 */
export const AuditsDiffSchema = z.object({
  new: z.array(A11yFindingSchema),
  gone: z.array(A11yFindingSchema),
  unchanged: z.array(A11yFindingSchema),
  partial: z.boolean().optional(),
});
export type AuditsDiff = z.infer<typeof AuditsDiffSchema>;

export function diffAudits(recorded: AccessibilityAudit, compared: AccessibilityAudit): AuditsDiff {
  const diff = diffFindings(stepFindings(recorded), stepFindings(compared));
  const firstBy = (audit: AccessibilityAudit) => {
    const out = new Map<string, A11yFinding>();
    for (const f of audit.violations) if (!out.has(f.fingerprint)) out.set(f.fingerprint, f);
    return out;
  };
  const was = firstBy(recorded);
  const now = firstBy(compared);
  const out: AuditsDiff = {
    new: diff.new.map((f) => now.get(f.fingerprint)!),
    gone: diff.gone.map((f) => was.get(f.fingerprint)!),
    unchanged: [...now.values()].filter((f) => was.has(f.fingerprint)),
  };
  if (diff.partial) out.partial = true;
  return out;
}

/** The whole diff reduced to the fingerprint one (for its one-line summary). */
export function auditsDiffFindings(diff: AuditsDiff): FindingsDiff {
  const brief = (f: A11yFinding): StepFinding => ({ fingerprint: f.fingerprint, rule: f.rule, severity: f.severity });
  return { new: diff.new.map(brief), gone: diff.gone.map(brief), unchanged: diff.unchanged.length, ...(diff.partial ? { partial: true } : {}) };
}

/**
 * The element a kept finding names, in words, read back from its fingerprint (`rule|identity`, as
 * `identityOf` makes it): an authored id, `label:…`, or `at:left,top,WxH`. A step keeps no more than that
 * (R-A11Y-19), so a replayed step's new or gone finding is named by it (docs/rules.md#r-a11y-22).
 */
export function fingerprintElement(fingerprint: string): string {
  const bar = fingerprint.indexOf('|');
  const identity = bar < 0 ? fingerprint : fingerprint.slice(bar + 1);
  if (identity.startsWith('label:')) return `“${identity.slice('label:'.length)}”`;
  const at = /^at:(-?\d+(?:\.\d+)?),(-?\d+(?:\.\d+)?),(\d+(?:\.\d+)?)x(\d+(?:\.\d+)?)$/.exec(identity);
  if (at) return `the element at ${at[1]}, ${at[2]} (${at[3]} × ${at[4]} pt)`;
  return identity === '' ? 'an element' : identity;
}
