/**
 * Seed 002's observe-scope transforms (docs/rules.md#r-lay-08, #r-lay-10, #r-scope-01..05): FOCUS (a subtree:
 * an anchor's, else the foreground app's without foreign chrome), REGION (a box of the screen) and OVERVIEW
 * (the container skeleton), composed in that order, with the layout warnings and an accessibility audit
 * co-scoped so none names a pruned element. Read from AutoMobile (kaeawc/auto-mobile,
 * src/features/observe/output/ObserveScopeExperiments.ts @0bbc911: `scopeToFocus`, `findAnchor`,
 * `pruneForeignChrome`, `isForeignPackage`, `scopeToRegion`, `pruneToRect`, `toOverviewNode`,
 * `isStructural`, `OVERVIEW_KEPT_ATTRS`, `applyObserveScopeExperiments`, `scopeLayoutWarnings`); its cases
 * are tests/unit/observe-scope.test.ts. Pure: the input is never changed.
 *
 * Not src-shared/observe/focus.ts: that is the observation's `focusedElement` (the element with keyboard
 * focus); FOCUS here is seed 002's scope to a subtree.
 */
import { z } from 'zod';
import type { UiNode } from '@shared/protocol/runner';
import type { LayoutWarnings, Observation, ObserveScope, ObserveScopeKind } from '@shared/protocol/observation';
import { A11Y_KINDS, A11Y_SEVERITIES, type A11yFinding, type A11yKind, type A11ySeverity, type AccessibilityAudit } from '@shared/protocol/accessibility';
import { ROOT_KEY, type NodeKey } from '@shared/model/tree';
import { childrenOf, nodeFlag, SDK_SOURCE_KEY, type Rect } from '@shared/model/node';
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

/** AutoMobile `FocusAnchor`: the first node (depth first) whose resource-id is this, or whose text contains this. */
export const FocusAnchorSchema = z
  .object({ resourceId: z.string().min(1).optional(), text: z.string().min(1).optional() })
  .refine((a) => a.resourceId !== undefined || a.text !== undefined, { message: 'an anchor names a resource-id or a text' });
export type FocusAnchor = z.infer<typeof FocusAnchorSchema>;

/** AutoMobile `ObserveScopeInput`: `focus: true` is the foreground app, `region: true` the content rectangle. */
export interface ObserveScopeRequest {
  focus?: true | FocusAnchor;
  region?: true | NormalizedRegion;
  overview?: boolean;
}

/** `app`, `id:RESOURCE-ID` or `text:SUBSTRING`, as `parallax observe --observe-focus` takes it. */
export function parseObserveFocus(text: string): true | FocusAnchor {
  if (text === 'app') return true;
  const colon = text.indexOf(':');
  const kind = colon > 0 ? text.slice(0, colon) : '';
  const value = text.slice(colon + 1);
  if ((kind === 'id' || kind === 'text') && value !== '') return kind === 'id' ? { resourceId: value } : { text: value };
  throw new ObserveRegionError(`--observe-focus takes app, id:RESOURCE-ID or text:SUBSTRING, not "${text}"`);
}

/** A stage's tree and, for each node it kept, its old key to its new key. */
interface Stage {
  root: UiNode | undefined;
  keys: Map<NodeKey, NodeKey>;
}

function rekeyed(keys: Map<NodeKey, NodeKey>, oldKey: NodeKey, newKey: NodeKey, sub: Map<NodeKey, NodeKey>): void {
  for (const [from, to] of sub) keys.set(from, to);
  keys.set(oldKey, newKey);
}

// ---- FOCUS ---------------------------------------------------------------------------------------------

/** AutoMobile `findAnchor`: depth first, a node before its children, resource-id equal or text containing. */
function findAnchor(node: UiNode, key: NodeKey, anchor: FocusAnchor): NodeKey | undefined {
  if (anchor.resourceId !== undefined && node['resource-id'] === anchor.resourceId) return key;
  if (anchor.text !== undefined && (node.text ?? '').includes(anchor.text)) return key;
  const children = childrenOf(node);
  for (let i = 0; i < children.length; i++) {
    const hit = findAnchor(children[i]!, `${key}.${i}`, anchor);
    if (hit !== undefined) return hit;
  }
  return undefined;
}

