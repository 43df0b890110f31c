import { visibleText } from '@shared/model/visible-text';
import './Tree.css';
/**
 * The hierarchy as an expandable tree; hover and selection are shared with the screen. Only the rows in
 * view are in the page (docs/rules.md#r-perf-02): the scroll container, the collapsed set and the
 * selection outlive frames, so expansion, selection and scroll stay where the user left them.
 */
import { memo, useEffect, useMemo, useRef, useState, type KeyboardEvent, type RefObject } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { nodeSourceName, nodeTitle, shortContext } from '@shared/inspect';
import type { NodeSource } from '@shared/protocol/observation';
import { useInspectorStore, useScopedInspector } from '@renderer/state/inspector-scope';
import { childrenOf, nodeSource } from '@shared/model/node';
import { parentKeyOf, visibleRows, type FlatNode, type NodeKey, type TreeIndex } from '@shared/model/tree';
import { rowWindow, scrollToRow, TREE_OVERSCAN, TREE_ROW_HEIGHT, treeRowsMode, type TreeRowsMode } from '@renderer/state/tree-window';

/**
 * A row's props are plain values, so a live frame that leaves a row as it was (only capture identities
 * or timings changed) does not render it again.
 */
interface RowProps {
  nodeKey: NodeKey;
  depth: number;
  /** The row's words (model/title.ts): type in iOS terms, label or text, id. */
  type: string;
  label: string;
  id: string;
  /** The wire class, for the tooltip. */
  className: string;
  source: NodeSource;
  /** Who reported the node, for its accessible name (AppReveal, XCTest, SDK bridge, Web DOM). */
  sourceName: string;
  /** The row's source is filtered off the screen: the row stays, dimmed. */
  filtered: boolean;
  hasChildren: boolean;
  collapsed: boolean;
  selected: boolean;
  hovered: boolean;
  match: boolean;
  /** Where the row sits in the list's full height (windowed rows are placed, not flowed). */
  top?: number | undefined;
  /** The element's most severe accessibility finding (docs/rules.md#r-a11y-17), when the audit is on. */
  finding?: { severity: string; muted: boolean } | undefined;
}

const TreeRow = memo(function TreeRow(props: RowProps) {
  const { nodeKey, depth, type, label, id, className, source, sourceName, filtered, hasChildren, collapsed, selected, hovered, match, top, finding } = props;
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
      style={top === undefined ? { paddingLeft: 4 + depth * 12 } : { paddingLeft: 4 + depth * 12, position: 'absolute', left: 0, right: 0, top }}
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
      <span className={`source-mark src-${source}`} title={sourceName} aria-label={sourceName} />
      <span className="tree-class" title={className}>
        {type}
      </span>
      {label !== '' && <span className="tree-caption tree-label">{label}</span>}
      {id !== '' && <span className="tree-caption tree-id">{id}</span>}
      {finding && (
        <span
          data-testid="tree-a11y"
          data-severity={finding.severity}
          data-muted={String(finding.muted)}
          className={`tree-a11y sev-${finding.severity}${finding.muted ? ' is-muted' : ''}`}
          title={`Accessibility: ${finding.severity}${finding.muted ? ' (muted)' : ''}`}
        />
      )}
    </div>
  );
});

/** What every row drawer shares: the rows, and what marks each. */
interface RowsProps {
  rows: readonly FlatNode[];
  container: RefObject<HTMLDivElement | null>;
  selectedKey: NodeKey | null;
  hoveredKey: NodeKey | null;
  collapsed: ReadonlySet<NodeKey>;
  hiddenSources: ReadonlySet<NodeSource>;
  matchKeys: ReadonlySet<NodeKey>;
  findings?: ReadonlyMap<NodeKey, { severity: string; muted: boolean }> | undefined;
}

function row(flat: FlatNode, p: RowsProps, top?: number) {
  const source = nodeSource(flat.node);
  const title = nodeTitle(flat.node);
  return (
    <TreeRow
      key={flat.key}
      nodeKey={flat.key}
      depth={flat.depth}
      type={title.type}
      label={visibleText(title.label)}
      id={visibleText(title.id)}
      className={typeof flat.node.className === 'string' ? flat.node.className : ''}
      source={source}
      sourceName={nodeSourceName(flat.node)}
      filtered={p.hiddenSources.size > 0 && p.hiddenSources.has(source)}
      hasChildren={childrenOf(flat.node).length > 0}
      collapsed={p.collapsed.has(flat.key)}
      selected={flat.key === p.selectedKey}
      hovered={flat.key === p.hoveredKey}
      match={p.matchKeys.has(flat.key)}
      top={top}
      finding={p.findings?.get(flat.key)}
    />
  );
}

