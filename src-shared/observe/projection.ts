/**
 * The two XCTest strategies (docs/rules.md#r-strategies). `visible` is what a user can perceive now (plus
 * the ancestors that hold it, plus scroll-hidden hints); `raw` is the whole tree, carried whole or
 * refused whole.
 *
 * Scroll-hidden hints are extras on the scroll container they belong to:
 * extras["hiddenContentAbove"] = "true" / extras["hiddenContentBelow"] = "true". Extras keep them on the
 * node they describe and survive a re-decode with the existing UiNode schema.
 */
import type { ViewHierarchy, UiNode } from '@shared/protocol/runner';
import { MAX_FRAME_BYTES } from '@shared/protocol/errors';
import { intersection, overlaps, screenRect } from './geometry';
import { rectOf } from './nodes';
import { WEB_VIEW_CLASS } from './web-merge';
import { type Rect, childrenOf, withChildren, withExtras, nodeFlag } from '@shared/model/node';

export const HIDDEN_CONTENT_ABOVE = 'hiddenContentAbove';
export const HIDDEN_CONTENT_BELOW = 'hiddenContentBelow';

/** A ViewHierarchy that carries a tree (a failed capture carries only `error`). */
export type HierarchyWithTree = ViewHierarchy & { hierarchy: UiNode };

export function hasTree(h: ViewHierarchy): h is HierarchyWithTree {
  return h.hierarchy !== undefined;
}

/** The app viewport: the screen, else the root's own frame, else nothing to clip against. */
export function viewportOf(h: ViewHierarchy): Rect | null {
  return screenRect(h.screenWidth, h.screenHeight) ?? (h.hierarchy ? rectOf(h.hierarchy) : null);
}

interface ScrollScope {
  /** The part of the container a user can see: its frame within every enclosing clip. */
  clip: Rect | null;
  above: boolean;
  below: boolean;
}

/**
 * The user-visible tree. A node is visible when its frame overlaps the viewport and, inside a scroll
 * container, the nearest visible scroll container too (the clip narrows at every scroll container, so a
 * nested container off screen hides its content). A WKWebView counts as one: its page scrolls inside
 * its frame, and XCTest reports the elements below the fold at their page positions, under whatever
 * the app draws there. Every node is visited: there is no node budget, so a tab bar after 5,000 rows is
 * kept. A node without a frame cannot be shown to be hidden and is kept.
 */
export function projectVisible(h: ViewHierarchy): ViewHierarchy {
  if (!hasTree(h)) return h;
  const viewport = viewportOf(h);
  const root = h.hierarchy;
  const children = childrenOf(root);
  const kept: UiNode[] = [];
  for (const child of children) {
    const projected = visit(child, viewport, null);
    if (projected) kept.push(projected);
  }
  // The application root is the anchor of everything else and always stays.
  const projectedRoot = kept.length === children.length && kept.every((c, i) => c === children[i]) ? root : withChildren(root, kept);
  return { ...h, hierarchy: projectedRoot };
}

function visit(node: UiNode, clip: Rect | null, scope: ScrollScope | null): UiNode | null {
  const bounds = rectOf(node);
  const visible = bounds === null || clip === null || overlaps(bounds, clip);

  let ownScope: ScrollScope | null = null;
  let childClip = clip;
  if ((nodeFlag(node, 'scrollable') || node.className === WEB_VIEW_CLASS) && bounds !== null) {
    childClip = clip === null ? bounds : intersection(clip, bounds);
    ownScope = { clip: childClip, above: false, below: false };
  }

  const children = childrenOf(node);
  let kept: UiNode[] | null = null;
  for (let i = 0; i < children.length; i++) {
    const child = children[i]!;
    // An empty clip (a container wholly off screen) hides everything in it.
    const projected = childClip === null && clip !== null ? null : visit(child, childClip, ownScope ?? scope);
    if (projected !== child && kept === null) kept = children.slice(0, i);
    if (kept !== null && projected !== null) kept.push(projected);
  }

  const emitted = visible || (kept ?? children).length > 0;
  if (!emitted) {
    if (scope && bounds) markHidden(scope, bounds);
    return null;
  }
  let out = kept === null ? node : withChildren(node, kept);
  if (ownScope && (ownScope.above || ownScope.below)) {
    const hints: Record<string, string> = {};
    if (ownScope.above) hints[HIDDEN_CONTENT_ABOVE] = 'true';
    if (ownScope.below) hints[HIDDEN_CONTENT_BELOW] = 'true';
    out = withExtras(out, hints);
  }
  return out;
}

/** Only vertical scrolling has hints (R-STR-04 names above and below); a sideways-hidden node sets none. */
function markHidden(scope: ScrollScope, bounds: Rect): void {
  if (scope.clip === null) return;
  if (bounds.bottom <= scope.clip.top) scope.above = true;
  else if (bounds.top >= scope.clip.bottom) scope.below = true;
}

// ---- Raw ----------------------------------------------------------------------------------------------

/** The transport's limit: the largest frame a peer decodes. */
export const DEFAULT_RAW_MAX_BYTES = MAX_FRAME_BYTES;

/** R-STR-08: a raw tree that cannot be carried fails explicitly; it is never cut short. */
export class RawHierarchyTooLargeError extends Error {
  override readonly name = 'RawHierarchyTooLargeError';
  readonly code = 'raw_too_large' as const;

  constructor(
    readonly bytes: number,
    readonly maxBytes: number,
  ) {
    super(`the raw hierarchy is ${bytes} bytes, over the ${maxBytes}-byte limit; use the visible strategy`);
  }
}

export type RawProjection = { ok: true; hierarchy: ViewHierarchy; bytes: number } | { ok: false; error: RawHierarchyTooLargeError };

/** The whole tree, unchanged, when its JSON fits in `maxBytes` (UTF-8). */
export function projectRaw(h: ViewHierarchy, options: { maxBytes?: number } = {}): RawProjection {
  const maxBytes = options.maxBytes ?? DEFAULT_RAW_MAX_BYTES;
  const bytes = utf8Length(JSON.stringify(h));
  return bytes > maxBytes ? { ok: false, error: new RawHierarchyTooLargeError(bytes, maxBytes) } : { ok: true, hierarchy: h, bytes };
}

function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}
