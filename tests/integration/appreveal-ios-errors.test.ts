/**
 * Every error form of the demo's iOS AppReveal, over its real port, as AppReveal's Swift source writes it
 * (UnlikeOtherAI/AppReveal, iOS/Sources/AppReveal; docs/protocol.md#p-ar-ios-errors), and what Parallax
 * makes of each: its outcome class, whether it may have run, and the app's words in `deviceMessage`.
 *  - MCPServer/MCPTools.swift (0ad27a7): each handler's guard (`"<name> required"`, "Invalid direction",
 *    "Invalid URL", "x and y are required numeric coordinates") and `catch` (`{"error": localizedDescription}`;
 *    tap_element adds its advice), tap_text's `candidates` and `hint`, scroll's bare `{"success": true}`;
 *  - Interaction/InteractionEngine.swift (0ad27a7) lines 25-29: the engine's words, and what throws none
 *    (`tap(point:)`, `popViewController` at a navigation root);
 *  - Elements/ElementInventory.swift `findElementByText` (lines 71-99): tap_text's own failures;
 *  - WebView/WebViewTools.swift, WebViewBridge.swift:14 ("WebView not found: …") and DOMSerializer.swift
 *    `clickJS` / `typeJS` (the page script's `{error:'Element not found: …'}` inside `result`).
 * The wire is read as AppReveal's own CLI reads it (rawTool); the classification is Parallax's
 * `actThroughAppReveal` over its AppRevealClient, to the same port.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { actThroughAppReveal } from '@main/appreveal/actions';
import { AppRevealClient } from '@main/appreveal/client';
import type { ActionRequest, ActionResult } from '@shared/protocol/action';
import { parseAppRevealSessionUrl } from '@shared/protocol/appreveal';
import { admin } from '../support/demo-admin';
import { useHostOverDemo } from '../support/host-over-demo';

const host = useHostOverDemo();
const raw = (name: string, args: Record<string, unknown> = {}) => host.rawTool(name, args);
const reset = (screen: string) => admin(host.demo.adminUrl, '/reset', { screen });
const screenKey = async () => (await raw('get_screen')).screenKey;
const ADVICE = 'Try tap_text for visible text targeting, or get_elements to list available IDs.';

let client: AppRevealClient;
beforeAll(async () => {
  client = new AppRevealClient(parseAppRevealSessionUrl(host.demo.appRevealUrl ?? ''), { timeoutMs: 20_000, healthTimeoutMs: 20_000 });
  await client.connect();
}, 30_000);
afterAll(async () => {
  await client?.close();
});
beforeEach(async () => {
  await reset('login');
});

const act = (request: ActionRequest): Promise<ActionResult> => actThroughAppReveal(client, request);
/** What a user reads of a failed action: its class, whether it may have run, and the app's words. */
const verdict = (result: ActionResult) => ({ outcome: result.outcome, mayHaveRun: result.mayHaveRun, deviceMessage: result.deviceMessage });
const notRun = (deviceMessage: string) => ({ outcome: 'notRun', mayHaveRun: false, deviceMessage });

