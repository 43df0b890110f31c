/**
 * Tree diff between an XCTest-only observation and an SDK-backed one of the same moment.
 *
 * Pure and near-linear: two 5,000-node trees must diff in well under 50 ms, so every pass indexes with
 * Maps and the overlap pass buckets boxes by size and position instead of comparing all pairs.
 *
 * Nodes are named by index path ("0" is the root, "0.3.1" its fourth child's second child), the same
 * keys the inspector's tree uses, so a difference can be selected on either side.
 *
 * Over 500 lines on purpose: the passes (root, identity, label, overlap) share the flattened records and
 * indexes built once per diff; split apart, each would export or rebuild them.
 */
import { z } from 'zod';
import type { UiNode } from '@shared/protocol/runner';
import { boundsOf, childrenOf, hidesText, nodeSource, xctestTwinOf, type Rect } from '@shared/model/node';
import { childKey, ROOT_KEY, type NodeKey } from '@shared/model/tree';

export const DIFF_CLASSES = ['only_xctest', 'only_sdk', 'text_changed', 'value_changed', 'geometry_changed', 'identity_added'] as const;
export const DiffClassSchema = z.enum(DIFF_CLASSES);
export type DiffClass = z.infer<typeof DiffClassSchema>;

/** Human names for the summary and the filter. */
export const DIFF_CLASS_LABELS: Record<DiffClass, string> = {
  only_xctest: 'Only in XCTest',
  only_sdk: 'Only in SDK-backed',
  text_changed: 'Text changed',
  value_changed: 'Value changed',
  geometry_changed: 'Position or size changed',
  identity_added: 'Identity added',
};

export const NodePairSchema = z.object({
  xctestKey: z.string(),
  sdkKey: z.string(),
  /** `root`: the two roots are the same application element, whatever their attributes say. */
  by: z.enum(['root', 'identity', 'label', 'overlap']),
});
export type NodePair = z.infer<typeof NodePairSchema>;
export type PairedBy = NodePair['by'];

export const DifferenceSchema = z.object({
  class: DiffClassSchema,
  xctestKey: z.string().optional(),
  sdkKey: z.string().optional(),
  detail: z.string(),
});
export type Difference = z.infer<typeof DifferenceSchema>;

export const TreeDiffSchema = z.object({
  pairs: z.array(NodePairSchema),
  differences: z.array(DifferenceSchema),
  summary: z.record(DiffClassSchema, z.number().int().nonnegative()),
  /** Node counts per side, so "12 of 5,000 differ" can be said without walking the trees again. */
  nodes: z.object({ xctest: z.number().int().nonnegative(), sdk: z.number().int().nonnegative() }),
});
export type TreeDiff = z.infer<typeof TreeDiffSchema>;

export function emptySummary(): Record<DiffClass, number> {
  return {
    only_xctest: 0,
    only_sdk: 0,
    text_changed: 0,
    value_changed: 0,
    geometry_changed: 0,
    identity_added: 0,
  };
}

export function filterDifferences(diff: Pick<TreeDiff, 'differences'>, cls: DiffClass): Difference[] {
  return diff.differences.filter((d) => d.class === cls);
}

// ---- Flattening -------------------------------------------------------------------------------------

interface Flat {
  key: NodeKey;
  node: UiNode;
  box: Rect | null;
  /** "left,top,right,bottom", made when a pass first groups by it (most nodes pair before that); null until then. */
  boxKey: string | undefined | null;
  label: string | undefined;
  value: string | undefined;
}

/**
 * Every node in pre-order with what a pass compares, keyed as the tree keys it (model/tree.ts `childKey`).
 * Its own walk rather than flattenTree's: it builds the diff's record in the same step (one object per
 * node, not two), which the 5,000-node budget notices.
 */
