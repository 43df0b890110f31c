/**
 * Picking (docs/rules.md#r-pick): which node a finger at a point would hit, the one rule the UI's hover,
 * click and Interact, the recorder and the CLI share.
 *
 * - R-PICK-01: a node is there at a point when its bounds contain it, the point is on the screen, and
 *   every scroll container or web view above the node contains it too (content scrolled out of its
 *   container is clipped away, as the screen shows it).
 * - R-PICK-02: within one source (XCTest, the SDK bridge, the web view's DOM) the node drawn last is on
 *   top: children over their parent, later siblings (a tab bar, a navigation bar, a sheet, an alert, the
 *   keyboard) over earlier ones (the scroll content under them).
 * - R-PICK-03: the sources describe one screen, so their topmost nodes are weighed against each other: a
 *   node inside another's frame lies on it and wins; of two with the same frame the one with an identity
 *   an action can name wins (DOM, then bridge, then XCTest); XCTest content the bridge does not describe
 *   at all (an alert, the keyboard: a subtree of the root with no bridge twin) lies over the bridge's
 *   nodes; otherwise the one later in the merged tree wins.
 * - R-PICK-04: the stack under a point is the topmost node first, then the other nodes there, smallest
 *   first (what a second click, Tab or the wheel walks through).
 */
import type { UiNode } from '@shared/protocol/runner';
import { flattenTree, type FlatNode, type NodeKey } from '@shared/model/tree';
import { boundsOf, isWebView, nodeFlag, nodeSource, rectArea, sameRect, type Rect } from '@shared/model/node';

/** Half-open containment: a point on the shared edge of two adjacent rows belongs to the lower one. */
export function rectContains(r: Rect, x: number, y: number): boolean {
  return x >= r.left && x < r.right && y >= r.top && y < r.bottom;
}

export interface PickOptions {
  /** The screen in points: a point outside it hits nothing. Absent: not checked. */
  readonly screen?: { readonly width: number; readonly height: number } | null | undefined;
  /** Which nodes may be picked (the legend's source filter); every node still clips what lies in it. */
  readonly pickable?: ((flat: FlatNode) => boolean) | undefined;
}

function clips(node: UiNode): boolean {
  // A web view's page scrolls inside its frame.
  return nodeFlag(node, 'scrollable') || isWebView(node);
}

/** Each node list's nodes by key, built once per list (a frame's), not once per pointer move. */
const keyIndexes = new WeakMap<readonly FlatNode[], ReadonlyMap<NodeKey, FlatNode>>();
function keyIndex(nodes: readonly FlatNode[]): ReadonlyMap<NodeKey, FlatNode> {
  let index = keyIndexes.get(nodes);
  if (!index) {
    index = new Map(nodes.map((flat) => [flat.key, flat]));
    keyIndexes.set(nodes, index);
  }
  return index;
}

/**
 * Each node list's boxes in a uniform grid over their extent, built once per list (a frame's): a pointer
 * move over a 50,000-node screen looks at the few nodes whose boxes cover its cell, not at every node
 * (docs/rules.md#r-perf-03). A box that covers a large share of the grid (the root, a scroll view's
 * content) is kept in one list beside the cells instead of in each of them.
 */
interface PointIndex {
  left: number;
  top: number;
  cellWidth: number;
  cellHeight: number;
  columns: number;
  rows: number;
  /** Positions in the list of the boxes that overlap each cell, ascending. */
  cells: number[][];
  /** Positions of the boxes too large for the cells, ascending. */
  large: number[];
}

const pointIndexes = new WeakMap<readonly FlatNode[], PointIndex>();

/** About this many boxes per cell on a screen of small boxes; the grid never exceeds 128 cells a side. */
const BOXES_PER_CELL = 8;
const MAX_CELLS_SIDE = 128;

function pointIndex(nodes: readonly FlatNode[]): PointIndex {
  const known = pointIndexes.get(nodes);
  if (known) return known;
  let left = Infinity;
  let top = Infinity;
  let right = -Infinity;
  let bottom = -Infinity;
  const rects: (Rect | null)[] = nodes.map((flat) => {
    const r = boundsOf(flat.node);
    if (r && r.right > r.left && r.bottom > r.top) {
      left = Math.min(left, r.left);
      top = Math.min(top, r.top);
      right = Math.max(right, r.right);
      bottom = Math.max(bottom, r.bottom);
      return r;
    }
    return null;
  });
  const side = Math.max(1, Math.min(MAX_CELLS_SIDE, Math.ceil(Math.sqrt(nodes.length / BOXES_PER_CELL))));
  const width = right > left ? right - left : 1;
  const height = bottom > top ? bottom - top : 1;
  const index: PointIndex = {
    left: Number.isFinite(left) ? left : 0,
    top: Number.isFinite(top) ? top : 0,
    cellWidth: width / side,
    cellHeight: height / side,
    columns: side,
    rows: side,
    cells: Array.from({ length: side * side }, () => []),
    large: [],
  };
  const largeCells = Math.max(4, (side * side) / 16);
  for (let i = 0; i < rects.length; i++) {
    const r = rects[i];
    if (!r) continue;
    const c0 = cellColumn(index, r.left);
    const c1 = cellColumn(index, r.right);
    const r0 = cellRow(index, r.top);
    const r1 = cellRow(index, r.bottom);
    if ((c1 - c0 + 1) * (r1 - r0 + 1) > largeCells) {
      index.large.push(i);
      continue;
    }
    for (let row = r0; row <= r1; row++) for (let col = c0; col <= c1; col++) index.cells[row * side + col]!.push(i);
  }
  pointIndexes.set(nodes, index);
  return index;
}

