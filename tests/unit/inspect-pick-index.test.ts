/**
 * Picking through the per-frame grid of boxes (docs/rules.md#r-perf-03) finds exactly the nodes a scan
 * of every node finds (R-PICK-01): random trees of small and huge boxes, scroll containers that clip
 * what lies outside them, boxes partly off screen, at random points including edges and far outside.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { UiNode } from '@shared/protocol/runner';
import { flattenTree, type FlatNode, type NodeKey } from '@shared/model/tree';
import { boundsOf, nodeFlag } from '@shared/model/node';
import { actionTargetAt, boxesAt, pickStackAt, rectContains, topmostAt } from '@shared/inspect';

/** R-PICK-01 as a plain scan: the reference the indexed pick must agree with. */
function presentByScan(nodes: readonly FlatNode[], x: number, y: number): NodeKey[] {
  const byKey = new Map(nodes.map((f) => [f.key, f]));
  const clipped = new Set<NodeKey>();
  const out: NodeKey[] = [];
  for (const flat of nodes) {
    const parent = flat.parentKey === null ? undefined : byKey.get(flat.parentKey);
    if (parent) {
      const pb = boundsOf(parent.node);
      const clips = nodeFlag(parent.node, 'scrollable') || parent.node.className === 'WKWebView';
      if (clipped.has(parent.key) || (clips && pb !== null && !rectContains(pb, x, y))) {
        clipped.add(flat.key);
        continue;
      }
    }
    const r = boundsOf(flat.node);
    if (r && rectContains(r, x, y)) out.push(flat.key);
  }
  return out;
}

const coord = fc.integer({ min: -100, max: 500 });
const node: fc.Memo<UiNode> = fc.memo((depth): fc.Arbitrary<UiNode> =>
  fc
    .record({
      l: coord,
      t: coord,
      w: fc.oneof(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 700 })),
      h: fc.oneof(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 900 })),
      scrollable: fc.boolean(),
      children: depth > 1 ? fc.array(node(depth - 1), { maxLength: 6 }) : fc.constant<UiNode[]>([]),
    })
    .map(({ l, t, w, h, scrollable, children }): UiNode => ({
      className: scrollable ? 'UIScrollView' : 'UIView',
      bounds: { left: l, top: t, right: l + w, bottom: t + h },
      ...(scrollable ? { scrollable: 'true' } : {}),
      ...(children.length ? { node: children } : {}),
    })),
);

describe('R-PERF-03: picking through the grid of boxes', () => {
  it('R-PERF-03: finds what a scan of every node finds, at any point', () => {
    fc.assert(
      fc.property(
        node(4),
        fc.array(fc.tuple(fc.integer({ min: -150, max: 600 }), fc.integer({ min: -150, max: 1000 })), { minLength: 1, maxLength: 20 }),
        (root, points) => {
          const nodes = flattenTree(root);
          for (const [x, y] of points) {
            const want = presentByScan(nodes, x, y);
            const stack = pickStackAt(nodes, x, y).map((f) => f.key);
            expect([...stack].sort()).toEqual([...want].sort());
            expect(topmostAt(nodes, x, y)?.key ?? null).toBe(stack[0] ?? null);
            const boxes = boxesAt(nodes, x, y).map((f) => f.key);
            expect(boxes).toEqual(
              nodes
                .filter((f) => {
                  const r = boundsOf(f.node);
                  return r !== null && rectContains(r, x, y);
                })
                .map((f) => f.key),
            );
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('R-PERF-03: a subset of the nodes (a source filtered out) is indexed on its own', () => {
    const root: UiNode = {
      className: 'UIView',
      bounds: { left: 0, top: 0, right: 400, bottom: 800 },
      node: Array.from({ length: 2000 }, (_, i) => ({
        className: 'UILabel',
        'resource-id': `t${i}`,
        bounds: { left: (i % 40) * 10, top: Math.floor(i / 40) * 16, right: (i % 40) * 10 + 10, bottom: Math.floor(i / 40) * 16 + 16 },
      })),
    };
    const all = flattenTree(root);
    expect(topmostAt(all, 15, 17)?.node['resource-id']).toBe('t41');
    const some = all.filter((f) => f.node['resource-id'] !== 't41');
    expect(topmostAt(some, 15, 17)?.key).toBe('0');
    expect(pickStackAt(all, 399, 799).map((f) => f.node['resource-id'] ?? f.key)).toEqual(['t1999', '0']);
  });

  it("R-PERF-03: a control whose own frame does not hold the finger's point is still tapped through its bridge twin", () => {
    // The button's label sticks out below it; the finger is on that part. The bridge describes the button
    // with the same frame and an identity an action can name.
    const frame = { left: 0, top: 0, right: 100, bottom: 40 };
    const root: UiNode = {
      className: 'UIView',
      bounds: { left: 0, top: 0, right: 400, bottom: 800 },
      node: [
        {
          className: 'UIButton',
          clickable: 'true',
          bounds: frame,
          node: [{ className: 'UILabel', text: 'Send', bounds: { left: 0, top: 10, right: 100, bottom: 60 } }],
        },
        { className: 'UIButton', clickable: 'true', 'resource-id': 'send', 'sdk-element-id': 'send', bounds: frame, extras: { 'sdk.source': 'sdkBridge' } },
      ],
    };
    const nodes = flattenTree(root);
    expect(topmostAt(nodes, 50, 50)?.node.text).toBe('Send');
    expect(actionTargetAt(nodes, 50, 50)?.node['sdk-element-id']).toBe('send');
  });
});
