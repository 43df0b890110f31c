/**
 * Two observations of "the same" screen, taken at different times (a recording and its replay), judged
 * for whether they show the same screen (docs/rules.md#r-rpl-02): the screen key of each, the nodes only
 * on one side, the nodes that moved, and the labels that changed.
 *
 * Both trees are first read as the same kind of tree, so a difference in how they were read is not a
 * difference in the screen: as plain XCTest reports them (`indexScreen`'s XCTest view) when both were
 * read through XCTest, else as merged, and in either case only with the attributes that say what an
 * element is (type, id, label, placeholder, frame), never its value or the capture stamps of a bridge.
 * A recording made through XCTest and a replay served by the SDK bridge then compare equal when the
 * screen is. The pairing is the tree diff's own (`diffTrees`: identity, label, overlap).
 */
import { z } from 'zod';
import type { UiNode } from '@shared/protocol/runner';
import { boundsOf, childrenOf, hidesText, nodeLabel, type Rect } from '@shared/model/node';
import { childKey, nodeAtKey, parentKeyOf, ROOT_KEY, type NodeKey } from '@shared/model/tree';
import { indexScreen, type ScreenIndex, type ViewName } from '@shared/selectors/screen';
import { elementTypeOf } from '@shared/model/element-type';
import { xctestNodeOf } from '@shared/selectors/element';
import { diffTrees } from './diff';

/**
 * The stated threshold (docs/rules.md#r-rpl-02): two reads show the same screen when their screen keys
 * agree and at most `maxChangedShare` of their elements are only on one side or moved; a node moved when
 * an edge of its frame is more than `moveTolerancePt` points from where it was.
 */
export const SCREEN_THRESHOLD = { maxChangedShare: 0.25, moveTolerancePt: 4 } as const;

/** The differences a comparison lists (the counts are whole); the rest are counted, not listed. */
export const MAX_LISTED_DIFFERENCES = 40;

export const SCREEN_DIFF_CLASSES = ['only_recorded', 'only_replayed', 'moved', 'text_changed'] as const;
export const ScreenDiffClassSchema = z.enum(SCREEN_DIFF_CLASSES);
export type ScreenDiffClass = z.infer<typeof ScreenDiffClassSchema>;

export const SCREEN_DIFF_LABELS: Record<ScreenDiffClass, string> = {
  only_recorded: 'only recorded',
  only_replayed: 'only replayed',
  moved: 'moved',
  text_changed: 'label changed',
};

export const ScreenDifferenceSchema = z.object({
  class: ScreenDiffClassSchema,
  /** Node keys in each side's own (unprojected) tree, so the boxes can be marked on either frame. */
  recordedKey: z.string().optional(),
  replayedKey: z.string().optional(),
  detail: z.string(),
  /** The element in a few words (`Cell "Post 12"`), for a line that names what went or came (docs/rules.md#r-rpl-10). */
  element: z.string().optional(),
});
export type ScreenDifference = z.infer<typeof ScreenDifferenceSchema>;

export const ScreenComparisonSchema = z.object({
  /** How both trees were read for the comparison: as plain XCTest reports them, or as merged. */
  view: z.enum(['xctest', 'merged']),
  screenKey: z.object({ recorded: z.string().nullable(), replayed: z.string().nullable() }),
  /** Elements compared on each side (the root not counted). */
  nodes: z.object({ recorded: z.number().int().nonnegative(), replayed: z.number().int().nonnegative() }),
  counts: z.record(ScreenDiffClassSchema, z.number().int().nonnegative()),
  /** At most MAX_LISTED_DIFFERENCES, in the recorded tree's order, then what only the replay has. */
  differences: z.array(ScreenDifferenceSchema),
  /**
   * (only on one side + moved) over every element either side has. A subtree only on one side counts
   * once, a node moved with its parent (by the same offset) not at all, and siblings moved by the same
   * offset (a list reflowed) once.
   */
  changedShare: z.number().min(0).max(1),
  /** More than the threshold allows, or another screen key: not the same screen. */
  differs: z.boolean(),
  /** One line: "same screen (0 of 18 elements changed)", "another screen: Sign In → Feed", … */
  summary: z.string(),
  /**
   * The scrolling views that scrolled between the reads (docs/rules.md#r-rpl-12): in place themselves,
   * every row both reads hold moved by one offset (dx, dy, recorded → replayed). Keys in each side's own tree.
   */
  scrolled: z.array(z.object({ recordedKey: z.string(), replayedKey: z.string(), dx: z.number(), dy: z.number() })).optional(),
});
export type ScreenComparison = z.infer<typeof ScreenComparisonSchema>;