function nodeAt(root: UiNode, key: NodeKey): UiNode {
  let node = root;
  for (const part of key.split('.').slice(1)) node = childrenOf(node)[Number(part)]!;
  return node;
}

/** Every key of the subtree at `key`, re-based so that `key` becomes the root. */
function rebase(node: UiNode, oldKey: NodeKey, newKey: NodeKey, keys: Map<NodeKey, NodeKey>): void {
  keys.set(oldKey, newKey);
  childrenOf(node).forEach((child, i) => rebase(child, `${oldKey}.${i}`, `${newKey}.${i}`, keys));
}

/** AutoMobile `resourceIdPackage`: `com.pkg:id/name` gives `com.pkg`; none or unqualified gives "". */
function resourceIdPackage(id: string): string {
  const colon = id.indexOf(':');
  return colon > 0 ? id.slice(0, colon) : '';
}

/**
 * AutoMobile `isForeignPackage`: only a dotted package other than the foreground app's is foreign, so the
 * `android:` framework ids and iOS identifiers with a colon (`row:0`, undotted) are never dropped.
 */
function isForeign(node: UiNode, app: string): boolean {
  const pkg = resourceIdPackage(node['resource-id'] ?? '');
  return pkg.includes('.') && pkg !== app;
}

/** AutoMobile `pruneForeignChrome`: a foreign node goes with its subtree; every other node stays. */
function pruneForeign(node: UiNode, app: string, oldKey: NodeKey, newKey: NodeKey, keys: Map<NodeKey, NodeKey>): UiNode | null {
  if (isForeign(node, app)) return null;
  const kept: UiNode[] = [];
  const sub = new Map<NodeKey, NodeKey>();
  childrenOf(node).forEach((child, i) => {
    const pruned = pruneForeign(child, app, `${oldKey}.${i}`, `${newKey}.${kept.length}`, sub);
    if (pruned) kept.push(pruned);
  });
  rekeyed(keys, oldKey, newKey, sub);
  const { node: _children, ...own } = node as UiNode & { node?: unknown };
  return (kept.length > 0 ? { ...own, node: kept } : own) as UiNode;
}

/** AutoMobile `foregroundPackage`: the hierarchy's package, else the active window's app. */
function foregroundApp(observation: Observation): string {
  return observation.viewHierarchy?.packageName || observation.activeWindow?.bundleId || '';
}

function focusStage(observation: Observation, root: UiNode, request: true | FocusAnchor): { stage: Stage; focus: NonNullable<ObserveScope['focus']> } {
  const keys = new Map<NodeKey, NodeKey>();
  if (request !== true) {
    const hit = findAnchor(root, ROOT_KEY, request);
    // Unmatched, the tree is left whole (AutoMobile: "unmatched anchor leaves the tree untouched").
    if (hit === undefined) return { stage: { root, keys: identity(root) }, focus: { by: 'anchor', matched: false } };
    const anchored = nodeAt(root, hit);
    rebase(anchored, hit, ROOT_KEY, keys);
    return { stage: { root: anchored, keys }, focus: { by: 'anchor', matched: true } };
  }
  const app = foregroundApp(observation);
  if (app === '') return { stage: { root, keys: identity(root) }, focus: { by: 'foreground-app', matched: false } };
  const pruned = pruneForeign(root, app, ROOT_KEY, ROOT_KEY, keys);
  // `matched`: some foreign chrome was pruned; an iOS tree carries no dotted ids, so it stays false there.
  const matched = countNodes(pruned ?? undefined) !== countNodes(root);
  return { stage: { root: pruned ?? undefined, keys }, focus: { by: 'foreground-app', matched, packageName: app } };
}

