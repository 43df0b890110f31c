/**
 * One observation's tree, indexed once for every selector evaluated over it (docs/selectors.md#s-views):
 * flat arrays in pre-order, each node's subtree span, and two views of the screen.
 *
 * - `xctest`: the elements plain XCTest reports, as it reports them. An XCTest node is itself; a bridge
 *   or DOM node merged over an XCTest node it replaced is that XCTest node's attributes
 *   (`xctestTwinOf`); a bridge node beside the XCTest node it describes, and a merged node XCTest never
 *   reported, are not in it. Maestro, XCUITest and Appium selectors are questions about this view.
 * - `merged`: every node of the merged tree with its own attributes: what the inspector shows, and the
 *   only view in which a bridge or DOM identity can be found.
 *
 * A node left out of a view passes its children to its nearest ancestor in the view, so the view's
 * descendants of a node are exactly its tree descendants that are in the view: descendant steps are a
 * range scan over the subtree span, which keeps every evaluation linear in the tree.
 */
import type { UiNode } from '@shared/protocol/runner';
import { boundsOf, childrenOf, nodeSource, xctestTwinOf } from '@shared/model/node';
import { childKey, ROOT_KEY, type FlatNode, type NodeKey } from '@shared/model/tree';
import { elementAttributes, type ElementAttributes } from './element';

export type ViewName = 'xctest' | 'merged';

export class ScreenView {
  private childLists: number[][] | undefined;
  private positions: Int32Array | undefined;

  constructor(
    readonly name: ViewName,
    /** Per node of the tree (pre-order index), its attributes in this view, or null when it is not in the view. */
    readonly attrs: readonly (ElementAttributes | null)[],
    /** The nearest ancestor in this view, or -1. */
    readonly parent: Int32Array,
    private readonly end: Int32Array,
  ) {}

  /** One past the last tree descendant of `i`. */
  subtreeEnd(i: number): number {
    return i < 0 ? this.attrs.length : this.end[i]!;
  }

  has(i: number): boolean {
    return this.attrs[i] !== null;
  }

  /** The view's children of `i` (-1: the top of the view), in document order. */
  children(i: number): readonly number[] {
    if (!this.childLists) {
      const lists: number[][] = Array.from({ length: this.attrs.length + 1 }, () => []);
      for (let j = 0; j < this.attrs.length; j++) if (this.attrs[j] !== null) lists[this.parent[j]! + 1]!.push(j);
      this.childLists = lists;
    }
    return this.childLists[i + 1]!;
  }

  /** Position of `i` among its parent's children in this view, 0-based. */
  indexInParent(i: number): number {
    if (!this.positions) {
      this.positions = new Int32Array(this.attrs.length).fill(-1);
      for (let p = -1; p < this.attrs.length; p++) this.children(p).forEach((c, k) => (this.positions![c] = k));
    }
    return this.positions[i]!;
  }

  /** The view's descendants of every node in `from` (document order, each once; `from` itself excluded). */
  descendantsOf(from: readonly number[]): number[] {
    const out: number[] = [];
    const sorted = [...from].sort((a, b) => a - b);
    let next = 0;
    for (const start of sorted) {
      const stop = start < 0 ? this.attrs.length : this.end[start]!;
      for (let j = Math.max(next, start + 1); j < stop; j++) if (this.attrs[j] !== null) out.push(j);
      next = Math.max(next, stop);
    }
    return out;
  }

  /** Every node of the view, in document order. */
  members(): number[] {
    return this.descendantsOf([-1]);
  }
}

export interface ScreenIndex {
  root: UiNode;
  nodes: readonly FlatNode[];
  byKey: ReadonlyMap<NodeKey, number>;
  /** One past the last descendant of each node. */
  end: Int32Array;
  xctest: ScreenView;
  merged: ScreenView;
  /**
   * The other half of a pair that is one element: a bridge node and the XCTest node it was merged
   * beside (a kept twin), each pointing at the other; -1 otherwise.
   */
  partner: Int32Array;
}

const cache = new WeakMap<UiNode, ScreenIndex>();