function flatten(root: UiNode): Flat[] {
  const out: Flat[] = [];
  const nodes: UiNode[] = [root];
  const keys: NodeKey[] = [ROOT_KEY];
  while (nodes.length > 0) {
    const node = nodes.pop()!;
    const key = keys.pop()!;
    const shown = shownText(node);
    out.push({ key, node, box: boundsOf(node), boxKey: null, label: labelOf(shown), value: valueOf(shown) });
    const children = childrenOf(node);
    for (let i = children.length - 1; i >= 0; i--) {
      const child = children[i];
      if (child && typeof child === 'object') {
        nodes.push(child);
        keys.push(childKey(key, i));
      }
    }
  }
  return out;
}

function nonEmpty(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const trimmed = text.trim();
  return trimmed === '' ? undefined : trimmed;
}

/**
 * The node whose text the SDK-backed tree shows for `node`. A DOM element merged over an XCTest leaf
 * keeps the leaf's label and value (web-merge.ts `mergeLeaf`: the fresh leaf's attributes win), so its
 * text is the leaf's, read the way XCTest's is; the DOM adds only its identity
 * (docs/rules.md#r-qa-12). Every other node shows its own.
 */
function shownText(node: UiNode): UiNode {
  if (nodeSource(node) !== 'sdkWebBridge') return node;
  const twin = xctestTwinOf(node);
  return twin?.kind === 'replaced' ? twin.node : node;
}

/**
 * What a reader sees first. XCTest puts an element's label in `text`; the bridge merge puts the bridge
 * label in `content-desc` and its value in `text` (docs/rules.md#r-obs-03), so content-desc wins when
 * both are set.
 */
function labelOf(node: UiNode): string | undefined {
  return nonEmpty(node['content-desc']) ?? nonEmpty(node.text);
}

/**
 * The value, wherever the merge put it; unknown when it is a secret (the one rule, docs/rules.md#r-secret),
 * so a redaction or a mask is never a "change" and a secret is never quoted in a difference.
 */
function valueOf(node: UiNode): string | undefined {
  if (hidesText(node)) return undefined;
  // XCTest reads an empty field's value as its placeholder: that is no value (the bridge reports none).
  const placeholder = nonEmpty(node['hint-text']);
  if (placeholder !== undefined && (node.value ?? (nonEmpty(node['content-desc']) !== undefined ? node.text : undefined)) === placeholder) return undefined;
  if (node.value !== undefined) return node.value;
  return nonEmpty(node['content-desc']) !== undefined ? node.text : undefined;
}

function boundsKey(f: Flat): string | undefined {
  if (f.boxKey === null) {
    const b = f.box;
    f.boxKey = b ? `${b.left},${b.top},${b.right},${b.bottom}` : undefined;
  }
  return f.boxKey;
}

// ---- Pairing ----------------------------------------------------------------------------------------

type KeyFn = (f: Flat) => string | undefined;

/** The bridge and web merges add these; an XCTest-only tree never has them. */
const BRIDGE_IDENTITY_ATTRS = ['sdk-element-id', 'sdk-capture-identity', 'web-view-id', 'web-snapshot-id', 'web-element-id', 'web-document-id'] as const;

/**
 * Identities in the order they are trusted. Web element ids restart for every document and are unique
 * only within their web view, so they pair together with both.
 */
const IDENTITY_KEYS: KeyFn[] = [
  (f) => nonEmpty(f.node['sdk-element-id']),
  (f) => {
    const id = nonEmpty(f.node['web-element-id']);
    return id === undefined ? undefined : `${f.node['web-view-id'] ?? ''}\u0000${f.node['web-document-id'] ?? ''}\u0000${id}`;
  },
  (f) => nonEmpty(f.node['resource-id']),
  (f) => nonEmpty(f.node['test-tag']),
  (f) => nonEmpty(f.node['view-id']),
];

const byClassName: KeyFn = (f) => f.node.className ?? '';
const byRole: KeyFn = (f) => f.node.role ?? '';
const byLabel: KeyFn = (f) => f.label ?? '';

