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
 *
 * Built once per observation, and on a 50,000-node tree within a frame's budget (docs/rules.md#r-perf-11):
 * the walk keeps only typed arrays and the nodes themselves; keys, flat nodes, attribute records and
 * per-attribute columns are made the first time something asks for them (the selectors panel asks
 * only for the columns and a few keys), and the frame index that pairs kept twins only when the tree
 * has one.
 */
import type { UiNode } from '@shared/protocol/runner';
import { boundsOf, childrenOf, nodeSource, xctestTwinOf } from '@shared/model/node';
import { ROOT_KEY, type FlatNode, type NodeKey } from '@shared/model/tree';
import { elementAttributes, identifierOf, labelOf, placeholderOf, valueOf, type ElementAttributes } from './element';
import { elementTypeInfo, elementTypeOf } from '@shared/model/element-type';

export type ViewName = 'xctest' | 'merged';

/**
 * One view's identifying attributes as columns (per node of the tree, undefined when the node is not in
 * the view or has none), and its element types as raw XCUIElement.ElementType values: what the
 * generated selectors test, scanned without an attribute record per node.
 */
export interface ViewColumns {
  identifier: readonly (string | undefined)[];
  label: readonly (string | undefined)[];
  value: readonly (string | undefined)[];
  placeholderValue: readonly (string | undefined)[];
  type: Uint8Array;
}

/** The identifying attributes a view keeps as columns. */
export type ColumnName = Exclude<keyof ViewColumns, 'type'>;

const NONE: readonly number[] = [];

export class ScreenView {
  private childLists: number[][] | undefined;
  private positions: Int32Array | undefined;
  private attrList: (ElementAttributes | null)[] | undefined;
  private columnSet: ViewColumns | undefined;
  private readonly valueMaps = new Map<ColumnName, Map<string, number[]>>();
  private typeLists: Map<number, number[]> | undefined;

  constructor(
    readonly name: ViewName,
    /** Per node of the tree (pre-order index), the node as this view sees it, or null when it is not in the view. */
    private readonly seen: readonly (UiNode | null)[],
    /** The nearest ancestor in this view, or -1. */
    readonly parent: Int32Array,
    private readonly end: Int32Array,
    /** A view that sees every node as this one does (a tree XCTest alone reported): its columns are these. */
    private readonly same?: ScreenView,
  ) {}

  /** Per node of the tree, its attributes in this view, or null when it is not in the view. */
  get attrs(): readonly (ElementAttributes | null)[] {
    this.attrList ??= this.same ? (this.same.attrs as (ElementAttributes | null)[]) : this.seen.map((node) => (node === null ? null : elementAttributes(node)));
    return this.attrList;
  }

  /** The attributes of node `i` in this view (null when it is not in it), without reading every node's. */
  attributesOf(i: number): ElementAttributes | null {
    if (this.attrList) return this.attrList[i] ?? null;
    const node = this.seen[i];
    return node == null ? null : elementAttributes(node);
  }

  /** The view's identifying attributes and types as columns (read once, on first use). */
  get columns(): ViewColumns {
    if (!this.columnSet && this.same) this.columnSet = this.same.columns;
    if (!this.columnSet) {
      const n = this.seen.length;
      const identifier = new Array<string | undefined>(n);
      const label = new Array<string | undefined>(n);
      const value = new Array<string | undefined>(n);
      const placeholderValue = new Array<string | undefined>(n);
      const type = new Uint8Array(n);
      for (let i = 0; i < n; i++) {
        const node = this.seen[i]!;
        if (node === null) continue;
        const raw = node as Record<string, unknown>;
        identifier[i] = identifierOf(raw);
        label[i] = labelOf(raw);
        value[i] = valueOf(raw);
        placeholderValue[i] = placeholderOf(raw);
        type[i] = elementTypeInfo(elementTypeOf(node)).raw;
      }
      this.columnSet = { identifier, label, value, placeholderValue, type };
    }
    return this.columnSet;
  }

  /** The members whose `attribute` is `value`, in document order (a map per attribute, built on first use). */
  withValue(attribute: ColumnName, value: string): readonly number[] {
    let map = this.valueMaps.get(attribute);
    if (!map) {
      map = new Map();
      const column = this.columns[attribute];
      for (let i = 0; i < column.length; i++) {
        const v = column[i];
        if (v === undefined) continue;
        const list = map.get(v);
        if (list) list.push(i);
        else map.set(v, [i]);
      }
      this.valueMaps.set(attribute, map);
    }
    return map.get(value) ?? NONE;
  }

