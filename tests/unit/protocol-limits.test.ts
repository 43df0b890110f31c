/**
 * Decoders' limits: trees decode without recursion to any depth under the limit, impossible geometry
 * is a typed error naming the field, and a cut-off frame says it is cut off (docs/rules.md#r-lim-01 …).
 */
import { describe, expect, it } from 'vitest';
import { MAX_FRAME_BYTES, parseFrame } from '@shared/protocol/errors';
import { decodeRunnerInbound, ViewHierarchySchema, type HierarchyUpdate } from '@shared/protocol/runner';
import { ObservationSnapshotSchema } from '@shared/protocol/sdk';
import { MAX_TREE_DEPTH, MAX_TREE_NODES } from '@shared/protocol/tree';

const push = (data: unknown) => JSON.stringify({ type: 'hierarchy_update', data });
/** A push around a tree given as text (JSON.stringify itself recurses, so deep trees stay text). */
const pushTree = (tree: string) => `{"type":"hierarchy_update","data":{"hierarchy":${tree}}}`;

/** A chain `depth` nodes deep, as text (no recursion to build it). */
function chain(depth: number, key = 'node', leaf = '{}', wrap = (inner: string) => `{"${key}":[${inner}]}`): string {
  let text = leaf;
  for (let i = 1; i < depth; i++) text = wrap(text);
  return text;
}

function decodeError(text: string) {
  const decoded = decodeRunnerInbound(text);
  expect(decoded.ok).toBe(false);
  return decoded.ok ? undefined : decoded.error;
}

describe('R-LIM-02: trees decode iteratively to any depth under the limit', () => {
  it.each([5_000, MAX_TREE_DEPTH])('a hierarchy %i levels deep decodes, every level kept', (depth) => {
    const decoded = decodeRunnerInbound(pushTree(chain(depth)));
    expect(decoded.ok).toBe(true);
    const tree = decoded.ok && decoded.value.type === 'hierarchy_update' ? (decoded.value as HierarchyUpdate).data?.hierarchy : undefined;
    if (!tree) throw new Error('no tree');
    let levels = 1;
    for (let node = tree; node.node?.[0]; node = node.node[0]) levels++;
    expect(levels).toBe(depth);
  });

  it('one level more is refused, naming the limit and where, never "Maximum call stack size exceeded"', () => {
    const error = decodeError(pushTree(chain(MAX_TREE_DEPTH + 1)));
    expect(error?.kind).toBe('invalid_message');
    expect(error?.message).toMatch(new RegExp(`deeper than ${MAX_TREE_DEPTH} levels, over the limit`));
    expect(error?.field).toMatch(/^data\.hierarchy\.node\.0\.node\.0\./);
  });

  it('a bad field 5,000 levels down is named by its full path', () => {
    const bad = chain(5_000, 'node', '{"bounds":{"left":0,"top":0,"right":"x","bottom":0}}');
    const error = decodeError(pushTree(bad));
    expect(error?.field).toBe(`data.hierarchy.${'node.0.'.repeat(4_999)}bounds.right`);
  });

  it('a 100,000-node hierarchy (real traffic) decodes', () => {
    const row = (i: number) => ({ text: `Row ${i}`, 'resource-id': `row.${i}`, bounds: { left: 0, top: i, right: 390, bottom: i + 44 }, clickable: 'true' });
    const groups = Array.from({ length: 1_000 }, (_, g) => ({ className: 'Cell', node: Array.from({ length: 99 }, (_, i) => row(g * 99 + i)) }));
    const decoded = ViewHierarchySchema.safeParse({ hierarchy: { className: 'Application', node: groups } });
    expect(decoded.success).toBe(true);
    expect(decoded.data?.hierarchy?.node?.[999]?.node?.[98]?.text).toBe('Row 98999');
  });

  it(`more than ${MAX_TREE_NODES} nodes is refused, naming the limit`, () => {
    const wide = { node: Array.from({ length: MAX_TREE_NODES + 1 }, () => ({})) };
    const decoded = ViewHierarchySchema.safeParse({ hierarchy: wide });
    expect(decoded.success).toBe(false);
    expect(decoded.error?.issues[0]?.message).toMatch(new RegExp(`more than ${MAX_TREE_NODES} nodes, over the limit`));
  });

  it('an SDK bridge snapshot 5,000 levels deep decodes, children defaulting to []', () => {
    const node = (inner: string) => `{"id":"n","role":"group","bounds":{"left":0,"top":0,"right":1,"bottom":1},"children":[${inner}]}`;
    const root = chain(5_000, 'children', '{"id":"leaf","role":"text","bounds":{"left":0,"top":0,"right":1,"bottom":1}}', node);
    const snapshot = ObservationSnapshotSchema.safeParse({
      captureIdentity: '1',
      orientation: 'portrait',
      coordinateSpace: 'screen',
      bounds: { left: 0, top: 0, right: 1, bottom: 1 },
      root: JSON.parse(root) as unknown,
      capabilities: [],
    });
    expect(snapshot.success).toBe(true);
    let leaf = snapshot.data?.root;
    while (leaf?.children[0]) leaf = leaf.children[0];
    expect(leaf).toMatchObject({ id: 'leaf', children: [], enabled: true });
  });

  it('perfTiming nested 5,000 deep decodes', () => {
    const timing = chain(5_000, 'children', '{"name":"leaf","durationMs":1}', (inner) => `{"name":"t","durationMs":1,"children":[${inner}]}`);
    expect(decodeRunnerInbound(`{"type":"tap_coordinates_result","requestId":"r","perfTiming":${timing}}`).ok).toBe(true);
  });
});

