/**
 * Observe: web views (docs/rules.md#r-observe-web) — whether to read the app's web views, and how one web
 * snapshot merges under its WKWebView node. Only one pairing is sound: one registered web view, one
 * outermost WKWebView on screen. Nothing ties a registration to its native view, so with more the pairing
 * is ambiguous.
 */
import type { UiNode } from '@shared/protocol/runner';
import type { SdkRelayFailure, WebElement, WebSnapshot, WebViewBridgeEntry } from '@shared/protocol/sdk';
import { RectIndex } from './geometry';
import { isXctest, present, rectOf } from './nodes';
import { mapWebBounds, originOf, usableViewport, webElementToUiNode, type WebSnapshotIdentity } from './web-mapping';
import { type Rect, childrenOf, isWebView, WEB_VIEW_CLASS, withChildren, withoutChildren, xctestTwinExtras } from '@shared/model/node';

export { WEB_VIEW_CLASS };

export type WebRead =
  | {
      kind: 'reply';
      reply: {
        available?: boolean | undefined;
        failure?: SdkRelayFailure | undefined;
        webViews: WebViewBridgeEntry[];
        webViewId?: string | undefined;
        snapshot?: WebSnapshot | undefined;
      };
    }
  | { kind: 'timeout' }
  | { kind: 'error'; message: string };

/**
 * Index paths (child positions from the root) of the web views (XCTest's WKWebView, or the bridge node it
 * was folded into) with no web view above them.
 */
export function outermostWebViewPaths(root: UiNode): number[][] {
  const paths: number[][] = [];
  const path: number[] = [];
  const walk = (node: UiNode) => {
    if (isWebView(node)) {
      paths.push([...path]);
      return;
    }
    const children = childrenOf(node);
    for (let i = 0; i < children.length; i++) {
      path.push(i);
      walk(children[i]!);
      path.pop();
    }
  };
  walk(root);
  return paths;
}

/** Exactly one outermost WKWebView on screen → one unnamed snapshot read; any other screen → no read. */
export function shouldReadWebViews(projectedRoot: UiNode): boolean {
  return outermostWebViewPaths(projectedRoot).length === 1;
}

export interface WebMerge {
  root: UiNode;
  merged: boolean;
  /** `merged`, or why not: a relay failure, `timeout`, `registered_web_views_<n>`, `web_views_on_screen_<n>`, … */
  reason: string;
  /** The reply could not be read: worth logging, unlike a page that simply has no snapshot yet. */
  unreadable: boolean;
  nodes: number;
  leavesReplaced: number;
  webViewId?: string;
  snapshotId?: string;
}

/** Relay failures that say the web view has no usable snapshot now, which is a state, not an error. */
const SNAPSHOT_STATES: ReadonlySet<SdkRelayFailure> = new Set(['bridge_unavailable', 'no_snapshot', 'disallowed_origin', 'web_process_unavailable']);

export function mergeWebRead(root: UiNode, read: WebRead): WebMerge {
  const none = (reason: string, unreadable = false): WebMerge => ({ root, merged: false, reason, unreadable, nodes: 0, leavesReplaced: 0 });
  if (read.kind !== 'reply') return none(read.kind, true);
  const { failure, webViews, webViewId, snapshot } = read.reply;
  if (failure !== undefined) return none(failure, !SNAPSHOT_STATES.has(failure));
  if (webViews.length !== 1) return none(`registered_web_views_${webViews.length}`);
  const paths = outermostWebViewPaths(root);
  if (paths.length !== 1) return none(`web_views_on_screen_${paths.length}`);
  // A web view without a snapshot keeps only its XCTest nodes.
  if (!snapshot) return none('no_snapshot');
  const entry = webViews[0]!;
  if (webViewId !== undefined && webViewId !== entry.webViewId) return none('web_view_mismatch', true);
  if (!usableViewport(snapshot.viewport)) return none('invalid_viewport', true);

  const path = paths[0]!;
  const identity: WebSnapshotIdentity = {
    webViewId: entry.webViewId,
    snapshotId: snapshot.snapshotId,
    documentId: snapshot.documentId,
    origin: originOf(snapshot.url ?? entry.url),
  };
  let result = null as { webView: UiNode; nodes: number; leavesReplaced: number } | null;
  const nextRoot = replaceAtPath(root, path, (webView) => {
    const bounds = rectOf(webView);
    if (!bounds || bounds.right <= bounds.left || bounds.bottom <= bounds.top) return webView;
    result = mergeWebSnapshot(webView, bounds, snapshot, identity);
    return result.webView;
  });
  if (!result) return none('web_view_without_bounds', true);
  const { nodes, leavesReplaced } = result;
  return {
    root: nextRoot,
    merged: true,
    reason: 'merged',
    unreadable: false,
    nodes,
    leavesReplaced,
    webViewId: entry.webViewId,
    snapshotId: snapshot.snapshotId,
  };
}

