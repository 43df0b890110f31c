/**
 * Rectangle arithmetic shared by projection, merges and the layout audit. Rectangles are
 * {left, top, right, bottom}; "overlap" always means a positive-area overlap, so boxes that only touch
 * along an edge do not count.
 */

import { sameRect, type Rect } from '@shared/model/node';

export function overlaps(a: Rect, b: Rect): boolean {
  return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
}

/** The overlap of `a` and `b`, or null when they do not overlap. */
export function intersection(a: Rect, b: Rect): Rect | null {
  const r = {
    left: Math.max(a.left, b.left),
    top: Math.max(a.top, b.top),
    right: Math.min(a.right, b.right),
    bottom: Math.min(a.bottom, b.bottom),
  };
  return r.left < r.right && r.top < r.bottom ? r : null;
}

export function containsRect(outer: Rect, inner: Rect): boolean {
  return inner.left >= outer.left && inner.top >= outer.top && inner.right <= outer.right && inner.bottom <= outer.bottom;
}

/** Whole points, as the runner truncates XCTest frames; `+ 0` turns -0 into 0 so it compares and prints as 0. */
export function truncateRect(r: Rect): Rect {
  return {
    left: Math.trunc(r.left) + 0,
    top: Math.trunc(r.top) + 0,
    right: Math.trunc(r.right) + 0,
    bottom: Math.trunc(r.bottom) + 0,
  };
}

const CORNER_RANGE = 2 ** 21;
const corner = (v: number) => Math.min(CORNER_RANGE - 1, Math.max(-CORNER_RANGE, Math.trunc(v))) + CORNER_RANGE;

/**
 * Values by exact frame: "the same bounds" in one Map lookup. Keyed by the top-left corner packed into
 * one number (no string per lookup; these run once per leaf of a 10k-node tree); entries under a key
 * still compare the whole frame, so a clamped or shared corner never makes two frames equal.
 */
export class RectIndex<T> {
  private readonly byCorner = new Map<number, { rect: Rect; value: T }[]>();

  add(rect: Rect, value: T): void {
    const key = corner(rect.left) * 2 * CORNER_RANGE + corner(rect.top);
    const list = this.byCorner.get(key);
    if (list) list.push({ rect, value });
    else this.byCorner.set(key, [{ rect, value }]);
  }

  /** Every value added with exactly this frame, in insertion order. */
  get(rect: Rect): T[] {
    const list = this.byCorner.get(corner(rect.left) * 2 * CORNER_RANGE + corner(rect.top));
    if (!list) return [];
    const out: T[] = [];
    for (const entry of list) if (sameRect(entry.rect, rect)) out.push(entry.value);
    return out;
  }

  get size(): number {
    return this.byCorner.size;
  }
}

/** Screen points of a hierarchy's screen, when it states them. */
export function screenRect(width: number | undefined, height: number | undefined): Rect | null {
  return width !== undefined && height !== undefined && width > 0 && height > 0 ? { left: 0, top: 0, right: width, bottom: height } : null;
}
