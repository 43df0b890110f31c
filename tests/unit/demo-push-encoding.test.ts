/**
 * A heavy screen's push is made in slices and its tree written once per frame (docs/rules.md#r-perf-10):
 * what goes over the socket is exactly what the whole-message encoder writes, and the sliced projection
 * is exactly the projection.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { encodeRunnerMessage } from '@shared/protocol/runner';
import { encodeMessage, writeTreeSliced } from '@demo/runner/push-encoding';
import { projectHierarchy, projectHierarchySliced } from '@demo/phone/xctest-projection';
import type { NativeNode, ScreenCapture } from '@demo/phone/capture-model';
import { HEAVY_SHELL } from '../support/native-capture';

const view = (i: number, children: NativeNode[] = [], extra: Partial<NativeNode> = {}): NativeNode => ({
  cls: i % 3 === 0 ? 'UIButton' : 'UIView',
  ...(i % 2 ? { id: `v.${i}` } : {}),
  rect: [i, i / 2, 10.5, 4],
  enabled: i % 5 !== 0,
  focused: false,
  selected: i % 7 === 0,
  ...(i % 4 === 0 ? { label: `label "${i}" \u00e9` } : {}),
  children,
  ...extra,
});

/** A board of `tiles` tiles, each a few views deep, one of them hidden from XCTest. */
function capture(tiles: number): ScreenCapture {
  const children = Array.from({ length: tiles }, (_, t) => view(t, [view(t + 1), view(t + 2, [view(t + 3)]), view(t + 4, [], { axHidden: true })]));
  return {
    native: { ...HEAVY_SHELL, root: view(1, children, { cls: 'XCUIApplication' }) },
    web: {},
    takenAt: 1,
  };
}

describe('R-PERF-10: a heavy push made in slices', () => {
  it('the sliced projection is the projection, key for key', async () => {
    for (const tiles of [0, 1, 40, 3_000]) {
      const sliced = await projectHierarchySliced(capture(tiles));
      expect(JSON.stringify(sliced)).toBe(JSON.stringify(projectHierarchy(capture(tiles))));
      expect(JSON.stringify(await projectHierarchySliced(capture(tiles), { sparse: true }))).toBe(
        JSON.stringify(projectHierarchy(capture(tiles), { sparse: true })),
      );
    }
  });

  it('one capture projects to one tree object, which the push and each reply share', () => {
    const frame = capture(5);
    expect(projectHierarchy(frame)).toBe(projectHierarchy(frame));
    expect(projectHierarchy(frame, { sparse: true })).not.toBe(projectHierarchy(frame));
  });

  it('a message with a tree written ahead in slices, or written at once, is the whole-message encoding', async () => {
    const data = projectHierarchy(capture(3_000));
    const message = { type: 'hierarchy_update', data: { ...data, updatedAt: 7 }, frameContext: 'E:1:abc', timestamp: 9 };
    const atOnce = encodeMessage(message);
    expect(atOnce).toBe(encodeRunnerMessage(message));
    const other = projectHierarchy(capture(2_000));
    await writeTreeSliced(other.hierarchy!);
    const reply = { type: 'hierarchy_update', requestId: 'r1', success: true, data: { ...other, updatedAt: 8 }, frameContext: 'E:2:def', timestamp: 10 };
    expect(encodeMessage(reply)).toBe(encodeRunnerMessage(reply));
  });

  it('any JSON tree under `node` is written as the encoder writes it', async () => {
    const json = fc.letrec<{ tree: Record<string, unknown> }>((tie) => ({
      tree: fc.record(
        {
          className: fc.string(),
          captureIdentity: fc.oneof(fc.string(), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String)),
          text: fc.option(fc.string(), { nil: undefined }),
          node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, fc.constant(undefined), fc.array(tie('tree'), { maxLength: 3 })),
          after: fc.jsonValue(),
        },
        { requiredKeys: ['className'] },
      ),
    })).tree;
    await fc.assert(
      fc.asyncProperty(json, async (tree) => {
        await writeTreeSliced(tree);
        const message = { type: 'hierarchy_update', data: { hierarchy: tree, updatedAt: 1 } };
        expect(encodeMessage(message)).toBe(encodeRunnerMessage(message));
      }),
    );
  });

  it('a message without a tree is encoded as it is', () => {
    const message = { type: 'screenshot', success: true, data: 'iVBOR', timestamp: 3 };
    expect(encodeMessage(message)).toBe(encodeRunnerMessage(message));
  });
});