  /** The members of one raw XCUIElement.ElementType, in document order. */
  ofType(raw: number): readonly number[] {
    if (!this.typeLists) {
      const lists = new Map<number, number[]>();
      const type = this.columns.type;
      for (let i = 0; i < type.length; i++) {
        if (this.seen[i] === null) continue;
        const list = lists.get(type[i]!);
        if (list) list.push(i);
        else lists.set(type[i]!, [i]);
      }
      this.typeLists = lists;
    }
    return this.typeLists.get(raw) ?? NONE;
  }

  /** The number of nodes of the tree (members of the view or not). */
  get size(): number {
    return this.seen.length;
  }

  /** One past the last tree descendant of `i`. */
  subtreeEnd(i: number): number {
    return i < 0 ? this.seen.length : this.end[i]!;
  }

  has(i: number): boolean {
    return this.seen[i] != null;
  }

  /** The view's children of `i` (-1: the top of the view), in document order. */
  children(i: number): readonly number[] {
    if (!this.childLists) {
      const lists: number[][] = Array.from({ length: this.seen.length + 1 }, () => []);
      for (let j = 0; j < this.seen.length; j++) if (this.seen[j] !== null) lists[this.parent[j]! + 1]!.push(j);
      this.childLists = lists;
    }
    return this.childLists[i + 1]!;
  }

  /** Position of `i` among its parent's children in this view, 0-based. */
  indexInParent(i: number): number {
    if (!this.positions) {
      this.positions = new Int32Array(this.seen.length).fill(-1);
      for (let p = -1; p < this.seen.length; p++) this.children(p).forEach((c, k) => (this.positions![c] = k));
    }
    return this.positions[i]!;
  }

  /** The view's descendants of every node in `from` (document order, each once; `from` itself excluded). */
  descendantsOf(from: readonly number[]): number[] {
    const out: number[] = [];
    const sorted = [...from].sort((a, b) => a - b);
    let next = 0;
    for (const start of sorted) {
      const stop = start < 0 ? this.seen.length : this.end[start]!;
      for (let j = Math.max(next, start + 1); j < stop; j++) if (this.seen[j] !== null) out.push(j);
      next = Math.max(next, stop);
    }
    return out;
  }

  /** Every node of the view, in document order. */
  members(): number[] {
    return this.descendantsOf([-1]);
  }
}

export class ScreenIndex {
  /** The tree's nodes in pre-order. */
  readonly node: readonly UiNode[];
  /** Each node's parent in the tree, or -1. */
  readonly parent: Int32Array;
  /** One past the last descendant of each node. */
  readonly end: Int32Array;
  /** Each node's position among its parent's children (the last part of its key). */
  private readonly position: Int32Array;
  readonly xctest: ScreenView;
  readonly merged: ScreenView;
  /**
   * The other half of a pair that is one element: a bridge node and the XCTest node it was merged
   * beside (a kept twin), each pointing at the other; -1 otherwise.
   */
  readonly partner: Int32Array;
  private flat: FlatNode[] | undefined;
  private keyMap: Map<NodeKey, number> | undefined;
  private readonly xctestSeen: readonly (UiNode | null)[];
  private reportedTree: ReportedTree | null | undefined;
  private readonly fieldMaps = new Map<string, Map<string, number[]>>();

  constructor(readonly root: UiNode) {
    // One pre-order walk that keeps each node's parent and position (model/tree.ts flattenTree's order and keys).
    const node: UiNode[] = [];
    const parents: number[] = [];
    const positions: number[] = [];
    const stack: UiNode[] = [root];
    const stackParent: number[] = [-1];
    const stackPosition: number[] = [0];
    while (stack.length > 0) {
      const item = stack.pop()!;
      const i = node.length;
      node.push(item);
      parents.push(stackParent.pop()!);
      positions.push(stackPosition.pop()!);
      const children = childrenOf(item);
      for (let c = children.length - 1; c >= 0; c--) {
        stack.push(children[c]!);
        stackParent.push(i);
        stackPosition.push(c);
      }
    }
    const n = node.length;
    this.node = node;
    this.parent = Int32Array.from(parents);
    this.position = Int32Array.from(positions);
    const end = new Int32Array(n);
    for (let i = n - 1; i >= 0; i--) {
      end[i] = Math.max(end[i]!, i + 1);
      const p = this.parent[i]!;
      if (p >= 0) end[p] = Math.max(end[p]!, end[i]!);
    }
    this.end = end;

    // What XCTest reports of each node: itself, the XCTest node a merged node replaced, or nothing.
    const xctestSeen = new Array<UiNode | null>(n).fill(null);
    const kept: number[] = [];
    let xctestOnly = true;
    for (let i = 0; i < n; i++) {
      const item = node[i]!;
      if (nodeSource(item) === 'xctest') {
        xctestSeen[i] = item;
        continue;
      }
      xctestOnly = false;
      const twin = xctestTwinOf(item);
      if (twin?.kind === 'replaced') xctestSeen[i] = twin.node;
      else if (twin) kept.push(i);
    }
    this.xctestSeen = xctestSeen;
    this.partner = new Int32Array(n).fill(-1);
    if (kept.length > 0) this.pairKeptTwins(kept);
    const viewParents = (seen: readonly (UiNode | null)[]): Int32Array => {
      const out = new Int32Array(n).fill(-1);
      // Pre-order: a parent's answer is known before its children ask.
      for (let i = 1; i < n; i++) {
        const p = this.parent[i]!;
        out[i] = p < 0 || seen[p] !== null ? p : out[p]!;
      }
      return out;
    };
    // Every node is in the merged view: its parents are the tree's.
    this.merged = new ScreenView('merged', node, this.parent, end);
    this.xctest = xctestOnly
      ? new ScreenView('xctest', node, this.parent, end, this.merged)
      : new ScreenView('xctest', xctestSeen, viewParents(xctestSeen), end);
  }