describe('the iOS flavour answers each failure in MCPTools.swift’s words, and Parallax reads each as not run', () => {
  it('tap_element: the engine’s "Element not found" with MCPTools.swift’s advice after it', async () => {
    expect(await raw('tap_element', { element_id: 'login.nothing' })).toEqual({ error: `Element not found: login.nothing. ${ADVICE}` });
    expect(await raw('tap_element', {})).toEqual({ error: 'element_id required' });
    const result = await act({ action: 'tap', target: { id: 'login.nothing' } });
    expect(verdict(result)).toEqual(notRun(`Element not found: login.nothing. ${ADVICE}`));
    expect(result.requestsSent).toBe(1);
  });

  it('tap_element on a disabled control: InteractionEngine.swift sends its actions and answers success, so Parallax reads done', async () => {
    // performTap(onView:) calls sendActions(for: .touchUpInside) without asking isEnabled; the demo's
    // passkey button is disabled and has no action, so nothing on the screen changes.
    const before = await raw('get_elements');
    // (The element form sends enabled as a string, as the stored router does.)
    expect(String((before.elements as Array<{ id: string; enabled: unknown }>).find((e) => e.id === 'login.passkey')?.enabled)).toBe('false');
    expect(await raw('tap_element', { element_id: 'login.passkey' })).toEqual({ success: true, element_id: 'login.passkey' });
    const result = await act({ action: 'tap', target: { id: 'login.passkey' } });
    expect(result).toMatchObject({ success: true, outcome: 'done', requestsSent: 1 });
    expect(await screenKey()).toBe('login');
    expect(await raw('get_state')).toMatchObject({ screen: 'login' });
  });

  it('tap_text: ElementInventory.swift findElementByText’s words, candidates as the matched texts', async () => {
    expect(await raw('tap_text', { text: 'No such text' })).toEqual({ error: 'No element with text "No such text" found on the current screen.' });
    expect(await raw('tap_text', {})).toEqual({ error: 'text required' });
    // The Sign In heading is a static label (no tappable ancestor), so only the button is a candidate.
    expect(await raw('tap_text', { text: 'Sign In' })).toEqual({ success: true, text: 'Sign In' });
    expect(verdict(await act({ action: 'tap', target: { text: 'No such text' } }))).toEqual(
      notRun('No element with text "No such text" found on the current screen.'),
    );
  });

  it('tap_text: ambiguous without occurrence, out of range with one, each with the candidates and the hint', async () => {
    await reset('feed');
    const hint = 'Use occurrence parameter (0-based) to select a specific match';
    const wanted = { text: 'Like Post', match_mode: 'contains' };
    const ambiguous = await raw('tap_text', wanted);
    expect(ambiguous).toMatchObject({ error: expect.stringMatching(/^Ambiguous: \d+ matches found\. Use occurrence \(0-based\) to disambiguate\.$/), hint });
    const candidates = ambiguous.candidates as string[];
    expect(candidates.length).toBeGreaterThan(1);
    expect(ambiguous.error).toBe(`Ambiguous: ${candidates.length} matches found. Use occurrence (0-based) to disambiguate.`);
    expect(candidates.every((c) => /^Like Post \d+$/.test(c))).toBe(true);
    expect(await raw('tap_text', { ...wanted, occurrence: candidates.length })).toEqual({
      error: `occurrence ${candidates.length} out of range (found ${candidates.length} matches)`,
      candidates,
      hint,
    });
    expect(await raw('tap_text', { ...wanted, occurrence: 0 })).toEqual({ success: true, text: 'Like Post' });
  });

  it('tap_text: a text only a static label shows has no tappable ancestor; a single match is tapped whatever occurrence says', async () => {
    const lead = 'Welcome back. Sign in to continue.';
    expect(await raw('tap_text', { text: lead })).toEqual({ error: `Text "${lead}" found but no tappable ancestor. The text is a static label.` });
    expect(verdict(await act({ action: 'tap', target: { text: lead } }))).toEqual(
      notRun(`Text "${lead}" found but no tappable ancestor. The text is a static label.`),
    );
    // The heading's "Sign In" has no tappable ancestor either, so the button is the one candidate
    // (`tappableCandidates.count == 1 ? 0 : occurrence`).
    expect(await raw('tap_text', { text: 'Sign In', occurrence: 5 })).toEqual({ success: true, text: 'Sign In' });
  });

  it('R-AR-36: tap_text: only native views are searched, so a web view’s text is not found; its control is tapped by its DOM id', async () => {
    // ElementInventory.swift collectTextMatches walks the window's subviews through extractText: a
    // WKWebView's page is neither, so "Place order" (a button in the checkout page) is no match.
    await reset('checkout');
    const missing = 'No element with text "Place order" found on the current screen.';
    expect(await raw('tap_text', { text: 'Place order' })).toEqual({ error: missing });
    expect(await raw('tap_text', { text: 'place order', match_mode: 'contains' })).toEqual({
      error: 'No element with text "place order" found on the current screen.',
    });
    expect(verdict(await act({ action: 'tap', target: { text: 'Place order' } }))).toEqual(notRun(missing));
    // The same control is there, as get_elements lists it: a DOM-backed id that tap_element takes.
    const { elements } = (await raw('get_elements')) as { elements: Array<{ id: string; label?: string }> };
    const order = elements.find((e) => e.label === 'Place order');
    expect(order?.id).toMatch(/^web\.checkout\./);
    expect(await raw('tap_element', { element_id: order?.id })).toEqual({ success: true, element_id: order?.id });
    // Native text on the same screen is still found: the tab bar's.
    expect(await raw('tap_text', { text: 'Feed' })).toEqual({ success: true, text: 'Feed' });
    expect(await screenKey()).toBe('feed');
  });

  it('type_text and clear_text: InteractionEngine.swift’s "Element not found" and "Element not editable"', async () => {
    expect(await raw('type_text', { text: 'x', element_id: 'login.nothing' })).toEqual({ error: 'Element not found: login.nothing' });
    expect(await raw('type_text', { text: 'x', element_id: 'login.submit' })).toEqual({ error: 'Element not editable: login.submit' });
    expect(await raw('type_text', { text: 'x' })).toEqual({ error: 'Element not editable: current responder' });
    expect(await raw('type_text', { element_id: 'login.username' })).toEqual({ error: 'text required' });
    expect(await raw('clear_text', { element_id: 'login.submit' })).toEqual({ error: 'Element not editable: login.submit' });
    expect(await raw('clear_text', {})).toEqual({ error: 'element_id required' });
    expect(verdict(await act({ action: 'sendKeys', target: { id: 'login.submit' }, steps: [{ kind: 'type', text: 'x' }] }))).toEqual(
      notRun('Element not editable: login.submit'),
    );
    expect(verdict(await act({ action: 'sendKeys', target: { id: 'login.nothing' }, steps: [{ kind: 'clear' }] }))).toEqual(
      notRun('Element not found: login.nothing'),
    );
  });

  it('scroll: "Invalid direction", and "Element not scrollable" for a container that is none or names nothing; success is bare', async () => {
    expect(await raw('scroll', { direction: 'sideways' })).toEqual({ error: 'Invalid direction' });
    expect(await raw('scroll', { direction: 'down', container_id: 'login.submit' })).toEqual({ error: 'Element not scrollable: login.submit' });
    expect(await raw('scroll', { direction: 'down', container_id: 'login.nothing' })).toEqual({ error: 'Element not scrollable: login.nothing' });
    // Login has no scroll view: InteractionEngine.swift:28.
    expect(await raw('scroll', { direction: 'down' })).toEqual({ error: 'No scroll view found' });
    await reset('feed');
    expect(await raw('scroll', { direction: 'down' })).toEqual({ success: true });
    const result = await act({ action: 'swipe', container: { id: 'feed.nothing' }, start: { x: 200, y: 600 }, end: { x: 200, y: 200 } });
    expect(verdict(result)).toEqual(notRun('Element not scrollable: feed.nothing'));
  });

  it('scroll_to_element: "Element not found"', async () => {
    expect(await raw('scroll_to_element', { element_id: 'login.nothing' })).toEqual({ error: 'Element not found: login.nothing' });
    expect(await raw('scroll_to_element', {})).toEqual({ error: 'element_id required' });
    expect(verdict(await act({ action: 'scrollTo', lookFor: { elementId: 'login.nothing' }, direction: 'up', maxSwipes: 10 }))).toEqual(
      notRun('Element not found: login.nothing'),
    );
  });

  it('navigate_back: a tab’s root pops nothing and says success (InteractionEngine.swift navigateBack, popViewController)', async () => {
    expect(await raw('navigate_back')).toEqual({ success: true });
    expect(await screenKey()).toBe('login');
    expect((await act({ action: 'back' })).outcome).toBe('done');
  });

  it('tap_point: the guard’s words for a missing coordinate; a point off the window taps nothing and says success', async () => {
    // (An unknown window_id is dropped by windowsForInteraction, so the point is tapped: appreveal-ios-window.test.ts.)
    expect(await raw('tap_point', { x: 10 })).toEqual({ error: 'x and y are required numeric coordinates' });
    expect(await raw('tap_point', { x: 500, y: 10 })).toEqual({ success: true, x: 500, y: 10 });
    expect(await screenKey()).toBe('login');
  });

  it('open_deeplink and batch: their guards', async () => {
    expect(await raw('open_deeplink', {})).toEqual({ error: 'Invalid URL' });
    expect(await raw('batch', {})).toEqual({ error: 'actions array required' });
    expect(await raw('batch', { actions: [{}, { tool: 'no_such_tool' }] })).toEqual({
      results: [
        { index: 0, error: 'Invalid action format' },
        { index: 1, tool: 'no_such_tool', error: 'Tool not found' },
      ],
      count: 2,
    });
  });
});

