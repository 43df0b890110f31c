/**
 * Observe (docs/rules.md#r-obs-02): the native bridge snapshot merged in place under the XCUIApplication
 * node, so system UI, alerts and the keyboard (which only XCTest sees) stay in the tree.
 *
 * Attribute mapping, one rule for both bridges: the backend's role is the node's `className` (R-OBS-03:
 * "role → className"); `role` keeps the runner's own vocabulary and is set only where the runner's meaning
 * is certain (text entry → "textfield"), so field detection treats bridge and XCTest fields alike.
 */
import type { BackendFields } from './backend-fields';
import type { ObservationNode, ObservationSnapshot, SdkRelayFailure } from '@shared/protocol/sdk';
import type { UiNode } from '@shared/protocol/runner';
import { RectIndex, truncateRect } from './geometry';
import { isXctest, present, rectOf } from './nodes';
import {
  childrenOf,
  limitDepth,
  limitTreeDepth,
  MAX_VIEW_DEPTH,
  SDK_SOURCE_KEY,
  withChildren,
  xctestTwinExtras,
  type TreeShape,
  type XctestTwinKind,
} from '@shared/model/node';
import { elementTypeOf } from '@shared/model/element-type';

export const SDK_BRIDGE_SOURCE = 'sdkBridge';

/** What the bridge read produced, as the main process hands it over. */
export type BridgeRead =
  | { kind: 'reply'; reply: { available?: boolean | undefined; failure?: SdkRelayFailure | undefined; snapshot?: ObservationSnapshot | undefined } }
  | { kind: 'timeout' }
  | { kind: 'error'; message: string };

export interface BridgeMerge extends BackendFields {
  root: UiNode;
  merged: boolean;
  /** `merged`, `coordinate_space_<space>`, `no_snapshot`, `timeout`, `error`, or the relay failure code. */
  reason: string;
  captureIdentity?: string;
  /** Bridge nodes attached. */
  nodes: number;
  /** XCTest leaves removed as duplicates. */
  duplicatesRemoved: number;
  /** Other XCTest nodes folded into the bridge node that describes them (docs/rules.md#r-obs-09). */
  folded: number;
}

/** Native text-entry roles (compared lower-cased), reported as the runner's "textfield". */
const TEXT_ENTRY_ROLES = new Set(['textfield', 'securetextfield', 'searchfield', 'textview', 'textarea']);
/**
 * Native scroll-container roles (compared lower-cased). The snapshot has no scrollable flag, and without
 * one the layout audit would take a list's rows sliding under the status bar for fixed controls.
 */
const SCROLL_CONTAINER_ROLES = new Set(['scrollview', 'collectionview', 'tableview', 'table']);
/** The role of a snapshot root that is the application itself, i.e. the XCUIApplication node it merges under. */
const APPLICATION_ROLE = 'application';

/**
 * The merge for a registered bridge. Whatever keeps the snapshot out (no answer — `read` undefined, a
 * timeout, a failure — or a space other than screen) leaves the XCTest tree unchanged and reports backend
 * xctest, fallback unavailable.
 */
export function mergeBridgeRead(root: UiNode, read: BridgeRead | undefined, options: BridgeMergeOptions = {}): BridgeMerge {
  const fallback = (reason: string): BridgeMerge => ({
    root,
    merged: false,
    reason,
    backend: 'xctest',
    fallbackReason: 'unavailable',
    nodes: 0,
    duplicatesRemoved: 0,
    folded: 0,
  });
  if (!read) return fallback('no_answer');
  if (read.kind !== 'reply') return fallback(read.kind);
  const { failure, snapshot } = read.reply;
  if (failure !== undefined) return fallback(failure);
  if (!snapshot) return fallback('no_snapshot');
  // Window- or view-relative bounds would put a node at the wrong screen point for an XCTest tap.
  if (snapshot.coordinateSpace !== 'screen') return fallback(`coordinate_space_${snapshot.coordinateSpace}`);
  const result = mergeBridgeSnapshot(root, snapshot, options);
  return { ...result, merged: true, reason: 'merged', backend: 'sdk', captureIdentity: snapshot.captureIdentity };
}

const BRIDGE_NODE_SHAPE: TreeShape<ObservationNode> = {
  children: (node) => node.children,
  bare: (node) => ({ ...node, children: [] }),
  setChildren: (bare, children) => {
    bare.children = children;
  },
};

export interface BridgeMergeOptions {
  /**
   * Keep each XCTest node a bridge node also describes beside it (`xctest.twin` kept) instead of folding
   * it into that node (docs/rules.md#r-obs-09). The raw strategy keeps them: it shows everything as reported.
   */
  keepXctestTwins?: boolean | undefined;
}

