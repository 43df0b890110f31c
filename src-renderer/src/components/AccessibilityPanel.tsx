import './AccessibilityPanel.css';
/**
 * The live Accessibility panel (docs/rules.md#r-a11y-17): the host's audit of the shown frame, its
 * findings by severity then kind, each with its rule, what was measured and how to fix it. Picking a
 * finding selects its element (on the screen and in the tree, where its mark is drawn stronger); a finding
 * can be muted on this device (the host keeps it in the device's profile), and a muted one stays listed,
 * marked and counted. Checks that could not run are said, so a missing check never reads as a pass.
 */
import { useMemo } from 'react';
import { A11Y_KIND_LABELS, panelFindings, ruleOf, sourcesLine } from '@shared/a11y';
import type { DeviceSummary, Frame } from '@shared/protocol/device';
import type { A11yFinding } from '@shared/protocol/accessibility';
import { useAccessibility } from '@renderer/state/accessibility';
import { useScopedInspector } from '@renderer/state/inspector-scope';
import { errorMessage, formatTime, plural } from '@renderer/state/format';
import { useMuteFinding, type DeviceAudit } from '@renderer/api/accessibility';
import { FindingsCompare } from './StepFindings';

interface Props {
  device: DeviceSummary | undefined;
  frame: Frame | undefined;
  /** The host's answer for this frame (or the last one while the next is on its way). */
  audit: { data: DeviceAudit | undefined; error: unknown; isFetching: boolean };
}

export function AccessibilityPanel({ device, frame, audit }: Props) {
  const auditing = useAccessibility((s) => s.auditing);
  const setAuditing = useAccessibility((s) => s.setAuditing);
  const data = audit.data;
  const list = useMemo(() => (data?.audit ? panelFindings(data.audit.violations, data.muted) : null), [data]);
  const stale = data && frame && data.receivedAt !== frame.receivedAt;

  return (
    <section className="panel a11y-panel" data-testid="a11y-panel">
      <div className="panel-title">
        Accessibility
        {list && (
          <span className="muted" data-testid="a11y-counts" data-open={list.open} data-muted={list.muted}>
            {plural(list.open, 'finding')}
            {list.muted > 0 ? ` · ${list.muted} muted` : ''}
          </span>
        )}
        <label className="a11y-toggle">
          <input type="checkbox" data-testid="a11y-toggle" checked={auditing} disabled={!device} onChange={(e) => setAuditing(e.target.checked)} /> audit this
          screen
        </label>
      </div>
      <div className="a11y-body">
        {!auditing ? (
          <div className="empty-note">
            Turn the audit on to list what VoiceOver and low-vision users will miss on this screen. The host audits each new frame.
          </div>
        ) : audit.error != null ? (
          <div className="a11y-error" data-testid="a11y-error">
            The audit failed: {errorMessage(audit.error)}
          </div>
        ) : !data ? (
          <div className="empty-note">{frame?.observation ? 'Auditing…' : 'No tree to audit yet.'}</div>
        ) : !data.audit || !list ? (
          <div className="empty-note">This frame has no observation to audit.</div>
        ) : (
          <>
            {stale && (
              <div className="a11y-note" data-testid="a11y-stale">
                {audit.isFetching ? 'Auditing the new frame…' : 'These findings are of the frame received'}{' '}
                {data.receivedAt !== null ? formatTime(data.receivedAt) : ''}; on this one only those whose element is where it was are marked.
              </div>
            )}
            {data.audit.summary.notEvaluated.map((n) => (
              <div key={n.kind} className="a11y-note" data-testid="a11y-not-evaluated" data-kind={n.kind}>
                {A11Y_KIND_LABELS[n.kind]} not evaluated: {n.reason}.
              </div>
            ))}
            {data.audit.truncated && (
              <div className="a11y-note">
                Showing {data.audit.violations.length} of {data.audit.truncated.total} findings, most severe first.
              </div>
            )}
            {list.groups.length === 0 && (
              <div className="empty-note" data-testid="a11y-none">
                No findings on this screen.
              </div>
            )}
            {list.groups.map((group) => (
              <div
                key={`${group.severity}-${group.kind}`}
                className="a11y-group"
                data-testid="a11y-group"
                data-severity={group.severity}
                data-kind={group.kind}
              >
                <div className="a11y-group-title">
                  <span className={`a11y-sev sev-${group.severity}`}>{group.severity}</span> {A11Y_KIND_LABELS[group.kind]}{' '}
                  <span className="muted">
                    {group.findings.length}
                    {group.muted > 0 ? ` (${group.muted} muted)` : ''}
                  </span>
                </div>
                <ul className="a11y-findings">
                  {group.findings.map(({ finding, muted }) => (
                    <FindingRow key={finding.fingerprint + finding.nodeKey} deviceId={device?.id ?? ''} finding={finding} muted={muted} />
                  ))}
                </ul>
              </div>
            ))}
            {device && <LiveCompare device={device} shownAt={frame?.receivedAt} />}
          </>
        )}
      </div>
    </section>
  );
}

