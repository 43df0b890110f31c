/**
 * The selection follows the element, not its place in the tree (docs/rules.md#r-layout-05). A node key is
 * an index path, so after a new observation the same key may name an unrelated element (a screen change
 * moves everything). The selected element is found again in the new tree by what identifies it, in this
 * order: its accessibility identifier (decisive: an element whose identifier is gone is gone), then the id
 * its bridge gave it, then its type and label (the nearest to where it was), an element with none of these
 * only by its exact frame;
 * an id a bridge made up from the view's index path (`UILabel@0.0.4`) says nothing across screens and is
 * never used. Nothing found: the selection is cleared (the caller says so).
 */
import type { UiNode } from '@shared/protocol/runner';
import { boundsOf, centerOf } from '@shared/model/node';
import { elementTypeOf } from '@shared/model/element-type';
import type { FlatNode } from '@shared/model/tree';
import { isIndexId, nodeTitle } from '@shared/model/title';

function meaningfulId(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' && !isIndexId(value.trim()) ? value.trim() : null;
}

function distance(a: UiNode, b: UiNode): number {
  const p = centerOf(a);
  const q = centerOf(b);
  return p && q ? Math.hypot(p.x - q.x, p.y - q.y) : Number.POSITIVE_INFINITY;
}

/** The candidate nearest to where the element was (the first in document order on a tie). */
function nearest(was: UiNode, candidates: readonly FlatNode[]): FlatNode | null {
  let best: FlatNode | null = null;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const c of candidates) {
    const d = distance(was, c.node);
    if (best === null || d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best;
}

function sameBounds(a: UiNode, b: UiNode): boolean {
  const p = boundsOf(a);
  const q = boundsOf(b);
  return p !== null && q !== null && p.left === q.left && p.top === q.top && p.right === q.right && p.bottom === q.bottom;
}

/** The element `was` names in `nodes` (a newer tree), or null when it is not there. */
export function followSelection(was: UiNode, nodes: readonly FlatNode[]): FlatNode | null {
  const id = meaningfulId(was['resource-id']);
  if (id !== null) {
    // An identifier is the element's name: gone from the tree, the element is gone, whatever else looks like it.
    return nearest(
      was,
      nodes.filter((f) => meaningfulId(f.node['resource-id']) === id),
    );
  }
  for (const field of ['sdk-element-id', 'web-element-id'] as const) {
    const bridgeId = meaningfulId(was[field]);
    if (bridgeId === null) continue;
    const found = nodes.filter((f) => meaningfulId(f.node[field]) === bridgeId && elementTypeOf(f.node) === elementTypeOf(was));
    if (found.length > 0) return nearest(was, found);
  }
  const { type, label } = nodeTitle(was);
  const alike = nodes.filter((f) => {
    const title = nodeTitle(f.node);
    if (title.type !== type || title.label !== label) return false;
    // A label moves with its element (a row removed above it, a scroll): the nearest of that type and label is it.
    // An element with neither id nor label is only itself where it was, to the point.
    return label !== '' || sameBounds(was, f.node);
  });
  return nearest(was, alike);
}