describe('R-LIM-05: impossible geometry is a typed decode error naming the field', () => {
  const screen = { hierarchy: {}, screenWidth: 402, screenHeight: 874, screenScale: 3 };
  it.each([
    ['screenWidth -402', { ...screen, screenWidth: -402 }, 'data.screenWidth'],
    ['screenWidth 0', { ...screen, screenWidth: 0 }, 'data.screenWidth'],
    ['screenHeight -1', { ...screen, screenHeight: -1 }, 'data.screenHeight'],
    ['screenScale -3', { ...screen, screenScale: -3 }, 'data.screenScale'],
    ['screenScale 0', { ...screen, screenScale: 0 }, 'data.screenScale'],
    ['pixelWidth 0', { ...screen, pixelWidth: 0 }, 'data.pixelWidth'],
    ['inverted bounds (right < left)', { ...screen, hierarchy: { bounds: { left: 10, top: 0, right: 5, bottom: 10 } } }, 'data.hierarchy.bounds.right'],
    [
      'inverted bounds (bottom < top)',
      { ...screen, hierarchy: { node: [{ bounds: { left: 0, top: 10, right: 5, bottom: 2 } }] } },
      'data.hierarchy.node.0.bounds.bottom',
    ],
    [
      'inverted window bounds',
      { ...screen, windowInfo: { isActive: true, isFocused: true, bounds: { left: 0, top: 0, right: -1, bottom: 0 } } },
      'data.windowInfo.bounds.right',
    ],
  ])('%s', (_name, data, field) => {
    const error = decodeError(push(data));
    expect({ kind: error?.kind, field: error?.field }).toEqual({ kind: 'invalid_message', field });
  });

  it('a number too large for a double (1e999 parses as Infinity) is refused, naming the field', () => {
    const error = decodeError('{"type":"hierarchy_update","data":{"hierarchy":{},"screenScale":1e999}}');
    expect(error?.field).toBe('data.screenScale');
  });

  it('an empty box (hidden views have one) and off-screen boxes still decode', () => {
    const decoded = decodeRunnerInbound(push({ ...screen, hierarchy: { bounds: { left: -50, top: 900, right: -50, bottom: 900 } } }));
    expect(decoded.ok).toBe(true);
  });
});

describe('R-LIM-01, R-LIM-04: a frame over the limit or cut off says so', () => {
  it('a frame cut off mid-way is "truncated", not "invalid JSON"', () => {
    for (const text of ['{"type":"screenshot","requestId":"r","data":"iVBORw0KGgo', '{"type":"screenshot","requestId":"r",', '{"type":"screenshot"']) {
      const parsed = parseFrame(text);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.error.kind, text).toBe('truncated');
    }
    const garbage = parseFrame('{"type": nope}');
    expect(garbage.ok === false && garbage.error.kind).toBe('invalid_json');
  });

  it('the frame limit fits a 50 MB screenshot reply with room to spare, and names the limit and the size over it', () => {
    expect(MAX_FRAME_BYTES).toBeGreaterThanOrEqual(2 * 50 * 1024 * 1024);
    const over = parseFrame('x'.repeat(1025), 1024);
    expect(over.ok === false && over.error.message).toMatch(/frame of 1025 bytes is over the 1024-byte limit/);
  });
});
