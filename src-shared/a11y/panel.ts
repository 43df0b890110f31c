/**
 * What the Accessibility panel lists (docs/rules.md#r-a11y-17): a screen's findings by severity, then by
 * kind, each with whether the user muted it on this device. A muted finding stays in its group, marked and
 * counted: a mute never hides that the problem is there.
 */
import type { A11yFinding, A11yKind, A11ySeverity } from '@shared/protocol/accessibility';
import { A11Y_KINDS, A11Y_SEVERITIES } from '@shared/protocol/accessibility';

export interface PanelFinding {
  finding: A11yFinding;
  muted: boolean;
}

export interface PanelGroup {
  severity: A11ySeverity;
  kind: A11yKind;
  findings: PanelFinding[];
  /** Of `findings`, how many are muted. */
  muted: number;
}

export interface PanelFindings {
  groups: PanelGroup[];
  /** Findings not muted (what still needs work), and muted ones. */
  open: number;
  muted: number;
  /** Per severity, the findings not muted. */
  openBySeverity: Record<A11ySeverity, number>;
}

/**
 * The findings in groups, most severe first, kinds in the audit's order; within a group the ones still
 * open first, each in the audit's own order.
 */
export function panelFindings(violations: readonly A11yFinding[], muted: Iterable<string>): PanelFindings {
  const mutedSet = new Set(muted);
  const groups = new Map<string, PanelGroup>();
  const openBySeverity = Object.fromEntries(A11Y_SEVERITIES.map((s) => [s, 0])) as Record<A11ySeverity, number>;
  let open = 0;
  let mutedCount = 0;
  for (const finding of violations) {
    const isMuted = mutedSet.has(finding.fingerprint);
    const key = `${finding.severity}|${finding.kind}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { severity: finding.severity, kind: finding.kind, findings: [], muted: 0 }));
    group.findings.push({ finding, muted: isMuted });
    if (isMuted) {
      group.muted++;
      mutedCount++;
    } else {
      open++;
      openBySeverity[finding.severity]++;
    }
  }
  const rank = (g: PanelGroup) => A11Y_SEVERITIES.indexOf(g.severity) * A11Y_KINDS.length + A11Y_KINDS.indexOf(g.kind);
  const sorted = [...groups.values()].sort((a, b) => rank(a) - rank(b));
  // A stable sort: the open ones first, each side in the audit's order.
  for (const group of sorted) group.findings.sort((a, b) => Number(a.muted) - Number(b.muted));
  return { groups: sorted, open, muted: mutedCount, openBySeverity };
}

/** Plain-language names of the kinds (XCUIAccessibilityAuditType members), for the panel's group titles. */
export const A11Y_KIND_LABELS: Record<A11yKind, string> = {
  elementDetection: 'Element detection',
  sufficientElementDescription: 'Description',
  hitRegion: 'Hit region',
  contrast: 'Contrast',
  trait: 'Traits',
  textClipped: 'Clipped text',
};
