import './AccessibilityPanel.css';
/**
 * A trace step's accessibility findings, offline (docs/rules.md#r-a11y-21): the host audits the frame the
 * trace stored for the shown side (before or after the step), no device needed; the findings are listed by
 * severity then kind, picking one selects its element on the frame and in the tree. "Compare with" a
 * connected device audits that device's current screen and says which findings are new there, gone from
 * it, or unchanged against the recording, so a regression shows.
 */
import { useMutation, useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { A11Y_KIND_LABELS, auditsDiffFindings, findingsDiffSummary, panelFindings } from '@shared/a11y';
import type { A11yFinding } from '@shared/protocol/accessibility';
import type { TraceViewStep } from '@shared/api/api';
import { useApi, useDevices } from '@renderer/api/queries';
import { errorMessage, plural } from '@renderer/state/format';
import { useInspector } from '@renderer/state/store';

type Refs = TraceViewStep['before'];

/** The host's audit of a stored frame; a frame is named by its content, so it is asked for once. */
export function useStoredFrameAudit(path: string, refs: Refs) {
  const api = useApi();
  const observationRef = refs?.observationRef;
  const screenshotRef = refs?.screenshotRef;
  return useQuery({
    queryKey: ['trace-audit', path, observationRef, screenshotRef],
    queryFn: () => api.call('trace.audit', { path, observationRef: observationRef!, ...(screenshotRef ? { screenshotRef } : {}) }),
    enabled: observationRef !== undefined,
    staleTime: Infinity,
    retry: false,
  });
}

interface Props {
  path: string;
  /** The frame shown (the step's before or after), whose findings these are. */
  refs: Refs;
  side: 'before' | 'after';
  audit: ReturnType<typeof useStoredFrameAudit>;
  focused: string | null;
  onFocus(finding: A11yFinding): void;
}

export function StepFindings({ path, refs, side, audit, focused, onFocus }: Props) {
  const data = audit.data?.audit;
  const list = useMemo(() => (data ? panelFindings(data.violations, []) : null), [data]);
  return (
    <section className="panel a11y-panel step-findings" data-testid="step-findings" data-side={side}>
      <div className="panel-title">
        Accessibility · {side}
        {list && (
          <span className="muted" data-testid="step-findings-count" data-total={data!.summary.total}>
            {plural(data!.summary.total, 'finding')}
          </span>
        )}
      </div>
      <div className="a11y-body">
        {!refs?.observationRef ? (
          <div className="empty-note">The trace kept no screen {side} this step.</div>
        ) : audit.error != null ? (
          <div className="a11y-error" data-testid="step-findings-error">
            The audit failed: {errorMessage(audit.error)}
          </div>
        ) : !audit.data ? (
          <div className="empty-note">Auditing the recorded screen…</div>
        ) : !data || !list ? (
          <div className="empty-note">The stored frame is not a screen to audit.</div>
        ) : (
          <>
            {data.summary.notEvaluated.map((n) => (
              <div key={n.kind} className="a11y-note" data-testid="a11y-not-evaluated" data-kind={n.kind}>
                {A11Y_KIND_LABELS[n.kind]} not evaluated: {n.reason}.
              </div>
            ))}
            {data.truncated && (
              <div className="a11y-note">
                Showing {data.violations.length} of {data.truncated.total} findings, most severe first.
              </div>
            )}
            {list.groups.length === 0 && <div className="empty-note">No findings on this screen.</div>}
            {list.groups.map((group) => (
              <div key={`${group.severity}-${group.kind}`} className="a11y-group" data-severity={group.severity} data-kind={group.kind}>
                <div className="a11y-group-title">
                  <span className={`a11y-sev sev-${group.severity}`}>{group.severity}</span> {A11Y_KIND_LABELS[group.kind]}{' '}
                  <span className="muted">{group.findings.length}</span>
                </div>
                <ul className="a11y-findings">
                  {group.findings.map(({ finding }) => (
                    <StoredFindingRow
                      key={finding.fingerprint + finding.nodeKey}
                      finding={finding}
                      focused={focused === finding.fingerprint}
                      onPick={onFocus}
                    />
                  ))}
                </ul>
              </div>
            ))}
            <CompareWithDevice path={path} refs={refs} onFocus={onFocus} />
          </>
        )}
      </div>
    </section>
  );
}

/** A finding of the stored frame: picking it selects its element there. `pick` absent: its element is on another frame. */
function StoredFindingRow({
  finding,
  focused,
  onPick,
  testId = 'step-finding',
}: {
  finding: A11yFinding;
  focused: boolean;
  onPick?: ((f: A11yFinding) => void) | undefined;
  testId?: string;
}) {
  const selected = useInspector((s) => onPick !== undefined && s.selectedKey === finding.nodeKey);
  const body = (
    <>
      <span className="a11y-rule">{finding.rule}</span>
      <span className="a11y-message">{finding.message}</span>
      {finding.colors && (
        <span className="a11y-colors">
          <span className="a11y-swatch" style={{ background: finding.colors.foreground }} /> {finding.colors.foreground} on{' '}
          <span className="a11y-swatch" style={{ background: finding.colors.background }} /> {finding.colors.background}
        </span>
      )}
    </>
  );
  return (
    <li
      className={`a11y-finding${focused ? ' is-focused' : ''}`}
      data-testid={testId}
      data-rule={finding.rule}
      data-severity={finding.severity}
      data-node-key={finding.nodeKey}
      data-fingerprint={finding.fingerprint}
      data-selected={String(selected)}
    >
      {onPick ? (
        <button type="button" className="a11y-finding-pick" data-testid="step-finding-pick" onClick={() => onPick(finding)} title={finding.fix}>
          {body}
        </button>
      ) : (
        <span className="a11y-finding-pick" title={finding.fix}>
          {body}
        </span>
      )}
      {focused && <div className="a11y-fix">Fix: {finding.fix}</div>}
    </li>
  );
}

/**
 * The recorded frame's findings against a connected device's current screen (docs/rules.md#r-a11y-21): the
 * host audits both and diffs them by fingerprint. A gone finding is on the recorded frame, so picking it
 * selects its element here; a new one is on the device's screen, not this frame.
 */
function CompareWithDevice({ path, refs, onFocus }: { path: string; refs: Refs; onFocus(f: A11yFinding): void }) {
  const api = useApi();
  const devices = (useDevices().data ?? []).filter((d) => d.state === 'connected');
  const [chosen, setChosen] = useState<string>('');
  const deviceId = devices.some((d) => d.id === chosen) ? chosen : (devices[0]?.id ?? '');
  const compare = useMutation({
    mutationFn: () =>
      api.call('a11y.compare', {
        recorded: { from: 'trace', path, observationRef: refs!.observationRef!, ...(refs?.screenshotRef ? { screenshotRef: refs.screenshotRef } : {}) },
        compared: { from: 'device', deviceId },
      }),
  });
  const diff = compare.data?.diff;
  return (
    <div className="step-findings-compare" data-testid="step-findings-compare">
      <div className="a11y-group-title">Compare with a device</div>
      {devices.length === 0 ? (
        <div className="empty-note">Connect a device to compare its current screen with this recorded one.</div>
      ) : (
        <div className="a11y-note">
          <select data-testid="step-findings-device" value={deviceId} onChange={(e) => setChosen(e.target.value)}>
            {devices.map((d) => (
              <option key={d.id} value={d.id}>
                {d.name}
              </option>
            ))}
          </select>{' '}
          <button
            type="button"
            className="mini-button"
            data-testid="step-findings-compare-button"
            disabled={!deviceId || compare.isPending}
            onClick={() => compare.mutate()}
          >
            {compare.isPending ? 'Comparing…' : 'Compare findings'}
          </button>
        </div>
      )}
      {compare.isError && (
        <div className="a11y-error" data-testid="step-findings-compare-error">
          Compare failed: {errorMessage(compare.error)}
        </div>
      )}
      {diff && (
        <div data-testid="step-findings-diff" data-new={diff.new.length} data-gone={diff.gone.length} data-unchanged={diff.unchanged.length}>
          <div className="a11y-note" data-testid="step-findings-diff-summary">
            {findingsDiffSummary(auditsDiffFindings(diff))} (the device's screen against this recorded one)
          </div>
          {(
            [
              ['new', 'New on the device', diff.new, undefined],
              ['gone', 'Gone from the device', diff.gone, onFocus],
              ['unchanged', 'Unchanged', diff.unchanged, undefined],
            ] as const
          ).map(([status, title, findings, pick]) =>
            findings.length === 0 ? null : (
              <div key={status} className="a11y-group" data-testid="step-findings-diff-group" data-status={status}>
                <div className="a11y-group-title">
                  {title} <span className="muted">{findings.length}</span>
                </div>
                <ul className="a11y-findings">
                  {findings.map((f) => (
                    <StoredFindingRow key={f.fingerprint} finding={f} focused={false} onPick={pick} testId={`step-finding-${status}`} />
                  ))}
                </ul>
              </div>
            ),
          )}
        </div>
      )}
    </div>
  );
}
