import { describe, expect, it } from 'vitest';
import type { UiNode } from '@shared/protocol/runner';
import type { WebElement, WebSnapshot } from '@shared/protocol/sdk';
import type { BridgeContext } from '@shared/act/context';
import {
  countWebViews,
  findSinglePageElement,
  interpretLookForStep,
  planLookFor,
  searchAfterWebStep,
  type LookForInput,
  type LookForPlan,
} from '@shared/act/look-for';
import type { RelayOutcome } from '@shared/act/verdict';

const el = (over: Partial<WebElement> & { id: string }): WebElement => ({ bounds: [0, 2000, 100, 40], enabled: true, visible: true, focused: false, ...over });
const snapshot = (...elements: WebElement[]): WebSnapshot => ({ snapshotId: 's3', documentId: 'd1', elements });
const webView: UiNode = { className: 'WKWebView', bounds: { left: 0, top: 0, right: 402, bottom: 874 }, node: [{ className: 'WKWebView' }] };
const screen = (...children: UiNode[]): UiNode => ({ className: 'XCUIApplication', node: children });

const pageSnapshot = snapshot(
  el({ id: 'terms', label: 'Terms of Service' }),
  el({ id: 'faq', label: 'It’s “free”' }),
  el({ id: 'q', role: 'input', value: 'Search me' }),
  el({ id: 'pw', role: 'input', valueRedacted: true }),
  el({ id: 'off', label: 'Disabled', enabled: false }),
  el({ id: 'hidden', label: 'Hidden', visible: false }),
  el({ id: 'dup', label: 'Twice' }),
  el({ id: 'dup', label: 'Other' }),
  el({ id: 'a1', label: 'More' }),
  el({ id: 'a2', label: 'more' }),
);

const ctx = (over: Partial<BridgeContext> = {}): BridgeContext => ({ flagEnabled: true, webViews: [{ webViewId: 'wv1' }], ...over });
const input = (over: Partial<LookForInput> = {}): LookForInput => ({
  lookFor: { text: 'Terms of Service' },
  targetInView: false,
  screen: screen(webView),
  webSnapshot: { webViewId: 'wv1', snapshot: pageSnapshot },
  ...over,
});

function webStep(plan: LookForPlan): Extract<LookForPlan, { kind: 'webStep' }> {
  if (plan.kind !== 'webStep') throw new Error(`expected the web step, got ${plan.kind}`);
  return plan;
}

