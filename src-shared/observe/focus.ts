/**
 * The focused element of a merged tree. XCTest's read is the freshest; a bridge or web snapshot can be
 * older, so their focus counts only when XCTest reports none (the native bridge before the web view: it
 * is read first in the same observe pass).
 */
import type { FocusedElement, NodeSource } from '@shared/protocol/observation';
import type { UiNode } from '@shared/protocol/runner';
import { ROOT_KEY } from '@shared/model/tree';
import { childrenOf, nodeSource, withoutChildren, nodeFlag } from '@shared/model/node';

const PREFERENCE: readonly NodeSource[] = ['xctest', 'sdkBridge', 'sdkWebBridge'];

export function focusedElement(root: UiNode): FocusedElement | undefined {
  const first = new Map<NodeSource, { key: string; node: UiNode }>();
  // The index path of the node being visited; a NodeKey is built only for a focused node.
  const path: number[] = [];
  const visit = (node: UiNode): boolean => {
    if (nodeFlag(node, 'focused')) {
      const source = nodeSource(node);
      if (!first.has(source)) first.set(source, { key: [ROOT_KEY, ...path].join('.'), node });
      if (source === 'xctest') return true;
    }
    const children = childrenOf(node);
    for (let i = 0; i < children.length; i++) {
      path.push(i);
      const done = visit(children[i]!);
      path.pop();
      if (done) return true;
    }
    return false;
  };
  visit(root);
  for (const source of PREFERENCE) {
    const hit = first.get(source);
    if (hit) return { nodeKey: hit.key, source, node: withoutChildren(hit.node) };
  }
  return undefined;
}
