/**
 * A step's findings as a recording keeps them, and two of them compared (docs/rules.md#r-a11y-18,
 * #r-a11y-19): which findings are new, gone or unchanged, by fingerprint (rule + element identity,
 * stable across observations of the same screen), so a replay or a comparison shows a regression.
 */
import { z } from 'zod';
import { A11ySeveritySchema, MAX_A11Y_FINDINGS, type AccessibilityAudit } from '@shared/protocol/accessibility';

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
