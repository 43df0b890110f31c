/**
 * Finding nodes by id, label, text or class: a case-insensitive substring over the fields a user reads.
 */
import type { UiNode } from '@shared/protocol/runner';
import { flattenTree, type FlatNode } from '@shared/model/tree';

/** The node fields a search looks at, in the order a match is reported. */
export const SEARCH_FIELDS = ['resource-id', 'view-id', 'test-tag', 'content-desc', 'text', 'value', 'className', 'role'] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number];

export interface SearchHit extends FlatNode {
  /** The fields whose value contains the query. */
  fields: SearchField[];
}

function fieldText(node: UiNode, field: SearchField): string | null {
  const v: unknown = (node as Record<string, unknown>)[field];
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null;
}

/** The fields of `node` that contain `needle` (already lower-cased and trimmed). */
export function matchingFields(node: UiNode, needle: string): SearchField[] {
  if (needle === '') return [];
  return SEARCH_FIELDS.filter((f) => fieldText(node, f)?.toLowerCase().includes(needle) ?? false);
}

export function normalizeQuery(query: string): string {
  return query.trim().toLowerCase();
}

/** Every node that matches `query`, in document order. An empty (or blank) query matches nothing. */
export function searchNodesIn(nodes: readonly FlatNode[], query: string): SearchHit[] {
  const needle = normalizeQuery(query);
  if (needle === '') return [];
  const lowered = loweredFields(nodes);
  // A query typed on from the last one (it contains it) can only match what the last one matched.
  const last = lastSearch.get(nodes);
  const within = last && needle.includes(last.needle) ? last.found : null;
  const found: number[] = [];
  const hits: SearchHit[] = [];
  const count = within ? within.length : nodes.length;
  for (let n = 0; n < count; n++) {
    const i = within ? within[n]! : n;
    const texts = lowered[i]!;
    let fields: SearchField[] | undefined;
    for (let f = 0; f < SEARCH_FIELDS.length; f++) if (texts[f]?.includes(needle)) (fields ??= []).push(SEARCH_FIELDS[f]!);
    if (fields) {
      found.push(i);
      hits.push({ ...nodes[i]!, fields });
    }
  }
  lastSearch.set(nodes, { needle, found });
  return hits;
}

/** Each node list's last search: the query and the positions it matched (docs/rules.md#r-perf-08). */
const lastSearch = new WeakMap<readonly FlatNode[], { needle: string; found: readonly number[] }>();

/**
 * Each node's searched fields, lower-cased once per node list (a frame's): a query typed over a
 * 50,000-node screen searches again at every key (docs/rules.md#r-perf-02).
 */
const loweredCache = new WeakMap<readonly FlatNode[], readonly (readonly (string | null)[])[]>();
function loweredFields(nodes: readonly FlatNode[]): readonly (readonly (string | null)[])[] {
  let lowered = loweredCache.get(nodes);
  if (!lowered) {
    lowered = nodes.map((flat) => SEARCH_FIELDS.map((f) => fieldText(flat.node, f)?.toLowerCase() ?? null));
    loweredCache.set(nodes, lowered);
  }
  return lowered;
}

export function searchNodes(root: UiNode, query: string): SearchHit[] {
  return searchNodesIn(flattenTree(root), query);
}