// Repeated identities are common (every disclosure chevron in a Settings list is "chevron.forward"):
// the copy at the same place is the same element.
const IDENTITY_REFINERS: KeyFn[] = [boundsKey, (f) => `${f.label ?? ''}\u0000${f.node.className ?? ''}`];
// A label shared by a cell and its button is told apart by class; the bridge maps role onto className,
// so role is tried separately before falling back to the exact box.
const LABEL_REFINERS: KeyFn[] = [byClassName, byRole, boundsKey];
const BOUNDS_REFINERS: KeyFn[] = [byClassName, byRole, byLabel];

const PAIRED_BY: readonly PairedBy[] = ['root', 'identity', 'label', 'overlap'];

class Pairing {
  readonly xPartner: Int32Array;
  readonly sPartner: Int32Array;
  /** Index into PAIRED_BY, per XCTest node: typed arrays keep a 20k-node diff clear of the garbage collector. */
  readonly xPairedBy: Uint8Array;

  constructor(
    readonly xs: readonly Flat[],
    readonly ss: readonly Flat[],
  ) {
    this.xPartner = new Int32Array(xs.length).fill(-1);
    this.sPartner = new Int32Array(ss.length).fill(-1);
    this.xPairedBy = new Uint8Array(xs.length);
  }

  pair(x: number, s: number, by: PairedBy): void {
    this.xPartner[x] = s;
    this.sPartner[s] = x;
    this.xPairedBy[x] = PAIRED_BY.indexOf(by);
  }

  unpairedX(): number[] {
    const out: number[] = [];
    for (let i = 0; i < this.xPartner.length; i++) if (this.xPartner[i] === -1) out.push(i);
    return out;
  }

  unpairedS(): number[] {
    const out: number[] = [];
    for (let i = 0; i < this.sPartner.length; i++) if (this.sPartner[i] === -1) out.push(i);
    return out;
  }

  /**
   * Groups the unpaired nodes of both sides by `key` and pairs every group that holds exactly one node
   * per side. An ambiguous group is narrowed by each refiner in turn (over what is still unpaired in
   * it); with `zipRest`, what stays ambiguous is paired in document order, else it is left to the
   * next pass.
   */
  pass(key: KeyFn, refiners: readonly KeyFn[], by: PairedBy, zipRest = false): void {
    // Most keys occur once per side: keep a lone index per key and allocate lists only for repeats,
    // which keeps the garbage collector out of the common case.
    const xOne = new Map<string, number>();
    const xMany = new Map<string, number[]>();
    for (let i = 0; i < this.xs.length; i++) {
      if (this.xPartner[i] !== -1) continue;
      const k = key(this.xs[i]!);
      if (k === undefined) continue;
      const first = xOne.get(k);
      if (first === undefined) xOne.set(k, i);
      else {
        const many = xMany.get(k);
        if (many) many.push(i);
        else xMany.set(k, [first, i]);
      }
    }
    if (xOne.size === 0) return;
    const sOne = new Map<string, number>();
    const sMany = new Map<string, number[]>();
    for (let j = 0; j < this.ss.length; j++) {
      if (this.sPartner[j] !== -1) continue;
      const k = key(this.ss[j]!);
      if (k === undefined || !xOne.has(k)) continue;
      const first = sOne.get(k);
      if (first === undefined) sOne.set(k, j);
      else {
        const many = sMany.get(k);
        if (many) many.push(j);
        else sMany.set(k, [first, j]);
      }
    }
    for (const [k, j] of sOne) {
      const xList = xMany.get(k);
      const sList = sMany.get(k);
      if (!xList && !sList) this.pair(xOne.get(k)!, j, by);
      else this.resolve(xList ?? [xOne.get(k)!], sList ?? [j], refiners, by, zipRest);
    }
  }

