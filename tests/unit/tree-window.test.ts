import { describe, expect, it } from 'vitest';
import { rowWindow, scrollToRow, TREE_OVERSCAN, TREE_ROW_HEIGHT } from '@renderer/state/tree-window';

describe('the tree window (docs/rules.md#r-perf-02)', () => {
  it('R-PERF-02: draws the rows in view and a margin, whatever the tree size', () => {
    for (const count of [1_000, 50_000, 200_000]) {
      const w = rowWindow(20_000 * TREE_ROW_HEIGHT, 600, count);
      const inView = Math.ceil(600 / TREE_ROW_HEIGHT);
      expect(w.start).toBeLessThanOrEqual(20_000);
      expect(w.end).toBeGreaterThanOrEqual(Math.min(count, 20_000 + inView));
      expect(w.end - w.start).toBeLessThanOrEqual(inView + 1 + 2 * TREE_OVERSCAN);
      expect(w.end).toBeLessThanOrEqual(count);
    }
  });

  it('R-PERF-02: a scroll past the end, a short list and an empty one stay inside the list', () => {
    expect(rowWindow(1e9, 600, 100)).toEqual({ start: 99, end: 100 });
    expect(rowWindow(0, 600, 5)).toEqual({ start: 0, end: 5 });
    expect(rowWindow(-50, 600, 0)).toEqual({ start: 0, end: 0 });
  });

  it('R-PERF-02: a selected row out of view is scrolled to, one in view leaves the scroll alone', () => {
    const height = 400;
    // Below the view: its bottom edge meets the view's bottom.
    expect(scrollToRow(1_000, 0, height)).toBe(1_001 * TREE_ROW_HEIGHT - height);
    // Above the view: its top meets the view's top.
    expect(scrollToRow(10, 5_000, height)).toBe(10 * TREE_ROW_HEIGHT);
    // In view: unchanged.
    expect(scrollToRow(260, 5_000, height)).toBe(5_000);
  });
});
