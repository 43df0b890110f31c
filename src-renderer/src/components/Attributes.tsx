/** The selected node's attributes, one row each. */
import { useMemo } from 'react';
import { nodeAttributes, type TreeIndex } from '../../../src-shared/inspect';
import { useInspector } from '../state/store';

export function Attributes({ tree }: { tree: TreeIndex }) {
  const selectedKey = useInspector((s) => s.selectedKey);
  const flat = selectedKey === null ? undefined : tree.byKey.get(selectedKey);
  const rows = useMemo(
    () => (flat ? [{ name: 'key', value: flat.key }, ...nodeAttributes(flat.node)] : []),
    [flat],
  );
  return (
    <section className="panel attributes-panel">
      <div className="panel-title">Attributes</div>
      <div className="attributes" data-testid="attributes" data-node-key={flat?.key ?? ''}>
        {flat ? (
          <table>
            <tbody>
              {rows.map((row) => (
                <tr key={row.name} data-testid="attr-row" data-name={row.name}>
                  <th scope="row">{row.name}</th>
                  <td>{row.value}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <div className="empty-note">Select a node on the screen or in the tree.</div>
        )}
      </div>
    </section>
  );
}
