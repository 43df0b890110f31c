/**
 * Node keys, flattening and lookups over a runner hierarchy (pure: no DOM, no Node).
 *
 * A node's key is its index path from the root: the root is "0", its second child "0.1", that child's
 * fourth child "0.1.3". Keys are stable for a given tree and readable in tests and test hooks.
 */
import type { UiNode } from '@shared/protocol/runner';
import { childrenOf } from './node';

export type NodeKey = string;

export const ROOT_KEY: NodeKey = '0';

/** One node of the tree, with where it sits. */
export interface FlatNode {
  key: NodeKey;
  node: UiNode;
  depth: number;
  parentKey: NodeKey | null;
  /** Position in a pre-order walk (document order: parents before children, earlier siblings first). */
  order: number;
}

export function childKey(parent: NodeKey, index: number): NodeKey {
  return `${parent}.${index}`;
}

export function parentKeyOf(key: NodeKey): NodeKey | null {
  const cut = key.lastIndexOf('.');
  return cut < 0 ? null : key.slice(0, cut);
}

/** The keys of every ancestor of `key`, root first (not including `key`). */
export function ancestorKeys(key: NodeKey): NodeKey[] {
  const parts = key.split('.');
  const out: NodeKey[] = [];
  for (let i = 1; i < parts.length; i++) out.push(parts.slice(0, i).join('.'));
  return out;
}

/** True when `key` is `ancestor` or lies below it. */
export function isSameOrDescendant(key: NodeKey, ancestor: NodeKey): boolean {
  return key === ancestor || key.startsWith(`${ancestor}.`);
}

/** Every node in pre-order with its key and depth. */
export function flattenTree(root: UiNode): FlatNode[] {
  return walk(root);
}

/**
 * The pre-order walk. One object per node, made once (the row itself, its order set when it is
 * reached): on a 50,000-node screen this runs for every new frame.
 */
function walk(root: UiNode): FlatNode[] {
  const out: FlatNode[] = [];
  // An explicit stack: real trees can be deep enough to make recursion a risk.
  const stack: FlatNode[] = [{ key: ROOT_KEY, node: root, depth: 0, parentKey: null, order: 0 }];
  while (stack.length > 0) {
    const flat = stack.pop()!;
    flat.order = out.length;
    out.push(flat);
    const children = childrenOf(flat.node);
    for (let i = children.length - 1; i >= 0; i--) {
      stack.push({ key: childKey(flat.key, i), node: children[i]!, depth: flat.depth + 1, parentKey: flat.key, order: 0 });
    }
  }
  return out;
}

/** The flattened tree with a lookup by key. */
export interface TreeIndex {
  readonly nodes: FlatNode[];
  /** Built on first use: a new frame's first paint needs the rows, not 50,000 keys hashed (issue 29.2). */
  readonly byKey: ReadonlyMap<NodeKey, FlatNode>;
}

export function indexTree(root: UiNode | null | undefined): TreeIndex {
  const nodes = root ? walk(root) : [];
  let byKey: ReadonlyMap<NodeKey, FlatNode> | undefined;
  return {
    nodes,
    get byKey() {
      return (byKey ??= keyMap(nodes, (flat) => flat.key));
    },
  };
}

/** A lookup by key, built on the first `get`: a frame's first paint needs none of it (issue 29.2). */
export interface KeyLookup<K, V> {
  get(key: K): V | undefined;
}

export function lazyKeyLookup<K, V>(build: () => ReadonlyMap<K, V>): KeyLookup<K, V> {
  let map: ReadonlyMap<K, V> | undefined;
  return { get: (key) => (map ??= build()).get(key) };
}

export function keyMap<K, V>(items: readonly V[], keyOf: (item: V) => K): ReadonlyMap<K, V> {
  const map = new Map<K, V>();
  for (const item of items) map.set(keyOf(item), item);
  return map;
}

/** The node at `key`, or undefined when the path does not exist in this tree. */
export function nodeAtKey(root: UiNode, key: NodeKey): UiNode | undefined {
  const parts = key.split('.');
  if (parts[0] !== ROOT_KEY) return undefined;
  let node: UiNode | undefined = root;
  for (let i = 1; i < parts.length && node; i++) {
    const index = Number(parts[i]);
    if (!Number.isInteger(index) || index < 0) return undefined;
    node = childrenOf(node)[index];
  }
  return node;
}

/** The rows a tree view shows: every node except those below a collapsed one (pre-order kept). */
export function visibleRows(nodes: readonly FlatNode[], collapsed: ReadonlySet<NodeKey>): FlatNode[] {
  if (collapsed.size === 0) return [...nodes];
  const out: FlatNode[] = [];
  let hiddenBelow: NodeKey | null = null;
  for (const flat of nodes) {
    if (hiddenBelow !== null && isSameOrDescendant(flat.key, hiddenBelow) && flat.key !== hiddenBelow) continue;
    hiddenBelow = null;
    out.push(flat);
    if (collapsed.has(flat.key) && childrenOf(flat.node).length > 0) hiddenBelow = flat.key;
  }
  return out;
}