/** The scroll container's offset and height, followed as it scrolls or resizes. */
function useViewport(container: RefObject<HTMLDivElement | null>): { scrollTop: number; height: number } {
  const [viewport, setViewport] = useState({ scrollTop: 0, height: 0 });
  // A passive effect: the container is the rows' parent, whose ref is attached after the rows' layout effects.
  useEffect(() => {
    const el = container.current;
    if (!el) return;
    const read = () =>
      setViewport((v) => (v.scrollTop === el.scrollTop && v.height === el.clientHeight ? v : { scrollTop: el.scrollTop, height: el.clientHeight }));
    read();
    el.addEventListener('scroll', read, { passive: true });
    const observer = new ResizeObserver(read);
    observer.observe(el);
    return () => {
      el.removeEventListener('scroll', read);
      observer.disconnect();
    };
  }, [container]);
  return viewport;
}

/** The rows in view, by arithmetic on the scroll offset (every row is TREE_ROW_HEIGHT tall). */
function WindowRows(p: RowsProps) {
  const { scrollTop, height } = useViewport(p.container);
  const { start, end } = rowWindow(scrollTop, height, p.rows.length);
  const drawn = [];
  for (let i = start; i < end; i++) drawn.push(row(p.rows[i]!, p, i * TREE_ROW_HEIGHT));
  return (
    <div className="tree-rows" style={{ height: p.rows.length * TREE_ROW_HEIGHT }}>
      {drawn}
    </div>
  );
}

/** The rows in view, as @tanstack/react-virtual picks them. */
function VirtualRows(p: RowsProps) {
  const virtualizer = useVirtualizer({
    count: p.rows.length,
    getScrollElement: () => p.container.current,
    estimateSize: () => TREE_ROW_HEIGHT,
    overscan: TREE_OVERSCAN,
    getItemKey: (index) => p.rows[index]?.key ?? index,
  });
  return (
    <div className="tree-rows" style={{ height: virtualizer.getTotalSize() }}>
      {virtualizer.getVirtualItems().map((item) => row(p.rows[item.index]!, p, item.start))}
    </div>
  );
}

/** Every row (the approach before windowing; kept for the benchmark's comparison). */
function AllRows(p: RowsProps) {
  return <>{p.rows.map((flat) => row(flat, p))}</>;
}

const ROW_DRAWERS: Record<TreeRowsMode, (p: RowsProps) => React.JSX.Element> = { window: WindowRows, virtual: VirtualRows, all: AllRows };
/** Chosen once per page: a drawer never changes under a mounted tree. */
const Rows = ROW_DRAWERS[treeRowsMode()];

export function Tree({
  tree,
  matchKeys,
  frameContext,
  findings,
}: {
  tree: TreeIndex;
  matchKeys: ReadonlySet<NodeKey>;
  /** Per node, its most severe accessibility finding (the Accessibility panel's audit of this frame). */
  findings?: ReadonlyMap<NodeKey, { severity: string; muted: boolean }> | undefined;
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
  const indexOf = useMemo(() => new Map(rows.map((r, i) => [r.key, i])), [rows]);

  useEffect(() => {
    if (selectedKey === null) return;
    // Scroll only the tree (scrollIntoView would also scroll every ancestor, the page included), and by
    // the row's index: a row out of view is not in the page to be measured.
    const container = containerRef.current;
    const at = indexOf.get(selectedKey);
    if (!container || at === undefined) return;
    const padTop = Number.parseFloat(getComputedStyle(container).paddingTop) || 0;
    const next = scrollToRow(at, container.scrollTop, container.clientHeight, TREE_ROW_HEIGHT, padTop);
    if (next !== container.scrollTop) container.scrollTop = next;
  }, [selectedKey, indexOf]);

  // A new search brings its first match into view once (a row out of view is not in the page); later
  // frames with the same query leave the scroll where the user put it.
  const searchQuery = useScopedInspector((s) => s.searchQuery);
  const searchedFor = useRef('');
  useEffect(() => {
    if (searchQuery === searchedFor.current || matchKeys.size === 0) return;
    const container = containerRef.current;
    const at = rows.findIndex((r) => matchKeys.has(r.key));
    if (!container || at < 0) return;
    searchedFor.current = searchQuery;
    const padTop = Number.parseFloat(getComputedStyle(container).paddingTop) || 0;
    const next = scrollToRow(at, container.scrollTop, container.clientHeight, TREE_ROW_HEIGHT, padTop);
    if (next !== container.scrollTop) container.scrollTop = next;
  }, [searchQuery, matchKeys, rows]);

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const { selectNode, setCollapsed } = store.getState();
    const at = selectedKey === null ? -1 : (indexOf.get(selectedKey) ?? -1);
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
      <div
        className="tree"
        data-testid="tree"
        data-rows={rows.length}
        role="tree"
        aria-label="View hierarchy"
        tabIndex={0}
        ref={containerRef}
        onKeyDown={onKeyDown}
      >
        <Rows
          rows={rows}
          container={containerRef}
          selectedKey={selectedKey}
          hoveredKey={hoveredKey}
          collapsed={collapsed}
          hiddenSources={hiddenSources}
          matchKeys={matchKeys}
          findings={findings}
        />
        {rows.length === 0 && <div className="empty-note">No hierarchy.</div>}
      </div>
    </section>
  );
}
