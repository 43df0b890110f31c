/**
 * The Accessibility panel's findings marked where they are on the screen (docs/rules.md#r-a11y-17): an
 * outline per finding's element, coloured by severity, dashed when muted, drawn stronger for the finding
 * picked in the panel. Marks never take a click: a click on the screen still picks what is under it.
 */
import { memo } from 'react';
import type { Rect } from '@shared/model/node';
import type { A11yFinding, A11ySeverity } from '@shared/protocol/accessibility';
import { boundsOf } from '@shared/model/node';
import type { NodeKey, TreeIndex } from '@shared/model/tree';
import type { DeviceAudit } from '@renderer/api/accessibility';

export interface FindingMark {
  fingerprint: string;
  nodeKey: NodeKey;
  rule: string;
  severity: A11ySeverity;
  muted: boolean;
  focused: boolean;
  rect: Rect;
}

/**
 * The marks of an audit of the shown frame. The host audits off its thread (docs/rules.md#r-a11y-24), so
 * on a busy machine the next frame can come before an audit's answer: of an older frame's audit, only the
 * findings whose element is still where it was are marked (the node at its key, with the same frame),
 * since a node key of another frame may name another element.
 */
export function findingMarks(audit: DeviceAudit | undefined, receivedAt: number | undefined, focused: string | null, shown?: TreeIndex): FindingMark[] {
  if (!audit?.audit || audit.receivedAt === null) return [];
  const marks = auditMarks(audit.audit.violations, audit.muted, focused);
  if (audit.receivedAt === receivedAt) return marks;
  if (!shown) return [];
  return marks.filter((m) => {
    const flat = shown.byKey.get(m.nodeKey);
    const r = flat ? boundsOf(flat.node) : null;
    return r !== null && r.left === m.rect.left && r.top === m.rect.top && r.right === m.rect.right && r.bottom === m.rect.bottom;
  });
}

/** A mark per finding of the frame they were found on (the trace view's stored frame, the live panel's shown one). */
export function auditMarks(violations: readonly A11yFinding[], mutedFingerprints: readonly string[], focused: string | null): FindingMark[] {
  const muted = new Set(mutedFingerprints);
  return violations.map((f) => ({
    fingerprint: f.fingerprint,
    nodeKey: f.nodeKey,
    rule: f.rule,
    severity: f.severity,
    muted: muted.has(f.fingerprint),
    focused: f.fingerprint === focused,
    rect: f.bounds,
  }));
}

/** The most severe open finding per node (muted ones count only where nothing else is open), for the tree's rows. */
export function findingsByNode(marks: readonly FindingMark[]): ReadonlyMap<NodeKey, { severity: A11ySeverity; muted: boolean }> {
  const order: A11ySeverity[] = ['error', 'warning', 'info'];
  const out = new Map<NodeKey, { severity: A11ySeverity; muted: boolean }>();
  for (const m of marks) {
    const had = out.get(m.nodeKey);
    const better = !had || (had.muted && !m.muted) || (had.muted === m.muted && order.indexOf(m.severity) < order.indexOf(had.severity));
    if (better) out.set(m.nodeKey, { severity: m.severity, muted: m.muted });
  }
  return out;
}

export const FindingLayer = memo(function FindingLayer({
  marks,
  place,
}: {
  marks: readonly FindingMark[];
  place: (r: Rect) => { left: number; top: number; width: number; height: number };
}) {
  return (
    <>
      {marks.map((m) => (
        <div
          key={`${m.fingerprint}|${m.nodeKey}`}
          data-testid="a11y-mark"
          data-fingerprint={m.fingerprint}
          data-node-key={m.nodeKey}
          data-rule={m.rule}
          data-severity={m.severity}
          data-muted={String(m.muted)}
          data-focused={String(m.focused)}
          className={`a11y-mark sev-${m.severity}${m.muted ? ' is-muted' : ''}${m.focused ? ' is-focused' : ''}`}
          style={place(m.rect)}
          title={`${m.rule}${m.muted ? ' (muted)' : ''}`}
        />
      ))}
    </>
  );
});
