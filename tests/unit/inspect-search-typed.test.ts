/**
 * Search over every node (docs/rules.md#r-perf-08): a query typed on from the last one looks only at
 * what the last one matched, and still finds exactly what a search of every node finds, whatever is
 * typed, deleted or replaced in between.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { UiNode } from '@shared/protocol/runner';
import { flattenTree } from '@shared/model/tree';
import { matchingFields, normalizeQuery, searchNodes, searchNodesIn } from '@shared/inspect';

// The NUL joins a node's fields in the search's own text: a query holding one must still not match across two fields.
const word = fc.string({ unit: fc.constantFrom('a', 'b', 'A', '1', '.', ' ', '\u0000'), maxLength: 6 });

describe('R-PERF-08: search as it is typed', () => {
  it('R-PERF-08: each query finds what a scan of every node finds', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ text: word, id: word, className: fc.constantFrom('UILabel', 'UIView', 'UIButton') }), { minLength: 1, maxLength: 40 }),
        fc.array(word, { minLength: 1, maxLength: 12 }),
        (leaves, typed) => {
          const root: UiNode = { className: 'UIView', node: leaves.map((l) => ({ className: l.className, text: l.text, 'resource-id': l.id })) };
          const nodes = flattenTree(root);
          // Queries as typed: each one extends, shortens or replaces the last.
          let query = '';
          for (const step of typed) {
            query = step.length % 3 === 0 ? step : step.length % 3 === 1 ? query + step : query.slice(0, Math.max(0, query.length - 1));
            const want = nodes.filter((f) => matchingFields(f.node, normalizeQuery(query)).length > 0);
            const got = searchNodesIn(nodes, query);
            expect(got.keys).toEqual(want.map((f) => f.key));
            expect([...got.keySet]).toEqual(want.map((f) => f.key));
            expect(searchNodes(root, query).map((h) => h.fields)).toEqual(want.map((f) => matchingFields(f.node, normalizeQuery(query))));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