  /** Pairs each kept twin with the XCTest node of the same frame and identity it stands beside. */
  private pairKeptTwins(kept: readonly number[]): void {
    const byBounds = new Map<string, number[]>();
    for (let i = 0; i < this.node.length; i++) {
      const item = this.node[i]!;
      if (nodeSource(item) !== 'xctest') continue;
      const key = boundsKey(item);
      if (key === undefined) continue;
      const list = byBounds.get(key);
      if (list) list.push(i);
      else byBounds.set(key, [i]);
    }
    for (const i of kept) {
      const item = this.node[i]!;
      const key = boundsKey(item);
      const seen = elementAttributes(xctestTwinOf(item)!.node);
      const match = (key === undefined ? [] : (byBounds.get(key) ?? [])).find((j) => {
        if (this.partner[j] !== -1) return false;
        const other = elementAttributes(this.node[j]!);
        return other.type === seen.type && other.identifier === seen.identifier && other.label === seen.label;
      });
      if (match !== undefined) {
        this.partner[i] = match;
        this.partner[match] = i;
      }
    }
  }

  get size(): number {
    return this.node.length;
  }

  /**
   * The tree XCTest itself reported, when the merged tree moved some of its elements (docs/rules.md#r-hand-10):
   * a bridge container kept beside its XCTest twin holds the XCTest elements XCTest reported inside that
   * twin (the tab bar's buttons under the bridge's tab bar, the XCTest UITabBar beside it left empty), so
   * the `xctest` view, which keeps the merged tree's structure, does not answer `app.tabBars.buttons`
   * as XCTest does. Here each such element is back under the twin, and every node is what XCTest
   * reported of it; `origin` maps each of its nodes (pre-order) to the merged node that stands for it.
   * Null when the view already has XCTest's structure. Built on first use.
   */
  xctestReported(): ReportedTree | null {
    if (this.reportedTree === undefined) this.reportedTree = this.buildReported();
    return this.reportedTree;
  }

  private buildReported(): ReportedTree | null {
    const n = this.node.length;
    const view = this.xctest;
    if (n === 0 || !view.has(0)) return null;
    // Each merged node's XCTest home: itself when XCTest reported it, the twin a kept container stands
    // beside (when the twin is outside the container), else its parent's home.
    const home = new Int32Array(n).fill(-1);
    let moved = false;
    for (let i = 0; i < n; i++) {
      const p = this.parent[i]!;
      const up = p < 0 ? -1 : home[p]!;
      const twin = this.partner[i]!;
      if (view.has(i)) {
        home[i] = i;
        if (up !== view.parent[i]) moved = true;
      } else if (twin >= 0 && view.has(twin) && !(twin > i && twin < this.end[i]!)) home[i] = twin;
      else home[i] = up;
    }
    if (!moved) return null;
    const copies = new Array<UiNode | null>(n).fill(null);
    for (let i = 0; i < n; i++) {
      const seen = this.xctestSeen[i];
      if (seen) copies[i] = { ...seen, node: [] } as UiNode;
    }
    for (let i = 1; i < n; i++) {
      const copy = copies[i];
      const at = home[this.parent[i]!]!;
      if (copy && at >= 0) (copies[at]!.node as UiNode[]).push(copy);
    }
    const root = copies[0]!;
    // A twin inside another container's subtree could close a loop: then there is no XCTest tree to offer.
    const origin = new Map<UiNode, number>(copies.flatMap((c, i) => (c ? [[c, i] as const] : [])));
    const seen = new Set<UiNode>();
    const stack = [root];
    while (stack.length > 0) {
      const item = stack.pop()!;
      if (seen.has(item)) return null;
      seen.add(item);
      stack.push(...childrenOf(item));
    }
    const screen = new ScreenIndex(root);
    return { screen, origin: Int32Array.from(screen.node, (item) => origin.get(item) ?? -1) };
  }