interface Candidate {
  element: WebElement;
  node: UiNode;
  /** The XCTest leaves that chose this element. */
  claims: number;
}

/**
 * Attaches the snapshot's visible elements under `webView`. An XCTest leaf inside the web view with the
 * same bounds and the same label, value or id as exactly one element is replaced by that element in its
 * place; the rest are appended as children of the web view, in snapshot order.
 */
export function mergeWebSnapshot(
  webView: UiNode,
  webViewBounds: Rect,
  snapshot: WebSnapshot,
  identity: WebSnapshotIdentity,
): { webView: UiNode; nodes: number; leavesReplaced: number } {
  const idCounts = new Map<string, number>();
  for (const element of snapshot.elements) idCounts.set(element.id, (idCounts.get(element.id) ?? 0) + 1);

  const candidates: Candidate[] = [];
  const byBounds = new RectIndex<Candidate>();
  for (const element of snapshot.elements) {
    // An id that occurs twice could make an action reach either element.
    if (!element.visible || idCounts.get(element.id) !== 1) continue;
    const bounds = mapWebBounds(element.bounds, snapshot.viewport, webViewBounds);
    if (!bounds) continue;
    const candidate = { element, node: webElementToUiNode(element, bounds, identity), claims: 0 };
    candidates.push(candidate);
    byBounds.add(bounds, candidate);
  }

  // Each leaf's single match; a leaf matching two elements (a wrapper and its control, or its label one
  // element and its value another) stays as it is.
  const chosen = new Map<UiNode, Candidate>();
  const visitLeaves = (node: UiNode) => {
    const children = childrenOf(node);
    if (children.length === 0) {
      const bounds = rectOf(node);
      const list = bounds && isXctest(node) ? byBounds.get(bounds) : [];
      if (list.length === 0) return;
      const matches = list.filter((c) => leafMatches(node, c.element));
      if (matches.length === 1) {
        const match = matches[0]!;
        match.claims++;
        chosen.set(node, match);
      }
      return;
    }
    for (const child of children) visitLeaves(child);
  };
  for (const child of childrenOf(webView)) visitLeaves(child);

  // An element that two leaves chose would appear twice; it replaces neither and is appended instead.
  const replacements = new Map<UiNode, UiNode>();
  const placed = new Set<Candidate>();
  for (const [leaf, candidate] of chosen) {
    if (candidate.claims !== 1) continue;
    replacements.set(leaf, mergeLeaf(leaf, candidate.node));
    placed.add(candidate);
  }

  const replace = (node: UiNode): UiNode => {
    const replacement = replacements.get(node);
    if (replacement) return replacement;
    const children = childrenOf(node);
    if (children.length === 0) return node;
    const next = children.map(replace);
    return next.every((c, i) => c === children[i]) ? node : withChildren(node, next);
  };
  const existing = replacements.size > 0 ? childrenOf(webView).map(replace) : [...childrenOf(webView)];
  const appended = candidates.filter((c) => !placed.has(c)).map((c) => c.node);
  return { webView: withChildren(webView, [...existing, ...appended]), nodes: candidates.length, leavesReplaced: placed.size };
}

/** Same label, value or id. A redacted value matches nothing. */
function leafMatches(leaf: UiNode, element: WebElement): boolean {
  // The runner reports an element's accessibility label (and a field's value) in `text`.
  if (present(element.label) && (element.label === leaf['content-desc'] || element.label === leaf.text)) return true;
  if (element.valueRedacted !== true && present(element.value) && (element.value === leaf.value || element.value === leaf.text)) return true;
  return present(leaf['resource-id']) && leaf['resource-id'] === element.id;
}

/**
 * The DOM element in the leaf's place. Every attribute the fresh leaf reports wins; the element adds its
 * web identity and whatever the leaf does not report, but never its focus, since the snapshot can be
 * older than the XCTest read.
 */
export function mergeLeaf(leaf: UiNode, domNode: UiNode): UiNode {
  const { focused: _staleFocus, ...dom } = domNode;
  const out: Record<string, unknown> = { ...dom };
  for (const [key, value] of Object.entries(withoutChildren(leaf))) {
    if (value !== undefined) out[key] = value;
  }
  // The leaf's identity and text are what plain XCTest reported for this element (docs/protocol.md#p-merge-attrs).
  out['extras'] = { ...dom.extras, ...leaf.extras, ...xctestTwinExtras(leaf, 'replaced') };
  return out as UiNode;
}

/** `root` with the node at `path` replaced by `edit(node)`; untouched subtrees are shared. */
function replaceAtPath(root: UiNode, path: readonly number[], edit: (node: UiNode) => UiNode): UiNode {
  if (path.length === 0) return edit(root);
  const [index, ...rest] = path as [number, ...number[]];
  const children = childrenOf(root);
  const child = children[index];
  if (!child) return root;
  const next = replaceAtPath(child, rest, edit);
  if (next === child) return root;
  const copy = [...children];
  copy[index] = next;
  return withChildren(root, copy);
}
