/**
 * Which rows of a long list are drawn (docs/rules.md#r-perf-02): only those in view plus a margin, so a
 * 50,000-node tree puts a few dozen rows in the page. Rows have one fixed height (Tree.css), so the window
 * is arithmetic on the scroll offset.
 */

/** Every tree row's height in CSS pixels; Tree.css sets the same. */
export const TREE_ROW_HEIGHT = 20;
/** Rows drawn above and below the visible ones, so a short scroll shows drawn rows at once. */
export const TREE_OVERSCAN = 12;

export interface RowWindow {
  /** The first row drawn. */
  start: number;
  /** One past the last row drawn. */
  end: number;
}

export function rowWindow(scrollTop: number, viewportHeight: number, count: number, rowHeight = TREE_ROW_HEIGHT, overscan = TREE_OVERSCAN): RowWindow {
  if (count <= 0) return { start: 0, end: 0 };
  const first = Math.floor(Math.max(0, scrollTop) / rowHeight);
  const visible = Math.ceil(Math.max(0, viewportHeight) / rowHeight) + 1;
  const start = Math.max(0, Math.min(count - 1, first - overscan));
  const end = Math.min(count, first + visible + overscan);
  return { start, end: Math.max(start + 1, end) };
}

/** The scroll offset that brings row `index` into view, or `scrollTop` when it already is. */
export function scrollToRow(index: number, scrollTop: number, viewportHeight: number, rowHeight = TREE_ROW_HEIGHT, padTop = 0): number {
  const top = padTop + index * rowHeight;
  const bottom = top + rowHeight;
  if (top < scrollTop) return top;
  if (bottom > scrollTop + viewportHeight) return bottom - viewportHeight;
  return scrollTop;
}

/**
 * How the tree draws its rows: `virtual` (@tanstack/react-virtual), `window` (rowWindow above) or `all`
 * (every row, the approach before windowing). `bench/heavy.bench.ts` compares them by setting
 * localStorage `parallax.treeRows` before the page loads; the app uses the default.
 */
export type TreeRowsMode = 'virtual' | 'window' | 'all';
export const DEFAULT_TREE_ROWS: TreeRowsMode = 'window';

export function treeRowsMode(): TreeRowsMode {
  try {
    const asked = globalThis.localStorage?.getItem('parallax.treeRows');
    return asked === 'virtual' || asked === 'window' || asked === 'all' ? asked : DEFAULT_TREE_ROWS;
  } catch {
    return DEFAULT_TREE_ROWS;
  }
}
