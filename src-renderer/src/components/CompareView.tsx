import './CompareView.css';
/**
 * Compare: the XCTest-only observation beside the SDK-backed one of the same moment, each
 * with its boxes over the screenshot and its tree, selection following from one side to the other
 * through the diff's pairs. A summary counts each class of difference; picking a class shows only its
 * nodes and lists its differences. The live view and a trace opened offline both show a comparison
 * through this view, each with its own buttons.
 */
import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { DIFF_CLASSES, DIFF_CLASS_LABELS, type DiffClass, type Difference, type TreeDiff } from '@shared/compare/diff';
import {
  COMPARE_SIDES,
  COMPARE_SIDE_LABELS,
  differencesAt,
  keyOn,
  keysOn,
  onlyClass,
  otherSide,
  pairIndex,
  partnerOf,
  shownDifferences,
  shownSummary,
  type CompareSide,
  type PairIndex,
} from '@shared/compare/sides';
import { frameMismatch, nodeCaption, pickableAmong, pickStackAt, shortClassName } from '@shared/inspect';
import type { Frame } from '@shared/protocol/device';
import { createCompareStores, linkSides } from '@renderer/state/compare-link';
import { plural } from '@renderer/state/format';
import { InspectorScope, useScopedInspector } from '@renderer/state/inspector-scope';
import { Attributes } from './Attributes';
import { Screen } from './Screen';
import { Tree } from './Tree';
import { indexTree, type NodeKey, type TreeIndex } from '@shared/model/tree';

/** What the view needs of a comparison, whether the host just took it or a trace kept it. */
export interface ComparisonShown {
  xctest: Frame;
  sdk: Frame;
  diff: TreeDiff;
  /** Both reads saw the same screen (true), a different one (false), or nothing says (null). */
  sameScreen: boolean | null;
}

/** Longer lists are cut: a class can hold thousands of differences, and a long list helps no one. */
const MAX_LISTED = 300;
const NONE: ReadonlySet<NodeKey> = new Set();

/**
 * The XCTest-only read takes no screenshot of its own (one is taken with the SDK-backed read, so the
 * gap between the reads stays one hierarchy read): both sides show that one picture. When the screen
 * moved between the reads, its frame context differs from the XCTest tree's and the Screen draws the
 * XCTest boxes on the outline instead.
 */
function withSharedScreenshot(frame: Frame, other: Frame): Frame {
  return frame.screenshot || !other.screenshot ? frame : { ...frame, screenshot: other.screenshot };
}

export function CompareView({
  comparison,
  title,
  actions,
  notice,
}: {
  comparison: ComparisonShown;
  title: ReactNode;
  /** The buttons of the header (compare again, save, close). */
  actions: ReactNode;
  /** A line under the header (a save's outcome, an error). */
  notice?: ReactNode;
}) {
  const { diff } = comparison;
  const frames = useMemo(
    () => ({ xctest: withSharedScreenshot(comparison.xctest, comparison.sdk), sdk: withSharedScreenshot(comparison.sdk, comparison.xctest) }),
    [comparison],
  );
  const trees = useMemo(
    () => ({ xctest: indexTree(frames.xctest.observation?.viewHierarchy?.hierarchy), sdk: indexTree(frames.sdk.observation?.viewHierarchy?.hierarchy) }),
    [frames],
  );
  const index = useMemo(() => pairIndex(diff.pairs, diff.differences), [diff]);
  const [stores] = useState(createCompareStores);
  const [selection, setSelection] = useState<{ side: CompareSide; key: NodeKey } | null>(null);
  const [filter, setFilter] = useState<DiffClass | null>(null);
  const [hideIdentityAdded, setHideIdentityAdded] = useState(false);
  useEffect(() => linkSides(stores, index, (side, key) => setSelection(key === null ? null : { side, key })), [stores, index]);

  const listed = useMemo(() => shownDifferences(diff, { cls: filter, hideIdentityAdded }), [diff, filter, hideIdentityAdded]);
  const narrowed = filter !== null || hideIdentityAdded;
  const classKeys = useMemo(() => ({ xctest: narrowed ? keysOn(listed, 'xctest') : NONE, sdk: narrowed ? keysOn(listed, 'sdk') : NONE }), [narrowed, listed]);
  const select = (d: Difference) => {
    const side: CompareSide = d.sdkKey !== undefined ? 'sdk' : 'xctest';
    stores[side].getState().selectNode(keyOn(d, side) ?? null);
  };
  const partner = selection ? partnerOf(index, selection.side, selection.key) : null;

  return (
    <div className="compare-view" data-testid="compare-view" data-same-screen={String(comparison.sameScreen)}>
      <div className="compare-header">
        {title}
        <span className="spacer" />
        {actions}
      </div>
      {notice}
      {comparison.sameScreen === false && (
        <div className="banner warn" data-testid="compare-screen-changed">
          The screen changed between the two reads — compare again. Differences below may be the app moving, not the backends.
        </div>
      )}
      <DiffSummary diff={diff} filter={filter} onFilter={setFilter} hideIdentityAdded={hideIdentityAdded} />
      <label className="compare-hide-identity">
        <input
          type="checkbox"
          data-testid="compare-hide-identity"
          checked={hideIdentityAdded}
          onChange={(e) => {
            setHideIdentityAdded(e.target.checked);
            if (e.target.checked && filter === 'identity_added') setFilter(null);
          }}
        />{' '}
        Hide “identity added” (only what XCTest cannot see)
      </label>
      <SelectionNote diff={diff} trees={trees} selection={selection} partner={partner} />
      <div className="compare-body">
        {COMPARE_SIDES.map((side) => (
          <InspectorScope.Provider key={side} value={stores[side]}>
            <CompareSidePanel
              side={side}
              frame={frames[side]}
              tree={trees[side]}
              classKeys={classKeys[side]}
              filtering={narrowed}
              unpaired={selection !== null && selection.side !== side && partner === null ? selection.side : null}
            />
          </InspectorScope.Provider>
        ))}
        <DifferenceList differences={listed} filter={filter} trees={trees} selection={selection} index={index} onPick={select} />
      </div>
    </div>
  );
}

