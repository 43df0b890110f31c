/**
 * An unknown `window_id`, tool by tool, as AppReveal's Swift source answers it (UnlikeOtherAI/AppReveal,
 * iOS/Sources/AppReveal; docs/protocol.md#p-ar-ios-errors, the "unknown window_id" table), over the demo's
 * real AppReveal port. Two paths in the source:
 *  - `IOSWindowProvider.windowsForInteraction(windowId:)` (Window/IOSWindowProvider.swift): `if let windowId,
 *    let window = window(id: windowId) { return [window] }`, else every window, sorted. An id it does not
 *    know is dropped, so the tools that go through it (ElementInventory's and InteractionEngine's
 *    `candidateWindows`, WebViewBridge's `findWebViews`) act as if no window_id was sent;
 *  - `WindowProvider.resolve(windowId:)` (Window/WindowProvider.swift: `window(id:)`, nil for an unknown id,
 *    the key window only when none is named): ScreenResolver (get_screen), ScreenshotCapture.captureScreen
 *    (screenshot), InteractionEngine.navigateBack and findFirstScrollView (scroll without a container) find
 *    no window and answer in their own words.
 * What Parallax makes of it: it sends a window_id only to observe (get_screen, get_elements, screenshot)
 * and checks it against list_windows (src-main/appreveal/connection.ts), so an id the app ignores is
 * refused by Parallax rather than read as that window (the last case).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AppRevealConnection } from '@main/appreveal/connection';
import { startAppRevealServer } from '@demo/appreveal/server';
import { FakeApp } from './appreveal-fake-app';
import { admin } from '../support/demo-admin';
import { useHostOverDemo } from '../support/host-over-demo';

const host = useHostOverDemo();
const raw = (name: string, args: Record<string, unknown> = {}) => host.rawTool(name, args);
const reset = (screen: string) => admin(host.demo.adminUrl, '/reset', { screen });
const screenKey = async () => (await raw('get_screen')).screenKey;
/** No window of the demo's: it lists window-0 only. */
const GONE = 'window-9';
const inWindow = (args: Record<string, unknown> = {}) => ({ ...args, window_id: GONE });

type Element = { id: string; frame: string; actions: string };
const elements = async (): Promise<Element[]> => (await raw('get_elements')).elements as Element[];
const centre = (frame: string) => {
  const [x = 0, y = 0, w = 0, h = 0] = frame.split(',').map(Number);
  return { x: x + w / 2, y: y + h / 2 };
};
const fieldValue = async (id: string) => ((await raw('get_state')).fields as Record<string, string>)[id];

beforeEach(async () => {
  await reset('login');
});

describe('R-AR-37: tools that look the window up through WindowProvider.resolve find none for an unknown window_id', () => {
  it('get_screen: ScreenResolver.resolve(windowId:) has no top view controller, so the screen is "unknown"', async () => {
    // ScreenResolver.swift findTopViewController → nil: className "unknown", deriveScreenKey/deriveTitle of
    // it, detectFrameworkType(nil) "unknown", an empty chain, no tab, no modals, depth 0, confidence 0.8.
    expect(await raw('get_screen', inWindow())).toMatchObject({
      screenKey: 'unknown',
      screenTitle: 'unknown',
      frameworkType: 'unknown',
      controllerChain: [],
      navigationDepth: 0,
      presentedModals: [],
      confidence: 0.8,
    });
    expect(await screenKey()).toBe('login');
  });

  it('screenshot: ScreenshotCapture.captureScreen gets no window, and MCPTools.swift says "Failed to capture screenshot"', async () => {
    expect(await raw('screenshot', inWindow())).toEqual({ error: 'Failed to capture screenshot' });
  });

  it('navigate_back: InteractionEngine.navigateBack gets no window: "No navigation controller found", and nothing pops', async () => {
    await raw('tap_element', { element_id: 'tab.feed' });
    expect(await screenKey()).toBe('feed');
    expect(await raw('navigate_back', inWindow())).toEqual({ error: 'No navigation controller found' });
    expect(await screenKey()).toBe('feed');
  });

  it('scroll without a container: findFirstScrollView gets no window: "No scroll view found", where the key window has one', async () => {
    await reset('feed');
    expect(await raw('scroll', inWindow({ direction: 'down' }))).toEqual({ error: 'No scroll view found' });
    expect(await raw('scroll', { direction: 'down' })).toEqual({ success: true });
  });
});

