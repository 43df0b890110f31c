/**
 * Resolving a selector on the merged tree of the fresh read, so the node an action routes with carries
 * the bridge or web identity of that read (docs/rules.md#r-owv-18: a revalidated target keeps its
 * identity).
 */
import type { LookFor, Point, TargetSelector } from '@shared/protocol/action';
import type { UiNode } from '@shared/protocol/runner';
import { nodeIdentity } from './identity';
import { normalizeLookForText } from './look-for';
import { topmostAt } from '@shared/inspect/pick';
import { actionTargetAt, scrollContainerAt } from '@shared/inspect/actions';
import { flattenTree, type FlatNode } from '@shared/model/tree';
import { boundsOf } from '@shared/model/node';

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

/** The fields an id selector (the CLI's `--id`) matches exactly. */
export const ID_FIELDS = ['resource-id', 'sdk-element-id', 'web-element-id'] as const;
/** The fields a text selector (`--text`) matches: exactly, else case aside. */
export const TEXT_FIELDS = ['content-desc', 'text', 'value'] as const;
const WEB_TEXT_ROLES = new Set(['input', 'textarea', 'textbox']);

export function describeSelector(selector: TargetSelector): string {
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

export function isEditable(node: UiNode): boolean {
  if (node.role === 'textfield') return true;
  const webRole = node['web-role']?.toLowerCase();
  if (webRole !== undefined && WEB_TEXT_ROLES.has(webRole)) return true;
  if (node.actions?.includes('set_text')) return true;
  return /text(field|view)/i.test(node.className ?? '');
}

function boundsKey(node: UiNode): string {
  const b = boundsOf(node);
  return b ? `${b.left},${b.top},${b.right},${b.bottom}` : 'none';
}

const identified = (node: UiNode) => {
  const kind = nodeIdentity(node).kind;
  return kind === 'bridge' || kind === 'web';
};

/**
 * One candidate per on-screen element: a bridge or DOM node and the XCTest node it was merged over (same
 * bounds) are the same element, and the one with an identity is the one an action can name.
 */
function collapseTwins(hits: readonly FlatNode[]): FlatNode[] {
  const byBounds = new Map<string, FlatNode>();
  for (const hit of hits) {
    const key = boundsKey(hit.node);
    const seen = byBounds.get(key);
    if (!seen || (!identified(seen.node) && identified(hit.node))) byBounds.set(key, hit);
  }
  return [...byBounds.values()].sort((a, b) => a.order - b.order);
}

function pick(hits: readonly FlatNode[], resolvedBy: 'id' | 'text', selector: string, preferEditable: boolean): Resolution {
  let candidates = collapseTwins(hits);
  if (preferEditable) {
    const editable = candidates.filter((c) => isEditable(c.node));
    if (editable.length > 0) candidates = editable;
  }
  const [first, ...rest] = candidates;
  if (!first) return { kind: 'notFound', selector };
  const warnings = rest.length > 0 ? [`${candidates.length} elements matched ${resolvedBy} "${selector}"; acted on the first in screen order.`] : [];
  return { kind: 'node', node: first.node, resolvedBy, selector, warnings };
}

function textMatches(nodes: readonly FlatNode[], text: string): FlatNode[] {
  const exact = nodes.filter(({ node }) => TEXT_FIELDS.some((f) => node[f] === text));
  if (exact.length > 0) return exact;
  const folded = text.toLowerCase();
  return nodes.filter(({ node }) => TEXT_FIELDS.some((f) => node[f]?.toLowerCase() === folded));
}

/** The same element as `picked` in another read, judged by what XCTest also reports: its id, else its frame and label. */
export function sameElement(candidate: UiNode, picked: UiNode): boolean {
  const id = picked['resource-id'];
  if (id !== undefined && id !== '') return candidate['resource-id'] === id;
  if (boundsKey(candidate) !== boundsKey(picked)) return false;
  const label = picked['content-desc'] ?? picked.text;
  return label !== undefined && (candidate['content-desc'] === label || candidate.text === label);
}

function revalidate(picked: UiNode, nodes: readonly FlatNode[]): Resolution {
  const selector = describeSelector({ node: picked });
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

/**
 * The elements an id or text selector names on `root`, one per on-screen element, in screen order: the
 * candidates resolveTarget picks the first of (the Parallax CLI's `--id` / `--text`, docs/selectors.md#s-parallax).
 */
export function selectorMatches(selector: { id: string } | { text: string }, root: UiNode | undefined, flat?: readonly FlatNode[]): FlatNode[] {
  const nodes = flat ?? (root ? flattenTree(root) : []);
  if ('id' in selector) return collapseTwins(nodes.filter(({ node }) => ID_FIELDS.some((f) => node[f] === selector.id)));
  return collapseTwins(textMatches(nodes, selector.text));
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

/** The bridge node merged over an XCTest node (same frame, same id), if any. */
export function twinWithIdentity(node: UiNode, nodes: readonly FlatNode[]): UiNode | undefined {
  if (identified(node)) return node;
  const key = boundsKey(node);
  const id = node['resource-id'];
  return nodes.find(({ node: n }) => identified(n) && boundsKey(n) === key && (id === undefined || n['resource-id'] === id))?.node;
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