  private resolve(x: number[], s: number[], refiners: readonly KeyFn[], by: PairedBy, zipRest: boolean): void {
    if (x.length === 1 && s.length === 1) {
      this.pair(x[0]!, s[0]!, by);
      return;
    }
    let restX = x;
    let restS = s;
    for (const refine of refiners) {
      if (restX.length === 0 || restS.length === 0) return;
      const sub = new Map<string, { x: number[]; s: number[] }>();
      for (const i of restX) {
        const k = refine(this.xs[i]!) ?? '';
        let g = sub.get(k);
        if (!g) sub.set(k, (g = { x: [], s: [] }));
        g.x.push(i);
      }
      for (const j of restS) {
        const g = sub.get(refine(this.ss[j]!) ?? '');
        if (g) g.s.push(j);
      }
      for (const g of sub.values()) {
        if (g.x.length === 1 && g.s.length === 1) this.pair(g.x[0]!, g.s[0]!, by);
      }
      restX = restX.filter((i) => this.xPartner[i] === -1);
      restS = restS.filter((j) => this.sPartner[j] === -1);
    }
    if (zipRest) {
      const n = Math.min(restX.length, restS.length);
      for (let k = 0; k < n; k++) this.pair(restX[k]!, restS[k]!, by);
    }
  }

  /** IoU ≥ 0.5, best first, through a size-and-position hash (see `bucketKey`). */
  overlapPass(minIou: number): void {
    const grid = new Map<number, number[]>();
    const scales = new Set<number>();
    for (const j of this.unpairedS()) {
      const box = this.ss[j]!.box;
      if (!box || area(box) <= 0) continue;
      const sx = scaleOf(box.right - box.left);
      const sy = scaleOf(box.bottom - box.top);
      scales.add(sx * 32 + sy);
      const k = bucketKey(sx, sy, cellOf(centerX(box), sx), cellOf(centerY(box), sy));
      let bucket = grid.get(k);
      if (!bucket) grid.set(k, (bucket = []));
      bucket.push(j);
    }
    if (grid.size === 0) return;

    const candidates: Array<{ x: number; s: number; iou: number }> = [];
    for (const i of this.unpairedX()) {
      const box = this.xs[i]!.box;
      if (!box || area(box) <= 0) continue;
      const w = box.right - box.left;
      const h = box.bottom - box.top;
      const sx = scaleOf(w);
      const sy = scaleOf(h);
      const cx = centerX(box);
      const cy = centerY(box);
      // IoU ≥ 0.5 implies each side is within 2x of the other, so the partner's size class is within one
      // step, and its centre is within half this box's size (plus a point for integer rounding).
      const reachX = w / 2 + 1;
      const reachY = h / 2 + 1;
      for (let tx = sx - 1; tx <= sx + 1; tx++) {
        if (tx < 0) continue;
        for (let ty = sy - 1; ty <= sy + 1; ty++) {
          if (ty < 0 || !scales.has(tx * 32 + ty)) continue;
          const x0 = cellOf(cx - reachX, tx);
          const x1 = cellOf(cx + reachX, tx);
          const y0 = cellOf(cy - reachY, ty);
          const y1 = cellOf(cy + reachY, ty);
          for (let gx = x0; gx <= x1; gx++) {
            for (let gy = y0; gy <= y1; gy++) {
              const bucket = grid.get(bucketKey(tx, ty, gx, gy));
              if (!bucket) continue;
              for (const j of bucket) {
                const iou = intersectionOverUnion(box, this.ss[j]!.box!);
                if (iou >= minIou) candidates.push({ x: i, s: j, iou });
              }
            }
          }
        }
      }
    }
    // Best first; among equals, the earlier in document order, so the result does not depend on Map order.
    candidates.sort((a, b) => b.iou - a.iou || a.x - b.x || a.s - b.s);
    for (const c of candidates) {
      if (this.xPartner[c.x] === -1 && this.sPartner[c.s] === -1) this.pair(c.x, c.s, 'overlap');
    }
  }
}

// Size classes are powers of two of a side in points; the cells of a class are as wide as the class.
const MAX_SCALE = 31;

function scaleOf(size: number): number {
  return size < 1 ? 0 : Math.min(MAX_SCALE, Math.floor(Math.log2(size)));
}

function cellOf(coordinate: number, scale: number): number {
  return Math.floor(coordinate / 2 ** scale);
}

/**
 * A small-integer hash of (size class, cell). Map lookups by small integers allocate nothing, where an
 * exact key above 2^31 would box a number on every lookup. A collision only adds candidates, and every
 * candidate's IoU is computed, so it cannot pair the wrong nodes.
 */
