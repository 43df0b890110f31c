import { visibleText } from '@shared/model/visible-text';
import './Tree.css';
/**
 * The hierarchy as an expandable tree; hover and selection are shared with the screen. Only the rows in
 * view are in the page (docs/rules.md#r-perf-02): the scroll container, the collapsed set and the
 * selection outlive frames, so expansion, selection and scroll stay where the user left them.
 */
import { memo, useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { nodeSourceName, nodeTitle, shortContext } from '@shared/inspect';
import type { NodeSource } from '@shared/protocol/observation';
import { useInspectorStore, useScopedInspector } from '@renderer/state/inspector-scope';
import { childrenOf, nodeSource } from '@shared/model/node';
import { lazyKeyLookup, parentKeyOf, visibleRows, type FlatNode, type NodeKey, type TreeIndex } from '@shared/model/tree';

/** Every tree row's height in CSS pixels; Tree.css sets the same, so rows are never measured. */
export const TREE_ROW_HEIGHT = 20;
/** Rows drawn above and below the visible ones, so a short scroll shows drawn rows at once. */
export const TREE_OVERSCAN = 12;

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
  top: number;
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
      style={{ paddingLeft: 4 + depth * 12, position: 'absolute', left: 0, right: 0, top }}
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

/** What marks each row. */
interface RowsProps {
  selectedKey: NodeKey | null;
  hoveredKey: NodeKey | null;
  collapsed: ReadonlySet<NodeKey>;
  hiddenSources: ReadonlySet<NodeSource>;
  matchKeys: ReadonlySet<NodeKey>;
  findings?: ReadonlyMap<NodeKey, { severity: string; muted: boolean }> | undefined;
}

function row(flat: FlatNode, p: RowsProps, top: number) {
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
  // Built when the selection is scrolled to, not for each frame's first paint.
  const indexOf = useMemo(() => lazyKeyLookup(() => new Map(rows.map((r, i) => [r.key, i]))), [rows]);

  // The rows' box sits below the container's top padding: the virtualizer counts it as the list's margin,
  // so its offsets (and scrollToIndex) are the container's own scroll offsets.
  const [padTop, setPadTop] = useState(0);
  useLayoutEffect(() => {
    const el = containerRef.current;
    if (el) setPadTop(Number.parseFloat(getComputedStyle(el).paddingTop) || 0);
  }, []);
  // Only the rows in view (and TREE_OVERSCAN either side) are drawn, as @tanstack/react-virtual picks
  // them; every row has one fixed height, so none is measured.
  // The virtualizer's own item keys stay its default (the index): rows have one fixed height and are never
  // measured, so nothing is cached by key, and it lays out every row again whenever its getItemKey
  // changes (50,000 measurements on a heavy screen: a closure per render re-measured on every hover, one
  // per rows list on every frame). The rows' React keys are their node keys (`row`).
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => containerRef.current,
    estimateSize: () => TREE_ROW_HEIGHT,
    overscan: TREE_OVERSCAN,
    scrollMargin: padTop,
  });

  useEffect(() => {
    if (selectedKey === null) return;
    // Scroll only the tree (scrollIntoView would also scroll every ancestor, the page included), and by
    // the row's index: a row out of view is not in the page to be measured.
    const at = indexOf.get(selectedKey);
    if (at !== undefined) virtualizer.scrollToIndex(at);
  }, [selectedKey, indexOf, virtualizer]);

  // A new search brings its first match into view once (a row out of view is not in the page); later
  // frames with the same query leave the scroll where the user put it.
  const searchQuery = useScopedInspector((s) => s.searchQuery);
  const searchedFor = useRef('');
  useEffect(() => {
    if (searchQuery === searchedFor.current || matchKeys.size === 0) return;
    const at = rows.findIndex((r) => matchKeys.has(r.key));
    if (at < 0) return;
    searchedFor.current = searchQuery;
    virtualizer.scrollToIndex(at);
  }, [searchQuery, matchKeys, rows, virtualizer]);

  const marks: RowsProps = { selectedKey, hoveredKey, collapsed, hiddenSources, matchKeys, findings };

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
        <div className="tree-rows" style={{ height: virtualizer.getTotalSize() }}>
          {virtualizer.getVirtualItems().map((item) => row(rows[item.index]!, marks, item.start - padTop))}
        </div>
        {rows.length === 0 && <div className="empty-note">No hierarchy.</div>}
      </div>
    </section>
  );
}
