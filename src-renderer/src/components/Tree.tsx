import './Tree.css';
/** The hierarchy as an expandable tree; hover and selection are shared with the screen. */
import { memo, useEffect, useMemo, useRef, type KeyboardEvent } from 'react';
import { nodeCaption, SOURCE_LABELS, shortClassName, shortContext } from '@shared/inspect';
import type { NodeSource } from '@shared/protocol/observation';
import { useInspectorStore, useScopedInspector } from '@renderer/state/inspector-scope';
import { childrenOf, nodeSource } from '@shared/model/node';
import { parentKeyOf, visibleRows, type NodeKey, type TreeIndex } from '@shared/model/tree';

/**
 * A row's props are plain values, so a live frame that leaves a row as it was (only capture identities
 * or timings changed) does not render it again.
 */
interface RowProps {
  nodeKey: NodeKey;
  depth: number;
  className: string;
  role: string;
  caption: string;
  source: NodeSource;
  /** The row's source is filtered off the screen: the row stays, dimmed. */
  filtered: boolean;
  hasChildren: boolean;
  collapsed: boolean;
  selected: boolean;
  hovered: boolean;
  match: boolean;
}

const TreeRow = memo(function TreeRow(props: RowProps) {
  const { nodeKey, depth, className, role, caption, source, filtered, hasChildren, collapsed, selected, hovered, match } = props;
  const store = useInspectorStore();
  const cls = `tree-row${selected ? ' is-selected' : ''}${hovered ? ' is-hovered' : ''}${match ? ' is-match' : ''}${filtered ? ' is-filtered' : ''}`;
  return (
    <div
      data-testid="tree-node"
      data-node-key={nodeKey}
      data-source={source}
      data-selected={String(selected)}
      data-hovered={String(hovered)}
      data-match={String(match)}
      role="treeitem"
      aria-level={depth + 1}
      aria-selected={selected}
      aria-expanded={hasChildren ? !collapsed : undefined}
      className={cls}
      style={{ paddingLeft: 4 + depth * 12 }}
      onClick={() => store.getState().selectNode(nodeKey)}
      onMouseEnter={() => store.getState().hoverNode(nodeKey)}
      onMouseLeave={() => store.getState().hoverNode(null)}
    >
      <span
        className="twisty"
        onClick={(e) => {
          if (!hasChildren) return;
          e.stopPropagation();
          store.getState().toggleCollapsed(nodeKey);
        }}
      >
        {hasChildren ? (collapsed ? '▸' : '▾') : ''}
      </span>
      <span className={`source-mark src-${source}`} title={SOURCE_LABELS[source]} aria-label={SOURCE_LABELS[source]} />
      <span className="tree-class">{className}</span>
      {role !== '' && <span className="tree-role">{role}</span>}
      {caption !== '' && <span className="tree-caption">{caption}</span>}
    </div>
  );
});

export function Tree({
  tree,
  matchKeys,
  frameContext,
}: {
  tree: TreeIndex;
  matchKeys: ReadonlySet<NodeKey>;
  /** The frame context the tree was captured in. */
  frameContext?: string | undefined;
}) {
  const store = useInspectorStore();
  const selectedKey = useScopedInspector((s) => s.selectedKey);
  const hoveredKey = useScopedInspector((s) => s.hoveredKey);
  const collapsed = useScopedInspector((s) => s.collapsed);
  const hiddenSources = useScopedInspector((s) => s.hiddenSources);
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
    const { selectNode, setCollapsed } = store.getState();
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
        {frameContext && (
          <span className="panel-stamp" data-testid="tree-stamp" data-frame-context={frameContext} title={`captured in frame ${frameContext}`}>
            frame {shortContext(frameContext)}
          </span>
        )}
      </div>
      <div className="tree" data-testid="tree" role="tree" aria-label="View hierarchy" tabIndex={0} ref={containerRef} onKeyDown={onKeyDown}>
        {rows.map((flat) => (
          <TreeRow
            key={flat.key}
            nodeKey={flat.key}
            depth={flat.depth}
            className={shortClassName(flat.node)}
            role={typeof flat.node.role === 'string' ? flat.node.role : ''}
            caption={nodeCaption(flat.node)}
            source={nodeSource(flat.node)}
            filtered={hiddenSources.size > 0 && hiddenSources.has(nodeSource(flat.node))}
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