function bucketKey(sx: number, sy: number, gx: number, gy: number): number {
  return (Math.imul(sx * 32 + sy, 73856093) ^ Math.imul(gx, 19349663) ^ Math.imul(gy, 83492791)) & 0x3fffffff;
}

function centerX(b: Rect): number {
  return (b.left + b.right) / 2;
}

function centerY(b: Rect): number {
  return (b.top + b.bottom) / 2;
}

function area(b: Rect): number {
  return Math.max(0, b.right - b.left) * Math.max(0, b.bottom - b.top);
}

export function intersectionOverUnion(a: Rect, b: Rect): number {
  const iw = Math.min(a.right, b.right) - Math.max(a.left, b.left);
  const ih = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
  if (iw <= 0 || ih <= 0) return 0;
  const inter = iw * ih;
  const union = area(a) + area(b) - inter;
  return union <= 0 ? 0 : inter / union;
}

// ---- Classification ---------------------------------------------------------------------------------

function quote(text: string | undefined): string {
  if (text === undefined) return '(none)';
  const flat = text.replace(/\s+/g, ' ');
  return JSON.stringify(flat.length > 80 ? `${flat.slice(0, 80)}…` : flat);
}

function formatBox(b: Rect | null): string {
  return b ? `[${b.left},${b.top},${b.right},${b.bottom}]` : '(no bounds)';
}

function describe(f: Flat): string {
  const name = f.node.className ?? f.node.role ?? 'node';
  const label = f.label ?? nonEmpty(f.node['resource-id']);
  return label === undefined ? `${name} ${formatBox(f.box)}` : `${name} ${quote(label)}`;
}

function geometryDetail(a: Rect | null, b: Rect | null): string | undefined {
  if (!a && !b) return undefined;
  if (!a || !b) return `bounds ${formatBox(a)} → ${formatBox(b)}`;
  if (a.left === b.left && a.top === b.top && a.right === b.right && a.bottom === b.bottom) return undefined;
  const wa = a.right - a.left;
  const ha = a.bottom - a.top;
  const wb = b.right - b.left;
  const hb = b.bottom - b.top;
  const dx = b.left - a.left;
  const dy = b.top - a.top;
  const signed = (n: number) => (n >= 0 ? `+${n}` : String(n));
  if (wa === wb && ha === hb) return `moved by (${signed(dx)}, ${signed(dy)}) to ${formatBox(b)}`;
  if (dx === 0 && dy === 0) return `resized ${wa}×${ha} → ${wb}×${hb} at ${formatBox(b)}`;
  return `moved and resized: ${formatBox(a)} → ${formatBox(b)}`;
}

function identityDetail(x: UiNode, s: UiNode): string | undefined {
  if (s['sdk-element-id'] === undefined && s['web-element-id'] === undefined) return undefined;
  const added = BRIDGE_IDENTITY_ATTRS.filter((attr) => s[attr] !== undefined && x[attr] === undefined);
  // Only an element id makes a node addressable through a bridge; the capture or snapshot stamp alone is not.
  if (!added.includes('sdk-element-id') && !added.includes('web-element-id')) return undefined;
  const parts = added.map((attr) => `${attr}=${quote(s[attr])}`);
  return `${nodeSource(s) === 'sdkWebBridge' || added.includes('web-element-id') ? 'web' : 'bridge'} identity: ${parts.join(', ')}`;
}

/**
 * Each bridge node of the SDK-backed tree with a kept twin, mapped to the XCTest node beside it (same
 * frame, and the class, id and label the twin records), and back.
 */
