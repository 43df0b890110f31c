/**
 * The one web-view step of a scroll search (docs/rules.md#r-lookfor): before swiping, a page
 * element named exactly by lookFor.text is scrolled into view by the page itself. The snapshot lists
 * off-screen elements, which the merged observation drops, so this finds what swiping would hunt for.
 */
import type { LookFor, TargetSelector } from '@shared/protocol/action';
import type { UiNode } from '@shared/protocol/runner';
import { encodeWebControlAction, type WebControlAction, type WebSnapshot } from '@shared/protocol/sdk';
import { LOOK_FOR_SETTLE_MS, WEB_ACTION_BUDGET_MS } from './budget';
import { admitWebAction, type BridgeContext } from './context';
import { interpretBridgeOutcome, type FailClosed, type RelayOutcome } from './verdict';
import { childrenOf, isWebView } from '@shared/model/node';
import type { FallbackReason } from '@shared/protocol/observation';

export interface LookForInput {
  readonly lookFor: LookFor;
  readonly container?: TargetSelector | undefined;
  readonly layer?: string | undefined;
  /** The target was already found on the current screen. */
  readonly targetInView: boolean;
  /** The merged observation the search starts from. */
  readonly screen: UiNode | undefined;
  /** The web snapshot that observation merged, if any. */
  readonly webSnapshot?: { readonly webViewId: string; readonly snapshot: WebSnapshot } | undefined;
}

/** Search by swiping with XCTest. */
export interface SwipeSearch {
  readonly kind: 'swipe';
  /** `unavailable` only when the web step applied but the web view bridge could not serve it. */
  readonly fallbackReason?: FallbackReason | undefined;
}

export interface WebLookForStep {
  readonly kind: 'webStep';
  readonly via: 'web';
  readonly webViewId: string;
  readonly action: WebControlAction;
  readonly actionJson: string;
  readonly budgetMs: number;
  readonly standIn: SwipeSearch;
}

export type LookForPlan = { readonly kind: 'inView' } | SwipeSearch | WebLookForStep;

const SINGLE_QUOTES = /[\u2018\u2019\u201A\u201B]/g;
const DOUBLE_QUOTES = /[\u201C\u201D\u201E\u201F]/g;

/** Exact, except for case and straight vs curly quotes. */
export function normalizeLookForText(text: string): string {
  return text.replace(SINGLE_QUOTES, "'").replace(DOUBLE_QUOTES, '"').toLowerCase();
}

/** Outermost WKWebView nodes: a web view nested in another one is part of it. */
export function countWebViews(root: UiNode | undefined): number {
  if (!root) return 0;
  let count = 0;
  const stack: UiNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (isWebView(node)) count++;
    else stack.push(...childrenOf(node));
  }
  return count;
}

/** The id of the one enabled, visible element whose label or value is `text`, or undefined when not exactly one. */
export function findSinglePageElement(snapshot: WebSnapshot, text: string): string | undefined {
  const wanted = normalizeLookForText(text);
  const idCounts = new Map<string, number>();
  for (const e of snapshot.elements) idCounts.set(e.id, (idCounts.get(e.id) ?? 0) + 1);
  const hits = snapshot.elements.filter((e) => {
    if (!e.enabled || !e.visible) return false;
    const byLabel = e.label !== undefined && normalizeLookForText(e.label) === wanted;
    // A redacted value never matches: it is not reported, and matching it would leak it.
    const byValue = !e.valueRedacted && e.value !== undefined && normalizeLookForText(e.value) === wanted;
    return byLabel || byValue;
  });
  const [only, ...more] = hits;
  // An id that occurs twice could reach either element, so it names no single one.
  if (!only || more.length > 0 || idCounts.get(only.id) !== 1) return undefined;
  return only.id;
}

export function planLookFor(input: LookForInput, context: BridgeContext): LookForPlan {
  if (input.targetInView) return { kind: 'inView' };
  const plain: SwipeSearch = { kind: 'swipe' };
  if (!context.flagEnabled) return plain;
  // The snapshot cannot express a container, a scoped lookFor or a layer.
  if (input.container !== undefined || input.lookFor.container !== undefined || input.layer !== undefined) return plain;
  if (countWebViews(input.screen) !== 1) return plain;
  // An elementId selector names no page element.
  if (!('text' in input.lookFor)) return plain;

  const web = input.webSnapshot;
  if (!web) {
    // One registered web view on a screen showing one, yet nothing merged: the page could not be read.
    return context.webViews?.length === 1 ? { kind: 'swipe', fallbackReason: 'unavailable' } : plain;
  }
  const elementId = findSinglePageElement(web.snapshot, input.lookFor.text);
  if (elementId === undefined) return plain;
  if (admitWebAction(context, web.webViewId) !== 'send') return { kind: 'swipe', fallbackReason: 'unavailable' };

  const action: WebControlAction = { scrollIntoView: { snapshotId: web.snapshot.snapshotId, elementId } };
  return {
    kind: 'webStep',
    via: 'web',
    webViewId: web.webViewId,
    action,
    actionJson: encodeWebControlAction(action),
    budgetMs: WEB_ACTION_BUDGET_MS,
    standIn: plain,
  };
}

/** After scrollIntoView: wait for the page's next snapshot, re-read the screen, and search again. */
export type LookForStepVerdict =
  { readonly kind: 'settleAndSearch'; readonly waitMs: number } | (SwipeSearch & { readonly fallbackReason: FallbackReason }) | FailClosed;

export function interpretLookForStep(step: WebLookForStep, outcome: RelayOutcome): LookForStepVerdict {
  const verdict = interpretBridgeOutcome(step, outcome);
  switch (verdict.kind) {
    case 'done':
      return { kind: 'settleAndSearch', waitMs: LOOK_FOR_SETTLE_MS };
    case 'fallback':
      return { ...verdict.standIn, fallbackReason: verdict.fallbackReason };
    case 'failClosed':
      return { kind: 'failClosed', failureReason: verdict.failureReason, mayHaveRun: verdict.mayHaveRun };
  }
}

export type LookForSearchResult =
  { readonly kind: 'found'; readonly backend: 'sdk'; readonly swipes: 0 } | (SwipeSearch & { readonly warnings: readonly string[] });

/** The search after the re-read: a hit is served by the bridge with no swipe; a miss swipes as before. */
export function searchAfterWebStep(hit: boolean): LookForSearchResult {
  if (hit) return { kind: 'found', backend: 'sdk', swipes: 0 };
  return {
    kind: 'swipe',
    warnings: ['The page scrolled the element into view, but the re-read did not find the target; searching by swiping.'],
  };
}
