import { visibleText } from '@shared/model/visible-text';
import './Attributes.css';
/**
 * The selected node's attributes, one row each: first in iOS terms (identifier, label, value, type,
 * frame in points) with the wire name beside each, then what the runner reported and what the
 * inspector's merge added (bridge and web identities, redaction), all shown exactly as sent.
 */
import { useMemo } from 'react';
import { appRevealIdSource, iosAttributes, isOcrNode, nodeAttributes, SOURCE_LABELS } from '@shared/inspect';
import { useScopedInspector } from '@renderer/state/inspector-scope';
import { nodeSource } from '@shared/model/node';
import { CopyButton } from './CopyButton';
import type { TreeIndex } from '@shared/model/tree';

export function Attributes({ tree, appReveal = false }: { tree: TreeIndex; appReveal?: boolean }) {
  const selectedKey = useScopedInspector((s) => s.selectedKey);
  const flat = selectedKey === null ? undefined : tree.byKey.get(selectedKey);
  const source = flat ? nodeSource(flat.node) : null;
  const idSource = flat ? appRevealIdSource(flat.node) : undefined;
  const ocr = flat ? isOcrNode(flat.node) : false;
  const { ios, own, merged } = useMemo(() => {
    const rows = flat ? nodeAttributes(flat.node) : [];
    return {
      ios: appReveal || !flat ? [] : iosAttributes(flat.node),
      own: [{ name: 'key', value: flat?.key ?? '' }, ...rows.filter((r) => r.group !== 'merged')],
      merged: rows.filter((r) => r.group === 'merged'),
    };
  }, [flat, appReveal]);
  return (
    <section className="panel attributes-panel">
      <div className="panel-title">
        Attributes
        {flat && (
          // The node and everything under it, exactly as the observation holds it (docs/rules.md#r-qa-20).
          <CopyButton
            text={() => JSON.stringify(flat.node, null, 2)}
            label="Copy subtree JSON"
            testId="copy-subtree"
            title="Copy this node and its subtree as JSON"
          />
        )}
        {idSource !== undefined && (
          <span className="id-source-chip" data-testid="attr-id-source" data-id-source={idSource} title="How AppReveal derived this element's id">
            id: {idSource}
          </span>
        )}
        {ocr && (
          <span className="ocr-chip" data-testid="attr-ocr" title="Recognized by OCR: visible text kept out of the accessibility tree, not a real view">
            OCR
          </span>
        )}
        {source && appReveal && (
          <span className="source-chip src-appreveal" data-testid="attr-source" data-source="appreveal">
            AppReveal
          </span>
        )}
        {source && !appReveal && (
          <span className={`source-chip src-${source}`} data-testid="attr-source" data-source={source}>
            {SOURCE_LABELS[source]}
          </span>
        )}
      </div>
      <div className="attributes" data-testid="attributes" data-node-key={flat?.key ?? ''}>
        {flat ? (
          <table>
            {ios.length > 0 && (
              <tbody className="attr-group-ios" data-testid="attr-ios">
                <tr className="attr-group-title">
                  <th colSpan={2} scope="rowgroup">
                    iOS (XCUIElement)
                  </th>
                </tr>
                {ios.map((row) => (
                  <tr key={row.name} data-testid="attr-ios-row" data-name={row.name} data-wire={row.wire}>
                    <th scope="row">
                      {row.name} <span className="attr-wire">{row.wire}</span>
                    </th>
                    <td>
                      <span className="attr-value">{visibleText(row.value)}</span>
                      <CopyButton text={row.value} testId="attr-copy" title={`Copy the ${row.name}`} />
                    </td>
                  </tr>
                ))}
                <tr className="attr-group-title">
                  <th colSpan={2} scope="rowgroup">
                    As sent
                  </th>
                </tr>
              </tbody>
            )}
            <tbody>
              {own.map((row) => (
                <AttributeRow key={row.name} row={row} />
              ))}
            </tbody>
            {merged.length > 0 && (
              <tbody className="attr-group-merged" data-testid="attr-merged">
                <tr className="attr-group-title">
                  <th colSpan={2} scope="rowgroup">
                    Merged by the inspector
                  </th>
                </tr>
                {merged.map((row) => (
                  <AttributeRow key={row.name} row={row} group="merged" />
                ))}
              </tbody>
            )}
          </table>
        ) : (
          <div className="empty-note">Select a node on the screen or in the tree.</div>
        )}
      </div>
    </section>
  );
}

/** One attribute as sent, its bidi controls shown (docs/rules.md#r-show-01), with its copy button. */
function AttributeRow({ row, group }: { row: { name: string; value: string }; group?: 'merged' }) {
  return (
    <tr data-testid="attr-row" data-name={row.name} data-group={group}>
      <th scope="row">{row.name}</th>
      <td>
        <span className="attr-value">{visibleText(row.value)}</span>
        <CopyButton text={row.value} testId="attr-copy" title={`Copy ${row.name}`} />
      </td>
    </tr>
  );
}
