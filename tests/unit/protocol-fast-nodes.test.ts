/**
 * R-PERF-14 (docs/rules.md#r-perf-14): a node's fields decode without zod when they are well formed, and give exactly what the
 * schema gives; anything else goes to the schema, which words the error. Cases from the recorded real
 * runner session (resources/recordings/settings-tap-general) and each field broken the ways a device can.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { asIsFieldsOf, fastFieldsOf, UiNodeFieldsSchema, UiNodeSchema } from '@shared/protocol/runner';
import { treeSchema } from '@shared/protocol/tree';
import { heavyHierarchy } from '@demo/heavy-recording';

const GOLDEN = fileURLToPath(new URL('../../resources/recordings/settings-tap-general/', import.meta.url));
const fast = fastFieldsOf(UiNodeFieldsSchema.shape);
const asIs = asIsFieldsOf(UiNodeFieldsSchema.shape, 'node');
/** The schema as it was before the fast path: zod for every node. */
const SlowTree = treeSchema(UiNodeFieldsSchema, 'node');

function recordedNodes(): Record<string, unknown>[] {
  const nodes: Record<string, unknown>[] = [];
  for (const file of readdirSync(GOLDEN).filter((f) => f.endsWith('.json'))) {
    const walk = (v: unknown) => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') {
        if ('className' in v || 'bounds' in v) nodes.push(v as Record<string, unknown>);
        Object.values(v).forEach(walk);
      }
    };
    walk(JSON.parse(readFileSync(GOLDEN + file, 'utf8')));
  }
  return nodes;
}

/** The fast answer is zod's, key order included, or no answer. */
function agrees(raw: unknown): 'fast' | 'zod' {
  const zod = UiNodeFieldsSchema.safeParse(raw);
  const quick = fast(raw);
  if (quick === undefined) return 'zod';
  expect(zod.success, `fast accepted what zod refuses: ${JSON.stringify(raw)}`).toBe(true);
  expect(JSON.stringify(quick)).toBe(JSON.stringify(zod.data));
  expect(quick).toStrictEqual(zod.data);
  return 'fast';
}

