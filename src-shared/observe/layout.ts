/**
 * Report-only layout warnings (docs/rules.md#r-lay-01 to R-LAY-09). Text or interactive elements that
 * reach into an unsafe region of the screen (the top safe area under the status bar, the bottom one over
 * the home indicator, the side insets, a display cutout), with how far they reach in and how deep the
 * inset is, in points.
 */
import { LAYOUT_SEVERITIES, MAX_LAYOUT_WARNINGS, type LayoutSide, type LayoutWarning, type LayoutWarnings } from '@shared/protocol/observation';
import type { UiNode, ViewHierarchy } from '@shared/protocol/runner';
import { ROOT_KEY, type NodeKey } from '@shared/model/tree';
import { containsRect, intersection } from './geometry';
import { captionOf, hasText, isInteractive, rectOf } from './nodes';
import { type Rect, childrenOf, nodeFlag } from '@shared/model/node';

export interface LayoutInput {
  root: UiNode;
  screenWidth?: number | undefined;
  screenHeight?: number | undefined;
  screenScale?: number | undefined;
  insets?: ViewHierarchy['insets'];
  /** The compatibility edges, used when typed insets are missing or unavailable. */
  systemInsets?: ViewHierarchy['systemInsets'];
}

interface Region {
  /** Same side, same key: the unit of the descendant-wins rule (each cutout is its own side). */
  key: string;
  side: LayoutSide;
  region: LayoutWarning['region'];
  rect: Rect;
  insetPx: number;
  /** Which extent of the overlap is the overflow: its height for top/bottom, its width for the sides. */
  axis: 'x' | 'y';
}

/** What an observation carries when no audit could run (no tree, no screen size). */
export const NO_LAYOUT_WARNINGS: LayoutWarnings = { scope: 'full', warnings: [] };

/** The capped list for an observation (scope `full`, or `truncated` past MAX_LAYOUT_WARNINGS). */
export function layoutWarnings(input: LayoutInput): LayoutWarnings {
  return capLayoutWarnings(findLayoutWarnings(input), 'full');
}

/** Every finding, most severe and largest overflow first. */
export function findLayoutWarnings(input: LayoutInput): LayoutWarning[] {
  const width = input.screenWidth;
  const height = input.screenHeight;
  if (width === undefined || height === undefined || width <= 0 || height <= 0) return [];
  const regions = unsafeRegions(input, width, height);
  if (regions.length === 0) return [];

  interface Found {
    warning: LayoutWarning;
    bounds: Rect;
    order: number;
    superseded: boolean;
  }
  const found: Found[] = [];
  // Per region key, the flagged ancestors of the node being visited.
  const flaggedAbove = new Map<string, Found[]>();
  // The index path of the node being visited; turned into a NodeKey only for a finding.
  const path: number[] = [];

  const visit = (node: UiNode, inScroll: boolean) => {
    const bounds = path.length > 0 ? rectOf(node) : null;
    let own: Region[] | null = null;
    if (bounds) {
      for (const region of regions) {
        const overlap = intersection(bounds, region.rect);
        // Overlap first: it rules out almost every node before the (costlier) text/interactive test.
        if (!overlap || !(hasText(node) || isInteractive(node))) continue;
        const overflowPx = region.axis === 'y' ? overlap.bottom - overlap.top : overlap.right - overlap.left;
        const advisory = advisoryReason(node, bounds, region, width, height, inScroll);
        const severity = advisory ? 'advisory' : isInteractive(node) ? 'error' : 'warning';
        const warning: LayoutWarning = {
          nodeKey: [ROOT_KEY, ...path].join('.'),
          side: region.side,
          region: region.region,
          severity,
          overflowPx,
          insetPx: region.insetPx,
          bounds,
        };
        if (advisory) warning.advisory = advisory;
        if (node.className !== undefined) warning.className = node.className;
        const caption = captionOf(node);
        if (caption !== undefined) warning.caption = caption;
        const entry: Found = { warning, bounds, order: found.length, superseded: false };
        found.push(entry);
        // Descendant wins: an ancestor flagged on the same side that wholly contains this finding
        // says nothing more precise than it.
        const stack = flaggedAbove.get(region.key);
        for (const ancestor of stack ?? []) {
          if (containsRect(ancestor.bounds, bounds)) ancestor.superseded = true;
        }
        if (stack) stack.push(entry);
        else flaggedAbove.set(region.key, [entry]);
        (own ??= []).push(region);
      }
    }
    const childScroll = inScroll || nodeFlag(node, 'scrollable');
    const children = childrenOf(node);
    for (let i = 0; i < children.length; i++) {
      path.push(i);
      visit(children[i]!, childScroll);
      path.pop();
    }
    for (const region of own ?? []) flaggedAbove.get(region.key)!.pop();
  };
  visit(input.root, false);

  return found
    .filter((f) => !f.superseded)
    .sort((a, b) => rank(a.warning) - rank(b.warning) || b.warning.overflowPx - a.warning.overflowPx || a.order - b.order)
    .map((f) => f.warning);
}