function identity(root: UiNode): Map<NodeKey, NodeKey> {
  const keys = new Map<NodeKey, NodeKey>();
  rebase(root, ROOT_KEY, ROOT_KEY, keys);
  return keys;
}

// ---- REGION --------------------------------------------------------------------------------------------

/**
 * AutoMobile `pruneToRect`: a node stays when a descendant stays, when it has no bounds (a container it
 * cannot place is never geometrically excluded), or when its own bounds intersect the crop.
 */
function prune(node: UiNode, rect: Rect, oldKey: NodeKey, newKey: NodeKey, keys: Map<NodeKey, NodeKey>): UiNode | null {
  const kept: UiNode[] = [];
  // The child keys are only known once a sibling before is kept or dropped: record them per child.
  const sub = new Map<NodeKey, NodeKey>();
  childrenOf(node).forEach((child, i) => {
    const pruned = prune(child, rect, `${oldKey}.${i}`, `${newKey}.${kept.length}`, sub);
    if (pruned) kept.push(pruned);
  });
  const { node: _children, ...own } = node as UiNode & { node?: unknown };
  if (kept.length === 0 && node.bounds && !intersects(node.bounds, rect)) return null;
  rekeyed(keys, oldKey, newKey, sub);
  return (kept.length > 0 ? { ...own, node: kept } : own) as UiNode;
}

// ---- OVERVIEW ------------------------------------------------------------------------------------------

/**
 * AutoMobile `OVERVIEW_KEPT_ATTRS` (its `class` is Parallax's `className`). *(decision)* The SDK source
 * mark in `extras` stays too: without it a bridge or web node would read as XCTest's in the legend.
 */
const OVERVIEW_KEPT: readonly string[] = ['resource-id', 'className', 'content-desc', 'bounds', 'scrollable', 'clickable'];

/** AutoMobile `isStructural`: kept children, scrollable, clickable, a resource-id or a content-desc. */
function isStructural(node: UiNode, hasKeptChildren: boolean): boolean {
  return hasKeptChildren || nodeFlag(node, 'scrollable') || nodeFlag(node, 'clickable') || !!node['resource-id'] || !!node['content-desc'];
}

function trimmed(node: UiNode): UiNode {
  const out: Record<string, unknown> = {};
  for (const key of OVERVIEW_KEPT) if ((node as Record<string, unknown>)[key] !== undefined) out[key] = (node as Record<string, unknown>)[key];
  const source = node.extras?.[SDK_SOURCE_KEY];
  if (source !== undefined) out.extras = { [SDK_SOURCE_KEY]: source };
  return out as UiNode;
}

interface Overviewed {
  node: UiNode | null;
  /** Nodes of this subtree not in the output. */
  dropped: number;
  /** Old keys of this subtree's dropped nodes, for their nearest kept ancestor to stand for them. */
  collapsed: NodeKey[];
}

/**
 * AutoMobile `toOverviewNode`: post-order; an anonymous node (not structural) goes with its subtree (it has
 * no kept descendant), and a kept node counts what went below it in `omittedDescendants`.
 */
function overviewNode(node: UiNode, oldKey: NodeKey, newKey: NodeKey, keys: Map<NodeKey, NodeKey>, located: Map<NodeKey, NodeKey>): Overviewed {
  const kept: UiNode[] = [];
  let droppedBelow = 0;
  const collapsedBelow: NodeKey[] = [];
  const sub = new Map<NodeKey, NodeKey>();
  const subLocated = new Map<NodeKey, NodeKey>();
  childrenOf(node).forEach((child, i) => {
    const r = overviewNode(child, `${oldKey}.${i}`, `${newKey}.${kept.length}`, sub, subLocated);
    if (r.node) kept.push(r.node);
    droppedBelow += r.dropped;
    collapsedBelow.push(...r.collapsed);
  });
  if (!isStructural(node, kept.length > 0)) return { node: null, dropped: 1 + droppedBelow, collapsed: [oldKey, ...collapsedBelow] };
  rekeyed(keys, oldKey, newKey, sub);
  rekeyed(located, oldKey, newKey, subLocated);
  for (const key of collapsedBelow) located.set(key, newKey);
  const out = trimmed(node) as UiNode & { node?: UiNode[] };
  if (kept.length > 0) out.node = kept;
  if (droppedBelow > 0) out.omittedDescendants = droppedBelow;
  return { node: out, dropped: droppedBelow, collapsed: [] };
}