describe('R-PERF-14: node fields decoded without zod give what zod gives', () => {
  it('every node of the recorded session takes the fast path, with the same result', () => {
    const nodes = recordedNodes();
    expect(nodes.length).toBeGreaterThan(50);
    for (const node of nodes) expect(agrees(node)).toBe('fast');
  });

  it('a broken field goes to zod, which refuses it', () => {
    const base = { className: 'UIButton', bounds: { left: 0, top: 0, right: 10, bottom: 10 }, clickable: 'true', extras: { a: 'b' }, actions: ['tap'] };
    const broken: unknown[] = [
      null,
      [],
      'node',
      { ...base, text: 5 },
      { ...base, clickable: true },
      { ...base, clickable: 'yes' },
      { ...base, bounds: { left: 10, top: 0, right: 0, bottom: 10 } },
      { ...base, bounds: { left: 0, top: 10, right: 10, bottom: 0 } },
      { ...base, bounds: { left: 0.5, top: 0, right: 10, bottom: 10 } },
      { ...base, bounds: { left: 0, top: 0, right: 10 } },
      { ...base, bounds: [0, 0, 10, 10] },
      { ...base, extras: { a: 1 } },
      { ...base, extras: ['a'] },
      { ...base, actions: ['tap', 3] },
      { ...base, actions: 'tap' },
      { ...base, omittedDescendants: -1 },
      { ...base, omittedDescendants: 1.5 },
      { ...base, omittedDescendants: '3' },
    ];
    for (const raw of broken) {
      expect(fast(raw), JSON.stringify(raw)).toBeUndefined();
      expect(UiNodeFieldsSchema.safeParse(raw).success, JSON.stringify(raw)).toBe(false);
    }
  });

  it("an OVERVIEW node's count of collapsed nodes takes the fast path and the as-is path, as zod gives it", () => {
    const node = { className: 'UIView', bounds: { left: 0, top: 0, right: 10, bottom: 10 }, omittedDescendants: 12 };
    expect(agrees(node)).toBe('fast');
    expect(asIs(node)).toBe(true);
    expect(asIs({ ...node, omittedDescendants: -1 })).toBe(false);
  });

  it('unknown keys are dropped, a bounds box copied without its extra keys, as zod does', () => {
    const raw = { extra: 1, className: 'UIView', bounds: { left: 0, top: 0, right: 1, bottom: 1, z: 3 }, text: 'a', actions: ['x'] };
    expect(agrees(raw)).toBe('fast');
    const out = fast(raw)!;
    expect(out['bounds']).not.toBe(raw.bounds);
    expect(out['actions']).not.toBe(raw.actions);
    expect('extra' in out).toBe(false);
  });

  it('the heavy screen (2,000 views) decodes the same with and without the fast path', () => {
    const tree = heavyHierarchy(2_000).hierarchy;
    expect(UiNodeSchema.parse(tree)).toStrictEqual(SlowTree.parse(tree));
  });

  it('a whole recorded tree decodes the same with and without the fast path, and an error is still worded by zod', () => {
    const push = JSON.parse(readFileSync(GOLDEN + '0002-push-hierarchy_update.json', 'utf8')) as { push: { data: { hierarchy: unknown } } };
    const tree = push.push.data.hierarchy;
    expect(UiNodeSchema.parse(tree)).toStrictEqual(SlowTree.parse(tree));
    const bad = structuredClone(tree) as { node: { bounds: { right: number } }[] };
    bad.node[0]!.bounds.right = -1;
    const [fastIssue, slowIssue] = [UiNodeSchema.safeParse(bad), SlowTree.safeParse(bad)].map((r) => (r.success ? undefined : r.error.issues[0]));
    expect(fastIssue).toBeDefined();
    expect(fastIssue).toStrictEqual(slowIssue);
  });

  it('a tree the host wrote from decoded nodes decodes to itself, nothing copied, and equal to what zod gives', () => {
    const push = JSON.parse(readFileSync(GOLDEN + '0002-push-hierarchy_update.json', 'utf8')) as { push: { data: { hierarchy: unknown } } };
    // The runner writes its keys sorted (bounds before className): not the shape's order, so copied.
    const recorded = push.push.data.hierarchy;
    expect(asIs(recorded)).toBe(false);
    const decoded = UiNodeSchema.parse(recorded);
    expect(decoded).not.toBe(recorded);
    // What the host sends the page: the decoded tree as JSON, parsed again.
    const sent = JSON.parse(JSON.stringify(decoded)) as unknown;
    const again = UiNodeSchema.parse(sent);
    expect(again).toBe(sent);
    expect(JSON.stringify(again)).toBe(JSON.stringify(SlowTree.parse(sent)));
    const heavy = JSON.parse(JSON.stringify(UiNodeSchema.parse(heavyHierarchy(2_000).hierarchy))) as unknown;
    expect(UiNodeSchema.parse(heavy)).toBe(heavy);
  });

  it('a node not as zod gives it is not taken as is: keys out of order, an unknown key, bounds with more, children not last', () => {
    const bounds = { left: 0, top: 0, right: 5, bottom: 5 };
    const cases: unknown[] = [
      { bounds, className: 'UIView' },
      { className: 'UIView', extra: 1 },
      { className: 'UIView', bounds: { ...bounds, z: 1 } },
      { className: 'UIView', bounds: { top: 0, left: 0, right: 5, bottom: 5 } },
      { node: [], className: 'UIView' },
      { className: 'UIView', text: undefined },
    ];
    for (const raw of cases) {
      expect(asIs(raw), JSON.stringify(raw)).toBe(false);
      const tree = { className: 'UIWindow', node: [raw] };
      const decoded = UiNodeSchema.parse(tree);
      expect(decoded).not.toBe(tree);
      expect(JSON.stringify(decoded)).toBe(JSON.stringify(SlowTree.parse(tree)));
    }
    expect(asIs({ className: 'UIView', bounds, clickable: 'true', node: [] })).toBe(true);
  });

  it('a broken node deep in a tree otherwise as is is still refused, at its path', () => {
    const tree = JSON.parse(JSON.stringify(UiNodeSchema.parse(heavyHierarchy(500).hierarchy))) as { node: { node?: { bounds?: { right: number } }[] }[] };
    const deep = tree.node.find((n) => n.node?.[0]?.bounds)!.node![0]!;
    deep.bounds!.right = -10_000;
    const [fastIssue, slowIssue] = [UiNodeSchema.safeParse(tree), SlowTree.safeParse(tree)].map((r) => (r.success ? undefined : r.error.issues[0]));
    expect(fastIssue).toBeDefined();
    expect(fastIssue).toStrictEqual(slowIssue);
  });
});