const APPREVEAL_ROOT = 'AppRevealScreen';

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/**
 * What names the screen a tree shows: an AppReveal app's own screen key, else the navigation bars' ids
 * (or titles), joined; null when the tree has neither (a full-screen presentation without a bar).
 */
export function screenKeyOf(root: UiNode | undefined): string | null {
  if (!root) return null;
  if (root.className === APPREVEAL_ROOT) return text(root['resource-id']) ?? null;
  const names: string[] = [];
  const stack: UiNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (elementTypeOf(node) === 'NavigationBar') {
      const name = text(node['resource-id']) ?? text(node['content-desc']) ?? text(node.text);
      // A bridge bar merged beside the XCTest bar it describes names the same bar.
      if (name !== undefined && !names.includes(name)) names.push(name);
    }
    const children = childrenOf(node);
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return names.length > 0 ? names.join(' › ') : null;
}

/** The attributes that say what an element is; its value (typed text, a like's state) is not compared. */
const KEPT = ['className', 'role', 'resource-id', 'text', 'content-desc', 'hint-text', 'bounds'] as const;

interface Projected {
  root: UiNode;
  /** Projected key → the node's key in the original tree. */
  original: Map<NodeKey, NodeKey>;
  count: number;
}

function xctestMembers(screen: ScreenIndex): number {
  return screen.xctest.members().length;
}

/** One view of a tree as a plain tree of identifying attributes, keeping each node's original key. */
function project(screen: ScreenIndex, viewName: ViewName): Projected {
  const view = viewName === 'xctest' ? screen.xctest : screen.merged;
  const original = new Map<NodeKey, NodeKey>();
  let count = 0;
  const build = (i: number, key: NodeKey): UiNode => {
    const flat = screen.nodes[i]!;
    const seen = viewName === 'xctest' ? (xctestNodeOf(flat.node) ?? flat.node) : flat.node;
    const out: Record<string, unknown> = {};
    for (const name of KEPT) {
      // The frame is the node's own: a twin records what XCTest said of the element, not where it is.
      const value = name === 'bounds' ? flat.node.bounds : (seen as Record<string, unknown>)[name];
      if (value !== undefined) out[name] = value;
    }
    // A secret field's text is bullets on one read and nothing in a trace: never a difference.
    if (hidesText(flat.node) || hidesText(seen)) delete out['text'];
    original.set(key, flat.key);
    count++;
    const children = view.children(i).map((c, n) => build(c, childKey(key, n)));
    if (children.length > 0) out['node'] = children;
    return out as UiNode;
  };
  const top = view.children(-1);
  if (top.length === 1) return { root: build(top[0]!, ROOT_KEY), original, count: count - 1 };
  // No single top (an empty read, or a view whose root is not in it): a root of its own holds them.
  const root: UiNode = { className: 'Root', node: top.map((c, n) => build(c, childKey(ROOT_KEY, n))) };
  return { root, original, count };
}

/** The same element by what it is (every kept attribute but its frame). */
function sameElement(a: UiNode, b: UiNode): boolean {
  return KEPT.every((name) => name === 'bounds' || (a as Record<string, unknown>)[name] === (b as Record<string, unknown>)[name]);
}

const SCROLLING_TYPES = new Set(['ScrollView', 'Table', 'CollectionView']);

/** Whether a node is a scrolling view: one XCTest types as one, or one the read says scrolls. */
function scrolls(projected: UiNode, original: UiNode | undefined): boolean {
  return SCROLLING_TYPES.has(elementTypeOf(projected)) || original?.scrollable === 'true';
}

/** Whether `r` shows in `frame` by more than a sliver of `tolerance` points either way. */
function showsIn(r: Rect, frame: Rect, tolerance: number): boolean {
  return Math.min(r.right, frame.right) - Math.max(r.left, frame.left) > tolerance && Math.min(r.bottom, frame.bottom) - Math.max(r.top, frame.top) > tolerance;
}

function shifted(r: Rect, dx: number, dy: number): Rect {
  return { left: r.left + dx, top: r.top + dy, right: r.right + dx, bottom: r.bottom + dy };
}

/** Whether an edge of the frame is more than `tolerance` points from where it was (a frame that appeared or went counts). */
export function movedBy(a: Rect | null, b: Rect | null, tolerance: number = SCREEN_THRESHOLD.moveTolerancePt): boolean {
  if (!a || !b) return a !== b;
  return (
    Math.abs(a.left - b.left) > tolerance ||
    Math.abs(a.top - b.top) > tolerance ||
    Math.abs(a.right - b.right) > tolerance ||
    Math.abs(a.bottom - b.bottom) > tolerance
  );
}

