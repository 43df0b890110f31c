import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decodeNativeCapture, NativeCaptureSchema, type NativeNode } from '@demo/phone/capture-model';
import { HEAVY_SHELL as shell } from '../support/native-capture';

const leaf = (i: number): NativeNode => ({ cls: 'UIView', rect: [i, i, 4, 4], enabled: true, focused: false, selected: false, children: [] });

/** A tree of `n` views: a root over tiles of a label and a few bars, the heavy screen's shape. */
function board(tiles: number): NativeNode {
  return {
    cls: 'XCUIApplication',
    label: 'Demo',
    rect: [0, 0, 402, 874],
    enabled: true,
    focused: false,
    selected: false,
    children: Array.from({ length: tiles }, (_, t) => ({
      cls: 'UICollectionViewCell',
      id: `heavy.tile.${t}`,
      rect: [t, 0, 10, 10] as [number, number, number, number],
      enabled: true,
      focused: false,
      selected: t % 3 === 0,
      children: [{ ...leaf(t), cls: 'UILabel', label: `T${t}` }, leaf(t + 1), leaf(t + 2)],
    })),
  };
}

describe('decodeNativeCapture (the sliced decode of a native read)', () => {
  it('R-PERF-10: accepts what the schema accepts and decodes it the same, in the same order, however the tree is shaped', async () => {
    const node: fc.Memo<unknown> = fc.memo((depth) =>
      fc.record({
        cls: fc.constantFrom('UIView', 'UIButton', 'UILabel'),
        label: fc.option(fc.string(), { nil: undefined }),
        rect: fc.tuple(fc.double({ noNaN: true }), fc.double({ noNaN: true }), fc.nat(), fc.nat()),
        enabled: fc.boolean(),
        focused: fc.boolean(),
        selected: fc.boolean(),
        children: depth <= 1 ? fc.constant([]) : fc.array(node(depth - 1), { maxLength: 4 }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(node(4), async (root) => {
        const raw = JSON.parse(JSON.stringify({ ...shell, root }));
        // JSON turns an infinite coordinate into null: both decoders refuse that view.
        const decoded = await decodeNativeCapture(raw);
        const schema = NativeCaptureSchema.safeParse(raw);
        expect(decoded.ok).toBe(schema.success);
        if (schema.success) expect(decoded).toEqual({ ok: true, capture: schema.data });
      }),
      { numRuns: 60 },
    );
  });

  it('R-PERF-10: a 20,000-view read keeps its order across the slices it is decoded in', async () => {
    const raw = JSON.parse(JSON.stringify({ ...shell, root: board(5_000) }));
    const decoded = await decodeNativeCapture(raw);
    expect(decoded.ok && decoded.capture).toEqual(NativeCaptureSchema.parse(raw));
    expect(decoded.ok && decoded.capture.root?.children.map((tile) => tile.id).slice(0, 3)).toEqual(['heavy.tile.0', 'heavy.tile.1', 'heavy.tile.2']);
  });

  it('R-PERF-10: rejects a malformed view deep in the tree, naming where it is and what was wrong', async () => {
    const root = board(50);
    (root.children[7]!.children[2] as unknown as Record<string, unknown>).rect = [1, 2, 3];
    const decoded = await decodeNativeCapture(JSON.parse(JSON.stringify({ ...shell, root })));
    expect(decoded.ok).toBe(false);
    expect(!decoded.ok && decoded.issue).toMatch(/^root\.children\.7\.children\.2\.rect/);
    expect(NativeCaptureSchema.safeParse({ ...shell, root }).success).toBe(false);
  });

  it('R-PERF-10: rejects a malformed shell and a root that is no view', async () => {
    expect(await decodeNativeCapture({ ...shell, viewport: { width: '402' }, root: null })).toMatchObject({
      ok: false,
      issue: expect.stringMatching(/^viewport\.width/),
    });
    expect(await decodeNativeCapture({ ...shell, root: 'app' })).toMatchObject({ ok: false, issue: expect.stringMatching(/^root/) });
    expect(await decodeNativeCapture('screen')).toMatchObject({ ok: false });
    expect(await decodeNativeCapture({ ...shell, root: null })).toEqual({ ok: true, capture: { ...shell, root: null } });
  });
});
