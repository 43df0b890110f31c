/**
 * Finding nodes by id, label, text or class: a case-insensitive substring over the fields a user reads,
 * and a query that names an element type in any spelling (`button`, `UIButton`, `XCUIElementTypeButton`)
 * also finds every node of that type, merged nodes by the type XCTest reports too (docs/rules.md#r-ui-title).
 */
import type { UiNode } from '@shared/protocol/runner';
import { flattenTree, type FlatNode, type NodeKey } from '@shared/model/tree';
import { xctestTwinOf } from '@shared/model/node';
import { elementTypeByName, elementTypeOf, type ElementTypeName } from '@shared/model/element-type';

/** The node fields a search looks at, in the order a match is reported. */
export const SEARCH_FIELDS = ['resource-id', 'view-id', 'test-tag', 'content-desc', 'text', 'value', 'className', 'role'] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number];

export interface SearchHit extends FlatNode {
  /** The fields whose value contains the query. */
  fields: SearchField[];
}

/** What a query matched, in document order: the keys as a list (to step through) and as a set (to mark). */
export interface SearchMatches {
  readonly keys: readonly NodeKey[];
  readonly keySet: ReadonlySet<NodeKey>;
}

const NO_MATCHES: SearchMatches = { keys: [], keySet: new Set() };

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

/**
 * Every node that matches `query`, in document order. An empty (or blank) query matches nothing.
 * Over a 50,000-node screen the first letters of a query match nearly every node, so a match costs one
 * substring test and no object (docs/rules.md#r-perf-08).
 */
export function searchNodesIn(nodes: readonly FlatNode[], query: string): SearchMatches {
  const needle = normalizeQuery(query);
  if (needle === '') return NO_MATCHES;
  const texts = searchTexts(nodes);
  const typed = typeNamedBy(query);
  const types = typed === undefined ? null : nodeTypes(nodes);
  // A query typed on from the last one (it contains it) can only match what the last one matched, unless
  // it now names a type, whose nodes need not contain the text.
  const last = lastSearch.get(nodes);
  const within = last && typed === undefined && needle.includes(last.needle) ? last.found : null;
  // The fields of a node are one text, joined by a character no query holds; a query that holds it
  // anyway is tested field by field.
  const joined = !needle.includes(FIELD_BREAK);
  const found: number[] = [];
  const keys: NodeKey[] = [];
  const count = within ? within.length : nodes.length;
  for (let n = 0; n < count; n++) {
    const i = within ? within[n]! : n;
    if ((joined ? texts[i]!.includes(needle) : matchingFields(nodes[i]!.node, needle).length > 0) || (types !== null && types[i]!.includes(typed!))) {
      found.push(i);
      keys.push(nodes[i]!.key);
    }
  }
  // A key that narrowed nothing (`heavy` to `heavy.`) answers with the last matches themselves, so
  // nothing that shows them draws again.
  const matches = last && within && found.length === within.length ? last.matches : { keys, keySet: new Set(keys) };
  lastSearch.set(nodes, { needle, found, matches });
  return matches;
}

/**
 * The element type a query names: any spelling of an XCUIElement type (`Button`, `XCUIElementTypeButton`,
 * `.button`, `buttons`) or a UIKit class that stands for one (`UIButton`, `UILabel`).
 */
export function typeNamedBy(query: string): ElementTypeName | undefined {
  const q = query.trim();
  if (q === '') return undefined;
  const byName = elementTypeByName(q)?.name;
  if (byName !== undefined) return byName;
  if (!/^(UI|WK|XCUI)[A-Za-z]+$/.test(q)) return undefined;
  const byClass = elementTypeOf({ className: q });
  return byClass !== 'Other' || q === 'UIView' ? byClass : undefined;
}

/** Each node's types: its own, and for a merged node the type XCTest reports (its twin's). Once per node list. */
const typeCache = new WeakMap<readonly FlatNode[], readonly (readonly ElementTypeName[])[]>();
function nodeTypes(nodes: readonly FlatNode[]): readonly (readonly ElementTypeName[])[] {
  let types = typeCache.get(nodes);
  if (!types) {
    types = nodes.map(({ node }) => {
      const own = elementTypeOf(node);
      const twin = xctestTwinOf(node);
      const seen = twin ? elementTypeOf(twin.node) : own;
      return seen === own ? [own] : [own, seen];
    });
    typeCache.set(nodes, types);
  }
  return types;
}

/** Each node list's last search: the query, the positions it matched and what it answered (docs/rules.md#r-perf-08). */
const lastSearch = new WeakMap<readonly FlatNode[], { needle: string; found: readonly number[]; matches: SearchMatches }>();

/** Between two fields of a node's search text: a control character an input field cannot hold. */
const FIELD_BREAK = '\u0000';

/**
 * Each node's searched fields, lower-cased and joined once per node list (a frame's): a query typed over
 * a 50,000-node screen searches again at every key (docs/rules.md#r-perf-02).
 */
const textCache = new WeakMap<readonly FlatNode[], readonly string[]>();
function searchTexts(nodes: readonly FlatNode[]): readonly string[] {
  let texts = textCache.get(nodes);
  if (!texts) {
    texts = nodes.map((flat) => {
      let text = '';
      for (const f of SEARCH_FIELDS) {
        const v = fieldText(flat.node, f);
        if (v !== null) text += FIELD_BREAK + v.toLowerCase();
      }
      return text;
    });
    textCache.set(nodes, texts);
  }
  return texts;
}

/** Every node under `root` that matches `query`, with the fields it matched on. */
export function searchNodes(root: UiNode, query: string): SearchHit[] {
  const nodes = flattenTree(root);
  const { keySet } = searchNodesIn(nodes, query);
  const needle = normalizeQuery(query);
  return nodes.filter((flat) => keySet.has(flat.key)).map((flat) => ({ ...flat, fields: matchingFields(flat.node, needle) }));
}
