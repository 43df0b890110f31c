/**
 * A tree diff read from one side or the other, as the side-by-side Compare view shows it: the partner
 * of a node on the other side, the differences that touch a node, the nodes of one class of difference.
 */
import { DIFF_CLASSES, DIFF_CLASS_LABELS, type DiffClass, type Difference, type NodePair, type TreeDiff } from './diff';
import type { NodeKey } from '@shared/model/tree';

export const COMPARE_SIDES = ['xctest', 'sdk'] as const;
export type CompareSide = (typeof COMPARE_SIDES)[number];

export const COMPARE_SIDE_LABELS: Record<CompareSide, string> = { xctest: 'XCTest only', sdk: 'SDK-backed' };

export function otherSide(side: CompareSide): CompareSide {
  return side === 'xctest' ? 'sdk' : 'xctest';
}

/** The class of a node on `side` that nothing on the other side pairs with. */
export function onlyClass(side: CompareSide): Extract<DiffClass, 'only_xctest' | 'only_sdk'> {
  return side === 'xctest' ? 'only_xctest' : 'only_sdk';
}

/** Each side's node keys mapped to their partner's key on the other side. */
export interface PairIndex {
  xctest: ReadonlyMap<NodeKey, NodeKey>;
  sdk: ReadonlyMap<NodeKey, NodeKey>;
}

/**
 * `differences` adds the SDK-backed nodes that are an XCTest node again without pairing with it (a
 * bridge node beside the XCTest node it describes, whose identity the diff reports as added): each
 * leads to its XCTest node, which keeps leading to its own partner.
 */
export function pairIndex(pairs: readonly NodePair[], differences: readonly Difference[] = []): PairIndex {
  const xctest = new Map<NodeKey, NodeKey>();
  const sdk = new Map<NodeKey, NodeKey>();
  for (const pair of pairs) {
    xctest.set(pair.xctestKey, pair.sdkKey);
    sdk.set(pair.sdkKey, pair.xctestKey);
  }
  for (const d of differences) {
    if (d.class === 'identity_added' && d.xctestKey !== undefined && d.sdkKey !== undefined && !sdk.has(d.sdkKey)) sdk.set(d.sdkKey, d.xctestKey);
  }
  return { xctest, sdk };
}

/** The node on the other side paired with `key` on `side`; null when it has no partner there. */
export function partnerOf(index: PairIndex, side: CompareSide, key: NodeKey): NodeKey | null {
  return index[side].get(key) ?? null;
}

export function keyOn(difference: Difference, side: CompareSide): NodeKey | undefined {
  return side === 'xctest' ? difference.xctestKey : difference.sdkKey;
}

/** The keys on `side` that the given differences name (an only-in-SDK-backed difference names none on the XCTest side). */
export function keysOn(differences: readonly Difference[], side: CompareSide): Set<NodeKey> {
  const keys = new Set<NodeKey>();
  for (const d of differences) {
    const key = keyOn(d, side);
    if (key !== undefined) keys.add(key);
  }
  return keys;
}

/** The differences that name `key` on `side`, in the diff's order. */
export function differencesAt(diff: Pick<TreeDiff, 'differences'>, side: CompareSide, key: NodeKey): Difference[] {
  return diff.differences.filter((d) => keyOn(d, side) === key);
}

/** "4 only in SDK-backed, 24 identity added": the classes that occur, in the diff's class order. */
export function summaryText(summary: Partial<Record<DiffClass, number>>): string {
  const parts = DIFF_CLASSES.filter((c) => (summary[c] ?? 0) > 0).map((c) => `${summary[c]} ${lowerFirst(DIFF_CLASS_LABELS[c])}`);
  return parts.length > 0 ? parts.join(', ') : 'no differences';
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

/**
 * What the reader asked to see: `hideIdentityAdded` leaves out the elements XCTest sees as well and
 * the bridge or DOM only names (docs/rules.md#r-qa-12), for a reader who wants what XCTest cannot see.
 */
export interface DifferenceFilter {
  cls?: DiffClass | null;
  hideIdentityAdded?: boolean;
}

export function shownDifferences(diff: Pick<TreeDiff, 'differences'>, filter: DifferenceFilter): Difference[] {
  return diff.differences.filter((d) => (filter.cls ? d.class === filter.cls : true) && !(filter.hideIdentityAdded && d.class === 'identity_added'));
}

/** The summary as shown: a hidden class counts 0. */
export function shownSummary(
  summary: Partial<Record<DiffClass, number>>,
  filter: Pick<DifferenceFilter, 'hideIdentityAdded'>,
): Partial<Record<DiffClass, number>> {
  return filter.hideIdentityAdded ? { ...summary, identity_added: 0 } : summary;
}