/** Merges a screen-space snapshot (the caller checked the space). */
export function mergeBridgeSnapshot(
  root: UiNode,
  snapshot: ObservationSnapshot,
  options: BridgeMergeOptions = {},
): { root: UiNode; nodes: number; duplicatesRemoved: number; folded: number } {
  const fold = options.keepXctestTwins !== true;
  const identity = snapshot.captureIdentity;
  // Bridge nodes by frame, for the duplicate check: one Map lookup per XCTest leaf.
  const index = new RectIndex<{ source: ObservationNode; mapped: UiNode }>();
  const scrollableTwins = scrollableXctestFrames(root);
  let count = 0;

  const map = (node: ObservationNode, isRoot: boolean): UiNode[] => {
    const children: UiNode[] = [];
    for (const child of node.children) for (const mapped of map(child, false)) children.push(mapped);
    // An invisible node is left out; a visible descendant (the SDK says so per node) moves up to it.
    if (!node.visible) return children;
    // The application is the XCUIApplication node the snapshot merges under; a second one would stand
    // between it and the app's views, so its children take its place.
    if (isRoot && node.role.toLowerCase() === APPLICATION_ROLE) return children;
    const mapped = bridgeNodeToUiNode(node, identity, children);
    if (SCROLL_CONTAINER_ROLES.has(node.role.toLowerCase()) || isScrollableTwin(node, mapped, scrollableTwins)) mapped.scrollable = 'true';
    count++;
    index.add(mapped.bounds!, { source: node, mapped });
    return [mapped];
  };
  // The mapping recurses: a snapshot deeper than the pipeline walks has its deepest nodes moved up, as a
  // runner tree has (docs/rules.md#r-lim-02); one level is kept for the XCTest root it merges under.
  const bridgeNodes = snapshot.root ? map(limitTreeDepth(snapshot.root, BRIDGE_NODE_SHAPE, MAX_VIEW_DEPTH - 1).root, true) : [];

  let duplicatesRemoved = 0;
  // Each bridge node stands for at most one XCTest node (docs/protocol.md#p-merge-attrs, `xctest.*`).
  const twinned = new Set<UiNode>();
  // The XCTest nodes a bridge node describes that the merge did not remove as duplicate leaves.
  const keptTwins = new Map<UiNode, UiNode>();
  const twin = (mapped: UiNode, xctest: UiNode, kind: XctestTwinKind) => {
    twinned.add(mapped);
    if (kind === 'kept') keptTwins.set(xctest, mapped);
    // Folded, the XCTest node is no longer in the tree: the bridge node stands for it.
    const recorded: XctestTwinKind = kind === 'kept' && fold ? 'replaced' : kind;
    // `mapped` was built by this merge and is not shared yet. Folded, it also carries what the XCTest
    // stages said of the node (the projection's hidden-content marks), under its own source.
    mapped.extras = { ...(fold ? xctest.extras : undefined), ...mapped.extras, ...xctestTwinExtras(xctest, recorded) };
  };
  const duplicateOf = (leaf: UiNode): UiNode | undefined => {
    const bounds = rectOf(leaf);
    const list = bounds ? index.get(bounds) : [];
    if (list.length === 0) return undefined;
    const id = leaf['resource-id'];
    // The runner puts an element's accessibility label in `text` (see the golden hierarchies).
    const desc = leaf['content-desc'];
    const text = leaf.text;
    const match = list.find(({ source: node }) => (present(id) && node.id === id) || (present(node.label) && (node.label === desc || node.label === text)));
    return match?.mapped;
  };
  const prune = (node: UiNode): UiNode | null => {
    const children = childrenOf(node);
    if (children.length === 0) {
      const duplicate = isXctest(node) ? duplicateOf(node) : undefined;
      if (duplicate) {
        if (!twinned.has(duplicate)) twin(duplicate, node, 'replaced');
        duplicatesRemoved++;
        return null;
      }
      return node;
    }
    let kept: UiNode[] | null = null;
    for (let i = 0; i < children.length; i++) {
      const child = children[i]!;
      const next = prune(child);
      if (next !== child && kept === null) kept = children.slice(0, i);
      if (kept !== null && next !== null) kept.push(next);
    }
    return kept === null ? node : withChildren(node, kept);
  };

  // The root itself is the anchor and never a duplicate; its children are pruned.
  const rootChildren =
    index.size > 0
      ? childrenOf(root)
          .map(prune)
          .filter((n): n is UiNode => n !== null)
      : [...childrenOf(root)];
  if (index.size > 0) twinKeptNodes(rootChildren, index, twinned, twin);
  const remaining = fold && keptTwins.size > 0 ? foldXctestTwins(rootChildren, keptTwins) : rootChildren;
  // First under the root: XCTest lists later windows (alerts, the keyboard) after the app's own, and
  // they are drawn above the app content the bridge describes.
  let merged = withChildren(root, [...bridgeNodes, ...remaining]);
  // A folded subtree now hangs below its bridge twin, which may sit deeper than the XCTest node did.
  if (remaining !== rootChildren) merged = limitDepth(merged).root;
  return { root: merged, nodes: count, duplicatesRemoved, folded: remaining === rootChildren ? 0 : keptTwins.size };
}

