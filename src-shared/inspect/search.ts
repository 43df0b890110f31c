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
  const hits: SearchHit[] = [];
  for (const flat of nodes) {
    const fields = matchingFields(flat.node, needle);
    if (fields.length > 0) hits.push({ ...flat, fields });
  }
  return hits;
}

export function searchNodes(root: UiNode, query: string): SearchHit[] {
  return searchNodesIn(flattenTree(root), query);
}