const clampCell = (n: number, count: number) => (Number.isFinite(n) ? Math.max(0, Math.min(count - 1, Math.floor(n))) : 0);
const cellColumn = (index: PointIndex, x: number) => clampCell((x - index.left) / index.cellWidth, index.columns);
const cellRow = (index: PointIndex, y: number) => clampCell((y - index.top) / index.cellHeight, index.rows);

/** Positions in the list of every box that may contain (x, y), ascending (tree order). */
function candidatesAt(nodes: readonly FlatNode[], x: number, y: number): number[] {
  const index = pointIndex(nodes);
  const cell = index.cells[cellRow(index, y) * index.columns + cellColumn(index, x)]!;
  const large = index.large;
  if (large.length === 0) return cell;
  if (cell.length === 0) return large;
  // Both lists ascend: merge them.
  const out: number[] = [];
  let a = 0;
  let b = 0;
  while (a < cell.length || b < large.length) {
    if (b >= large.length || (a < cell.length && cell[a]! < large[b]!)) out.push(cell[a++]!);
    else out.push(large[b++]!);
  }
  return out;
}

/**
 * Whether something above `flat` in the list clips it away at (x, y): a scroll container or web view
 * that does not contain the point, walking up through parents that are in the list (a parent left out
 * of the list clips nothing, nor does anything above it).
 */
function clippedAt(byKey: ReadonlyMap<NodeKey, FlatNode>, flat: FlatNode, x: number, y: number): boolean {
  for (
    let parent = flat.parentKey === null ? undefined : byKey.get(flat.parentKey);
    parent;
    parent = parent.parentKey === null ? undefined : byKey.get(parent.parentKey)
  ) {
    if (!clips(parent.node)) continue;
    const r = boundsOf(parent.node);
    if (r !== null && !rectContains(r, x, y)) return true;
  }
  return false;
}

/** The nodes really there at (x, y) (R-PICK-01), in tree order. */
function present(nodes: readonly FlatNode[], x: number, y: number, options: PickOptions): FlatNode[] {
  const screen = options.screen;
  if (screen && !(x >= 0 && y >= 0 && x < screen.width && y < screen.height)) return [];
  const byKey = keyIndex(nodes);
  const out: FlatNode[] = [];
  for (const i of candidatesAt(nodes, x, y)) {
    const flat = nodes[i]!;
    const r = boundsOf(flat.node);
    if (r && rectContains(r, x, y) && !clippedAt(byKey, flat, x, y) && (options.pickable?.(flat) ?? true)) out.push(flat);
  }
  return out;
}

/** The nodes whose box contains (x, y), clipped or not, in tree order (their frames, not what is drawn). */
export function boxesAt(nodes: readonly FlatNode[], x: number, y: number): FlatNode[] {
  const out: FlatNode[] = [];
  for (const i of candidatesAt(nodes, x, y)) {
    const r = boundsOf(nodes[i]!.node);
    if (r && rectContains(r, x, y)) out.push(nodes[i]!);
  }
  return out;
}

type Layer = 'xctest' | 'sdkBridge' | 'sdkWebBridge';
/** Of two twins, the one an action can name (R-PICK-03). */
const IDENTITY_RANK: Record<Layer, number> = { sdkWebBridge: 2, sdkBridge: 1, xctest: 0 };

function strictlyInside(a: Rect, b: Rect): boolean {
  return a.left >= b.left && a.top >= b.top && a.right <= b.right && a.bottom <= b.bottom && rectArea(a) < rectArea(b);
}

/**
 * The keys of the root's XCTest children the bridge does not describe anywhere (no bridge node with the
 * same frame and the same id or label in the subtree): alerts, the keyboard, system UI. Empty when the
 * tree has no bridge nodes, since then nothing is weighed against the bridge.
 */
function overlaySubtrees(nodes: readonly FlatNode[]): ReadonlySet<NodeKey> {
  // One answer per node list (a frame's): every pointer move over a 50,000-node screen asks again
  // (docs/rules.md#r-perf-03).
  const known = overlayCache.get(nodes);
  if (known) return known;
  const overlays = computeOverlaySubtrees(nodes);
  overlayCache.set(nodes, overlays);
  return overlays;
}
const overlayCache = new WeakMap<readonly FlatNode[], ReadonlySet<NodeKey>>();

