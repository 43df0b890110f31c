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
  const out: FlatNode[] = [];
  // An explicit stack: real trees can be deep enough to make recursion a risk.
  const stack: { node: UiNode; key: NodeKey; depth: number; parentKey: NodeKey | null }[] = [{ node: root, key: ROOT_KEY, depth: 0, parentKey: null }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    out.push({ ...item, order: out.length });
    const children = childrenOf(item.node);
    for (let i = children.length - 1; i >= 0; i--) {
      stack.push({ node: children[i]!, key: childKey(item.key, i), depth: item.depth + 1, parentKey: item.key });
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
  const nodes = root ? flattenTree(root) : [];
  return { nodes, byKey: new Map(nodes.map((n) => [n.key, n])) };
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
