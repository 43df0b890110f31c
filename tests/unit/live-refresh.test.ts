/** Live mode's tree re-read does not ask the device again for a tree it has just pushed. */
import { describe, expect, it } from 'vitest';
import { treeReadDelay } from '@shared/inspect';

const SECOND = 1_000;

describe('treeReadDelay', () => {
  it("re-reads on the loop's own cadence when the tree on screen is the loop's own read", () => {
    expect(treeReadDelay(10_000, SECOND, 9_000, 9_000)).toBe(0);
    expect(treeReadDelay(10_000, SECOND, 0, undefined)).toBe(0);
  });

  it('a tree pushed since the last read defers the re-read to an interval after the push', () => {
    expect(treeReadDelay(10_000, SECOND, 9_000, 9_600)).toBe(600);
    // Pushes keep coming: each one pushes the re-read back again.
    expect(treeReadDelay(10_600, SECOND, 9_000, 10_500)).toBe(900);
  });

  it('a push older than an interval defers nothing: the screen may have changed without one', () => {
    expect(treeReadDelay(10_000, SECOND, 8_000, 8_900)).toBe(0);
    // The first read of a resumed loop, after a pause: the cached tree is old, read at once.
    expect(treeReadDelay(60_000, SECOND, 0, 5_000)).toBe(0);
  });
});