function computeOverlaySubtrees(nodes: readonly FlatNode[]): Set<NodeKey> {
  const twins = new Set<string>();
  for (const { node } of nodes) {
    if (nodeSource(node) !== 'sdkBridge') continue;
    const r = boundsOf(node);
    if (!r) continue;
    const frame = `${r.left},${r.top},${r.right},${r.bottom}`;
    for (const name of [node['resource-id'], node['content-desc'], node.text]) if (name) twins.add(`${frame}|${name}`);
  }
  const overlays = new Set<NodeKey>();
  if (twins.size === 0) return overlays;
  const described = new Set<NodeKey>();
  const roots = new Map<NodeKey, NodeKey>();
  for (const flat of nodes) {
    if (flat.depth === 0) continue;
    const top = flat.depth === 1 ? flat.key : roots.get(flat.parentKey ?? '');
    if (top === undefined) continue;
    roots.set(flat.key, top);
    if (flat.depth === 1 && nodeSource(flat.node) === 'xctest') overlays.add(top);
    const r = boundsOf(flat.node);
    if (!r || nodeSource(flat.node) !== 'xctest') continue;
    const frame = `${r.left},${r.top},${r.right},${r.bottom}`;
    for (const name of [flat.node['resource-id'], flat.node['content-desc'], flat.node.text]) if (name && twins.has(`${frame}|${name}`)) described.add(top);
  }
  for (const key of described) overlays.delete(key);
  return overlays;
}

function rootChildOf(key: NodeKey): NodeKey {
  const parts = key.split('.');
  return parts.length < 2 ? key : `${parts[0]}.${parts[1]}`;
}

/** Which of two per-source topmost nodes a finger hits (R-PICK-03). */
function above(a: FlatNode, b: FlatNode, overlays: ReadonlySet<NodeKey>): FlatNode {
  const la = nodeSource(a.node) as Layer;
  const lb = nodeSource(b.node) as Layer;
  const aOverlay = la === 'xctest' && overlays.has(rootChildOf(a.key));
  const bOverlay = lb === 'xctest' && overlays.has(rootChildOf(b.key));
  if (aOverlay !== bOverlay && (la === 'sdkBridge' || lb === 'sdkBridge')) return aOverlay ? a : b;
  const ra = boundsOf(a.node)!;
  const rb = boundsOf(b.node)!;
  if (sameRect(ra, rb)) return IDENTITY_RANK[la] >= IDENTITY_RANK[lb] ? a : b;
  if (strictlyInside(ra, rb)) return a;
  if (strictlyInside(rb, ra)) return b;
  return a.order > b.order ? a : b;
}

function topmostOf(candidates: readonly FlatNode[], overlays: ReadonlySet<NodeKey>): FlatNode | null {
  // Per source, the one drawn last (R-PICK-02): candidates are in pre-order.
  const perLayer = new Map<Layer, FlatNode>();
  for (const flat of candidates) perLayer.set(nodeSource(flat.node) as Layer, flat);
  let best: FlatNode | null = null;
  for (const flat of perLayer.values()) best = best === null ? flat : above(best, flat, overlays);
  return best;
}

/** The node a finger at (x, y) hits, or null where there is none (R-PICK-01…03). */
export function topmostAt(nodes: readonly FlatNode[], x: number, y: number, options: PickOptions = {}): FlatNode | null {
  return topmostOf(present(nodes, x, y, options), overlaySubtrees(nodes));
}

/** Every node really there at (x, y): the topmost first, then the rest smallest first (R-PICK-04). */
export function pickStackAt(nodes: readonly FlatNode[], x: number, y: number, options: PickOptions = {}): FlatNode[] {
  const candidates = present(nodes, x, y, options);
  const top = topmostOf(candidates, overlaySubtrees(nodes));
  if (!top) return [];
  const rest = candidates
    .filter((flat) => flat !== top)
    .map((flat) => ({ flat, area: rectArea(boundsOf(flat.node)!) }))
    .sort((a, b) => a.area - b.area || b.flat.depth - a.flat.depth || b.flat.order - a.flat.order)
    .map((entry) => entry.flat);
  return [top, ...rest];
}

/** pickStackAt over a whole tree. */
export function nodesAt(root: UiNode, x: number, y: number, options: PickOptions = {}): FlatNode[] {
  return pickStackAt(flattenTree(root), x, y, options);
}

/** The topmost node and its ancestors in the list, innermost first: what a finger's touch bubbles through. */
export function hitChain(nodes: readonly FlatNode[], x: number, y: number, options: PickOptions = {}): FlatNode[] {
  const top = topmostAt(nodes, x, y, options);
  if (!top) return [];
  const byKey = keyIndex(nodes);
  const chain: FlatNode[] = [top];
  for (let key = top.parentKey; key !== null;) {
    const flat = byKey.get(key);
    if (!flat) break;
    chain.push(flat);
    key = flat.parentKey;
  }
  return chain;
}

/** The next position in a pick stack of `length` entries, wrapping around in both directions. */
export function cycleIndex(index: number, delta: number, length: number): number {
  if (length <= 0) return 0;
  return (((index + delta) % length) + length) % length;
}