  /**
   * The nodes holding `value` in one of `fields` (their own fields, as the dispatcher's resolution reads
   * them), in document order: a map per list of fields, built on first use.
   */
  withField(fields: readonly string[], value: string): readonly number[] {
    const name = fields.join(' ');
    let map = this.fieldMaps.get(name);
    if (!map) {
      map = new Map();
      for (let i = 0; i < this.node.length; i++) {
        const raw = this.node[i]! as Record<string, unknown>;
        for (const field of fields) {
          const v = raw[field];
          if (typeof v !== 'string') continue;
          const list = map.get(v);
          if (!list) map.set(v, [i]);
          else if (list[list.length - 1] !== i) list.push(i);
        }
      }
      this.fieldMaps.set(name, map);
    }
    return map.get(value) ?? NONE;
  }

  /** The key of node `i` (model/tree.ts: its index path from the root). */
  keyOf(i: number): NodeKey {
    const parts: number[] = [];
    for (let j = i; j > 0; j = this.parent[j]!) parts.push(this.position[j]!);
    let key = ROOT_KEY;
    for (let k = parts.length - 1; k >= 0; k--) key += `.${parts[k]!}`;
    return key;
  }

  /** The pre-order index of the node at `key`, or undefined when the path is not in this tree. */
  indexOf(key: NodeKey): number | undefined {
    if (this.keyMap) return this.keyMap.get(key);
    const parts = key.split('.');
    if (parts[0] !== ROOT_KEY || this.node.length === 0) return undefined;
    let i = 0;
    for (let k = 1; k < parts.length; k++) {
      const part = parts[k]!;
      if (!/^\d+$/.test(part) || (part.length > 1 && part.startsWith('0'))) return undefined;
      // The children of i sit one after another, each one past the last descendant of the one before.
      let child = i + 1;
      for (let c = Number(part); c > 0 && child < this.end[i]!; c--) child = this.end[child]!;
      if (child >= this.end[i]!) return undefined;
      i = child;
    }
    return i;
  }

  /** Every node with its key and depth, in pre-order (made on first use: the generic evaluators' and the CLI flags'). */
  get nodes(): readonly FlatNode[] {
    if (!this.flat) {
      const flat: FlatNode[] = [];
      for (let i = 0; i < this.node.length; i++) {
        const p = this.parent[i]!;
        const parentNode = p < 0 ? undefined : flat[p]!;
        const key = parentNode ? `${parentNode.key}.${this.position[i]!}` : ROOT_KEY;
        flat.push({ key, node: this.node[i]!, depth: parentNode ? parentNode.depth + 1 : 0, parentKey: parentNode?.key ?? null, order: i });
      }
      this.flat = flat;
    }
    return this.flat;
  }

  /** Node `i` as a flat node, without flattening the whole tree when it has not been. */
  flatNode(i: number): FlatNode {
    if (this.flat) return this.flat[i]!;
    let depth = 0;
    for (let j = this.parent[i]!; j >= 0; j = this.parent[j]!) depth++;
    const p = this.parent[i]!;
    return { key: this.keyOf(i), node: this.node[i]!, depth, parentKey: p < 0 ? null : this.keyOf(p), order: i };
  }

  get byKey(): ReadonlyMap<NodeKey, number> {
    if (!this.keyMap) {
      const map = new Map<NodeKey, number>();
      this.nodes.forEach((f, i) => map.set(f.key, i));
      this.keyMap = map;
    }
    return this.keyMap;
  }
}

/** What XCTest reported, as a tree of its own, and the merged node each of its nodes stands for. */
export interface ReportedTree {
  screen: ScreenIndex;
  origin: Int32Array;
}

const cache = new WeakMap<UiNode, ScreenIndex>();

function boundsKey(node: UiNode): string | undefined {
  const b = boundsOf(node);
  return b ? `${b.left},${b.top},${b.right},${b.bottom}` : undefined;
}

/** The index of a tree (cached per root object, so every selector on one observation shares it). */
export function indexScreen(root: UiNode): ScreenIndex {
  let index = cache.get(root);
  if (!index) {
    index = new ScreenIndex(root);
    cache.set(root, index);
  }
  return index;
}