describe('R-AR-37: tools that go through windowsForInteraction ignore an unknown window_id and act as if none was sent', () => {
  it('get_elements: every window’s elements, as without window_id', async () => {
    expect(await raw('get_elements', inWindow())).toEqual(await raw('get_elements'));
  });

  it('get_view_tree: the whole tree, as without window_id', async () => {
    const tree = await raw('get_view_tree', inWindow());
    expect(tree.count).toBeGreaterThan(0);
    expect(tree).toEqual(await raw('get_view_tree'));
  });

  it('tap_element: the element is found and tapped', async () => {
    expect(await raw('tap_element', inWindow({ element_id: 'tab.feed' }))).toEqual({ success: true, element_id: 'tab.feed' });
    expect(await screenKey()).toBe('feed');
  });

  it('tap_text: findElementByText and tap(point:) both search every window', async () => {
    expect(await raw('tap_text', inWindow({ text: 'Feed' }))).toEqual({ success: true, text: 'Feed' });
    expect(await screenKey()).toBe('feed');
  });

  it('tap_point: tap(point:) hit-tests every window, so the point is tapped', async () => {
    const tab = (await elements()).find((e) => e.id === 'tab.feed');
    const { x, y } = centre(tab?.frame ?? '');
    expect(await raw('tap_point', inWindow({ x, y }))).toEqual({ success: true, x, y });
    expect(await screenKey()).toBe('feed');
  });

  it('type_text and clear_text: the field is found by its id and typed into, then cleared', async () => {
    expect(await raw('type_text', inWindow({ text: 'ada', element_id: 'login.username' }))).toEqual({ success: true, text: 'ada' });
    expect(await fieldValue('login.username')).toBe('ada');
    expect(await raw('clear_text', inWindow({ element_id: 'login.username' }))).toEqual({ success: true });
    expect(await fieldValue('login.username')).toBe('');
  });

  it('scroll with a container and scroll_to_element: the element is found through findElement', async () => {
    await reset('feed');
    const scroller = (await elements()).find((e) => e.actions.split(',').includes('scroll'));
    expect(scroller).toBeDefined();
    expect(await raw('scroll', inWindow({ direction: 'down', container_id: scroller?.id }))).toEqual({ success: true });
    expect(await raw('scroll_to_element', inWindow({ element_id: 'tab.feed' }))).toEqual({ success: true });
  });

  it('the web tools: findWebViews searches every window, so the page is reached', async () => {
    await reset('checkout');
    expect(await raw('get_webviews', inWindow())).toEqual(await raw('get_webviews'));
    expect((await raw('get_webviews', inWindow())).count).toBe(1);
    expect(await raw('get_dom_interactive', inWindow())).toEqual(await raw('get_dom_interactive'));
    expect(await raw('web_click', inWindow({ selector: '#nothing-here' }))).toEqual({ result: JSON.stringify({ error: 'Element not found: #nothing-here' }) });
    expect(await raw('web_type', inWindow({ selector: '#name', text: 'Ada' }))).toEqual({ result: JSON.stringify({ success: true, value: 'Ada' }) });
  });
});

describe('R-AR-37: Parallax does not read an ignored window_id as that window', () => {
  let connection: AppRevealConnection;
  beforeAll(async () => {
    connection = new AppRevealConnection(host.demo.appRevealUrl ?? '');
    connection.start();
    await connection.waitUntilConnected(20_000);
  }, 30_000);
  afterAll(async () => {
    await connection?.close();
  });

  it('observe with a window the app does not list is refused, though get_elements answered every window’s elements', async () => {
    await expect(connection.observe({ windowId: GONE })).rejects.toMatchObject({
      code: 'tool_error',
      message: expect.stringMatching(/has no window window-9 \(it lists window-0\)/),
    });
    expect((await connection.observe({ windowId: 'window-0' })).appReveal?.screen?.screenKey).toBe('login');
  });
});

/** An app whose list_windows fails, and whose get_elements, like iOS's, reads any window id as every window. */
class NoWindowListApp extends FakeApp {
  override listWindows(): never {
    throw new Error('list_windows is broken');
  }
  override getElements() {
    return super.getElements();
  }
}

describe('R-AR-37: Parallax does not read a window_id it cannot confirm as that window', () => {
  it('observe with a window when list_windows fails is refused, though get_elements answered', async () => {
    const server = await startAppRevealServer({ app: new NoWindowListApp() });
    const connection = new AppRevealConnection(server.url);
    try {
      connection.start();
      await connection.waitUntilConnected(20_000);
      await expect(connection.observe({ windowId: 'w9' })).rejects.toMatchObject({
        code: 'tool_error',
        message: expect.stringMatching(/did not list its windows, so window w9 cannot be confirmed/),
      });
      // Without a window named, the same reading is the app's screen.
      expect((await connection.observe({})).observation).toBeTruthy();
    } finally {
      await connection.close();
      await server.close();
    }
  });
});
