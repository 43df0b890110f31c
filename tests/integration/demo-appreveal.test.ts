/**
 * The demo device's embedded AppReveal, over real sockets: Parallax's AppRevealClient on one side, the
 * runner WebSocket and /admin on the other, both driving the one rendered app. What AppReveal does shows
 * up in what the runner reads next, and the other way round.
 */
import { inspect } from 'node:util';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { AppRevealClient, AppRevealError } from '@main/appreveal/client';
import { startDemoDevice, type DemoDeviceHandle } from '@demo/index';
import { APPREVEAL_UI_TOOLS } from '@shared/protocol/appreveal-tools';
import { parseAppRevealSessionUrl, type AppRevealElement } from '@shared/protocol/appreveal';
import type { UiNode } from '@shared/protocol/runner';
import { admin as demoAdmin } from '../support/demo-admin';

type Msg = Record<string, any>;

/** A bare runner client: one request at a time is all these tests need. */
class Runner {
  private seq = 0;
  private readonly waiting = new Map<string, (msg: Msg) => void>();
  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const msg = JSON.parse(data.toString()) as Msg;
      const resolve = typeof msg.requestId === 'string' ? this.waiting.get(msg.requestId) : undefined;
      if (resolve) {
        this.waiting.delete(msg.requestId);
        resolve(msg);
      }
    });
  }
  static async connect(url: string): Promise<Runner> {
    const ws = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return new Runner(ws);
  }
  request(type: string, extra: Record<string, unknown> = {}): Promise<Msg> {
    const requestId = `${type}_${++this.seq}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${type} timed out`)), 10_000);
      this.waiting.set(requestId, (msg) => {
        clearTimeout(timer);
        resolve(msg);
      });
      this.ws.send(JSON.stringify({ type, requestId, ...extra }));
    });
  }
  close(): void {
    this.ws.close();
  }
}

function nodes(root: UiNode | undefined): UiNode[] {
  if (!root) return [];
  return [root, ...(root.node ?? []).flatMap(nodes)];
}
const byId = (root: UiNode | undefined, id: string) => nodes(root).find((n) => n['resource-id'] === id);
const element = (elements: AppRevealElement[], id: string) => {
  const found = elements.find((e) => e.id === id);
  if (!found) throw new Error(`no element ${id} in ${elements.map((e) => e.id).join(', ')}`);
  return found;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let device: DemoDeviceHandle;
let appReveal: AppRevealClient;
let runner: Runner;
/** What the demo printed while it started. */
const printedAtStart: string[] = [];

const admin = (path: string, body?: unknown) => demoAdmin<Msg>(device.adminUrl, path, body);
const reset = (screen = 'login') => admin('/reset', { screen });
const setScreen = (screen: string) => admin('/screen', { screen });

async function hierarchyRoot(): Promise<UiNode> {
  const reply = await runner.request('request_hierarchy');
  expect(reply.success).toBe(true);
  return reply.data.hierarchy as UiNode;
}

async function runnerScreenshot(): Promise<Buffer> {
  const reply = await runner.request('request_screenshot');
  expect(reply.success).toBe(true);
  return Buffer.from(reply.data as string, 'base64');
}

async function expectToolError(promise: Promise<unknown>): Promise<AppRevealError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppRevealError);
  expect((error as AppRevealError).code).toBe('tool_error');
  return error as AppRevealError;
}

/** Polls until `read` passes `check`: the runner reads a screen that settles a frame or two later. */
async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 3000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (check(value) || Date.now() > until) return value;
    await sleep(50);
  }
}