describe('the iOS web tools as WebViewTools.swift and DOMSerializer.swift answer', () => {
  it('no web view: WebViewBridge.swift’s "WebView not found: default"', async () => {
    expect(await raw('web_click', { selector: '#name' })).toEqual({ error: 'WebView not found: default' });
    expect(await raw('get_dom_interactive', { webview_id: 'nope' })).toEqual({ error: 'WebView not found: nope' });
    expect(verdict(await act({ action: 'webTool', tool: 'web_click', selector: '#name' }))).toEqual(notRun('WebView not found: default'));
  });

  it('a selector that matches nothing: the page script’s own {error} inside result; one the page cannot parse: its exception', async () => {
    await reset('checkout');
    expect(await raw('web_click', { selector: '#nothing-here' })).toEqual({ result: JSON.stringify({ error: 'Element not found: #nothing-here' }) });
    expect(await raw('web_type', { selector: '#nothing-here', text: 'x' })).toEqual({ result: JSON.stringify({ error: 'Element not found: #nothing-here' }) });
    expect(await raw('web_click', { selector: '##' })).toEqual({ error: 'A JavaScript exception occurred' });
    // typeJS calls the input value setter on a button: the page throws.
    expect(await raw('web_type', { selector: '#place-order', text: 'x' })).toEqual({ error: 'A JavaScript exception occurred' });
    expect(await raw('web_type', { selector: '#name' })).toEqual({ error: 'selector and text required' });
    expect(await raw('web_click', {})).toEqual({ error: 'selector required' });
    expect(verdict(await act({ action: 'webTool', tool: 'web_click', selector: '#nothing-here' }))).toEqual(notRun('Element not found: #nothing-here'));
    expect(verdict(await act({ action: 'webTool', tool: 'web_type', selector: '#place-order', text: 'x' }))).toEqual(notRun('A JavaScript exception occurred'));
  });
});
