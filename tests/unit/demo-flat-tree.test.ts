/**
 * A sliced read's views come over from the page as flat records in pieces (docs/rules.md#r-perf-10):
 * each piece is put back into the tree as it arrives, wherever the pieces were cut.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { FlatTree, FlatTreeError } from '@demo/phone/flat-tree';

interface View {
  id: string;
  children: View[];
}

/** The page's side of the format: depth-first, each view with the number of its children. */
function flatten(root: View): Array<{ id: string; children: number }> {
  const out: Array<{ id: string; children: number }> = [];
  const pending = [root];
  while (pending.length) {
    const view = pending.pop()!;
    out.push({ id: view.id, children: view.children.length });
    for (let i = view.children.length - 1; i >= 0; i--) pending.push(view.children[i]!);
  }
  return out;
}

const tree: fc.Arbitrary<View> = fc.letrec<{ view: View }>((tie) => ({
  view: fc.record({
    id: fc.string({ maxLength: 4 }),
    children: fc.oneof({ depthSize: 'small', withCrossShrink: true }, fc.constant<View[]>([]), fc.array(tie('view'), { maxLength: 4 })),
  }),
})).view;

describe('R-PERF-10: a sliced read put back together from its pieces', () => {
  it('rebuilds the same tree wherever the pieces are cut', () => {
    fc.assert(
      fc.property(tree, fc.array(fc.nat(), { maxLength: 6 }), (root, cuts) => {
        const records = JSON.parse(JSON.stringify(flatten(root))) as unknown[];
        const at = [...new Set(cuts.map((c) => c % (records.length + 1)))].sort((a, b) => a - b);
        const flat = new FlatTree();
        let from = 0;
        for (const to of [...at, records.length]) {
          flat.add(records.slice(from, to));
          from = to;
        }
        expect(flat.finish()).toEqual(root);
      }),
    );
  });

  it('no views is no tree', () => {
    const flat = new FlatTree();
    flat.add([]);
    expect(flat.finish()).toBeNull();
  });

  it.each([
    ['a piece that is not a list', [{ notAList: true }], /not a list of views/],
    ['a view that is not an object', [[1]], /view 0 is not an object/],
    ['a view without its children count', [[{ id: 'a', children: [] }]], /view 0 does not say how many children/],
    ['a negative count', [[{ id: 'a', children: -1 }]], /view 0 does not say/],
    ['a view after the whole tree', [[{ children: 0 }, { children: 0 }]], /view 1 comes after the whole tree/],
  ])('refuses %s with a typed error', (_name, pieces, message) => {
    const run = () => {
      const flat = new FlatTree();
      for (const piece of pieces) flat.add(structuredClone(piece));
    };
    expect(run).toThrow(FlatTreeError);
    expect(run).toThrow(message);
  });

  it('refuses a tree that ends with views still waiting for children', () => {
    const flat = new FlatTree();
    flat.add([{ children: 2 }, { children: 0 }]);
    expect(() => flat.finish()).toThrow(/ended with 1 views still waiting/);
  });
});