beforeAll(async () => {
  const capture = (...args: unknown[]) => {
    printedAtStart.push(args.map((a) => (typeof a === 'string' ? a : inspect(a))).join(' '));
  };
  const spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((method) => vi.spyOn(console, method).mockImplementation(capture));
  const write = (chunk: unknown) => {
    printedAtStart.push(String(chunk));
    return true;
  };
  spies.push(vi.spyOn(process.stdout, 'write').mockImplementation(write as typeof process.stdout.write) as never);
  spies.push(vi.spyOn(process.stderr, 'write').mockImplementation(write as typeof process.stderr.write) as never);
  try {
    device = await startDemoDevice({ port: 0 });
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  if (!device.appRevealUrl) throw new Error('the demo device started without AppReveal');
  appReveal = AppRevealClient.fromSessionUrl(device.appRevealUrl);
  await appReveal.connect();
  runner = await Runner.connect(device.runnerUrl);
}, 40_000);

afterAll(async () => {
  runner?.close();
  await appReveal?.close();
  await device?.close();
});

beforeEach(async () => {
  await reset();
});

describe('the AppReveal endpoint', () => {
  it('is a loopback session URL with a token, kept out of everything the demo printed', async () => {
    const url = device.appRevealUrl ?? '';
    const session = parseAppRevealSessionUrl(url);
    expect(session.token).toMatch(/^[0-9a-f]{64}$/);
    expect(session.baseUrl).toBe(device.appRevealBaseUrl);
    expect(device.appRevealBaseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(device.appRevealBaseUrl).not.toBe(device.runnerUrl.replace('ws://', 'http://').replace('/ws', '/'));
    expect(printedAtStart.join('\n')).not.toContain(session.token);
  });

  it('answers /health without a token, and refuses tool calls without one', async () => {
    const health = await fetch(new URL('/health', device.appRevealBaseUrl));
    expect(health.status).toBe(200);
    // As iOS's /health: listener diagnostics, and no app identity (R-AR-05, R-AR-20).
    const body = (await health.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 'ok', auth: 'session-token', bonjour: 'not_started', lan: { hasUsableLANAddress: false } });
    expect(body).not.toHaveProperty('bundleId');

    const anonymous = new AppRevealClient({ baseUrl: device.appRevealBaseUrl ?? '' });
    const error = await anonymous.connect().then(
      () => undefined,
      (e: unknown) => e,
    );
    await anonymous.close();
    expect(error).toBeInstanceOf(AppRevealError);
    expect((error as AppRevealError).code).toBe('unauthorized');

    const wrong = new AppRevealClient({ baseUrl: device.appRevealBaseUrl ?? '', token: 'f'.repeat(64) });
    await expect(wrong.connect()).rejects.toMatchObject({ code: 'unauthorized' });
    await wrong.close();
  });

  it('lists the UI tools and the bounded web view tools, never web_evaluate', async () => {
    expect(appReveal.health).toMatchObject({ status: 'ok' });
    expect(appReveal.identity).toMatchObject({ bundleId: 'dev.parallax.demo', platform: 'iOS', version: '1.0' });
    for (const tool of APPREVEAL_UI_TOOLS) expect(appReveal.tools).toContain(tool);
    expect(appReveal.webTools).toEqual(['get_webviews', 'get_dom_interactive', 'web_click', 'web_type']);
    expect(appReveal.tools).not.toContain('web_evaluate');
    expect(await appReveal.listWindows()).toEqual([{ id: 'window-0', title: 'Parallax Demo', isKey: true, frame: { x: 0, y: 0, width: 402, height: 874 } }]);
    // An unknown window is no window to ScreenResolver.swift: an "unknown" screen, no error (appreveal-ios-window.test.ts).
    expect((await appReveal.getScreen({ windowId: 'window-9' })).screenKey).toBe('unknown');
  });
});

describe('reading the app', () => {
  it('get_screen follows the screen the demo switches to', async () => {
    expect(await appReveal.getScreen()).toMatchObject({
      screenKey: 'login',
      screenTitle: 'Sign In',
      frameworkType: 'uikit',
      controllerChain: ['UITabBarController', 'UINavigationController', 'LoginViewController'],
      activeTab: 'Login',
      navigationDepth: 1,
      presentedModals: [],
      confidence: 1,
      source: 'explicit',
      appBarTitle: 'Sign In',
    });
    await setScreen('feed');
    expect(await appReveal.getScreen()).toMatchObject({ screenKey: 'feed', screenTitle: 'Feed', activeTab: 'Feed' });
    await setScreen('edges');
    expect(await appReveal.getScreen()).toMatchObject({
      screenKey: 'edges',
      controllerChain: ['EdgesViewController'],
      presentedModals: ['EdgesViewController'],
    });
  });

  it('get_elements on Login: the controls by accessibility id, frames where the runner puts them, no password', async () => {
    await appReveal.typeText('hunter2', 'login.password');
    const { screenKey, elements } = await appReveal.getElements();
    expect(screenKey).toBe('login');
    const ids = elements.map((e) => e.id);
    expect(ids.indexOf('login.username')).toBeLessThan(ids.indexOf('login.password'));
    expect(ids.indexOf('login.password')).toBeLessThan(ids.indexOf('login.submit'));
    expect(element(elements, 'login.username')).toMatchObject({
      type: 'textField',
      label: 'Username',
      enabled: true,
      visible: true,
      tappable: true,
      actions: ['tap', 'type', 'clear'],
      idSource: 'explicit',
    });
    const password = element(elements, 'login.password');
    // ElementInventory.swift classifyView has no secure type; `value: view.accessibilityValue` is one bullet a character.
    expect(password).toMatchObject({ type: 'textField', label: 'Password', idSource: 'explicit', value: '\u2022'.repeat('hunter2'.length) });
    expect(JSON.stringify(elements)).not.toContain('hunter2');
    expect(element(elements, 'login.submit')).toMatchObject({ type: 'button', label: 'Sign In', enabled: true, tappable: true, actions: ['tap'] });
    expect(element(elements, 'login.passkey').enabled).toBe(false);

    const root = await hierarchyRoot();
    for (const id of ['login.username', 'login.password', 'login.submit', 'login.passkey', 'tab.login']) {
      const { frame } = element(elements, id);
      const bounds = byId(root, id)?.bounds;
      expect(bounds, id).toBeDefined();
      expect({ left: frame.x, top: frame.y, right: frame.x + frame.width, bottom: frame.y + frame.height }, id).toEqual(bounds);
    }
  });

  it('reads the hostile screen that XCTest cannot', async () => {
    await setScreen('hostile');
    const raw = await runner.request('request_hierarchy', { disableAllFiltering: true });
    expect(raw.success).toBe(false);
    const { screenKey, elements } = await appReveal.getElements();
    expect(screenKey).toBe('hostile');
    expect(element(elements, 'hostile.like')).toMatchObject({ type: 'button', label: 'Like' });
    expect(element(elements, 'hostile.share').enabled).toBe(false);
    expect(element(elements, 'hostile.notify')).toMatchObject({ type: 'toggle', value: '0' });
  });

  it('screenshot is the same 1206 x 2622 PNG the runner takes', async () => {
    const shot = await appReveal.screenshot();
    expect(shot).toMatchObject({ format: 'png', width: 1206, height: 2622 });
    const ours = PNG.sync.read(Buffer.from(shot.dataBase64, 'base64'));
    const theirs = PNG.sync.read(await runnerScreenshot());
    expect([ours.width, ours.height]).toEqual([theirs.width, theirs.height]);
    expect(ours.data.equals(theirs.data)).toBe(true);
  });
});

describe('driving the app (one app, two endpoints)', () => {
  it('tap_element on login.submit changes what the runner reads and shows next', async () => {
    const before = await runnerScreenshot();
    expect(byId(await hierarchyRoot(), 'login.status')).toBeUndefined();
    await appReveal.tapElement('login.submit');
    const root = await eventually(hierarchyRoot, (r) => byId(r, 'login.status') !== undefined);
    expect(byId(root, 'login.status')).toMatchObject({ text: 'Enter a username and a password.' });
    expect((await runnerScreenshot()).equals(before)).toBe(false);

    // InteractionEngine.swift sends a disabled control's actions as any other's (sendActions asks no
    // isEnabled): success; the passkey button has none, so the screen stays as it was.
    expect((await appReveal.tapElement('login.passkey')).result).toEqual({ success: true, element_id: 'login.passkey' });
    expect(byId(await hierarchyRoot(), 'login.status')).toMatchObject({ text: 'Enter a username and a password.' });
    const missing = await expectToolError(appReveal.tapElement('login.nothing'));
    expect(missing.message).toContain('Element not found: login.nothing');
  });

  it('type_text into the username shows in the runner hierarchy; clear_text empties it', async () => {
    await appReveal.typeText('ada@example.com', 'login.username');
    let root = await eventually(hierarchyRoot, (r) => byId(r, 'login.username')?.text === 'ada@example.com');
    expect(byId(root, 'login.username')).toMatchObject({ text: 'ada@example.com', focused: 'true' });
    // Without an element: into whatever has focus, as the first responder.
    await appReveal.typeText('.uk');
    expect(element((await appReveal.getElements()).elements, 'login.username').value).toBe('ada@example.com.uk');

    await appReveal.clearText('login.username');
    root = await eventually(hierarchyRoot, (r) => byId(r, 'login.username')?.text === 'Email or username');
    expect(byId(root, 'login.username')?.text).toBe('Email or username');
    expect((await expectToolError(appReveal.typeText('x', 'login.submit'))).message).toContain('not editable');
  });

  it('a runner tap shows up in the next get_elements', async () => {
    const { elements } = await appReveal.getElements();
    const { x, y, width, height } = element(elements, 'tab.feed').frame;
    const reply = await runner.request('request_tap_coordinates', { x: x + width / 2, y: y + height / 2, duration: 0 });
    expect(reply.success).toBe(true);
    expect((await appReveal.getScreen()).screenKey).toBe('feed');
  });

  it('tap_text with two matches fails with the candidates; occurrence picks one', async () => {
    // The "Sign In" heading has no tappable ancestor (ElementInventory.swift findElementByText), so the
    // button is the one candidate and is tapped; the answer is MCPTools.swift's {success, text}.
    const tapped = await appReveal.tapText('Sign In');
    expect(tapped.result).toEqual({ success: true, text: 'Sign In' });
    await eventually(hierarchyRoot, (r) => byId(r, 'login.status') !== undefined);

    await reset('feed');
    const error = await expectToolError(appReveal.tapText('Like Post 1', { matchMode: 'contains' }));
    // "Like Post 1", "Like Post 10" … on screen: the candidates are the matched texts, as strings on the wire.
    expect(error.details.candidates?.length).toBeGreaterThan(1);
    expect(error.details.candidates?.every((c) => c.text.startsWith('Like Post 1') && c.id === undefined)).toBe(true);
    expect(error.details.hint).toContain('occurrence');
    expect(await appReveal.tapText('Like Post 1', { matchMode: 'contains', occurrence: 1 })).toMatchObject({ result: { success: true } });
    await reset('login');

    await appReveal.tapText('feed', { matchMode: 'contains' });
    expect((await appReveal.getScreen()).screenKey).toBe('feed');
    await expectToolError(appReveal.tapText('No such text'));
  });

  it('tap_point taps the screen; navigate_back returns to the previous screen', async () => {
    const tab = byId(await hierarchyRoot(), 'tab.checkout')?.bounds;
    if (!tab) throw new Error('no checkout tab');
    await appReveal.tapPoint((tab.left + tab.right) / 2, (tab.top + tab.bottom) / 2);
    expect((await appReveal.getScreen()).screenKey).toBe('checkout');
    await appReveal.navigateBack();
    expect((await appReveal.getScreen()).screenKey).toBe('login');
    // At a tab's root popViewController pops nothing and MCPTools.swift still answers success; a point off
    // the window hit-tests no view (InteractionEngine.swift tap(point:) throws nothing).
    expect((await appReveal.navigateBack()).result).toEqual({ success: true });
    expect(await appReveal.tapPoint(500, 10)).toMatchObject({ result: { success: true, x: 500, y: 10 } });
    expect((await appReveal.getScreen()).screenKey).toBe('login');
  });

  it('scroll on Feed moves the list for real, and scroll_to_element finds a row not built yet', async () => {
    await reset('feed');
    const cellTop = async (id: string) => byId(await hierarchyRoot(), id)?.bounds?.top;
    const before = await cellTop('feed.cell.10');
    const lower = await cellTop('feed.cell.20');
    expect(before).toBeDefined();
    expect(lower).toBeDefined();
    const down = await appReveal.scroll('down');
    // MCPTools.swift scroll answers `["success": true]` alone.
    expect(down.result).toEqual({ success: true });
    // 80% of the list's visible height (the part above the tab bar) is 540 points.
    const after = await eventually(
      () => cellTop('feed.cell.20'),
      (top) => top === (lower as number) - 540,
    );
    expect(after).toBe((lower as number) - 540);
    await appReveal.scroll('up', 'feed.list');
    expect(
      await eventually(
        () => cellTop('feed.cell.10'),
        (top) => top === before,
      ),
    ).toBe(before);
    await expectToolError(appReveal.scroll('down', 'tab.feed'));

    expect((await appReveal.getElements()).elements.some((e) => e.id === 'feed.cell.40')).toBe(false);
    await appReveal.scrollToElement('feed.cell.40');
    const cell = element((await appReveal.getElements()).elements, 'feed.cell.40');
    expect(cell).toMatchObject({ type: 'cell', visible: true, tappable: true });
    expect(cell.frame.y).toBeGreaterThanOrEqual(116);
    expect(cell.frame.y + cell.frame.height).toBeLessThanOrEqual(791);
    await appReveal.tapElement('feed.like.40');
    expect(element((await appReveal.getElements()).elements, 'feed.like.40').value).toBe('liked');
    await expectToolError(appReveal.scrollToElement('feed.cell.99'));
  });
});

describe('the checkout web view', () => {
  it('get_webviews and get_dom_interactive describe the form through the bridge, with selectors and no password', async () => {
    await setScreen('checkout');
    const webviews = (await appReveal.getWebViews()) as Msg[];
    expect(webviews).toEqual([
      {
        id: 'checkout',
        url: 'https://checkout.parallax.test/checkout.html',
        title: 'Checkout · Parallax Shop',
        isLoading: false,
        frame: '0,116,402,675',
        bridge: true,
      },
    ]);
    const dom = (await appReveal.getDomInteractive()) as { elements: Msg[]; count: number };
    expect(dom.count).toBe(dom.elements.length);
    const bySelector = (selector: string) => dom.elements.find((e) => e.selector === selector);
    expect(bySelector('#name')).toMatchObject({ tag: 'input', type: 'text', label: 'Full name', placeholder: 'Jane Appleseed' });
    expect(bySelector('#password')).toMatchObject({ tag: 'input', type: 'password', valueRedacted: true });
    expect(bySelector('#password')?.value).toBeUndefined();
    expect(bySelector('#shipping')).toMatchObject({ tag: 'select', value: 'standard' });
    expect(bySelector('#terms')).toMatchObject({ checked: false });
    expect(bySelector('#pay-later')).toMatchObject({ disabled: true, text: 'Pay later' });
  });

  it('web_type and web_click go through the bridge: the order is placed and the runner sees it', async () => {
    await setScreen('checkout');
    await appReveal.webType('#name', 'Ada');
    await appReveal.webType('#name', 'Grace', { clear: true });
    await appReveal.webClick('#terms');
    await appReveal.webClick('#place-order');
    const root = await eventually(hierarchyRoot, (r) => nodes(r).some((n) => n.text === 'Order placed for Grace (Standard (free)).'));
    expect(nodes(root).some((n) => n.text === 'Order placed for Grace (Standard (free)).')).toBe(true);

    expect((await expectToolError(appReveal.webClick('#nothing-here'))).message).toContain('Element not found');
    // The page throws (querySelector on '##', typeJS's input setter on a button): WKWebView's error.
    expect((await expectToolError(appReveal.webClick('##'))).message).toContain('A JavaScript exception occurred');
    expect((await expectToolError(appReveal.webType('#place-order', 'x'))).message).toContain('A JavaScript exception occurred');
  });

  it('get_elements projects the web controls as DOM-backed elements that tap and type through the bridge', async () => {
    await setScreen('checkout');
    const { elements } = await appReveal.getElements();
    const dom = elements.filter((e) => e.idSource === 'dom');
    const name = dom.find((e) => e.label === 'Full name');
    const password = dom.find((e) => e.label === 'Account password');
    expect(name).toMatchObject({ type: 'textField', visible: true, actions: ['tap', 'type', 'clear'] });
    expect(name?.id).toMatch(/^web\.checkout\.e\d+$/);
    // Web content is placed on screen under the navigation bar.
    expect(name?.frame.y).toBeGreaterThan(116);
    expect(password).toMatchObject({ type: 'textField', inputType: 'password' });
    expect(password?.value).toBeUndefined();
    await appReveal.typeText('Lin', name?.id);
    const after = await eventually(
      async () => (await appReveal.getElements()).elements.find((e) => e.id === name?.id),
      (e) => e?.value === 'Lin',
    );
    expect(after?.value).toBe('Lin');
    // tap_text searches native views only (ElementInventory.swift collectTextMatches): the web button is
    // tapped by its DOM-backed id.
    const order = dom.find((e) => e.label === 'Place order');
    await appReveal.tapElement(order?.id ?? 'no Place order button');
    await eventually(hierarchyRoot, (r) => nodes(r).some((n) => n.text === 'Accept the terms to continue.'));
  });

  it('web tools refuse a screen without a web view', async () => {
    await setScreen('login');
    expect(await appReveal.getWebViews()).toEqual([]);
    expect((await expectToolError(appReveal.webClick('#name'))).message).toContain('WebView not found: default');
  });
});
