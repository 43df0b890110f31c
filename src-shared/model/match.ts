/**
 * Matching by id and text (docs/selectors.md#s-parallax): the fields an id or text selector reads, one
 * candidate per on-screen element, and the same element in another read. The dispatcher resolves with
 * it (act/resolve.ts) and the selectors panel counts with it, so both agree on what a selector names.
 */
import type { UiNode } from '@shared/protocol/runner';
import { nodeIdentity } from './identity';
import { flattenTree, type FlatNode } from './tree';
import { boundsOf } from './node';

/** The fields an id selector (the CLI's `--id`) matches exactly. */
export const ID_FIELDS = ['resource-id', 'sdk-element-id', 'web-element-id'] as const;
/** The fields a text selector (`--text`) matches: exactly, else case aside. */
export const TEXT_FIELDS = ['content-desc', 'text', 'value'] as const;

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
export function collapseTwins(hits: readonly FlatNode[]): FlatNode[] {
  const byBounds = new Map<string, FlatNode>();
  for (const hit of hits) {
    const key = boundsKey(hit.node);
    const seen = byBounds.get(key);
    if (!seen || (!identified(seen.node) && identified(hit.node))) byBounds.set(key, hit);
  }
  return [...byBounds.values()].sort((a, b) => a.order - b.order);
}

/** The nodes whose label, text or value is `text`: exactly, else case aside. */
export function textMatches(nodes: readonly FlatNode[], text: string): FlatNode[] {
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

/**
 * The elements an id or text selector names on `root`, one per on-screen element, in screen order: the
 * candidates resolveTarget picks the first of (the Parallax CLI's `--id` / `--text`, docs/selectors.md#s-parallax).
 */
export function selectorMatches(selector: { id: string } | { text: string }, root: UiNode | undefined, flat?: readonly FlatNode[]): FlatNode[] {
  const nodes = flat ?? (root ? flattenTree(root) : []);
  if ('id' in selector) return collapseTwins(nodes.filter(({ node }) => ID_FIELDS.some((f) => node[f] === selector.id)));
  return collapseTwins(textMatches(nodes, selector.text));
}
