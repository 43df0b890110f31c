/**
 * Picking: which nodes lie under a point, smallest first, so overlapping boxes can be cycled through.
 */
import type { UiNode } from '@shared/protocol/runner';
import { flattenTree, type FlatNode } from '@shared/model/tree';
import { boundsOf, rectArea, type Rect } from '@shared/model/node';

/** Half-open containment: a point on the shared edge of two adjacent rows belongs to the lower one. */
export function rectContains(r: Rect, x: number, y: number): boolean {
  return x >= r.left && x < r.right && y >= r.top && y < r.bottom;
}

/**
 * The stack of nodes whose bounds contain (x, y), in screen points: smallest area first; equal areas put
 * the deeper node first, then the later one in document order (the one drawn on top).
 */
export function nodesAtIn(nodes: readonly FlatNode[], x: number, y: number): FlatNode[] {
  const hits: { flat: FlatNode; area: number }[] = [];
  for (const flat of nodes) {
    const r = boundsOf(flat.node);
    if (r && rectContains(r, x, y)) hits.push({ flat, area: rectArea(r) });
  }
  hits.sort((a, b) => a.area - b.area || b.flat.depth - a.flat.depth || b.flat.order - a.flat.order);
  return hits.map((h) => h.flat);
}

export function nodesAt(root: UiNode, x: number, y: number): FlatNode[] {
  return nodesAtIn(flattenTree(root), x, y);
}

/** The next position in a pick stack of `length` entries, wrapping around in both directions. */
export function cycleIndex(index: number, delta: number, length: number): number {
  if (length <= 0) return 0;
  return (((index + delta) % length) + length) % length;
}
