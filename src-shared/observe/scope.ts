/**
 * Seed 002's observe-scope REGION transform (docs/rules.md#r-lay-08, #r-lay-10): the returned hierarchy
 * cropped to a box of the screen, and the layout warnings co-scoped with it so none names a pruned
 * element. Read from AutoMobile (kaeawc/auto-mobile, src/features/observe/output/ObserveScopeExperiments.ts:
 * `scopeToRegion`, `pruneToRect`, `contentRectPx`, `regionToPx`, `intersects`, `scopeLayoutWarnings`,
 * `buildScopeMetadata`); its cases are tests/unit/observe-scope.test.ts. Pure: the input is never changed.
 */
import { z } from 'zod';
import type { UiNode } from '@shared/protocol/runner';
import type { LayoutWarnings, Observation, ObserveScope } from '@shared/protocol/observation';
import { ROOT_KEY, type NodeKey } from '@shared/model/tree';
import { childrenOf, type Rect } from '@shared/model/node';
import { scopeLayoutWarnings } from './layout';

/** A box in fractions of the screen (0..1), as AutoMobile's `NormalizedRegion` {x1, y1, x2, y2}. */
export const NormalizedRegionSchema = z
  .object({ x1: z.number().min(0).max(1), y1: z.number().min(0).max(1), x2: z.number().min(0).max(1), y2: z.number().min(0).max(1) })
  .refine((r) => r.x2 > r.x1 && r.y2 > r.y1, { message: 'a region needs x2 > x1 and y2 > y1' });
export type NormalizedRegion = z.infer<typeof NormalizedRegionSchema>;

/** Refused: a region the command line or a caller gave that is no box of the screen. */
export class ObserveRegionError extends Error {
  override readonly name = 'ObserveRegionError';
}

/** `x1,y1,x2,y2` (fractions of the screen), as `parallax observe --observe-region` takes it. */
export function parseObserveRegion(text: string): NormalizedRegion {
  const parts = text.split(',').map((p) => p.trim());
  const numbers = parts.map(Number);
  if (parts.length !== 4 || parts.some((p) => p === '') || numbers.some((n) => !Number.isFinite(n))) {
    throw new ObserveRegionError(`--observe-region takes four fractions x1,y1,x2,y2 (0 to 1), not "${text}"`);
  }
  const [x1, y1, x2, y2] = numbers as [number, number, number, number];
  const parsed = NormalizedRegionSchema.safeParse({ x1, y1, x2, y2 });
  if (!parsed.success) throw new ObserveRegionError(`--observe-region "${text}": ${parsed.error.issues[0]?.message ?? 'not a box'}`);
  return parsed.data;
}

/** Half-open: rectangles that only touch do not intersect (AutoMobile `intersects`). */
function intersects(a: Rect, b: Rect): boolean {
  return !(a.right <= b.left || a.left >= b.right || a.bottom <= b.top || a.top >= b.bottom);
}

/** The box in points; without one, the content rectangle: the screen minus `systemInsets` (AutoMobile `contentRectPx`). */
function cropRect(observation: Observation, box: NormalizedRegion | undefined): Rect | null {
  const size = observation.screenSize;
  if (!size) return null;
  if (box) return { left: box.x1 * size.width, top: box.y1 * size.height, right: box.x2 * size.width, bottom: box.y2 * size.height };
  const insets = observation.systemInsets ?? { top: 0, left: 0, bottom: 0, right: 0 };
  return { left: insets.left, top: insets.top, right: size.width - insets.right, bottom: size.height - insets.bottom };
}

interface Pruned {
  node: UiNode | null;
  count: number;
}

/**
 * AutoMobile `pruneToRect`: a node stays when a descendant stays, when it has no bounds (a container it
 * cannot place is never geometrically excluded), or when its own bounds intersect the crop. `keys` maps
 * each kept node's old key to its key in the pruned tree.
 */
