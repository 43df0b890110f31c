/**
 * A replayed step's accessibility findings against the recording's (docs/rules.md#r-a11y-22): which are
 * new on the replayed screen (a regression), which are gone from it, how many are unchanged, and on which
 * screen both were compared (R-A11Y-20). Each new or gone finding is named by its rule, its severity and
 * the element its fingerprint names. Reported, not judged: the replay's verdict stays the screens' and
 * the outcome's.
 */
import { A11Y_RULES, fingerprintElement, type StepFinding } from '@shared/a11y';
import type { ReplayStep } from '@shared/trace/replay-report';
import { plural } from '@renderer/state/format';

function ruleTitle(rule: string): string {
  return (A11Y_RULES as Record<string, { title: string } | undefined>)[rule]?.title ?? rule;
}

function FindingList({ findings, change }: { findings: StepFinding[]; change: 'new' | 'gone' }) {
  if (findings.length === 0) return null;
  return (
    <ul className={`replay-findings-${change}`} data-testid={`replay-findings-${change}`}>
      {findings.map((f) => (
        <li
          key={f.fingerprint}
          data-testid="replay-finding"
          data-change={change}
          data-rule={f.rule}
          data-severity={f.severity}
          data-fingerprint={f.fingerprint}
        >
          <span className={`a11y-severity severity-${f.severity}`}>{f.severity}</span> {f.rule} {ruleTitle(f.rule)}: {fingerprintElement(f.fingerprint)}
        </li>
      ))}
    </ul>
  );
}

export function ReplayFindings({ a11y }: { a11y: ReplayStep['a11y'] }) {
  if (!a11y) return null;
  const changed = a11y.new.length > 0 || a11y.gone.length > 0;
  return (
    <section
      className="replay-findings"
      data-testid="replay-findings"
      data-screen={a11y.screen}
      data-new={a11y.new.length}
      data-gone={a11y.gone.length}
      data-unchanged={a11y.unchanged}
      data-partial={String(a11y.partial === true)}
    >
      <strong>Accessibility {a11y.screen === 'after' ? 'after' : 'before'} the step, replayed vs recorded:</strong>{' '}
      <span data-testid="replay-findings-summary">
        {a11y.new.length} new, {a11y.gone.length} gone, {plural(a11y.unchanged, 'unchanged finding', 'unchanged findings')}
      </span>
      {a11y.new.length > 0 && (
        <strong role="alert" className="replay-findings-regression">
          {' '}
          · {plural(a11y.new.length, 'finding', 'findings')} the recording did not have
        </strong>
      )}
      {a11y.partial && <span className="muted"> · a side was cut at its cap of findings, so a finding past it is neither new nor gone</span>}
      {changed && (
        <>
          <FindingList findings={a11y.new} change="new" />
          <FindingList findings={a11y.gone} change="gone" />
        </>
      )}
    </section>
  );
}
