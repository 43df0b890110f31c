/** The hierarchy as an expandable tree; hover and selection are shared with the screen. */
import { memo, useEffect, useMemo, useRef, type KeyboardEvent } from 'react';
import {
  childrenOf,
  nodeCaption,
  parentKeyOf,
  shortClassName,
  visibleRows,
  type FlatNode,
  type NodeKey,
  type TreeIndex,
} from '../../../src-shared/inspect';
import { useInspector } from '../state/store';

interface RowProps {
  flat: FlatNode;
  hasChildren: boolean;
  collapsed: boolean;
  selected: boolean;
  hovered: boolean;
  match: boolean;
}

const TreeRow = memo(function TreeRow({ flat, hasChildren, collapsed, selected, hovered, match }: RowProps) {
  const role = (flat.node as Record<string, unknown>)['role'];
  const caption = nodeCaption(flat.node);
  const cls = `tree-row${selected ? ' is-selected' : ''}${hovered ? ' is-hovered' : ''}${match ? ' is-match' : ''}`;
  return (
    <div
      data-testid="tree-node"
      data-node-key={flat.key}
      data-selected={String(selected)}
      data-hovered={String(hovered)}
      data-match={String(match)}
      role="treeitem"
      aria-level={flat.depth + 1}
      aria-selected={selected}
      aria-expanded={hasChildren ? !collapsed : undefined}
      className={cls}
      style={{ paddingLeft: 4 + flat.depth * 12 }}
      onClick={() => useInspector.getState().selectNode(flat.key)}
      onMouseEnter={() => useInspector.getState().hoverNode(flat.key)}
      onMouseLeave={() => useInspector.getState().hoverNode(null)}
    >
      <span
        className="twisty"
        onClick={(e) => {
          if (!hasChildren) return;
          e.stopPropagation();
          useInspector.getState().toggleCollapsed(flat.key);
        }}
      >
        {hasChildren ? (collapsed ? '▸' : '▾') : ''}
      </span>
      <span className="tree-class">{shortClassName(flat.node)}</span>
      {typeof role === 'string' && role !== '' && <span className="tree-role">{role}</span>}
      {caption !== '' && <span className="tree-caption">{caption}</span>}
    </div>
  );
});

export function Tree({ tree, matchKeys }: { tree: TreeIndex; matchKeys: ReadonlySet<NodeKey> }) {
  const selectedKey = useInspector((s) => s.selectedKey);
  const hoveredKey = useInspector((s) => s.hoveredKey);
  const collapsed = useInspector((s) => s.collapsed);
  const containerRef = useRef<HTMLDivElement>(null);
  const rows = useMemo(() => visibleRows(tree.nodes, collapsed), [tree, collapsed]);

  useEffect(() => {
    if (selectedKey === null) return;
    // Scroll only the tree (scrollIntoView would also scroll every ancestor, the page included).
    const container = containerRef.current;
    const row = container?.querySelector<HTMLElement>(`[data-node-key="${CSS.escape(selectedKey)}"]`);
    if (!container || !row) return;
    const top = row.offsetTop; // .tree is positioned, so it is the rows' offsetParent
    const bottom = top + row.offsetHeight;
    if (top < container.scrollTop) container.scrollTop = top;
    else if (bottom > container.scrollTop + container.clientHeight) container.scrollTop = bottom - container.clientHeight;
  }, [selectedKey, rows]);

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const { selectNode, setCollapsed } = useInspector.getState();
    const at = rows.findIndex((r) => r.key === selectedKey);
    const current = rows[at];
    const open = current && childrenOf(current.node).length > 0 && !collapsed.has(current.key);
    let handled = true;
    if (e.key === 'ArrowDown') selectNode((rows[Math.min(rows.length - 1, at + 1)] ?? rows[0])?.key ?? null);
    else if (e.key === 'ArrowUp') selectNode((rows[Math.max(0, at - 1)] ?? rows[0])?.key ?? null);
    else if (e.key === 'ArrowRight' && current) {
      if (collapsed.has(current.key)) setCollapsed(current.key, false);
      else if (open) selectNode(rows[at + 1]?.key ?? current.key);
    } else if (e.key === 'ArrowLeft' && current) {
      if (open) setCollapsed(current.key, true);
      else selectNode(parentKeyOf(current.key) ?? current.key);
    } else handled = false;
    if (handled) e.preventDefault();
  };

  return (
    <section className="panel tree-panel">
      <div className="panel-title">
        Tree <span className="muted">{tree.nodes.length > 0 ? `${tree.nodes.length} nodes` : ''}</span>
      </div>
      <div
        className="tree"
        data-testid="tree"
        role="tree"
        aria-label="View hierarchy"
        tabIndex={0}
        ref={containerRef}
        onKeyDown={onKeyDown}
      >
        {rows.map((flat) => (
          <TreeRow
            key={flat.key}
            flat={flat}
            hasChildren={childrenOf(flat.node).length > 0}
            collapsed={collapsed.has(flat.key)}
            selected={flat.key === selectedKey}
            hovered={flat.key === hoveredKey}
            match={matchKeys.has(flat.key)}
          />
        ))}
        {rows.length === 0 && <div className="empty-note">No hierarchy.</div>}
      </div>
    </section>
  );
}