/** This device's findings against another connected device's (docs/rules.md#r-a11y-21): what only this one has is pickable here. */
function LiveCompare({ device, shownAt }: { device: DeviceSummary; shownAt: number | undefined }) {
  const focus = useAccessibility((s) => s.focus);
  const selectNode = useScopedInspector((s) => s.selectNode);
  return (
    <FindingsCompare
      source={{ from: 'device', deviceId: device.id }}
      role="compared"
      shownAt={shownAt}
      excludeDeviceId={device.id}
      onFocus={(f) => {
        focus(f.fingerprint);
        selectNode(f.nodeKey);
      }}
    />
  );
}

function FindingRow({ deviceId, finding, muted }: { deviceId: string; finding: A11yFinding; muted: boolean }) {
  const focused = useAccessibility((s) => s.focused === finding.fingerprint);
  const focus = useAccessibility((s) => s.focus);
  const selectNode = useScopedInspector((s) => s.selectNode);
  const selected = useScopedInspector((s) => s.selectedKey === finding.nodeKey);
  const mute = useMuteFinding(deviceId);
  const pick = () => {
    focus(finding.fingerprint);
    selectNode(finding.nodeKey);
  };
  return (
    <li
      className={`a11y-finding${muted ? ' is-muted' : ''}${focused ? ' is-focused' : ''}`}
      data-testid="a11y-finding"
      data-rule={finding.rule}
      data-kind={finding.kind}
      data-severity={finding.severity}
      data-node-key={finding.nodeKey}
      data-fingerprint={finding.fingerprint}
      data-muted={String(muted)}
      data-selected={String(selected)}
    >
      <button type="button" className="a11y-finding-pick" data-testid="a11y-finding-pick" onClick={pick} title={finding.fix}>
        <span className="a11y-rule">{finding.rule}</span>
        {muted && <span className="a11y-muted-tag">muted</span>}
        <span className="a11y-message">{finding.message}</span>
        {finding.colors && (
          <span className="a11y-colors" data-testid="a11y-colors">
            <span className="a11y-swatch" style={{ background: finding.colors.foreground }} /> {finding.colors.foreground} on{' '}
            <span className="a11y-swatch" style={{ background: finding.colors.background }} /> {finding.colors.background}
          </span>
        )}
      </button>
      {focused && <FindingWhy finding={finding} />}
      <button
        type="button"
        className="a11y-mute"
        data-testid="a11y-mute"
        disabled={!deviceId || mute.isPending}
        title={muted ? 'Report this finding again on this device' : 'Mute this finding on this element, on this device (it stays listed, marked muted)'}
        onClick={() => mute.mutate({ fingerprint: finding.fingerprint, muted: !muted })}
      >
        {muted ? 'Unmute' : 'Mute'}
      </button>
      {mute.isError && <div className="a11y-error">Not saved: {errorMessage(mute.error)}</div>}
    </li>
  );
}

/** Beside the picked finding: its rule in plain words, what it stands on (docs/rules.md#r-a11y-23) and the fix. */
function FindingWhy({ finding }: { finding: A11yFinding }) {
  const rule = ruleOf(finding.rule);
  return (
    <div className="a11y-fix" data-testid="a11y-why">
      {rule && (
        <p data-testid="a11y-explanation">
          <strong>{rule.title}.</strong> {rule.explanation}
        </p>
      )}
      <p>Fix: {finding.fix}</p>
      {rule && <p data-testid="a11y-sources">Sources: {sourcesLine(rule)}</p>}
    </div>
  );
}
