/**
 * `sameJson` (src-shared/protocol/json.ts): whether two decoded JSON values hold the same content, which
 * decides whether a new frame's tree is the one on screen (docs/rules.md#r-perf-03).
 */
import { describe, expect, it } from 'vitest';
import { sameJson } from '@shared/protocol/json';

describe('R-PERF-03: the same JSON content, whatever the objects', () => {
  it('R-PERF-03: equal content in new objects is the same, keys in any order, absent and undefined alike', () => {
    expect(sameJson({ a: 1, b: [1, 'x', { c: null }] }, { b: [1, 'x', { c: null }], a: 1 })).toBe(true);
    expect(sameJson({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(sameJson([], [])).toBe(true);
    expect(sameJson(undefined, undefined)).toBe(true);
  });

  it('R-PERF-03: any difference anywhere is a difference', () => {
    expect(sameJson({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(sameJson({ a: 1, b: 2 }, { a: 1 })).toBe(false);
    expect(sameJson({ a: [1, 2] }, { a: [1, 2, 3] })).toBe(false);
    expect(sameJson({ a: [] }, { a: {} })).toBe(false);
    expect(sameJson({ a: {} }, { a: [] })).toBe(false);
    expect(sameJson({ a: null }, { a: {} })).toBe(false);
    expect(sameJson({ a: null }, {})).toBe(false);
    expect(sameJson({ a: '1' }, { a: 1 })).toBe(false);
    expect(sameJson(undefined, {})).toBe(false);
  });

  it('R-PERF-03: a tree deeper than the call stack allows is compared, to its last leaf', () => {
    const chain = (leaf: string) => {
      let node: Record<string, unknown> = { text: leaf };
      for (let i = 0; i < 50_000; i++) node = { depth: i, children: [node] };
      return node;
    };
    expect(sameJson(chain('end'), chain('end'))).toBe(true);
    expect(sameJson(chain('end'), chain('other'))).toBe(false);
  });
});