/** At most MAX_LAYOUT_WARNINGS, keeping the head of a ranked list; `total` is the pre-cap count. */
export function capLayoutWarnings(ranked: readonly LayoutWarning[], scope: 'full' | 'scoped'): LayoutWarnings {
  if (ranked.length <= MAX_LAYOUT_WARNINGS) return { scope, warnings: [...ranked] };
  return {
    scope: scope === 'full' ? 'truncated' : 'scoped',
    total: ranked.length,
    warnings: ranked.slice(0, MAX_LAYOUT_WARNINGS),
  };
}

/**
 * After an observe-scope transform pruned the hierarchy: only findings whose element is still present
 * (`mapKey` gives its key in the pruned tree, or undefined), the stale total dropped, capped anew.
 */
export function scopeLayoutWarnings(ranked: readonly LayoutWarning[], mapKey: (key: NodeKey) => NodeKey | undefined): LayoutWarnings {
  const kept: LayoutWarning[] = [];
  for (const warning of ranked) {
    const nodeKey = mapKey(warning.nodeKey);
    if (nodeKey !== undefined) kept.push({ ...warning, nodeKey });
  }
  return capLayoutWarnings(kept, 'scoped');
}

function rank(warning: LayoutWarning): number {
  return LAYOUT_SEVERITIES.indexOf(warning.severity);
}

/**
 * Intentional edge-to-edge backgrounds (no text of their own, spanning the whole screen along the
 * inset's edge) and scrollable content (which the user can move out of the inset) are advisory.
 */
function advisoryReason(node: UiNode, bounds: Rect, region: Region, width: number, height: number, inScroll: boolean): LayoutWarning['advisory'] | undefined {
  const spansEdge = region.axis === 'y' ? bounds.left <= 0 && bounds.right >= width : bounds.top <= 0 && bounds.bottom >= height;
  if (spansEdge && !hasText(node)) return 'edgeToEdgeBackground';
  if (inScroll || nodeFlag(node, 'scrollable')) return 'scrollableContent';
  return undefined;
}

/**
 * The unsafe strips and cutouts, in points. Typed insets win; the compatibility edges stand in when
 * they are missing. A hidden status bar adds nothing: only the reported safe area is unsafe.
 */
function unsafeRegions(input: LayoutInput, width: number, height: number): Region[] {
  const insets = input.insets?.available ? input.insets : undefined;
  // The observation's units are points; pixel insets are divided by the screen scale.
  const pixels = insets !== undefined && /^(px|pixels?)$/i.test(insets.units);
  const scale = pixels ? (input.screenScale && input.screenScale > 0 ? input.screenScale : undefined) : 1;
  if (scale === undefined) return [];
  const edges = insets?.safeArea ?? input.systemInsets;
  const regions: Region[] = [];
  if (edges) {
    const top = edges.top / scale;
    const bottom = edges.bottom / scale;
    const left = edges.left / scale;
    const right = edges.right / scale;
    if (top > 0) regions.push({ key: 'top', side: 'top', region: 'statusBar', rect: { left: 0, top: 0, right: width, bottom: top }, insetPx: top, axis: 'y' });
    if (bottom > 0) {
      regions.push({
        key: 'bottom',
        side: 'bottom',
        region: 'homeIndicator',
        rect: { left: 0, top: height - bottom, right: width, bottom: height },
        insetPx: bottom,
        axis: 'y',
      });
    }
    if (left > 0)
      regions.push({ key: 'left', side: 'left', region: 'leftInset', rect: { left: 0, top: 0, right: left, bottom: height }, insetPx: left, axis: 'x' });
    if (right > 0) {
      regions.push({
        key: 'right',
        side: 'right',
        region: 'rightInset',
        rect: { left: width - right, top: 0, right: width, bottom: height },
        insetPx: right,
        axis: 'x',
      });
    }
  }
  (insets?.displayCutoutInfo?.bounds ?? []).forEach((raw, i) => {
    const rect = { left: raw.left / scale, top: raw.top / scale, right: raw.right / scale, bottom: raw.bottom / scale };
    if (rect.right <= rect.left || rect.bottom <= rect.top) return;
    // A cutout belongs to the screen edge it is nearest to; its inset is how deep it reaches from there.
    const distances = { top: rect.top, bottom: height - rect.bottom, left: rect.left, right: width - rect.right };
    const edge = (Object.keys(distances) as (keyof typeof distances)[]).reduce((a, b) => (distances[b] < distances[a] ? b : a));
    const insetPx = { top: rect.bottom, bottom: height - rect.top, left: rect.right, right: width - rect.left }[edge];
    regions.push({ key: `cutout:${i}`, side: 'cutout', region: 'displayCutout', rect, insetPx, axis: edge === 'top' || edge === 'bottom' ? 'y' : 'x' });
  });
  return regions;
}
