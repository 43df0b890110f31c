/**
 * R-PERF-16: a changed view tree crosses the API's wire as the subtrees that changed since the tree the
 * renderer holds; put back, it is the new tree exactly, and every view it shares with the base keeps the
 * base's path.
 */
import { describe, expect, it } from 'vitest';
import { applyTreePatch, MAX_PATCH_ENTRIES, TreePatchError, treePatch } from '@shared/protocol/tree-patch';

interface View {
  className: string;
  text?: string;
  bounds?: { left: number; top: number; right: number; bottom: number };
  node?: View[] | View;
}

/** A deterministic pseudo-random source (the same trees on every run). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function tree(next: () => number, depth: number): View {
  const view: View = {
    className: next() < 0.5 ? 'XCUIElementTypeOther' : 'XCUIElementTypeButton',
    bounds: { left: 0, top: Math.floor(next() * 800), right: 100, bottom: 900 },
  };
  if (next() < 0.6) view.text = `label ${Math.floor(next() * 1000)}`;
  if (depth > 0) {
    const count = Math.floor(next() * 4);
    // A runner writes one child as an object, several as an array (childrenOf).
    if (count === 1) view.node = tree(next, depth - 1);
    else if (count > 1) view.node = Array.from({ length: count }, () => tree(next, depth - 1));
  }
  return view;
}

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** Every view of `root` with its path of child indexes. */
function views(root: View, path: number[] = [], out: Array<[number[], View]> = []): Array<[number[], View]> {
  out.push([path, root]);
  const children = Array.isArray(root.node) ? root.node : root.node ? [root.node] : [];
  children.forEach((child, i) => views(child, [...path, i], out));
  return out;
}

/** One change a screen makes: a field, a child added or removed, one child becoming several. */
function mutate(root: View, next: () => number): void {
  const all = views(root).slice(1);
  if (all.length === 0) return;
  const [, view] = all[Math.floor(next() * all.length)]!;
  const kind = Math.floor(next() * 4);
  if (kind === 0) view.text = `changed ${Math.floor(next() * 1000)}`;
  else if (kind === 1) view.bounds = { left: 1, top: 2, right: 3, bottom: 4 };
  else if (kind === 2)
    view.node = [...(Array.isArray(view.node) ? view.node : view.node ? [view.node] : []), { className: 'XCUIElementTypeStaticText', text: 'new' }];
  else delete view.node;
}