function keptTwins(ss: readonly Flat[]): Map<number, number> {
  const pairs = new Map<number, number>();
  const xctestByBox = new Map<string, number[]>();
  for (let j = 0; j < ss.length; j++) {
    if (nodeSource(ss[j]!.node) !== 'xctest') continue;
    const key = boundsKey(ss[j]!);
    if (key === undefined) continue;
    const list = xctestByBox.get(key);
    if (list) list.push(j);
    else xctestByBox.set(key, [j]);
  }
  if (xctestByBox.size === 0) return pairs;
  for (let j = 0; j < ss.length; j++) {
    const twin = xctestTwinOf(ss[j]!.node);
    if (twin?.kind !== 'kept') continue;
    const key = boundsKey(ss[j]!);
    const match = (key === undefined ? [] : (xctestByBox.get(key) ?? [])).find((t) => {
      const n = ss[t]!.node;
      return !pairs.has(t) && n.className === twin.node.className && n['resource-id'] === twin.node['resource-id'] && n.text === twin.node.text;
    });
    if (match === undefined) continue;
    pairs.set(j, match);
    pairs.set(match, j);
  }
  return pairs;
}

/**
 * Pairs the two trees (identity, then label, then box overlap) and classifies what differs.
 * Differences follow the XCTest tree's document order, with nodes only in the SDK-backed tree last.
 */
export function diffTrees(xctestRoot: UiNode, sdkRoot: UiNode): TreeDiff {
  const xs = flatten(xctestRoot);
  const ss = flatten(sdkRoot);
  const p = new Pairing(xs, ss);
  p.pair(0, 0, 'root');

  for (const key of IDENTITY_KEYS) p.pass(key, IDENTITY_REFINERS, 'identity');
  p.pass((f) => f.label, LABEL_REFINERS, 'label');
  // Equal boxes are IoU 1, the best any overlap can be: settle them first, in document order, so a
  // stack of containers sharing one frame (cell, button) pairs level by level instead of at random.
  p.pass(boundsKey, BOUNDS_REFINERS, 'overlap', true);
  p.overlapPass(0.5);

  const summary = emptySummary();
  const differences: Difference[] = [];
  const add = (d: Difference) => {
    summary[d.class]++;
    differences.push(d);
  };

  const pairs: NodePair[] = [];
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i]!;
    const j = p.xPartner[i]!;
    if (j === -1) {
      add({ class: 'only_xctest', xctestKey: x.key, detail: describe(x) });
      continue;
    }
    const s = ss[j]!;
    const xctestKey = x.key;
    const sdkKey = s.key;
    pairs.push({ xctestKey, sdkKey, by: PAIRED_BY[p.xPairedBy[i]!]! });
    if (x.label !== s.label) add({ class: 'text_changed', xctestKey, sdkKey, detail: `text ${quote(x.label)} → ${quote(s.label)}` });
    if (!hidesText(x.node) && !hidesText(s.node) && x.value !== s.value) {
      add({ class: 'value_changed', xctestKey, sdkKey, detail: `value ${quote(x.value)} → ${quote(s.value)}` });
    }
    const geometry = geometryDetail(x.box, s.box);
    if (geometry !== undefined) add({ class: 'geometry_changed', xctestKey, sdkKey, detail: geometry });
    const identity = identityDetail(x.node, s.node);
    if (identity !== undefined) add({ class: 'identity_added', xctestKey, sdkKey, detail: identity });
  }
  // A bridge node merged beside the XCTest node it describes (a kept twin, docs/protocol.md#p-merge-attrs)
  // is that element again, with an identity: one difference, identity added, not a node of its own.
  const besides = keptTwins(ss);
  for (let j = 0; j < ss.length; j++) {
    if (p.sPartner[j] !== -1) continue;
    const twin = besides.get(j);
    const x = twin === undefined ? -1 : p.sPartner[twin]!;
    if (x >= 0) {
      // The bridge node adds its identity; an XCTest copy whose bridge node paired in its place adds nothing.
      const identity = identityDetail(xs[x]!.node, ss[j]!.node);
      if (identity !== undefined) add({ class: 'identity_added', xctestKey: xs[x]!.key, sdkKey: ss[j]!.key, detail: identity });
      continue;
    }
    add({ class: 'only_sdk', sdkKey: ss[j]!.key, detail: describe(ss[j]!) });
  }

  return { pairs, differences, summary, nodes: { xctest: xs.length, sdk: ss.length } };
}