function prune(node: UiNode, rect: Rect, oldKey: NodeKey, newKey: NodeKey, keys: Map<NodeKey, NodeKey>): Pruned {
  const kept: UiNode[] = [];
  let count = 0;
  const children = childrenOf(node);
  // The child keys are only known once a sibling before is kept or dropped: record them per child.
  const childKeys = new Map<NodeKey, NodeKey>();
  children.forEach((child, i) => {
    const pruned = prune(child, rect, `${oldKey}.${i}`, `${newKey}.${kept.length}`, childKeys);
    if (pruned.node) {
      kept.push(pruned.node);
      count += pruned.count;
    }
  });
  const { node: _children, ...own } = node as UiNode & { node?: unknown };
  if (kept.length === 0 && node.bounds && !intersects(node.bounds, rect)) return { node: null, count: 0 };
  for (const [from, to] of childKeys) keys.set(from, to);
  keys.set(oldKey, newKey);
  const copy = (kept.length > 0 ? { ...own, node: kept } : own) as UiNode;
  return { node: copy, count: count + 1 };
}

function countNodes(node: UiNode | undefined): number {
  if (!node) return 0;
  let total = 1;
  for (const child of childrenOf(node)) total += countNodes(child);
  return total;
}

/**
 * Co-scoped warnings (AutoMobile `scopeLayoutWarnings`): a warning stays when its element is still in
 * the pruned tree (here by NodeKey, exact, where AutoMobile matches bounds and identity). The list becomes
 * `scoped` when a warning was dropped, or when it was `truncated` and the tree pruned (a capped-away
 * warning may belong to a pruned node, so the stale total goes); otherwise scope and total stand.
 */
function coScope(warnings: LayoutWarnings, keys: Map<NodeKey, NodeKey>, pruned: boolean): LayoutWarnings {
  const scoped = scopeLayoutWarnings(warnings.warnings, (key) => keys.get(key));
  const dropped = scoped.warnings.length !== warnings.warnings.length;
  if (dropped || (pruned && warnings.scope === 'truncated')) return scoped;
  // Every warning kept: the envelope stands, with the keys of the pruned tree.
  return { ...warnings, warnings: scoped.warnings };
}

/**
 * The observation cropped to `box` (fractions of the screen), or to the content rectangle without one,
 * with `observeScope` saying what was done. Without a screen size or a hierarchy nothing can be placed:
 * the observation is returned as it is, with `observeScope.applied` empty.
 */
export function scopeToRegion(observation: Observation, box?: NormalizedRegion): Observation & { observeScope: ObserveScope } {
  const root = observation.viewHierarchy?.hierarchy;
  const nodesBefore = countNodes(root);
  const rect = cropRect(observation, box);
  if (!root || !rect) return { ...observation, observeScope: { applied: [], nodesBefore, nodesAfter: nodesBefore, ...(rect ? { regionPx: rect } : {}) } };

  const keys = new Map<NodeKey, NodeKey>();
  const pruned = prune(root, rect, ROOT_KEY, ROOT_KEY, keys);
  const nodesAfter = pruned.node ? pruned.count : 0;
  const changed = nodesAfter !== nodesBefore;
  const viewHierarchy = { ...observation.viewHierarchy! };
  if (pruned.node) viewHierarchy.hierarchy = pruned.node;
  else delete viewHierarchy.hierarchy;
  const out: Observation & { observeScope: ObserveScope } = {
    ...observation,
    viewHierarchy,
    layoutWarnings: observation.layoutWarnings.warnings.length === 0 ? observation.layoutWarnings : coScope(observation.layoutWarnings, keys, changed),
    observeScope: { applied: changed ? ['region'] : [], nodesBefore, nodesAfter, regionPx: rect },
  };
  // The focused element names a node of the tree: gone from it, it is gone from the scoped answer too.
  if (out.focusedElement?.nodeKey !== undefined) {
    const key = keys.get(out.focusedElement.nodeKey);
    if (key === undefined) delete out.focusedElement;
    else out.focusedElement = { ...out.focusedElement, nodeKey: key };
  }
  return out;
}