describe('swipeOn: the single web-view step of a scroll search', () => {
  it('R-LOOK-02: lookFor.text naming exactly one enabled, visible DOM element scrolls it into view through the page', () => {
    const plan = webStep(planLookFor(input(), ctx()));
    expect(plan).toMatchObject({ webViewId: 'wv1', action: { scrollIntoView: { snapshotId: 's3', elementId: 'terms' } }, budgetMs: 5000 });
    expect(plan.actionJson).toBe('{"scrollIntoView":{"snapshotId":"s3","elementId":"terms"}}');
  });

  it('R-LOOK-04: after scrollIntoView the search waits 250 ms for the next snapshot, re-reads and searches again', () => {
    const plan = webStep(planLookFor(input(), ctx()));
    expect(interpretLookForStep(plan, { kind: 'reply', reply: { available: true, result: { success: true } } })).toEqual({
      kind: 'settleAndSearch',
      waitMs: 250,
    });
  });

  it('R-LOOK-04: a hit after the re-read reports backend sdk with no swipe', () => {
    expect(searchAfterWebStep(true)).toEqual({ kind: 'found', backend: 'sdk', swipes: 0 });
    expect(searchAfterWebStep(false)).toMatchObject({ kind: 'swipe' });
    expect(searchAfterWebStep(false)).not.toHaveProperty('fallbackReason');
  });

  it.each<[string, string, string | undefined]>([
    ['the exact label', 'Terms of Service', 'terms'],
    ['the label in another case', 'TERMS OF SERVICE', 'terms'],
    ['straight quotes for curly ones', 'it\'s "free"', 'faq'],
    ['the value', 'search me', 'q'],
    ['partial text', 'Terms', undefined],
    ['text with extra whitespace', ' Terms of Service', undefined],
    ['an ambiguous text', 'more', undefined],
    ['a disabled element', 'Disabled', undefined],
    ['an element hidden by CSS', 'Hidden', undefined],
    ['an element whose id occurs twice', 'Twice', undefined],
    ['nothing on the page', 'Nope', undefined],
  ])('R-LOOK-02: matched exactly, case and quote style aside: %s', (_, text, id) => {
    expect(findSinglePageElement(pageSnapshot, text)).toBe(id);
  });

  it('R-LOOK-02: a redacted value never matches', () => {
    // The page reports no value for a redacted field; even a value sent alongside the flag must not match.
    expect(findSinglePageElement(snapshot(el({ id: 'pw', value: 'hunter2', valueRedacted: true })), 'hunter2')).toBeUndefined();
  });

  it.each<[string, Partial<LookForInput>]>([
    ['an elementId selector', { lookFor: { elementId: 'terms' } }],
    ['an ambiguous text', { lookFor: { text: 'More' } }],
    ['a partial text', { lookFor: { text: 'Terms' } }],
    ['a search scoped to a container', { container: { id: 'feed' } }],
    ['a scoped lookFor', { lookFor: { text: 'Terms of Service', container: { id: 'feed' } } }],
    ['a search confined to a layer', { layer: 'alert' }],
    ['a screen with two web views', { screen: screen(webView, webView) }],
    ['a screen with no web view', { screen: screen({ className: 'UITableView' }) }],
  ])('R-LOOK-06: %s swipes as before with no backend', (_, over) => {
    expect(planLookFor(input(over), ctx())).toEqual({ kind: 'swipe' });
  });

  it('R-LOOK-01: a target already in view needs no step', () => {
    expect(planLookFor(input({ targetInView: true }), ctx())).toEqual({ kind: 'inView' });
  });

  it('R-SEL-02: with the flag off the search swipes with no backend', () => {
    expect(planLookFor(input(), ctx({ flagEnabled: false }))).toEqual({ kind: 'swipe' });
  });

  it('R-LOOK-05: an unavailable bridge leaves the search to swipe and reports fallbackReason unavailable', () => {
    const plan = webStep(planLookFor(input(), ctx()));
    expect(interpretLookForStep(plan, { kind: 'reply', reply: { available: false, failure: 'bridge_unavailable' } })).toEqual({
      kind: 'swipe',
      fallbackReason: 'unavailable',
    });
    expect(planLookFor(input(), ctx({ webViews: [{ webViewId: 'other' }] }))).toEqual({ kind: 'swipe', fallbackReason: 'unavailable' });
    // One registered web view shown on screen, yet no snapshot merged: the page could not be read.
    expect(planLookFor(input({ webSnapshot: undefined }), ctx())).toEqual({ kind: 'swipe', fallbackReason: 'unavailable' });
    // No web view registered (or discovery unknown): not a bridge search at all.
    expect(planLookFor(input({ webSnapshot: undefined }), ctx({ webViews: [] }))).toEqual({ kind: 'swipe' });
    expect(planLookFor(input({ webSnapshot: undefined }), ctx({ webViews: undefined }))).toEqual({ kind: 'swipe' });
  });

  it.each<[string, RelayOutcome, string, boolean]>([
    ['stale_snapshot', { kind: 'reply', reply: { available: true, result: { success: false, reason: 'stale_snapshot' } } }, 'stale_snapshot', false],
    [
      'element_not_actionable',
      { kind: 'reply', reply: { available: true, result: { success: false, reason: 'element_not_actionable' } } },
      'element_not_actionable',
      false,
    ],
    ['javascript_error', { kind: 'reply', reply: { available: true, result: { success: false, reason: 'javascript_error' } } }, 'javascript_error', true],
    ['no_snapshot', { kind: 'reply', reply: { available: true, failure: 'no_snapshot' } }, 'no_snapshot', false],
    ['a timeout', { kind: 'timeout' }, 'timeout', true],
  ])('R-LOOK-05: a rejected scroll fails closed: %s', (_, outcome, failureReason, mayHaveRun) => {
    const plan = webStep(planLookFor(input(), ctx()));
    expect(interpretLookForStep(plan, outcome)).toEqual({ kind: 'failClosed', failureReason, mayHaveRun });
  });

  it('R-LOOK-02: only outermost WKWebView nodes count as web views on screen', () => {
    expect(countWebViews(screen(webView))).toBe(1);
    expect(countWebViews(screen(webView, { className: 'UIView', node: [webView] }))).toBe(2);
    expect(countWebViews(undefined)).toBe(0);
  });
});