function DiffSummary({
  diff,
  filter,
  onFilter,
  hideIdentityAdded,
}: {
  diff: TreeDiff;
  filter: DiffClass | null;
  onFilter(filter: DiffClass | null): void;
  hideIdentityAdded: boolean;
}) {
  const summary = shownSummary(diff.summary, { hideIdentityAdded });
  return (
    <div className="compare-summary" data-testid="compare-summary" data-filter={filter ?? ''}>
      <button
        type="button"
        className={`compare-class${filter === null ? ' is-on' : ''}`}
        data-testid="compare-class-all"
        aria-pressed={filter === null}
        onClick={() => onFilter(null)}
      >
        All <span className="compare-count">{diff.differences.length}</span>
      </button>
      {DIFF_CLASSES.map((cls) => {
        const count = summary[cls] ?? 0;
        return (
          <button
            type="button"
            key={cls}
            className={`compare-class class-${cls}${filter === cls ? ' is-on' : ''}${count === 0 ? ' is-empty' : ''}`}
            data-testid={`compare-class-${cls}`}
            data-count={count}
            aria-pressed={filter === cls}
            title={filter === cls ? 'Click again to show every difference' : `Show only: ${DIFF_CLASS_LABELS[cls]}`}
            onClick={() => onFilter(filter === cls ? null : cls)}
          >
            {DIFF_CLASS_LABELS[cls]} <span className="compare-count">{count}</span>
          </button>
        );
      })}
      <span className="spacer" />
      <span className="muted">
        XCTest only {plural(diff.nodes.xctest, 'node')} · SDK-backed {plural(diff.nodes.sdk, 'node')} · {plural(diff.pairs.length, 'pair')}
      </span>
    </div>
  );
}

function describeNode(tree: TreeIndex, key: NodeKey): string {
  const flat = tree.byKey.get(key);
  if (!flat) return key;
  const caption = nodeCaption(flat.node);
  return `${shortClassName(flat.node)}${caption ? ` ${caption}` : ''}`;
}

/** The selected node, its partner (or that it has none) and what differs about it. */
function SelectionNote({
  diff,
  trees,
  selection,
  partner,
}: {
  diff: TreeDiff;
  trees: Record<CompareSide, TreeIndex>;
  selection: { side: CompareSide; key: NodeKey } | null;
  partner: NodeKey | null;
}) {
  if (!selection) {
    return (
      <div className="compare-selection muted" data-testid="compare-selection" data-only="">
        Select a node on either side: its pair is selected on the other.
      </div>
    );
  }
  const { side, key } = selection;
  const differences = differencesAt(diff, side, key);
  return (
    <div className="compare-selection" data-testid="compare-selection" data-side={side} data-key={key} data-only={partner === null ? side : ''}>
      <strong>{COMPARE_SIDE_LABELS[side]}</strong> {describeNode(trees[side], key)}
      {partner === null ? (
        <span className="compare-only" data-testid="compare-only">
          {DIFF_CLASS_LABELS[onlyClass(side)]}
        </span>
      ) : (
        <span className="muted">pairs with {describeNode(trees[otherSide(side)], partner)}</span>
      )}
      {differences
        .filter((d) => !d.class.startsWith('only_'))
        .map((d, i) => (
          <span key={i} className={`compare-chip class-${d.class}`} title={d.detail}>
            {DIFF_CLASS_LABELS[d.class]}
          </span>
        ))}
    </div>
  );
}

