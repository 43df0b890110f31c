/**
 * A list scrolled a few points otherwise on replay is not a change of the app (docs/rules.md#r-rpl-12).
 * tests/fixtures/replay-scrolled holds the two screens of issue 27's false change: feed-A recorded on the
 * demo (its swipe carried by the bridge's exact scroll) and replayed unchanged with the swipe carried by
 * XCTest (a touch stroke, which scrolled the list 7 pt less), the screens before step 4 (tap Like Post 16).
 * That replay named "target moved by 8 pt" and "added Cell \"feed.cell.12\"" (the row let in at the
 * list's top edge, 7 pt of it on screen); the demo's own feed (tests/fixtures/demo-observations) shows
 * the changes still named: a removed row and a moved button.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ViewHierarchySchema, type UiNode } from '@shared/protocol/runner';
import { flattenTree } from '@shared/model/tree';
import { withoutChildren } from '@shared/model/node';
import { compareScreens } from '@shared/compare/screens';
import { findRecordedTarget } from '@shared/trace/replay-target';
import { judgedStep } from '@shared/trace/replay-report';
import type { TimelineStep } from '@shared/trace/reader';
import { recordedStep } from '../support/recorded-step';

const FIXTURES = join(__dirname, '..', 'fixtures');
const load = (path: string): UiNode => ViewHierarchySchema.parse(JSON.parse(readFileSync(join(FIXTURES, path), 'utf8'))).hierarchy!;

function byId(root: UiNode, id: string): UiNode[] {
  return flattenTree(root)
    .filter((f) => f.node['resource-id'] === id || f.node['sdk-element-id'] === id)
    .map((f) => f.node);
}

/** Each read of the feed's list (the fixture holds the bridge's and XCTest's side by side), with its cells in order. */
function lists(root: UiNode): { list: UiNode; cells: UiNode[] }[] {
  return byId(root, 'feed.list').map((list) => ({ list, cells: (list.node ?? []).filter((c) => /^feed\.cell\.\d+$/.test(String(c['resource-id'] ?? ''))) }));
}

function shiftSubtree(node: UiNode, dx: number, dy: number): void {
  for (const f of flattenTree(node)) {
    const b = f.node.bounds;
    if (b) f.node.bounds = { left: b.left + dx, top: b.top + dy, right: b.right + dx, bottom: b.bottom + dy };
  }
}

/** A tap on the element with `id` as the recorder keeps it, on `root`. */
function tapStep(root: UiNode, id: string): TimelineStep {
  return recordedStep({ action: 'tap', target: { node: withoutChildren(byId(root, id)[0]!) } }, root);
}

/** What the replay names for a tap on `id`, recorded on `recorded` and met on `replayed`. */
function changesOf(recorded: UiNode, replayed: UiNode, id: string) {
  const before = compareScreens(recorded, replayed);
  const found = findRecordedTarget(tapStep(recorded, id), { root: recorded }, replayed)!.check;
  return { before, found, ...judgedStep(found, { before }) };
}

describe('a list scrolled otherwise on replay (R-RPL-12)', () => {
  it('R-RPL-12: feed-A replayed unchanged with its list scrolled 7 pt less names no change: not the row let in at the edge, nor the target carried by the scroll', () => {
    const recorded = load('replay-scrolled/feed-recorded.json');
    const replayed = load('replay-scrolled/feed-replayed.json');
    const { before, found, target, changes } = changesOf(recorded, replayed, 'feed.like.16');
    expect(before.differs).toBe(false);
    expect(before.counts).toMatchObject({ only_recorded: 0, only_replayed: 0 });
    expect(before.scrolled).toEqual([expect.objectContaining({ dx: 0, dy: 7 })]);
    // The verdict is still the target's own (it did move on the screen: R-TRUST-02 reads it so), but it is no change.
    expect(found).toMatchObject({ verdict: 'elsewhere', offset: { dx: 0, dy: 8 }, detail: expect.stringMatching(/^target moved by 8 pt: \[/) });
    expect(changes).toEqual([]);
    // The step's target line (the replay panel's "target: …") says what the changes say: carried, not moved,
    // with the same two boxes the move named.
    expect(target).toMatchObject({ verdict: 'elsewhere', carriedByScroll: true, detail: found.detail.replace('moved by', 'scrolled with its list by') });
  });

  it('R-RPL-12: a row scrolled out of view between the recording and the replay is not named as removed (the same two reads, the other way round)', () => {
    // Recorded with the list 7 pt further up (a sliver of Post 12 at its top edge), replayed with the row gone.
    const recorded = load('replay-scrolled/feed-replayed.json');
    const replayed = load('replay-scrolled/feed-recorded.json');
    const { before, changes } = changesOf(recorded, replayed, 'feed.like.16');
    expect(before.counts).toMatchObject({ only_recorded: 0, only_replayed: 0 });
    expect(changes).toEqual([]);
  });

  it('R-RPL-12: a list scrolled 15 pt otherwise is the same screen: the avatars its rows carry are carried, not removed and added (the replay diverged at 32 %)', () => {
    const recorded = load('replay-scrolled/feed-recorded.json');
    const replayed = load('replay-scrolled/feed-replayed-15pt.json');
    const { before, changes } = changesOf(recorded, replayed, 'feed.like.16');
    expect(before).toMatchObject({ differs: false, counts: { only_recorded: 0, only_replayed: 0 } });
    expect(before.scrolled).toEqual([expect.objectContaining({ dx: 0, dy: 15 })]);
    expect(changes).toEqual([]);
  });

  it('R-RPL-12: a row removed in view is still named, and the target below it that moved up a row (the rows above it in place: no scroll)', () => {
    const recorded = load('demo-observations/feed.json');
    const replayed = structuredClone(recorded);
    for (const { list, cells } of lists(replayed)) {
      const gone = cells.findIndex((c) => c['resource-id'] === 'feed.cell.12');
      for (const cell of cells.slice(gone + 1)) shiftSubtree(cell, 0, -72);
      list.node = list.node!.filter((c) => c['resource-id'] !== 'feed.cell.12');
    }
    const { before, target, changes } = changesOf(recorded, replayed, 'feed.like.16');
    expect(before.scrolled).toBeUndefined();
    expect(changes[0]).toBe('target moved by 72 pt');
    expect(target).not.toHaveProperty('carriedByScroll');
    expect(target!.detail).toMatch(/^target moved by 72 pt: \[/);
    expect(changes).toContain('removed Cell "feed.cell.12"');
  });

  it('R-RPL-12: a button moved in its row is still named (its row in place)', () => {
    const recorded = load('demo-observations/feed.json');
    const replayed = structuredClone(recorded);
    for (const like of flattenTree(replayed).filter((f) => /^feed\.like\.\d+$/.test(String(f.node['resource-id'] ?? '')))) shiftSubtree(like.node, -48, 0);
    expect(changesOf(recorded, replayed, 'feed.like.16').changes).toEqual(['target moved by 48 pt']);
  });
});