function describe(node: UiNode | undefined): string {
  if (!node) return 'node';
  const label = nodeLabel(node);
  const type = elementTypeOf(node);
  return label === undefined ? type : `${type} ${JSON.stringify(label)}`;
}

/** A frame as the report's lines write it: `[left,top,right,bottom]`. */
export function boxText(r: Rect | null): string {
  return r ? `[${r.left},${r.top},${r.right},${r.bottom}]` : '(no frame)';
}

function percent(share: number): string {
  return `${Math.round(share * 100)}%`;
}

/**
 * Compares what the recording showed (`recorded`) with what the replay shows (`replayed`). Pure;
 * linear in the trees, as the tree diff is.
 */
export function compareScreens(
  recorded: UiNode,
  replayed: UiNode,
  threshold: { maxChangedShare: number; moveTolerancePt: number } = SCREEN_THRESHOLD,
): ScreenComparison {
  const a = indexScreen(recorded);
  const b = indexScreen(replayed);
  // Compared as XCTest reports them when XCTest read both; a screen only the bridge could read (XCTest
  // failed on it) is compared as merged on both sides.
  const view: ViewName = xctestMembers(a) > 1 && xctestMembers(b) > 1 ? 'xctest' : 'merged';
  const pa = project(a, view);
  const pb = project(b, view);
  const diff = diffTrees(pa.root, pb.root);

  const counts: Record<ScreenDiffClass, number> = { only_recorded: 0, only_replayed: 0, moved: 0, text_changed: 0 };
  const differences: ScreenDifference[] = [];
  const add = (d: ScreenDifference) => {
    counts[d.class]++;
    if (differences.length < MAX_LISTED_DIFFERENCES) differences.push(d);
  };
  const recordedKey = (k: NodeKey | undefined) => (k === undefined ? undefined : pa.original.get(k));
  const replayedKey = (k: NodeKey | undefined) => (k === undefined ? undefined : pb.original.get(k));
  const keys = (x: NodeKey | undefined, s: NodeKey | undefined) => {
    const rk = recordedKey(x);
    const pk = replayedKey(s);
    return { ...(rk !== undefined ? { recordedKey: rk } : {}), ...(pk !== undefined ? { replayedKey: pk } : {}) };
  };

  // Each change counts once, with what it carries: a row that went takes its labels with it, and a cell
  // that moved moves its children by the same offset; neither is a change of its own.
  const onlyRecorded = new Set<NodeKey>();
  const onlyReplayed = new Set<NodeKey>();
  const partner = new Map<NodeKey, NodeKey>();
  for (const d of diff.differences) {
    if (d.class === 'only_xctest' && d.xctestKey !== undefined) onlyRecorded.add(d.xctestKey);
    if (d.class === 'only_sdk' && d.sdkKey !== undefined) onlyReplayed.add(d.sdkKey);
  }
  for (const pair of diff.pairs) partner.set(pair.xctestKey, pair.sdkKey);
  const offset = (x: NodeKey): { dx: number; dy: number } | undefined => {
    const s = partner.get(x);
    const from = nodeAtKey(pa.root, x);
    const to = s === undefined ? undefined : nodeAtKey(pb.root, s);
    const fb = from ? boundsOf(from) : null;
    const tb = to ? boundsOf(to) : null;
    return fb && tb ? { dx: tb.left - fb.left, dy: tb.top - fb.top } : undefined;
  };
  const carried = (x: NodeKey): boolean => {
    const parent = parentKeyOf(x);
    if (parent === null) return false;
    const own = offset(x);
    const theirs = offset(parent);
    const t = threshold.moveTolerancePt;
    return (
      own !== undefined &&
      theirs !== undefined &&
      Math.abs(own.dx - theirs.dx) <= t &&
      Math.abs(own.dy - theirs.dy) <= t &&
      (theirs.dx !== 0 || theirs.dy !== 0)
    );
  };

  // Siblings moved by the same offset are one change: a list whose row went reflows the rows below it
  // (docs/rules.md#r-rpl-02), as a moved subtree moves its children.
  const siblingMoves = new Map<NodeKey, { dx: number; dy: number }[]>();
  const reflowed = (x: NodeKey): boolean => {
    const parent = parentKeyOf(x);
    const own = offset(x);
    if (parent === null || own === undefined) return false;
    const t = threshold.moveTolerancePt;
    const seen = siblingMoves.get(parent) ?? [];
    if (seen.some((o) => Math.abs(o.dx - own.dx) <= t && Math.abs(o.dy - own.dy) <= t)) return true;
    seen.push(own);
    siblingMoves.set(parent, seen);
    return false;
  };

  // The tree diff pairs an element without an id or a label by where it lies: one carried far by its row
  // (an avatar in a row the list scrolled by more than its overlap) is left on both sides. The same
  // element under partnered parents, moved by its parent's offset, is the parent's to carry, not a
  // change (docs/rules.md#r-rpl-12). Parents first (the diff lists them in the tree's order).
  const unpairedUnder = new Map<NodeKey, NodeKey[]>();
  for (const k of onlyReplayed) {
    const parent = parentKeyOf(k);
    if (parent !== null) unpairedUnder.set(parent, [...(unpairedUnder.get(parent) ?? []), k]);
  }
  const carriedAlong = new Set<NodeKey>();
  for (const d of diff.differences) {
    if (d.class !== 'only_xctest' || d.xctestKey === undefined) continue;
    const x = d.xctestKey;
    const parent = parentKeyOf(x);
    const theirs = parent === null ? undefined : offset(parent);
    const from = nodeAtKey(pa.root, x);
    const fb = from ? boundsOf(from) : null;
    if (!theirs || !from || !fb || parent === null) continue;
    const candidates = unpairedUnder.get(partner.get(parent)!) ?? [];
    const match = candidates.find((k) => {
      const to = nodeAtKey(pb.root, k)!;
      const tb = boundsOf(to);
      return sameElement(from, to) && !!tb && !movedBy(shifted(fb, theirs.dx, theirs.dy), tb, threshold.moveTolerancePt);
    });
    if (match === undefined) continue;
    candidates.splice(candidates.indexOf(match), 1);
    partner.set(x, match);
    onlyRecorded.delete(x);
    onlyReplayed.delete(match);
    carriedAlong.add(x).add(`replayed:${match}`);
  }

  // A scrolling view in place whose rows (those both reads hold) all moved by one offset scrolled: the
  // rows it let in or out at its edges came or went with the scroll, not with the app (docs/rules.md#r-rpl-12).
  const tol = threshold.moveTolerancePt;
  const close = (a: { dx: number; dy: number }, b: { dx: number; dy: number }) => Math.abs(a.dx - b.dx) <= tol && Math.abs(a.dy - b.dy) <= tol;
  const scrollOf = new Map<NodeKey, { dx: number; dy: number }>();
  const scrollOfReplayed = new Map<NodeKey, { recordedKey: NodeKey; dx: number; dy: number }>();
  const scrollsAt = (side: Projected, root: UiNode, key: NodeKey): boolean => {
    const node = nodeAtKey(side.root, key);
    const original = side.original.get(key);
    return !!node && scrolls(node, original === undefined ? undefined : nodeAtKey(root, original));
  };
  for (const [x, s] of partner) {
    const from = nodeAtKey(pa.root, x);
    const to = nodeAtKey(pb.root, s);
    if (!from || !to || !scrollsAt(pa, recorded, x)) continue;
    if (movedBy(boundsOf(from), boundsOf(to), tol)) continue;
    const rows = childrenOf(from)
      .map((_, n) => childKey(x, n))
      .filter((k) => parentKeyOf(partner.get(k) ?? '') === s)
      .map(offset)
      .filter((o): o is { dx: number; dy: number } => o !== undefined);
    const first = rows[0];
    if (!first || !rows.every((o) => close(o, first))) continue;
    scrollOf.set(x, first);
    scrollOfReplayed.set(s, { recordedKey: x, ...first });
  }
  /** The scroll of the nearest scrolling view above `key` on one side, when it scrolled as one (a list it did not is no excuse). */
  const scrolledAbove = <T>(side: Projected, root: UiNode, key: NodeKey, scrolledBy: Map<NodeKey, T>): { at: NodeKey; scroll: T } | undefined => {
    for (let up = parentKeyOf(key); up !== null; up = parentKeyOf(up)) {
      if (!scrollsAt(side, root, up)) continue;
      const scroll = scrolledBy.get(up);
      return scroll === undefined ? undefined : { at: up, scroll };
    }
    return undefined;
  };
  // An element only one read holds that, carried by its view's scroll to the other read, would lie
  // outside that view's frame: scrolled in or out (a row a list holds at its edge, or shows a sliver of).
  const scrolledOutOfRecorded = (k: NodeKey): boolean => {
    const found = scrolledAbove(pa, recorded, k, scrollOf);
    const own = boundsOf(nodeAtKey(pa.root, k)!);
    const view = found ? boundsOf(nodeAtKey(pb.root, partner.get(found.at)!)!) : null;
    return !!found && !!own && !!view && !showsIn(shifted(own, found.scroll.dx, found.scroll.dy), view, tol);
  };
  const scrolledIntoReplayed = (k: NodeKey): boolean => {
    const found = scrolledAbove(pb, replayed, k, scrollOfReplayed);
    const own = boundsOf(nodeAtKey(pb.root, k)!);
    const view = found ? boundsOf(nodeAtKey(pa.root, found.scroll.recordedKey)!) : null;
    return !!found && !!own && !!view && !showsIn(shifted(own, -found.scroll.dx, -found.scroll.dy), view, tol);
  };

  for (const d of diff.differences) {
    const x = d.xctestKey === undefined ? undefined : nodeAtKey(pa.root, d.xctestKey);
    const s = d.sdkKey === undefined ? undefined : nodeAtKey(pb.root, d.sdkKey);
    switch (d.class) {
      case 'only_xctest': {
        const parent = parentKeyOf(d.xctestKey!);
        if (parent !== null && onlyRecorded.has(parent)) break;
        if (carriedAlong.has(d.xctestKey!) || scrolledOutOfRecorded(d.xctestKey!)) break;
        add({ class: 'only_recorded', ...keys(d.xctestKey, undefined), detail: `${describe(x)} at ${boxText(x ? boundsOf(x) : null)}`, element: describe(x) });
        break;
      }
      case 'only_sdk': {
        const parent = parentKeyOf(d.sdkKey!);
        if (parent !== null && onlyReplayed.has(parent)) break;
        if (carriedAlong.has(`replayed:${d.sdkKey!}`) || scrolledIntoReplayed(d.sdkKey!)) break;
        add({ class: 'only_replayed', ...keys(undefined, d.sdkKey), detail: `${describe(s)} at ${boxText(s ? boundsOf(s) : null)}`, element: describe(s) });
        break;
      }
      case 'text_changed':
        add({ class: 'text_changed', ...keys(d.xctestKey, d.sdkKey), detail: `${describe(x)}: ${d.detail}` });
        break;
      case 'geometry_changed': {
        const from = x ? boundsOf(x) : null;
        const to = s ? boundsOf(s) : null;
        if (movedBy(from, to, threshold.moveTolerancePt) && !carried(d.xctestKey!) && !reflowed(d.xctestKey!)) {
          add({ class: 'moved', ...keys(d.xctestKey, d.sdkKey), detail: `${describe(x)}: ${boxText(from)} → ${boxText(to)}` });
        }
        break;
      }
      default:
        // Values and identities are not what a screen is.
        break;
    }
  }

  const changed = counts.only_recorded + counts.only_replayed + counts.moved;
  const union = pa.count + onlyReplayed.size;
  const changedShare = union <= 0 ? 0 : Math.min(1, changed / union);
  const screenKey = { recorded: screenKeyOf(recorded), replayed: screenKeyOf(replayed) };
  const otherKey = screenKey.recorded !== screenKey.replayed;
  const differs = otherKey || changedShare > threshold.maxChangedShare;
  const of = `${changed} of ${union} element${union === 1 ? '' : 's'} only on one side or moved`;
  const summary = otherKey
    ? `another screen: ${screenKey.recorded ?? '(no screen key)'} → ${screenKey.replayed ?? '(no screen key)'} (${of})`
    : differs
      ? `not the same screen: ${of} (${percent(changedShare)}, more than ${percent(threshold.maxChangedShare)})`
      : `same screen (${of}${counts.text_changed > 0 ? `, ${counts.text_changed} label${counts.text_changed === 1 ? '' : 's'} changed` : ''})`;
  const scrolled = [...scrollOfReplayed]
    .filter(([, o]) => o.dx !== 0 || o.dy !== 0)
    .map(([s, o]) => ({ recordedKey: recordedKey(o.recordedKey)!, replayedKey: replayedKey(s)!, dx: o.dx, dy: o.dy }));
  return {
    view,
    screenKey,
    nodes: { recorded: pa.count, replayed: pb.count },
    counts,
    differences,
    changedShare,
    differs,
    summary,
    ...(scrolled.length > 0 ? { scrolled } : {}),
  };
}
