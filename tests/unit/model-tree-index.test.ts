/**
 * R-PERF-14 (docs/rules.md#r-perf-14): the tree's lookup by key is built when first asked, and then
 * answers for every node as a map built at once would; the rows come in pre-order with their places.
 */
import { describe, expect, it } from 'vitest';
import { heavyHierarchy } from '@demo/heavy-recording';
import { indexTree, lazyKeyLookup, nodeAtKey } from '@shared/model/tree';

describe('R-PERF-14: lookups by key built on first use', () => {
  it('indexTree: every row found by its key, the node at that path, the same map on every ask', () => {
    const root = heavyHierarchy(1_000).hierarchy!;
    const tree = indexTree(root);
    expect(tree.nodes.length).toBe(1_000);
    tree.nodes.forEach((flat, i) => expect(flat.order).toBe(i));
    for (const flat of tree.nodes) {
      expect(tree.byKey.get(flat.key)).toBe(flat);
      expect(nodeAtKey(root, flat.key)).toBe(flat.node);
      if (flat.parentKey !== null) expect(tree.byKey.get(flat.parentKey)!.depth).toBe(flat.depth - 1);
    }
    expect(tree.byKey).toBe(tree.byKey);
    expect(tree.byKey.get('0.99999')).toBeUndefined();
  });

  it('lazyKeyLookup builds nothing until asked, then once', () => {
    let builds = 0;
    const lookup = lazyKeyLookup(() => {
      builds++;
      return new Map([['a', 1]]);
    });
    expect(builds).toBe(0);
    expect(lookup.get('a')).toBe(1);
    expect(lookup.get('b')).toBeUndefined();
    expect(builds).toBe(1);
  });
});