function boundsKey(node: UiNode): string | undefined {
  const b = boundsOf(node);
  return b ? `${b.left},${b.top},${b.right},${b.bottom}` : undefined;
}

/** The index of a tree (cached per root object, so every selector on one observation shares it). */
export function indexScreen(root: UiNode): ScreenIndex {
  const cached = cache.get(root);
  if (cached) return cached;
  // One pre-order walk that keeps each node's parent by index (model/tree.ts flattenTree's order and keys).
  const nodes: FlatNode[] = [];
  const parents: number[] = [];
  const stack: { node: UiNode; key: NodeKey; depth: number; parent: number }[] = [{ node: root, key: ROOT_KEY, depth: 0, parent: -1 }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    const i = nodes.length;
    const parent = item.parent;
    nodes.push({ key: item.key, node: item.node, depth: item.depth, parentKey: parent < 0 ? null : nodes[parent]!.key, order: i });
    parents.push(parent);
    const children = childrenOf(item.node);
    for (let c = children.length - 1; c >= 0; c--) stack.push({ node: children[c]!, key: childKey(item.key, c), depth: item.depth + 1, parent: i });
  }
  const n = nodes.length;
  const byKey = new Map<NodeKey, number>();
  for (let i = 0; i < n; i++) byKey.set(nodes[i]!.key, i);
  const parentIndex = Int32Array.from(parents);
  const end = new Int32Array(n);
  for (let i = n - 1; i >= 0; i--) {
    end[i] = Math.max(end[i]!, i + 1);
    const p = parentIndex[i]!;
    if (p >= 0) end[p] = Math.max(end[p]!, end[i]!);
  }

  const mergedAttrs: ElementAttributes[] = nodes.map((f) => elementAttributes(f.node));
  const xctestAttrs: (ElementAttributes | null)[] = new Array<ElementAttributes | null>(n).fill(null);
  const partner = new Int32Array(n).fill(-1);
  // XCTest nodes by frame, to pair a kept twin with the XCTest node it stands beside.
  const xctestByBounds = new Map<string, number[]>();
  for (let i = 0; i < n; i++) {
    const node = nodes[i]!.node;
    if (nodeSource(node) !== 'xctest') continue;
    xctestAttrs[i] = mergedAttrs[i]!;
    const key = boundsKey(node);
    if (key === undefined) continue;
    const list = xctestByBounds.get(key);
    if (list) list.push(i);
    else xctestByBounds.set(key, [i]);
  }
  for (let i = 0; i < n; i++) {
    const node = nodes[i]!.node;
    if (nodeSource(node) === 'xctest') continue;
    const twin = xctestTwinOf(node);
    if (!twin) continue;
    if (twin.kind === 'replaced') {
      xctestAttrs[i] = elementAttributes(twin.node);
      continue;
    }
    const key = boundsKey(node);
    const seen = elementAttributes(twin.node);
    const match = (key === undefined ? [] : (xctestByBounds.get(key) ?? [])).find(
      (j) => partner[j] === -1 && mergedAttrs[j]!.type === seen.type && mergedAttrs[j]!.identifier === seen.identifier && mergedAttrs[j]!.label === seen.label,
    );
    if (match !== undefined) {
      partner[i] = match;
      partner[match] = i;
    }
  }

  const viewParents = (attrs: readonly (ElementAttributes | null)[]): Int32Array => {
    const out = new Int32Array(n).fill(-1);
    // Pre-order: a parent's answer is known before its children ask.
    for (let i = 1; i < n; i++) {
      const p = parentIndex[i]!;
      out[i] = p < 0 || attrs[p] !== null ? p : out[p]!;
    }
    return out;
  };
  const index: ScreenIndex = {
    root,
    nodes,
    byKey,
    end,
    xctest: new ScreenView('xctest', xctestAttrs, viewParents(xctestAttrs), end),
    merged: new ScreenView('merged', mergedAttrs, viewParents(mergedAttrs), end),
    partner,
  };
  cache.set(root, index);
  return index;
}
