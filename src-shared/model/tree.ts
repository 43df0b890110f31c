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
  return walk(root, undefined);
}

/**
 * The pre-order walk, filling `byKey` on the way when given. One object per node, made once (the row
 * itself, its order set when it is reached): on a 50,000-node screen this runs for every new frame.
 */
function walk(root: UiNode, byKey: Map<NodeKey, FlatNode> | undefined): FlatNode[] {
  const out: FlatNode[] = [];
  // An explicit stack: real trees can be deep enough to make recursion a risk.
  const stack: FlatNode[] = [{ key: ROOT_KEY, node: root, depth: 0, parentKey: null, order: 0 }];
  while (stack.length > 0) {
    const flat = stack.pop()!;
    flat.order = out.length;
    out.push(flat);
    byKey?.set(flat.key, flat);
    const children = childrenOf(flat.node);
    for (let i = children.length - 1; i >= 0; i--) {
      stack.push({ key: childKey(flat.key, i), node: children[i]!, depth: flat.depth + 1, parentKey: flat.key, order: 0 });
    }
  }
  return out;
}

/** The flattened tree with a lookup by key. */
export interface TreeIndex {
  nodes: FlatNode[];
  byKey: Map<NodeKey, FlatNode>;
}

export function indexTree(root: UiNode | null | undefined): TreeIndex {
  const byKey = new Map<NodeKey, FlatNode>();
  return { nodes: root ? walk(root, byKey) : [], byKey };
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