/**
 * One element, one row (docs/rules.md#r-obs-09): each XCTest node a bridge node describes leaves the
 * tree, and what it still holds (XCTest nodes the bridge does not report: a cell's subviews, a web view's
 * leaves) moves under that bridge node, after its own children. So each element on screen is one node,
 * carrying both sources' attributes (its `xctest.*` extras), and the XCTest nodes left keep their XCTest
 * parent as an ancestor in the view of what XCTest sees (`xctestTwinOf`).
 */
function foldXctestTwins(nodes: readonly UiNode[], twins: ReadonlyMap<UiNode, UiNode>): UiNode[] {
  const out: UiNode[] = [];
  for (const node of nodes) {
    const children = childrenOf(node);
    const kept = children.length > 0 ? foldXctestTwins(children, twins) : [];
    const twin = twins.get(node);
    if (twin) {
      // The bridge node was built by this merge and is not shared yet.
      if (kept.length > 0) twin.node = [...childrenOf(twin), ...kept];
      continue;
    }
    out.push(kept.length === children.length && kept.every((c, i) => c === children[i]) ? node : withChildren(node, kept));
  }
  return out;
}

/**
 * The XCTest nodes the merge keeps that a bridge node also describes: a container (screen, navigation
 * bar, web view, tab bar) is not a duplicate leaf and stays, and neither does an anonymous leaf (an
 * image with no id or label), but the bridge node with its frame and its id or label, or with its frame
 * and element type when neither carries an id or label, is the same element. Only a one-to-one match
 * counts.
 */
function twinKeptNodes(
  kept: readonly UiNode[],
  index: RectIndex<{ source: ObservationNode; mapped: UiNode }>,
  twinned: Set<UiNode>,
  twin: (mapped: UiNode, xctest: UiNode, kind: XctestTwinKind) => void,
): void {
  const stack = [...kept];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const children = childrenOf(node);
    for (const child of children) stack.push(child);
    if (!isXctest(node)) continue;
    const bounds = rectOf(node);
    const free = bounds ? index.get(bounds).filter((c) => !twinned.has(c.mapped)) : [];
    if (free.length === 0) continue;
    const id = node['resource-id'];
    const label = node['content-desc'] ?? node.text;
    let matches = free.filter(({ source }) => (present(id) && source.id === id) || (present(source.label) && source.label === label));
    if (matches.length === 0 && !present(id) && !present(label)) {
      const type = elementTypeOf(node);
      matches = free.filter(({ source, mapped }) => !present(source.label) && type !== 'Other' && elementTypeOf(mapped) === type);
    }
    if (matches.length === 1) twin(matches[0]!.mapped, node, 'kept');
  }
}

/** The XCTest tree's scroll containers by frame: few per screen, found in one walk. */
function scrollableXctestFrames(root: UiNode): RectIndex<UiNode> {
  const index = new RectIndex<UiNode>();
  const stack: UiNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const bounds = rectOf(node);
    if (bounds && node.scrollable === 'true' && isXctest(node)) index.add(bounds, node);
    const children = childrenOf(node);
    for (let i = 0; i < children.length; i++) stack.push(children[i]!);
  }
  return index;
}

/** The bridge node stands for a scrollable XCTest view: same frame, same id or label (the duplicate rule's match). */
function isScrollableTwin(node: ObservationNode, mapped: UiNode, twins: RectIndex<UiNode>): boolean {
  if (twins.size === 0) return false;
  return twins
    .get(mapped.bounds!)
    .some(
      (x) =>
        (present(x['resource-id']) && x['resource-id'] === node.id) || (present(node.label) && (node.label === x['content-desc'] || node.label === x.text)),
    );
}

export function bridgeNodeToUiNode(node: ObservationNode, captureIdentity: string, children: readonly UiNode[]): UiNode {
  const out: UiNode = { className: node.role };
  if (TEXT_ENTRY_ROLES.has(node.role.toLowerCase())) out.role = 'textfield';
  if (node.value !== undefined) out.text = node.value;
  if (node.label !== undefined) out['content-desc'] = node.label;
  out['resource-id'] = node.id;
  out['test-tag'] = node.id;
  out.bounds = truncateRect(node.bounds);
  if (node.enabled) out.clickable = 'true';
  else out.enabled = 'false';
  if (node.focused) out.focused = 'true';
  out['sdk-element-id'] = node.id;
  out['sdk-capture-identity'] = captureIdentity;
  out.extras = { [SDK_SOURCE_KEY]: SDK_BRIDGE_SOURCE };
  if (children.length > 0) out.node = [...children];
  return out;
}