function CompareSidePanel({
  side,
  frame,
  tree,
  classKeys,
  filtering,
  unpaired,
}: {
  side: CompareSide;
  frame: Frame;
  tree: TreeIndex;
  /** The nodes of the class the summary filters to (empty without a filter). */
  classKeys: ReadonlySet<NodeKey>;
  filtering: boolean;
  /** The side whose selected node has no pair on this one, if it has none. */
  unpaired: CompareSide | null;
}) {
  const selectedKey = useScopedInspector((s) => s.selectedKey);
  const pickX = useScopedInspector((s) => s.pick?.x);
  const pickY = useScopedInspector((s) => s.pick?.y);
  const shown = useMemo(() => (filtering ? tree.nodes.filter((flat) => classKeys.has(flat.key)) : tree.nodes), [tree, classKeys, filtering]);
  const pickStack = useMemo(() => {
    if (pickX === undefined || pickY === undefined) return [];
    return pickStackAt(tree.nodes, pickX, pickY, { pickable: pickableAmong(shown, tree.nodes) });
  }, [tree, shown, pickX, pickY]);
  const placeholder = frame.observation?.viewHierarchy ? null : 'This read holds no tree.';
  return (
    <section className={`compare-side side-${side}`} data-testid={`compare-${side}`} data-selected-key={selectedKey ?? ''}>
      <div className="compare-side-title">
        <strong>{COMPARE_SIDE_LABELS[side]}</strong>
        <span className="muted">{plural(tree.nodes.length, 'node')}</span>
        {filtering && <span className="muted">· {plural(shown.length, 'node')} of this class</span>}
        {unpaired && (
          <span className="compare-no-pair" data-testid="compare-no-pair">
            nothing here pairs with the selected node ({DIFF_CLASS_LABELS[onlyClass(unpaired)]})
          </span>
        )}
      </div>
      <div className="compare-side-body">
        <div className="compare-side-stage">
          <Screen
            frame={frame}
            nodes={shown}
            treeNodes={tree.nodes}
            matchKeys={classKeys}
            pickStack={pickStack}
            mismatch={frameMismatch(frame)}
            placeholder={placeholder}
          />
        </div>
        <div className="compare-side-inspector">
          <Tree tree={tree} matchKeys={classKeys} frameContext={frame.hierarchyFrameContext ?? frame.observation?.frameContext} />
          <Attributes tree={tree} />
        </div>
      </div>
    </section>
  );
}

function DifferenceList({
  differences,
  filter,
  trees,
  selection,
  index,
  onPick,
}: {
  differences: readonly Difference[];
  filter: DiffClass | null;
  trees: Record<CompareSide, TreeIndex>;
  selection: { side: CompareSide; key: NodeKey } | null;
  index: PairIndex;
  onPick(d: Difference): void;
}) {
  // The selection as a key on each side, so a row is marked whichever side the user clicked.
  const selectedOn = (side: CompareSide): NodeKey | null =>
    !selection ? null : side === selection.side ? selection.key : partnerOf(index, selection.side, selection.key);
  const isSelected = (d: Difference) => COMPARE_SIDES.some((side) => keyOn(d, side) !== undefined && keyOn(d, side) === selectedOn(side));
  return (
    <aside className="compare-differences" data-testid="compare-differences" data-count={differences.length}>
      <div className="panel-title">
        {filter ? DIFF_CLASS_LABELS[filter] : 'Differences'} <span className="muted">{differences.length}</span>
      </div>
      <ol className="compare-difference-list">
        {differences.slice(0, MAX_LISTED).map((d, i) => (
          <li key={i}>
            <button
              type="button"
              className={`compare-difference class-${d.class}${isSelected(d) ? ' is-selected' : ''}`}
              data-testid="compare-difference"
              data-class={d.class}
              data-xctest-key={d.xctestKey ?? ''}
              data-sdk-key={d.sdkKey ?? ''}
              data-selected={String(isSelected(d))}
              onClick={() => onPick(d)}
            >
              <span className="compare-difference-what">
                <span className={`compare-chip class-${d.class}`}>{DIFF_CLASS_LABELS[d.class]}</span>
                {describeNode(d.sdkKey !== undefined ? trees.sdk : trees.xctest, (d.sdkKey ?? d.xctestKey)!)}
              </span>
              <span className="compare-difference-detail">{d.detail}</span>
            </button>
          </li>
        ))}
      </ol>
      {differences.length > MAX_LISTED && <div className="empty-note">and {differences.length - MAX_LISTED} more</div>}
      {differences.length === 0 && <div className="empty-note">{filter ? 'None of this class.' : 'The two reads agree.'}</div>}
    </aside>
  );
}