// ---- Compose -------------------------------------------------------------------------------------------

function countNodes(node: UiNode | undefined): number {
  if (!node) return 0;
  let total = 1;
  for (const child of childrenOf(node)) total += countNodes(child);
  return total;
}

function composed(first: Map<NodeKey, NodeKey>, then: Map<NodeKey, NodeKey>): Map<NodeKey, NodeKey> {
  const out = new Map<NodeKey, NodeKey>();
  for (const [from, mid] of first) {
    const to = then.get(mid);
    if (to !== undefined) out.set(from, to);
  }
  return out;
}

/** A scoped observation and how to find an element of the whole tree in it. */
export interface ScopedObservation {
  observation: Observation & { observeScope: ObserveScope };
  /**
   * An element of the whole tree in the returned one: its own key, or (collapsed by OVERVIEW) its nearest
   * kept ancestor's, the node that now stands for its place; undefined when FOCUS or REGION removed it.
   */
  locate: (key: NodeKey) => NodeKey | undefined;
  /** FOCUS or REGION removed a node (a capped list may then have lost a finding of a node still here). */
  pruned: boolean;
}

/**
 * Co-scoped warnings (AutoMobile `scopeLayoutWarnings`): a warning stays when its element is still in
 * the pruned tree (here by NodeKey, exact, where AutoMobile matches bounds and identity). The list becomes
 * `scoped` when a warning was dropped, or when it was `truncated` and the tree pruned (a capped-away
 * warning may belong to a pruned node, so the stale total goes); otherwise scope and total stand.
 */
function coScope(warnings: LayoutWarnings, locate: (key: NodeKey) => NodeKey | undefined, pruned: boolean): LayoutWarnings {
  const scoped = scopeLayoutWarnings(warnings.warnings, locate);
  const dropped = scoped.warnings.length !== warnings.warnings.length;
  if (dropped || (pruned && warnings.scope === 'truncated')) return scoped;
  // Every warning kept: the envelope stands, with the keys of the pruned tree.
  return { ...warnings, warnings: scoped.warnings };
}

/**
 * AutoMobile `applyObserveScopeExperiments`: FOCUS, then REGION, then OVERVIEW, each as asked, with
 * `observeScope` saying what was done. FOCUS and REGION are `applied` when they removed a node, OVERVIEW
 * always (it trims every node). Warnings are matched before OVERVIEW (AutoMobile: the lossless tree), so a
 * leaf it collapsed keeps its warning at the kept ancestor. Without a hierarchy nothing is scoped.
 */
