/**
 * Resolving a selector on the merged tree of the fresh read, so the node an action routes with carries
 * the bridge or web identity of that read (docs/rules.md#r-owv-18: a revalidated target keeps its
 * identity).
 */
import type { LookFor, Point, TargetSelector } from '@shared/protocol/action';
import type { UiNode } from '@shared/protocol/runner';
import { nodeIdentity } from '@shared/model/identity';
import { normalizeLookForText } from './look-for';
import { topmostAt } from '@shared/model/pick';
import { actionTargetAt, isEditableNode, scrollContainerAt } from '@shared/model/target';
import { collapseTwins, ID_FIELDS, sameElement, TEXT_FIELDS, textMatches } from '@shared/model/match';
import { flattenTree, type FlatNode } from '@shared/model/tree';

export type Resolution =
  | {
      readonly kind: 'node';
      readonly node: UiNode;
      readonly resolvedBy: 'id' | 'text' | 'node' | 'point';
      readonly selector?: string | undefined;
      readonly warnings: readonly string[];
      /**
       * Only for a picked node the fresh read no longer shows with its identity: the action is routed with
       * the picked identity, so the bridge or web view judges it (stale_observation, stale_snapshot, ...).
       * An XCTest stand-in may then touch only this fresh counterpart; without one it must not touch at all.
       */
      readonly unrevalidated?: { readonly counterpart: UiNode | undefined } | undefined;
    }
  /**
   * A point is tapped where it is (docs/rules.md#r-tap-10); `found` is the node a finger hits there, by
   * the picking rule, so the result can name it.
   */
  | { readonly kind: 'point'; readonly point: Point; readonly found?: UiNode | undefined }
  | { readonly kind: 'notFound'; readonly selector: string };

/** The value a selector names (an id, a text, a point, a picked node's id or label), as a result's `selector` records it. */
export function selectorValue(selector: TargetSelector): string {
  if ('id' in selector) return selector.id;
  if ('text' in selector) return selector.text;
  if ('point' in selector) return `${selector.point.x},${selector.point.y}`;
  return (
    selector.node['resource-id'] ??
    selector.node['sdk-element-id'] ??
    selector.node['web-element-id'] ??
    selector.node['content-desc'] ??
    selector.node.text ??
    'picked node'
  );
}

function pick(hits: readonly FlatNode[], resolvedBy: 'id' | 'text', selector: string, preferEditable: boolean): Resolution {
  let candidates = collapseTwins(hits);
  if (preferEditable) {
    const editable = candidates.filter((c) => isEditableNode(c.node));
    if (editable.length > 0) candidates = editable;
  }
  const [first, ...rest] = candidates;
  if (!first) return { kind: 'notFound', selector };
  const warnings = rest.length > 0 ? [`${candidates.length} elements matched ${resolvedBy} "${selector}"; acted on the first in screen order.`] : [];
  return { kind: 'node', node: first.node, resolvedBy, selector, warnings };
}

function revalidate(picked: UiNode, nodes: readonly FlatNode[]): Resolution {
  const selector = selectorValue({ node: picked });
  const identity = nodeIdentity(picked);
  if (identity.kind === 'bridge') {
    const fresh = nodes.find(({ node }) => {
      const id = nodeIdentity(node);
      return id.kind === 'bridge' && id.bridge.elementId === identity.bridge.elementId;
    });
    if (fresh) return { kind: 'node', node: fresh.node, resolvedBy: 'node', selector, warnings: [] };
  } else if (identity.kind === 'web') {
    const { webViewId, elementId, documentId } = identity.web;
    // Element ids restart for each document: the same id in another document is another element.
    const fresh =
      documentId === undefined
        ? undefined
        : nodes.find(({ node }) => {
            const id = nodeIdentity(node);
            return id.kind === 'web' && id.web.webViewId === webViewId && id.web.elementId === elementId && id.web.documentId === documentId;
          });
    if (fresh) return { kind: 'node', node: fresh.node, resolvedBy: 'node', selector, warnings: [] };
  } else {
    const fresh = collapseTwins(nodes.filter(({ node }) => sameElement(node, picked)))[0];
    if (fresh) return { kind: 'node', node: fresh.node, resolvedBy: 'node', selector, warnings: [] };
    return { kind: 'notFound', selector };
  }
  const counterpart = nodes.find(({ node }) => nodeIdentity(node).kind === 'none' && sameElement(node, picked))?.node;
  return {
    kind: 'node',
    node: picked,
    resolvedBy: 'node',
    selector,
    warnings: ['The fresh read no longer shows the picked element with its identity; it was sent as picked, for the app to judge.'],
    unrevalidated: { counterpart },
  };
}

export function resolveTarget(selector: TargetSelector, root: UiNode | undefined, options: { preferEditable?: boolean } = {}): Resolution {
  const nodes = root ? flattenTree(root) : [];
  if ('point' in selector) {
    const { x, y } = selector.point;
    const found = (actionTargetAt(nodes, x, y) ?? topmostAt(nodes, x, y))?.node;
    return { kind: 'point', point: selector.point, ...(found && found !== root ? { found } : {}) };
  }
  if ('node' in selector) return revalidate(selector.node, nodes);
  if ('id' in selector) {
    const hits = nodes.filter(({ node }) => ID_FIELDS.some((f) => node[f] === selector.id));
    return pick(hits, 'id', selector.id, options.preferEditable ?? false);
  }
  return pick(textMatches(nodes, selector.text), 'text', selector.text, options.preferEditable ?? false);
}

/** The scrollable container a finger at `point` drags (the picking rule), as the bridge node when one was merged over it. */
export function scrollableAt(root: UiNode | undefined, point: Point): UiNode | undefined {
  if (!root) return undefined;
  return scrollContainerAt(flattenTree(root), point.x, point.y)?.node;
}

/** Scroll searches match case and quote style aside (R-LOOK-02), within `scope` when given. */
export function findLookFor(lookFor: LookFor, scope: UiNode | undefined): UiNode | undefined {
  if (!scope) return undefined;
  const nodes = flattenTree(scope);
  if ('elementId' in lookFor) {
    const hits = nodes.filter(({ node }) => ID_FIELDS.some((f) => node[f] === lookFor.elementId));
    return collapseTwins(hits)[0]?.node;
  }
  const wanted = normalizeLookForText(lookFor.text);
  const hits = nodes.filter(({ node }) => TEXT_FIELDS.some((f) => node[f] !== undefined && normalizeLookForText(node[f]) === wanted));
  return collapseTwins(hits)[0]?.node;
}

/** The node a selector names as a container, for scoping (no identity rules apply to a scope). */
export function resolveScope(selector: TargetSelector | undefined, root: UiNode | undefined): UiNode | undefined | 'notFound' {
  if (!selector) return root;
  const resolved = resolveTarget(selector, root);
  return resolved.kind === 'node' ? resolved.node : 'notFound';
}

/** Where a field the command focused shows up in a later read: by its bridge or web identity, else as XCTest sees it. */
export function findSameField(field: UiNode, root: UiNode | undefined): UiNode | undefined {
  if (!root) return undefined;
  const resolved = revalidate(field, flattenTree(root));
  if (resolved.kind !== 'node') return undefined;
  return resolved.unrevalidated ? resolved.unrevalidated.counterpart : resolved.node;
}
