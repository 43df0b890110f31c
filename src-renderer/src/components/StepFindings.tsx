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
import type { A11yFrameSource, TraceViewStep } from '@shared/api/api';
import { useApi, useDevices } from '@renderer/api/queries';
import { errorMessage, plural } from '@renderer/state/format';
import { useScopedInspector } from '@renderer/state/inspector-scope';

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
            <FindingsCompare
              source={{ from: 'trace', path, observationRef: refs.observationRef, ...(refs.screenshotRef ? { screenshotRef: refs.screenshotRef } : {}) }}
              role="recorded"
              onFocus={onFocus}
            />
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
  const selected = useScopedInspector((s) => onPick !== undefined && s.selectedKey === finding.nodeKey);
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
 * This frame's findings against a connected device's current screen (docs/rules.md#r-a11y-21): the host
 * audits both and diffs them by fingerprint. As the recorded side (a trace's step), what is gone is on
 * this frame, so picking it selects its element here; as the compared side (the live device, against
 * another one), what is new or unchanged is, while the frame compared is still the one shown.
 */
export function FindingsCompare({
  source,
  role,
  shownAt,
  excludeDeviceId,
  onFocus,
}: {
  source: A11yFrameSource;
  role: 'recorded' | 'compared';
  /** The live frame shown (its receivedAt): a compared side's findings are picked only on the very frame audited. */
  shownAt?: number | undefined;
  excludeDeviceId?: string | undefined;
  onFocus(f: A11yFinding): void;
}) {
  const api = useApi();
  const devices = (useDevices().data ?? []).filter((d) => d.state === 'connected' && d.id !== excludeDeviceId);
  const [chosen, setChosen] = useState<string>('');
  const deviceId = devices.some((d) => d.id === chosen) ? chosen : (devices[0]?.id ?? '');
  const compare = useMutation({
    mutationFn: () => {
      const device = { from: 'device' as const, deviceId };
      return api.call('a11y.compare', role === 'recorded' ? { recorded: source, compared: device } : { recorded: device, compared: source });
    },
  });
  const diff = compare.data?.diff;
  const here = role === 'compared' && compare.data?.compared.receivedAt === shownAt ? onFocus : undefined;
  const groups =
    role === 'recorded'
      ? ([
          ['new', 'New on the device', undefined],
          ['gone', 'Gone from the device', onFocus],
          ['unchanged', 'Unchanged', undefined],
        ] as const)
      : ([
          ['new', 'Only on this device', here],
          ['gone', 'Only on the other device', undefined],
          ['unchanged', 'On both', here],
        ] as const);
  return (
    <div className="step-findings-compare" data-testid="findings-compare">
      <div className="a11y-group-title">{role === 'recorded' ? 'Compare with a device' : 'Compare with another device'}</div>
      {devices.length === 0 ? (
        <div className="empty-note">
          {role === 'recorded'
            ? 'Connect a device to compare its current screen with this recorded one.'
            : 'Connect another device to compare its findings with these.'}
        </div>
      ) : (
        <div className="a11y-note">
          <select data-testid="findings-compare-device" value={deviceId} onChange={(e) => setChosen(e.target.value)}>
            {devices.map((d) => (
              <option key={d.id} value={d.id}>
                {d.name}
              </option>
            ))}
          </select>{' '}
          <button
            type="button"
            className="mini-button"
            data-testid="findings-compare-button"
            disabled={!deviceId || compare.isPending}
            onClick={() => compare.mutate()}
          >
            {compare.isPending ? 'Comparing…' : 'Compare findings'}
          </button>
        </div>
      )}
      {compare.isError && (
        <div className="a11y-error" data-testid="findings-compare-error">
          Compare failed: {errorMessage(compare.error)}
        </div>
      )}
      {diff && (
        <div data-testid="findings-diff" data-new={diff.new.length} data-gone={diff.gone.length} data-unchanged={diff.unchanged.length}>
          <div className="a11y-note" data-testid="findings-diff-summary">
            {findingsDiffSummary(auditsDiffFindings(diff))} (
            {role === 'recorded' ? "the device's screen against this recorded one" : 'this device against the other'})
          </div>
          {groups.map(([status, title, pick]) => {
            const findings = diff[status];
            return findings.length === 0 ? null : (
              <div key={status} className="a11y-group" data-testid="findings-diff-group" data-status={status}>
                <div className="a11y-group-title">
                  {title} <span className="muted">{findings.length}</span>
                </div>
                <ul className="a11y-findings">
                  {findings.map((f) => (
                    <StoredFindingRow key={f.fingerprint} finding={f} focused={false} onPick={pick} testId={`finding-${status}`} />
                  ))}
                </ul>
              </div>
            );
          })}
        </div>
      )}
    </div>
  );
}