export function scopeObservation(observation: Observation, request: ObserveScopeRequest): ScopedObservation {
  const root = observation.viewHierarchy?.hierarchy;
  const nodesBefore = countNodes(root);
  const applied: ObserveScopeKind[] = [];
  const scope: ObserveScope = { applied, nodesBefore, nodesAfter: nodesBefore };
  let current: Stage = { root, keys: root ? identity(root) : new Map() };

  if (request.focus !== undefined && current.root) {
    const { stage, focus } = focusStage(observation, current.root, request.focus);
    scope.focus = focus;
    if (countNodes(stage.root) !== countNodes(current.root)) applied.push('focus');
    current = { root: stage.root, keys: composed(current.keys, stage.keys) };
  }
  if (request.region !== undefined) {
    const rect = cropRect(observation, request.region === true ? undefined : request.region);
    if (rect) scope.regionPx = rect;
    if (rect && current.root) {
      const keys = new Map<NodeKey, NodeKey>();
      const pruned = prune(current.root, rect, ROOT_KEY, ROOT_KEY, keys);
      if (countNodes(pruned ?? undefined) !== countNodes(current.root)) applied.push('region');
      current = { root: pruned ?? undefined, keys: composed(current.keys, keys) };
    }
  }
  const pruned = countNodes(current.root) < nodesBefore;
  let exact = current.keys;
  let located = current.keys;
  if (request.overview && current.root) {
    const keys = new Map<NodeKey, NodeKey>();
    const stand = new Map<NodeKey, NodeKey>();
    const r = overviewNode(current.root, ROOT_KEY, ROOT_KEY, keys, stand);
    applied.push('overview');
    exact = composed(current.keys, keys);
    located = composed(current.keys, stand);
    current = { root: r.node ?? undefined, keys: exact };
  } else if (request.overview) {
    applied.push('overview');
  }
  scope.nodesAfter = countNodes(current.root);

  const viewHierarchy = observation.viewHierarchy ? { ...observation.viewHierarchy } : undefined;
  if (viewHierarchy) {
    if (current.root) viewHierarchy.hierarchy = current.root;
    else delete viewHierarchy.hierarchy;
  }
  const locate = (key: NodeKey) => located.get(key);
  const out: Observation & { observeScope: ObserveScope } = {
    ...observation,
    ...(viewHierarchy ? { viewHierarchy } : {}),
    layoutWarnings: observation.layoutWarnings.warnings.length === 0 ? observation.layoutWarnings : coScope(observation.layoutWarnings, locate, pruned),
    observeScope: scope,
  };
  // The focused element names a node of the tree: gone from it (or collapsed), it is gone from the scoped answer too.
  if (out.focusedElement?.nodeKey !== undefined) {
    const key = exact.get(out.focusedElement.nodeKey);
    if (key === undefined) delete out.focusedElement;
    else out.focusedElement = { ...out.focusedElement, nodeKey: key };
  }
  return { observation: out, locate, pruned };
}

/**
 * The observation cropped to `box` (fractions of the screen), or to the content rectangle without one,
 * with `observeScope` saying what was done. Without a screen size or a hierarchy nothing can be placed:
 * the observation is returned as it is, with `observeScope.applied` empty.
 */
export function scopeToRegion(observation: Observation, box?: NormalizedRegion): Observation & { observeScope: ObserveScope } {
  return scopeObservation(observation, { region: box ?? true }).observation;
}

/**
 * An accessibility audit of the whole tree co-scoped with the returned one (docs/rules.md#r-scope-05), as
 * the layout warnings are (AutoMobile: the audits run on the whole tree before the transforms, and their
 * findings are narrowed after): a finding stays when its element is still there, under its key in the
 * scoped tree (OVERVIEW: the kept ancestor standing for it). When one was dropped the summary counts the
 * kept ones; a capped list (`truncated`) of a pruned tree cannot say what it lost, so its counts become
 * the shown ones' and `truncated` goes, as a stale layout-warning total does (R-LAY-08).
 */
export function scopeAudit(audit: AccessibilityAudit, scoped: Pick<ScopedObservation, 'locate' | 'pruned'>): AccessibilityAudit {
  const violations: A11yFinding[] = [];
  for (const finding of audit.violations) {
    const nodeKey = scoped.locate(finding.nodeKey);
    if (nodeKey !== undefined) violations.push({ ...finding, nodeKey });
  }
  const dropped = violations.length !== audit.violations.length;
  if (!dropped && !(scoped.pruned && audit.truncated)) return { ...audit, violations };
  const bySeverity = Object.fromEntries(A11Y_SEVERITIES.map((k) => [k, 0])) as Record<A11ySeverity, number>;
  const byKind = Object.fromEntries(A11Y_KINDS.map((k) => [k, 0])) as Record<A11yKind, number>;
  for (const f of violations) {
    bySeverity[f.severity] += 1;
    byKind[f.kind] += 1;
  }
  const { truncated: _stale, ...rest } = audit;
  return { ...rest, violations, summary: { ...audit.summary, total: violations.length, bySeverity, byKind } };
}
