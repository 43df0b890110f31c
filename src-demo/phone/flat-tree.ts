/**
 * A native read's views as they come over from the page in pieces (AppPage.introspectSliced,
 * docs/rules.md#r-perf-10): flat records in depth-first order, each a view whose `children` holds the
 * number of its children rather than the children themselves. Records are put back into a tree as
 * each piece arrives, so no piece waits for the whole text; what the views hold is left to
 * `decodeNativeCapture`, which decides whether it is a screen.
 */

/** A piece that cannot be a part of a depth-first list of views. */
export class FlatTreeError extends Error {
  override readonly name = 'FlatTreeError';
}

type Raw = Record<string, unknown> & { children: unknown[] };

export class FlatTree {
  private root: Raw | undefined;
  /** The views whose children are still to come, and how many each still expects. */
  private readonly open: Array<{ node: Raw; left: number }> = [];
  private records = 0;

  /** One piece: an array of records, in order after the pieces before it. */
  add(piece: unknown): void {
    if (!Array.isArray(piece)) throw new FlatTreeError('a piece of the screen is not a list of views');
    for (const record of piece as unknown[]) {
      const at = this.records++;
      if (typeof record !== 'object' || record === null || Array.isArray(record)) throw new FlatTreeError(`view ${at} is not an object`);
      const node = record as Record<string, unknown>;
      const count = node.children;
      if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) throw new FlatTreeError(`view ${at} does not say how many children it has`);
      const raw = node as Raw;
      raw.children = [];
      const parent = this.open[this.open.length - 1];
      if (parent) {
        parent.node.children.push(raw);
        parent.left--;
      } else if (this.root) throw new FlatTreeError(`view ${at} comes after the whole tree`);
      else this.root = raw;
      if (count > 0) this.open.push({ node: raw, left: count });
      while (this.open.length && this.open[this.open.length - 1]!.left === 0) this.open.pop();
    }
  }

  /** The tree once every piece is in: null when there were no views. */
  finish(): Raw | null {
    if (this.open.length) throw new FlatTreeError(`the screen ended with ${this.open.length} views still waiting for children`);
    return this.root ?? null;
  }
}