describe('R-PERF-16: tree patches', () => {
  it('R-PERF-16: a patch put back is the new tree exactly, over 300 generated trees and changes', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const next = random(seed);
      const base = tree(next, 5);
      base.node = [tree(next, 4), tree(next, 4)];
      const changed = clone(base);
      for (let n = Math.floor(next() * 4); n >= 0; n--) mutate(changed, next);
      const patch = treePatch(base, changed);
      expect(patch, `seed ${seed}`).toBeDefined();
      // Over the wire: the patch is JSON.
      const rebuilt = applyTreePatch(base, JSON.parse(JSON.stringify(patch)));
      expect(rebuilt, `seed ${seed}`).toEqual(changed);
    }
  });

  it('R-PERF-16: a new capture renames its identity in every view: put back, the tree is the new one exactly, a view still naming the old capture included', () => {
    const KEY = 'sdk-capture-identity';
    const stamp = (root: View, next: () => number, capture: string) => {
      for (const [, view] of views(root)) if (next() < 0.7) (view as unknown as Record<string, string>)[KEY] = capture;
    };
    let patched = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const next = random(seed);
      const base = tree(next, 5);
      base.node = [tree(next, 4), tree(next, 4)];
      stamp(base, next, '111');
      const changed = clone(base);
      // The new capture: most views say so, a few still name the old one.
      for (const [, view] of views(changed)) {
        const fields = view as unknown as Record<string, string>;
        if (fields[KEY] === '111' && next() < 0.9) fields[KEY] = '222';
      }
      for (let n = Math.floor(next() * 3); n >= 0; n--) mutate(changed, next);
      const renames: Array<[string, string, string]> = [[KEY, '111', '222']];
      const frozen = clone(base);
      const patch = treePatch(base, changed, renames);
      // The root itself may have kept the old capture: then the tree goes whole.
      if (patch === undefined) continue;
      patched++;
      expect(applyTreePatch(base, JSON.parse(JSON.stringify(patch)), renames), `seed ${seed}`).toEqual(changed);
      expect(base).toEqual(frozen);
    }
    expect(patched).toBeGreaterThan(100);
    // A whole capture renamed and nothing else: no view travels.
    const board: View = {
      className: 'XCUIElementTypeApplication',
      node: Array.from({ length: 100 }, (_, i) => ({ className: 'XCUIElementTypeCell', text: `${i}`, [KEY]: '111' }) as View),
    };
    const recaptured = clone(board);
    for (const view of recaptured.node as View[]) (view as unknown as Record<string, string>)[KEY] = '222';
    expect(treePatch(board, recaptured, [[KEY, '111', '222']])).toEqual([]);
    expect(applyTreePatch(board, [], [[KEY, '111', '222']])).toEqual(recaptured);
  });

  it('R-PERF-16: a view the patch leaves alone is the base’s own object, at the path it had in the base', () => {
    for (let seed = 1; seed <= 100; seed++) {
      const next = random(seed);
      const base = tree(next, 5);
      base.node = [tree(next, 4), tree(next, 4), tree(next, 4)];
      const changed = clone(base);
      mutate(changed, next);
      const rebuilt = applyTreePatch(base, treePatch(base, changed)) as View;
      const pathOf = new Map(views(base).map(([path, view]) => [view, path.join('.')]));
      let shared = 0;
      for (const [path, view] of views(rebuilt)) {
        const was = pathOf.get(view);
        if (was === undefined) continue;
        shared++;
        expect(was).toBe(path.join('.'));
      }
      expect(shared, `seed ${seed}`).toBeGreaterThan(0);
    }
  });

  it('R-PERF-16: one tile picked on a 5,000-view board is one entry, the tile, and the base is not changed', () => {
    const tile = (i: number): View => ({
      className: 'XCUIElementTypeCell',
      text: `Tile ${i}`,
      node: [{ className: 'XCUIElementTypeStaticText', text: `T${i}` }],
    });
    const board: View = {
      className: 'XCUIElementTypeApplication',
      node: [{ className: 'XCUIElementTypeOther', node: Array.from({ length: 2_500 }, (_, i) => tile(i)) }],
    };
    const frozen = clone(board);
    const picked = clone(board);
    ((picked.node as View[])[0]!.node as View[])[1_234]!.text = 'Tile 1234, selected';
    const patch = treePatch(board, picked)!;
    expect(patch.map(([path]) => path)).toEqual([[0, 1_234]]);
    expect(JSON.stringify(patch).length).toBeLessThan(200);
    expect(applyTreePatch(board, patch)).toEqual(picked);
    expect(board).toEqual(frozen);
  });

  it('R-PERF-16: the same tree is an empty patch; a changed root, or more than the limit of changes, goes whole (no patch)', () => {
    const base: View = {
      className: 'XCUIElementTypeApplication',
      node: Array.from({ length: MAX_PATCH_ENTRIES + 1 }, (_, i) => ({ className: 'XCUIElementTypeCell', text: `${i}` })),
    };
    expect(treePatch(base, clone(base))).toEqual([]);
    expect(applyTreePatch(base, [])).toBe(base);
    expect(treePatch(base, { ...clone(base), className: 'XCUIElementTypeWindow' })).toBeUndefined();
    const everyRow = clone(base);
    for (const row of everyRow.node as View[]) row.text = 'changed';
    expect(treePatch(base, everyRow)).toBeUndefined();
  });

  it.each([
    ['not a list', { path: [0] }, /a list of \[path, node\] entries/],
    ['an entry that is not a pair', [[[0]]], /entry 0 is not \[path, node\]/],
    ['an empty path (the root)', [[[], {}]], /entry 0: its path is not 1 to/],
    ['a negative index', [[[-1], {}]], /entry 0: its path is not 1 to/],
    ['a fractional index', [[[0.5], {}]], /entry 0: its path is not 1 to/],
    [
      'a path past the children',
      [
        [[0], {}],
        [[7], {}],
      ],
      /entry 1: no child 7 at depth 0/,
    ],
    ['a path through a leaf', [[[0, 0, 0], {}]], /entry 0: no child 0 at depth 2/],
    ['a node that is not a view', [[[0], 'text']], /entry 0: its node is not a view/],
    ['more entries than the limit', Array.from({ length: MAX_PATCH_ENTRIES + 1 }, () => [[0], {}]), /at most 2048 entries/],
    ['a path deeper than the limit', [[Array.from({ length: 1_025 }, () => 0), {}]], /its path is not 1 to 1024/],
  ])('R-PERF-16: a patch that does not fit its base is a typed error naming what is wrong: %s', (_name, patch, message) => {
    const base: View = {
      className: 'XCUIElementTypeApplication',
      node: [{ className: 'XCUIElementTypeOther', node: [{ className: 'XCUIElementTypeButton' }] }, { className: 'XCUIElementTypeOther' }],
    };
    const frozen = clone(base);
    expect(() => applyTreePatch(base, patch)).toThrow(TreePatchError);
    expect(() => applyTreePatch(base, patch)).toThrow(message);
    expect(base).toEqual(frozen);
  });
});
