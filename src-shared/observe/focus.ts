/**
 * The focused element of a merged tree. XCTest's read is the freshest; a bridge or web snapshot can be
 * older, so their focus counts only when XCTest reports none (the native bridge before the web view: it
 * is read first in the same observe pass). Focus on a node that holds a focused node is the container's
 * share of it: on iOS the WKWebView is first responder while one of its DOM inputs has focus, so the
 * focused element is the innermost focused node under the one chosen (docs/rules.md#r-obj-05).
 */
import type { FocusedElement, NodeSource } from '@shared/protocol/observation';
import type { UiNode } from '@shared/protocol/runner';
import { ROOT_KEY } from '@shared/model/tree';
import { childrenOf, nodeSource, withoutChildren, nodeFlag } from '@shared/model/node';

const PREFERENCE: readonly NodeSource[] = ['xctest', 'sdkBridge', 'sdkWebBridge'];

interface Hit {
  key: string;
  node: UiNode;
}

export function focusedElement(root: UiNode): FocusedElement | undefined {
  const first = new Map<NodeSource, Hit>();
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
    if (!hit) continue;
    const inner = innermostFocused(hit);
    return { nodeKey: inner.key, source: nodeSource(inner.node), node: withoutChildren(inner.node) };
  }
  return undefined;
}

/** The deepest focused node under `hit` (the first in screen order at each level), or `hit` itself. */
function innermostFocused(hit: Hit): Hit {
  let current = hit;
  for (;;) {
    const below = firstFocusedBelow(current);
    if (!below) return current;
    current = below;
  }
}

function firstFocusedBelow(hit: Hit): Hit | undefined {
  const children = childrenOf(hit.node);
  for (let i = 0; i < children.length; i++) {
    const child: Hit = { key: `${hit.key}.${i}`, node: children[i]! };
    if (nodeFlag(child.node, 'focused')) return child;
    const deeper = firstFocusedBelow(child);
    if (deeper) return deeper;
  }
  return undefined;
}
