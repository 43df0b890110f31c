/**
 * The demo app's AppReveal: what the AppReveal framework would see and do from inside the app, over the
 * same rendered page the runner and the SDK bridge use. Reads come from the same capture (introspect.js)
 * the XCTest projection and the observation bridge are built from; input is the same real input
 * (AppPage taps, keyboard, setContentOffset-style scrolls); web views are driven only through the web
 * view bridge's bounded actions. So an AppReveal tap shows up in the next runner screenshot, and a runner
 * tap in the next get_elements: one app, two ways in.
 *
 * AppReveal reads the view hierarchy in-process, so unlike XCTest it also reads the hostile screen.
 *
 * Over 500 lines on purpose: it is the one adapter between AppReveal's tools and the page, and each of its
 * parts (elements, screens, input, web views, network log) reads the same capture and page state; split
 * apart they would pass that state between files for every call.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Frame } from 'playwright-core';
import {
  AppRevealToolError,
  type ActionOutcome,
  type AppErrorEntry,
  type AppLogEntry,
  type AppNavigationStack,
  type AppNetworkCall,
  type AppNetworkMessage,
  type AppRevealApp,
  type TapTextOptions,
  type WebTypeOptions,
} from './server';
import type { AppRevealElement, AppRevealScreenInfo, AppRevealWindow } from '@shared/protocol/appreveal';
import type { ScrollDirection } from '@shared/protocol/appreveal-tools';
import type { WebControlAction } from '@shared/protocol/sdk';
import type { NativeCapture, NativeNode, Rect } from '@demo/phone/capture-model';
import { DEVICE_GEOMETRY } from '@demo/phone/browser';
import { SCREENS } from '@demo/phone/app-page';
import type { DemoDevice } from '@demo/device/demo-device';
import type { WireWebSnapshot } from '@demo/sdk/web-bridge';
import { bullets, DEMO_APP_NAME, DEMO_BUNDLE_ID } from '@demo/phone/xctest-projection';
import { holdFor } from '@demo/base/fault-hold';

export const DEMO_APP_VERSION = '1.0';
/** list_windows: the app has one UIWindow. */
export const DEMO_WINDOW_ID = 'window-0';
/** WKError.javaScriptExceptionOccurred's localizedDescription: what iOS AppReveal answers when a page script throws. */
const JS_EXCEPTION = 'A JavaScript exception occurred';
/** Prefix of the ids of DOM-backed elements (web view controls projected into get_elements). */
export const DOM_ELEMENT_PREFIX = 'web.';

type WebElement = WireWebSnapshot['elements'][number];

/** One native view as read from the capture, with the part of it a finger can reach. */
interface Located {
  node: NativeNode;
  /** Nearest first. */
  ancestors: NativeNode[];
  /** The rect clipped by the screen and by enclosing scroll and web views; absent when none of it shows. */
  shown?: Rect;
  /** For a scroll view or web view: the area its content is seen through (under the tab bar does not count). */
  viewport?: Rect;
}

interface DomTarget {
  webViewId: string;
  snapshotId: string;
  element: WebElement;
  frame: Rect;
  shown?: Rect;
}

/**
 * UIKit view class → the AppReveal element type, as ElementInventory.classifyView writes it
 * (iOS/Sources/AppReveal/Elements/ElementInventory.swift:88-104; the type set is ElementInfo.swift:8-23's
 * `ElementType`). There is no secure, text view or web view type: a secure UITextField is a `textField`
 * (its value is bullets, see nativeElement), a UITextView is a UIScrollView subclass and so `scrollView`,
 * and a WKWebView, no UIScrollView itself, is `other`.
 */
const TYPES: Record<string, string> = {
  UIButton: 'button',
  UITextField: 'textField',
  // The demo's name for a UITextField with isSecureTextEntry: still `case is UITextField`.
  UISecureTextField: 'textField',
  UITextView: 'scrollView',
  UILabel: 'label',
  UIImageView: 'image',
  UISwitch: 'toggle',
  UITableView: 'tableView',
  UICollectionView: 'collectionView',
  UITableViewCell: 'cell',
  UICollectionViewCell: 'cell',
  UIScrollView: 'scrollView',
  UINavigationBar: 'navigationBar',
  UITabBar: 'tabBar',
};
/** Views that are UIScrollViews (availableActions adds "scroll" for `view is UIScrollView`, ElementInventory.swift:115). */
const SCROLL_VIEWS = new Set(['UIScrollView', 'UITableView', 'UICollectionView', 'UITextView']);
const TAPPABLE = new Set(['UIButton', 'UITextField', 'UISecureTextField', 'UITextView', 'UISwitch', 'UICollectionViewCell', 'UITableViewCell']);

/** The view controller behind each screen (ScreenIdentifiable conformers, so screenKey is explicit). */
const CONTROLLERS: Record<string, string> = {
  login: 'LoginViewController',
  feed: 'FeedViewController',
  checkout: 'CheckoutViewController',
  hostile: 'TimelineViewController',
  edges: 'EdgesViewController',
};
/** Presented modally over the tab bar controller rather than pushed inside a tab. */
const MODAL_SCREENS = new Set(['edges']);

/** How far one scroll moves: AppReveal's InteractionEngine pages by 80% of the visible height. */
const SCROLL_PAGE = 0.8;
// ---- Geometry ----------------------------------------------------------------------------------------

function intersect(a: Rect, b: Rect): Rect | undefined {
  const left = Math.max(a[0], b[0]);
  const top = Math.max(a[1], b[1]);
  const right = Math.min(a[0] + a[2], b[0] + b[2]);
  const bottom = Math.min(a[1] + a[3], b[1] + b[3]);
  return right > left && bottom > top ? [left, top, right - left, bottom - top] : undefined;
}

const centerOf = ([x, y, w, h]: Rect) => ({ x: x + w / 2, y: y + h / 2 });
const frameOf = ([x, y, width, height]: Rect) => ({ x, y, width, height });
const frameText = ([x, y, w, h]: Rect) => [x, y, w, h].map((v) => Math.trunc(v)).join(',');

/**
 * Every native view with what of it is on screen. Scroll views and web views clip their content, and a
 * tab bar covers the bottom of what scrolls under it (UIKit's adjusted content inset), so a row behind
 * the tab bar is neither visible nor tappable.
 */
function locateAll(native: NativeCapture): Located[] {
  const out: Located[] = [];
  if (!native.root) return out;
  const screen: Rect = [0, 0, native.viewport.width, native.viewport.height];
  let tabBarTop = native.viewport.height;
  const tabBar = findNode(native.root, (node) => node.cls === 'UITabBar');
  if (tabBar) tabBarTop = Math.min(tabBarTop, tabBar.rect[1]);
  const visit = (node: NativeNode, ancestors: NativeNode[], clip: Rect | undefined): void => {
    const shown = clip ? intersect(node.rect, clip) : undefined;
    const entry: Located = { node, ancestors };
    if (shown) entry.shown = shown;
    let childClip = clip;
    if (node.scrollable || node.webViewId) {
      const viewport = shown ? intersect(shown, [screen[0], screen[1], screen[2], tabBarTop - screen[1]]) : undefined;
      if (viewport) entry.viewport = viewport;
      childClip = viewport;
    }
    out.push(entry);
    const next = [node, ...ancestors];
    for (const child of node.children) visit(child, next, childClip);
  };
  visit(native.root, [], screen);
  return out;
}

function findNode(root: NativeNode, match: (node: NativeNode) => boolean): NativeNode | undefined {
  if (match(root)) return root;
  for (const child of root.children) {
    const found = findNode(child, match);
    if (found) return found;
  }
  return undefined;
}

// ---- Elements ----------------------------------------------------------------------------------------

function nativeElement(entry: Located): AppRevealElement | undefined {
  const { node } = entry;
  if (!node.id) return undefined;
  const tappable = TAPPABLE.has(node.cls);
  // availableActions(for:) (ElementInventory.swift:106-118): tap, then type+clear, then scroll.
  const actions: string[] = [];
  if (tappable) actions.push('tap');
  if (node.editable) actions.push('type', 'clear');
  if (node.scrollable || SCROLL_VIEWS.has(node.cls)) actions.push('scroll');
  const element: AppRevealElement = {
    id: node.id,
    type: TYPES[node.cls] ?? 'other',
    enabled: node.enabled,
    visible: entry.shown !== undefined,
    tappable,
    frame: frameOf(node.rect),
    actions,
    idSource: 'explicit',
    ocr: false,
  };
  if (node.label) element.label = node.label;
  // `value: view.accessibilityValue` (ElementInventory.swift:75): UIKit reads a secure field's value as
  // one bullet per character, so that is what AppReveal passes on; the text itself never leaves the app.
  const value = node.secure ? bullets(node.value ?? '') : node.value;
  if (value) element.value = value;
  // isSecureTextEntry, for the flavours whose wire can say it (Tauri's DOM type); the iOS wire cannot (tools.ts).
  if (node.secure) element.inputType = 'password';
  return element;
}

const DOM_INTERACTIVE_ROLES = new Set(['input', 'textarea', 'select', 'button', 'link', 'checkbox', 'radio', 'textbox', 'switch']);

/**
 * A web control's element type, in ElementType's vocabulary only (ElementInfo.swift:8-23): the HTML type
 * travels beside it as `inputType`, the DOM's own `el.type` (DOMSerializer.swift interactiveJS reads
 * `node.type`), so a client tells a password input by its inputType, never by an invented kind.
 */
function domType(element: WebElement): string {
  if (isButtonInput(element)) return 'button';
  switch (element.role) {
    case 'input':
    case 'textarea':
    case 'textbox':
      return 'textField';
    case 'checkbox':
    case 'radio':
    case 'switch':
      return 'toggle';
    case 'select':
      return 'picker';
    case 'button':
    case 'link':
      return 'button';
    default:
      return 'other';
  }
}

/** The DOM's `el.type` of a control (HTMLTextAreaElement.type is "textarea", a single select's "select-one"). */
function domInputType(element: WebElement): string | undefined {
  if (element.inputType) return element.inputType.toLowerCase();
  if (element.role === 'textarea') return 'textarea';
  if (element.role === 'select') return 'select-one';
  return undefined;
}

/** An `<input>` that is a button to the page (HTML's submit, button, reset and image states). */
const isButtonInput = (element: WebElement) => element.role === 'input' && ['submit', 'button', 'reset', 'image'].includes(element.inputType ?? '');
const domEditable = (element: WebElement) => ['input', 'textarea', 'textbox'].includes(element.role ?? '') && !isButtonInput(element);
const domElementId = (webViewId: string, element: WebElement) => `${DOM_ELEMENT_PREFIX}${webViewId}.${element.id}`;

function domElement(target: DomTarget): AppRevealElement {
  const { element } = target;
  const editable = domEditable(element);
  const out: AppRevealElement = {
    id: domElementId(target.webViewId, element),
    type: domType(element),
    enabled: element.enabled,
    visible: element.visible && target.shown !== undefined,
    tappable: true,
    frame: frameOf(target.frame),
    actions: editable ? ['tap', 'type', 'clear'] : ['tap'],
    idSource: 'dom',
    ocr: false,
  };
  if (element.label) out.label = element.label;
  const inputType = domInputType(element);
  if (inputType !== undefined) out.inputType = inputType;
  // The bridge already withholds password values (and every value under redactText).
  if (element.value !== undefined && element.value !== '') out.value = element.value;
  return out;
}

// ---- DOM reads (web_click / web_type / get_dom_interactive) -------------------------------------------

/**
 * The one script the web view tools run in a web view: read-only, fixed, with the selector passed in as
 * JSON data. It reports where the matching elements are and how to select them again; it reads values
 * only when asked (`values`: iOS get_dom_interactive sends each control's, DOMSerializer.swift:85) and
 * changes nothing. Actions then go through
 * the bridge's bounded action set, matched to the bridge's element by its bounds.
 */
const DOM_READ_SCRIPT = `(function (args) {
  'use strict';
  var round = function (n) { return Math.round(n * 100) / 100; };
  var interactive = 'a,button,input,textarea,select,[role="button"],[role="link"],[onclick],[tabindex],[contenteditable=""],[contenteditable="true"]';
  var nodes;
  try { nodes = document.querySelectorAll(args.selector || interactive); } catch (e) { return { invalid: true }; }
  function selectorOf(el) {
    if (el.getAttribute('data-testid')) return '[data-testid="' + el.getAttribute('data-testid') + '"]';
    if (el.id) return '#' + CSS.escape(el.id);
    if (el.getAttribute('name')) return el.tagName.toLowerCase() + '[name="' + el.getAttribute('name') + '"]';
    var path = [];
    while (el && el !== document.body && el.parentElement) {
      var tag = el.tagName.toLowerCase();
      var same = Array.prototype.filter.call(el.parentElement.children, function (c) { return c.tagName === el.tagName; });
      if (same.length > 1) tag += ':nth-of-type(' + (same.indexOf(el) + 1) + ')';
      path.unshift(tag);
      el = el.parentElement;
    }
    return path.join(' > ');
  }
  var out = [];
  for (var i = 0; i < nodes.length && out.length < args.limit; i++) {
    var el = nodes[i];
    var r = el.getBoundingClientRect();
    var editable = el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el.isContentEditable;
    var item = { tag: el.tagName.toLowerCase(), bounds: [round(r.left), round(r.top), round(r.width), round(r.height)], selector: selectorOf(el) };
    if (el.id) item.id = el.id;
    if (el.getAttribute('name')) item.name = el.getAttribute('name');
    if (el.getAttribute('type')) item.type = el.getAttribute('type');
    if (el.getAttribute('placeholder')) item.placeholder = el.getAttribute('placeholder');
    if (el.getAttribute('aria-label')) item.ariaLabel = el.getAttribute('aria-label');
    if (el.disabled) item.disabled = true;
    if (args.values && el.value) item.value = String(el.value).slice(0, 200);
    if (!editable && !(el instanceof HTMLSelectElement)) {
      var text = (el.textContent || '').replace(/\\s+/g, ' ').trim();
      if (text) item.text = text.slice(0, 100);
    }
    out.push(item);
  }
  return { nodes: out, total: nodes.length };
})`;

interface DomNode {
  tag: string;
  bounds: Rect;
  selector: string;
  id?: string;
  name?: string;
  type?: string;
  placeholder?: string;
  ariaLabel?: string;
  disabled?: boolean;
  text?: string;
  /** The control's own value, read only for iOS get_dom_interactive (DOMSerializer.swift:85 sends it). */
  value?: string;
}

/** The bridge role an element of this tag (and type) has, to tell apart two elements with one box. */
function roleForTag(node: DomNode): string[] {
  switch (node.tag) {
    case 'input':
      return node.type === 'checkbox' || node.type === 'radio'
        ? [node.type]
        : node.type === 'button' || node.type === 'submit'
          ? ['input', 'button']
          : ['input'];
    case 'a':
      return ['link'];
    default:
      return [node.tag];
  }
}

const sameBounds = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((v, i) => v === b[i]);

// ---- The app -----------------------------------------------------------------------------------------

/** The page's own record of what it loaded: the navigation and each resource, with status and duration. */
const EARLIER_LOADS = `performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource')).map(function (e) {
  return { url: e.name, ms: e.duration, status: e.responseStatus };
})`;

/** How many log lines, network calls and errors the app keeps (AppReveal's providers keep a ring too). */
const KEEP = 200;

// ---- Network capture as AppReveal's URLSession capture keeps it ----------------------------------------

/** The text of one body AppReveal keeps; the rest is cut and the cut said (`bodyTruncated`). */
const BODY_PREVIEW_CHARS = 16 * 1024;
/** Header names AppReveal redacts (CapturedRequest.swift sensitiveHeaders), case-insensitively. */
const SENSITIVE_HEADERS = new Set(['authorization', 'cookie', 'set-cookie', 'x-api-key', 'x-auth-token', 'proxy-authorization']);

function capturedMessage(headers: Record<string, string>, body: string | null, size: number | null): AppNetworkMessage {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) kept[name] = SENSITIVE_HEADERS.has(name.toLowerCase()) ? '[REDACTED]' : value;
  const truncated = body !== null && body.length > BODY_PREVIEW_CHARS;
  return { headers: kept, body: truncated ? body.slice(0, BODY_PREVIEW_CHARS) : body, bodySize: size, bodyTruncated: truncated };
}

/** Text bodies only: an image or a font is counted, not kept. */
function isTextual(contentType: string | undefined): boolean {
  return contentType !== undefined && /^(text\/|application\/(json|javascript|xml|x-www-form-urlencoded)|image\/svg)/i.test(contentType);
}

/** Server-Sent Event frames of a body: blank-line separated, `event:`, `id:`, `data:` lines (data lines joined). */
function sseFrames(body: string): Array<{ event: string; data: string; id?: string }> {
  return body
    .split(/\r?\n\r?\n/)
    .map((block) => {
      let event = 'message';
      let id: string | undefined;
      const data: string[] = [];
      for (const line of block.split(/\r?\n/)) {
        const [field, ...rest] = line.split(':');
        const value = rest.join(':').replace(/^ /, '');
        if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
        else if (field === 'id') id = value;
      }
      return data.length > 0 ? { event, data: data.join('\n'), ...(id !== undefined ? { id } : {}) } : undefined;
    })
    .filter((frame): frame is { event: string; data: string; id?: string } => frame !== undefined);
}
const LOG_SUBSYSTEM = DEMO_BUNDLE_ID;

export class DemoAppReveal implements AppRevealApp {
  readonly bundleId = DEMO_BUNDLE_ID;
  readonly version = DEMO_APP_VERSION;
  readonly appName = DEMO_APP_NAME;
  readonly build = '1';
  readonly screen = { ...DEVICE_GEOMETRY };
  private readonly logs: AppLogEntry[] = [];
  private readonly calls: AppNetworkCall[] = [];
  private readonly errors: AppErrorEntry[] = [];
  private nextCall = 1;

  constructor(private readonly device: DemoDevice) {
    // The app's real traffic: every request its page and its web views make, as the network provider sees it.
    const context = device.app.context;
    context.on('requestfinished', (request) => {
      void request.response().then(async (response) => {
        const timing = request.timing();
        const call: AppNetworkCall = { id: `call-${this.nextCall++}`, method: request.method(), url: request.url() };
        if (response) call.statusCode = response.status();
        if (timing.responseEnd >= 0) call.durationMs = Math.round(timing.responseEnd);
        const posted = request.postData();
        call.request = capturedMessage(request.headers(), posted, posted === null ? null : Buffer.byteLength(posted));
        if (response) {
          const headers = response.headers();
          const body = await response.body().catch(() => undefined);
          const textual = body !== undefined && isTextual(headers['content-type']);
          call.response = capturedMessage(headers, textual ? body.toString('utf8') : null, body?.length ?? null);
          if (textual && /text\/event-stream/i.test(headers['content-type'] ?? '')) call.sseEvents = sseFrames(body.toString('utf8'));
        }
        this.keep(this.calls, call);
      });
    });
    context.on('requestfailed', (request) => {
      this.keep(this.calls, { id: `call-${this.nextCall++}`, method: request.method(), url: request.url(), error: request.failure()?.errorText ?? 'failed' });
    });
    // What the app loaded before AppReveal started (its page and scripts), as its own timing entries say.
    void device.app.page
      .evaluate(EARLIER_LOADS)
      .then((entries) => {
        const earlier = (Array.isArray(entries) ? entries : []).flatMap((entry): AppNetworkCall[] => {
          const e = entry as { url?: unknown; ms?: unknown; status?: unknown };
          if (typeof e.url !== 'string') return [];
          const call: AppNetworkCall = { id: `call-${this.nextCall++}`, method: 'GET', url: e.url };
          if (typeof e.status === 'number' && e.status > 0) call.statusCode = e.status;
          if (typeof e.ms === 'number') call.durationMs = Math.round(e.ms);
          return [call];
        });
        this.calls.unshift(...earlier.slice(-KEEP));
      })
      .catch(() => undefined);
  }

  // ---- App state (the read-only tools) ---------------------------------------------------------------

  async getState(): Promise<Record<string, unknown>> {
    const { native } = (await this.device.monitor.refresh()).capture;
    const info = screenInfo(native);
    const fields: Record<string, string> = {};
    for (const { node } of locateAll(native)) {
      // What the user typed, as the app's state holds it; a secure field's text never leaves the app.
      if (node.editable && node.id && !node.secure) fields[node.id] = node.value ?? '';
    }
    return { screen: info.screenKey, title: info.screenTitle ?? null, activeTab: info.activeTab ?? null, fields };
  }

  async getNavigationStack(): Promise<AppNavigationStack> {
    const current = await this.device.app.currentScreen();
    const history = (await this.device.app.page.evaluate('window.__demoApp.history()').catch(() => [])) as unknown;
    const stack = Array.isArray(history) ? history.filter((s): s is string => typeof s === 'string') : [];
    return {
      currentRoute: current,
      navigationStack: [...stack, current],
      presentedModals: MODAL_SCREENS.has(current) ? [CONTROLLERS[current] ?? current] : [],
    };
  }

  getFeatureFlags(): Record<string, unknown> {
    const flags: Record<string, unknown> = { checkoutWebView: true, feedPrefetch: true };
    // The demo's faults are what is switched on in this build: shown as the flags they are.
    for (const fault of this.device.faults.list()) flags[`fault.${fault.split('=')[0] ?? fault}`] = true;
    return flags;
  }

  getLogs(): AppLogEntry[] {
    return [...this.logs];
  }

  getNetworkCalls(): AppNetworkCall[] {
    return [...this.calls];
  }

  getNetworkCall(id: string): AppNetworkCall | undefined {
    return this.calls.find((call) => call.id === id);
  }

  getRecentErrors(): AppErrorEntry[] {
    return [...this.errors];
  }

  /** get_view_tree: every native view, flat, its place in the tree given by `depth` (iOS dumpNode). */
  async getViewTree(maxDepth: number): Promise<Array<Record<string, unknown>>> {
    const { native } = (await this.device.monitor.refresh()).capture;
    const located = new Map(locateAll(native).map((entry) => [entry.node, entry]));
    // Which UITextField is the first responder, as `textField.isEditing` says (ElementInventory.swift dumpNode).
    const focused = await this.device.app.focusedField();
    const editingId = focused?.kind === 'native' ? focused.axId : undefined;
    const out: Array<Record<string, unknown>> = [];
    const visit = (node: NativeNode, depth: number): void => {
      if (depth > maxDepth) return;
      const entry = located.get(node);
      const view: Record<string, unknown> = {
        // `String(describing: type(of: view))` (ElementInventory.swift:137): a secure field is a UITextField.
        class: node.cls === 'UISecureTextField' ? 'UITextField' : node.cls,
        frame: frameText(node.rect),
        hidden: entry?.shown === undefined,
        alpha: 1,
        userInteraction: TAPPABLE.has(node.cls) || node.editable === true || node.scrollable === true,
        depth,
      };
      if (node.id) view.accessibilityId = node.id;
      if (node.label) view.accessibilityLabel = node.label;
      // dumpNode writes `isEditing` for every UITextField (a secure one is one too), `isEditable` for a UITextView.
      if (node.cls === 'UITextField' || node.cls === 'UISecureTextField') view.isEditing = node.id !== undefined && node.id === editingId;
      else if (node.editable) view.isEditable = true;
      if (node.cls === 'UISwitch') view.isOn = node.checked === true;
      // As ElementInventory.swift's dumpNode writes them: `accessibilityValue` (line 152, bullets for a secure
      // field, as UIKit reads it) and, for any UITextField, `text: textField.text` (line 160): in clear, a
      // secure field's too. Parallax takes it out on reading (docs/rules.md#r-secret-06).
      const accessibilityValue = node.secure ? bullets(node.value ?? '') : undefined;
      if (accessibilityValue) view.accessibilityValue = accessibilityValue;
      if (node.editable) view.text = node.value ?? '';
      else if (node.value) view.text = node.value;
      out.push(view);
      for (const child of node.children) visit(child, depth + 1);
    };
    if (native.root) visit(native.root, 0);
    return out;
  }

  private keep<T>(list: T[], item: T): void {
    list.push(item);
    if (list.length > KEEP) list.splice(0, list.length - KEEP);
  }

  private log(message: string, level = 'info'): void {
    this.keep(this.logs, { timestamp: new Date().toISOString(), subsystem: LOG_SUBSYSTEM, category: 'ui', level, message });
  }

  /**
   * One action: logged first, and a refusal kept as a recent error. Never logs typed text. Once it has run,
   * `appreveal-action-slow` holds its answer (the effect is done, the reply not sent), as a busy main thread
   * delays a real app's reply past the client's budget; clearing the fault lets it go (holdFor).
   */
  private async logged<T>(message: string, run: () => Promise<T>): Promise<T> {
    this.log(message);
    try {
      const outcome = await run();
      await holdFor(this.device.faults, 'appreveal-action-slow');
      return outcome;
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      this.log(`${message} failed: ${text}`, 'error');
      this.keep(this.errors, { timestamp: new Date().toISOString(), domain: 'AppReveal.InteractionError', message: text });
      throw error;
    }
  }

  // ---- Actions (each logged) -----------------------------------------------------------------------

  tapElement(id: string): Promise<ActionOutcome> {
    return this.logged(`tap ${id}`, () => this.tapElementNow(id));
  }

  tapText(text: string, options: TapTextOptions): Promise<ActionOutcome> {
    return this.logged(`tap text "${text.slice(0, 40)}"`, () => this.tapTextNow(text, options));
  }

  tapPoint(x: number, y: number): Promise<ActionOutcome> {
    return this.logged(`tap at ${Math.round(x)},${Math.round(y)}`, () => this.tapPointNow(x, y));
  }

  typeText(text: string, elementId?: string): Promise<ActionOutcome> {
    return this.logged(`typed ${text.length} characters into ${elementId ?? 'the focused field'}`, () => this.typeTextNow(text, elementId));
  }

  clearText(elementId: string): Promise<ActionOutcome> {
    return this.logged(`cleared ${elementId}`, () => this.clearTextNow(elementId));
  }

  scroll(direction: ScrollDirection, containerId?: string): Promise<ActionOutcome> {
    return this.logged(`scroll ${direction}${containerId ? ` in ${containerId}` : ''}`, () => this.scrollNow(direction, containerId));
  }

  scrollToElement(id: string): Promise<ActionOutcome> {
    return this.logged(`scroll to ${id}`, () => this.scrollToElementNow(id));
  }

  navigateBack(): Promise<ActionOutcome> {
    return this.logged('navigate back', () => this.navigateBackNow());
  }

  /**
   * The demo app routes `parallax-demo://screen/<name>` to that screen. Any other URL is handed on, as
   * UIApplication.open does, and the app stays where it is: the real tool answers success either way.
   */
  openDeeplink(url: string): Promise<ActionOutcome> {
    return this.logged(`open ${url.slice(0, 120)}`, async () => {
      const match = /^parallax-demo:\/\/screen\/([a-z]+)$/.exec(url);
      const screen = SCREENS.find((name) => name === match?.[1]);
      if (screen) await this.device.app.showScreen(screen);
      return undefined;
    });
  }

  webClick(selector: string, webviewId?: string): Promise<unknown> {
    return this.logged(`web click ${selector.slice(0, 80)}`, () => this.webClickNow(selector, webviewId));
  }

  webType(selector: string, text: string, options: WebTypeOptions): Promise<unknown> {
    return this.logged(`web typed ${text.length} characters into ${selector.slice(0, 80)}`, () => this.webTypeNow(selector, text, options));
  }

  // ---- Reads ---------------------------------------------------------------------------------------

  /**
   * The demo's one window. No method here takes a window id: every tool that looks windows up through
   * IOSWindowProvider.windowsForInteraction drops an id it does not know and uses every window, here
   * this one; the four that resolve the id strictly (get_screen, screenshot, navigate_back, scroll
   * without a container) answer an unknown one in tools.ts, before calling here (resolvesWindow there).
   */
  listWindows(): AppRevealWindow[] {
    return [{ id: DEMO_WINDOW_ID, title: DEMO_APP_NAME, isKey: true, frame: { x: 0, y: 0, width: DEVICE_GEOMETRY.width, height: DEVICE_GEOMETRY.height } }];
  }

  async getScreen(): Promise<AppRevealScreenInfo> {
    // Through the monitor, so the runner's frame context moves with what AppReveal saw.
    const { native } = (await this.device.monitor.refresh()).capture;
    return screenInfo(native);
  }

  async getElements(): Promise<AppRevealElement[]> {
    const { native } = (await this.device.monitor.refresh()).capture;
    const located = locateAll(native);
    const elements = located.map(nativeElement).filter((e): e is AppRevealElement => e !== undefined);
    for (const target of this.domTargets(located)) {
      if (DOM_INTERACTIVE_ROLES.has(target.element.role ?? '')) elements.push(domElement(target));
    }
    return elements;
  }

  async screenshot(): Promise<Buffer> {
    // The runner's request_screenshot reads the same way: a pending change is read before the capture.
    if (this.device.monitor.dirty) await this.device.monitor.refresh();
    return Buffer.from(await this.device.app.screenshot(), 'base64');
  }

  // ---- Native actions ------------------------------------------------------------------------------

  private async tapElementNow(id: string): Promise<ActionOutcome> {
    if (id.startsWith(DOM_ELEMENT_PREFIX)) return this.domAction(id, (target) => ({ click: { snapshotId: target.snapshotId, elementId: target.element.id } }));
    const entry = await this.locate(id);
    // InteractionEngine.swift performTap(onView:) asks no isEnabled: it finds the ancestor UIControl and calls
    // `control.sendActions(for: .touchUpInside)`, which runs the control's targets even when it is disabled,
    // and tap_element answers success. The demo's disabled controls (login.passkey, hostile.share) have no
    // action, so sending theirs changes nothing; a pointer tap would not reach them either.
    if (!entry.node.enabled) return undefined;
    await this.tapLocated(entry, id);
    return undefined;
  }

  /**
   * tap_text as iOS AppReveal resolves it (ElementInventory.swift `findElementByText`, the version
   * MCPTools.swift's tap_text calls with `windowId`; lines 58-100 there): every view whose visible text
   * matches, each walked up to its tappable ancestor; no match, no tappable one, an ambiguous match with
   * no `occurrence`, or an `occurrence` out of range each answer in that file's words, the candidates being
   * the matched texts only (`tappableCandidates.map { $0.label }`, strings); a single match is tapped
   * whatever `occurrence` says (`tappableCandidates.count == 1 ? 0 : occurrence`). The success answer is
   * MCPTools.swift's `{"success": true, "text": text}` alone, so no element id is given back.
   */
  private async tapTextNow(text: string, options: TapTextOptions): Promise<ActionOutcome> {
    const wanted = text.trim().toLowerCase();
    const matches = (label: string | undefined): boolean => {
      if (!label || wanted === '') return false;
      const seen = label.trim();
      return options.matchMode === 'contains' ? seen.toLowerCase().includes(wanted) : seen === text.trim();
    };
    const located = locateAll(await this.device.app.captureNative());
    type Candidate = { label: string; tap: () => Promise<unknown> };
    const candidates: Candidate[] = [];
    const taken = new Set<NativeNode>();
    let matched = 0;
    for (const entry of located) {
      const { node } = entry;
      if (node.cls === 'XCUIApplication' || !entry.shown || !matches(node.label)) continue;
      matched++;
      // `findTappableAncestor` (ElementInventory.swift): the view itself or the nearest ancestor that is a
      // UIControl, a cell, or has gesture recognizers (a UIScrollView has its pan recognizer); a text with
      // none is a static label and no candidate. One candidate a view here: the capture has no separate
      // title label inside a button.
      const chosen = TAPPABLE.has(node.cls) || node.scrollable ? entry : nearestTappable(located, entry);
      if (!chosen) continue;
      if (taken.has(chosen.node)) continue;
      taken.add(chosen.node);
      const shown = chosen.shown ?? entry.shown;
      candidates.push({
        label: node.label ?? '',
        tap: () => {
          const { x, y } = centerOf(shown);
          return this.device.app.tap(x, y);
        },
      });
    }
    // Native views only: `collectTextMatches` (ElementInventory.swift, MARK "Text matching") walks
    // `view.subviews` from the window and reads each view's text through `extractText` (a UIButton's title,
    // a UILabel's, a UITextField's placeholder or text, a UITextView's, a child UILabel's, else the
    // accessibilityLabel). A WKWebView's page is no subview and no label, so text inside a web view is not
    // found: web controls are reached by get_elements' DOM ids (tap_element) or web_click.
    // ElementInventory.swift:71-73: nothing on screen shows the text.
    if (matched === 0) throw new Error(`No element with text "${text}" found on the current screen.`);
    const labels = candidates.map((c) => c.label);
    const hint = 'Use occurrence parameter (0-based) to select a specific match';
    const occurrence = options.occurrence ?? -1;
    // ElementInventory.swift:87-92; MCPTools.swift tap_text adds the hint wherever there are candidates.
    if (candidates.length > 1 && occurrence >= candidates.length) {
      throw new AppRevealToolError(`occurrence ${occurrence} out of range (found ${candidates.length} matches)`, { candidates: labels, hint });
    }
    // ElementInventory.swift:94-99.
    if (candidates.length > 1 && occurrence < 0) {
      throw new AppRevealToolError(`Ambiguous: ${candidates.length} matches found. Use occurrence (0-based) to disambiguate.`, { candidates: labels, hint });
    }
    const chosen = candidates[candidates.length === 1 ? 0 : occurrence];
    if (!chosen) throw new Error(`Text "${text}" found but no tappable ancestor. The text is a static label.`);
    await chosen.tap();
    return undefined;
  }

  private async tapPointNow(x: number, y: number): Promise<ActionOutcome> {
    const { width, height } = DEVICE_GEOMETRY;
    if (x < 0 || y < 0 || x >= width || y >= height) throw new Error(`Point ${x},${y} is outside the screen (${width}x${height})`);
    await this.device.app.tap(x, y);
    return undefined;
  }

  private async typeTextNow(text: string, elementId?: string): Promise<ActionOutcome> {
    if (elementId?.startsWith(DOM_ELEMENT_PREFIX)) {
      return this.domAction(elementId, (target) => ({ insertText: { snapshotId: target.snapshotId, elementId: target.element.id, text } }), true);
    }
    const { app } = this.device;
    if (elementId === undefined) {
      // No element: the first responder, whatever has keyboard focus (a web field included).
      const focused = await app.focusedField();
      if (!focused) throw new Error('Element not editable: current responder');
      await app.appendText(text, focused.multiline);
      return undefined;
    }
    const entry = await this.locate(elementId);
    if (!entry.node.editable) throw new Error(`Element not editable: ${elementId}`);
    await this.focus(entry, elementId);
    await app.appendText(text, entry.node.cls === 'UITextView');
    return undefined;
  }

  private async clearTextNow(elementId: string): Promise<ActionOutcome> {
    if (elementId.startsWith(DOM_ELEMENT_PREFIX)) {
      return this.domAction(elementId, (target) => ({ clear: { snapshotId: target.snapshotId, elementId: target.element.id } }), true);
    }
    const entry = await this.locate(elementId);
    if (!entry.node.editable) throw new Error(`Element not editable: ${elementId}`);
    await this.focus(entry, elementId);
    await this.device.app.replaceText('');
    return undefined;
  }

  private async scrollNow(direction: ScrollDirection, containerId?: string): Promise<ActionOutcome> {
    const located = locateAll(await this.device.app.captureNative());
    let scroller: Located | undefined;
    if (containerId !== undefined) {
      // InteractionEngine.swift scroll: `findElement(byId:) as? UIScrollView`, so an id that names nothing and
      // one that names no scroll view both throw `.notScrollable(id)` ("Element not scrollable: …", line 27).
      scroller = located.find((entry) => entry.node.id === containerId);
      if (!scroller?.node.scrollable) throw new Error(`Element not scrollable: ${containerId}`);
    } else {
      scroller = located.find((entry) => entry.node.scrollable && entry.shown);
      if (!scroller) throw new Error('No scroll view found');
    }
    const before = scroller.node.scroll?.top ?? 0;
    await this.scrollBy(scroller, pageDelta(scroller, direction));
    const after = await this.scrollOffset(scroller.node);
    const outcome: Record<string, unknown> = { direction, contentOffset: { x: 0, y: after ?? before } };
    if (scroller.node.id) outcome.container_id = scroller.node.id;
    return outcome;
  }

  private async scrollToElementNow(id: string): Promise<ActionOutcome> {
    const read = async () => locateAll(await this.device.app.captureNative());
    let located = await read();
    if (await this.reveal(located, id)) return undefined;
    // Not built yet: a collection view only has cells near what is on screen. Page through each scroll
    // view the way a user would look for it, and leave it where it was if the element is not there.
    const scrollers = located.filter((entry) => entry.node.scrollable && entry.shown && entry.node.scroll);
    for (const scroller of scrollers) {
      const scroll = scroller.node.scroll;
      if (!scroll) continue;
      const pages = Math.ceil(scroll.height / Math.max(1, scroll.clientHeight * SCROLL_PAGE)) + 1;
      for (const direction of ['down', 'up'] as const) {
        for (let step = 0; step < pages; step++) {
          const current = located.find((entry) => sameScroller(entry.node, scroller.node));
          if (!current) break;
          const delta = pageDelta(current, direction);
          if (delta.dy === 0) break;
          await this.scrollBy(current, delta);
          located = await read();
          if (await this.reveal(located, id)) return undefined;
        }
      }
      const now = located.find((entry) => sameScroller(entry.node, scroller.node));
      if (now?.node.scroll) await this.scrollBy(now, { dx: 0, dy: scroll.top - now.node.scroll.top });
      located = await read();
    }
    throw new Error(`Element not found: ${id}`);
  }

  private async navigateBackNow(): Promise<ActionOutcome> {
    // InteractionEngine.swift navigateBack throws `.noNavigation` ("No navigation controller found", line 29)
    // only where no navigation controller is found; every first screen here sits in its tab's one, and
    // `popViewController` at that root pops nothing and throws nothing, so MCPTools.swift navigate_back
    // answers `{"success": true}` with the screen unchanged.
    await this.device.app.back();
    return undefined;
  }

  // ---- Web view tools ------------------------------------------------------------------------------

  async getWebViews(): Promise<unknown[]> {
    const located = locateAll(await this.device.app.captureNative());
    const entries = new Map(this.device.web.entries().map((entry) => [entry.webViewId, entry]));
    const out: unknown[] = [];
    for (const { node } of located) {
      if (!node.webViewId) continue;
      const frame = this.device.app.webViewFrame(node.webViewId);
      const url = entries.get(node.webViewId)?.url ?? (frame?.url() || node.contentUrl || '');
      const title = frame ? await frame.title().catch(() => '') : '';
      out.push({
        id: node.webViewId,
        url: /^https?:/.test(url) ? url : '',
        title,
        isLoading: false,
        frame: frameText(node.rect),
        bridge: entries.has(node.webViewId),
      });
    }
    return out;
  }

  async getDomInteractive(webviewId?: string): Promise<unknown> {
    const { webViewId, frame } = await this.webViewOnScreen(webviewId);
    const joined = await this.readDom(webViewId, frame, undefined, 500, true);
    const elements = joined.map(({ node, element }) => {
      const out: Record<string, unknown> = {
        tag: node.tag,
        rect: { x: Math.round(node.bounds[0]), y: Math.round(node.bounds[1]), w: Math.round(node.bounds[2]), h: Math.round(node.bounds[3]) },
        selector: node.selector,
      };
      for (const key of ['id', 'name', 'type', 'placeholder', 'ariaLabel', 'text'] as const) if (node[key] !== undefined) out[key] = node[key];
      if (node.disabled) out.disabled = true;
      if (element.label) out.label = element.label;
      if (node.type === 'checkbox' || node.type === 'radio') out.checked = element.value === 'true';
      // `if (node.value) el.value = node.value.substring(0, 200)` (DOMSerializer.swift:85): the page's own
      // value, a password input's in clear; Parallax takes it out on reading (docs/rules.md#r-secret-07).
      else if (node.value !== undefined) out.value = node.value;
      return out;
    });
    return { elements, count: elements.length };
  }

  private async webClickNow(selector: string, webviewId?: string): Promise<unknown> {
    const { webViewId, frame } = await this.webViewOnScreen(webviewId);
    const resolved = await this.resolveSelector(webViewId, frame, selector);
    // DOMSerializer.swift clickJS: `if (!el) return JSON.stringify({error:'Element not found: ' + selector})`,
    // the page script's answer, which web_click wraps in `result` as a string.
    if (!resolved) return { error: `Element not found: ${selector}` };
    const { node, element, snapshotId } = resolved;
    await this.performWeb(webViewId, { click: { snapshotId, elementId: element.id } });
    return { success: true, tag: node.tag, ...(node.text !== undefined ? { text: node.text } : {}) };
  }

  private async webTypeNow(selector: string, text: string, options: WebTypeOptions): Promise<unknown> {
    const { webViewId, frame } = await this.webViewOnScreen(options.webviewId);
    const resolved = await this.resolveSelector(webViewId, frame, selector);
    // DOMSerializer.swift typeJS: the same `{error:'Element not found: …'}` before anything is touched.
    if (!resolved) return { error: `Element not found: ${selector}` };
    const { element, snapshotId } = resolved;
    // typeJS calls HTMLInputElement's value setter on the element: on one that is no input that throws
    // ("Illegal invocation"), so evaluateJavaScript fails with the page's exception.
    if (!domEditable(element)) throw new Error(JS_EXCEPTION);
    if (options.clear) await this.performWeb(webViewId, { clear: { snapshotId, elementId: element.id } });
    // A clear posts a new snapshot; the insert names the latest one so the bridge does not call it stale.
    const latest = this.device.web.snapshot(webViewId);
    const current = latest.ok ? latest.snapshot.snapshotId : snapshotId;
    await this.performWeb(webViewId, { insertText: { snapshotId: current, elementId: element.id, text } });
    // As DOMSerializer.swift typeJS answers: `{success:true, value:el.value}`, the whole field's value read
    // back from the page, a password input's in clear (WebViewTools.swift web_type wraps it in `result`).
    const [after] = await this.readNodes(frame, selector, 1, true);
    return { success: true, value: after?.value ?? '' };
  }

  // ---- Internals -----------------------------------------------------------------------------------

  /** A native view by accessibility identifier, read now. */
  private async locate(id: string): Promise<Located> {
    const entry = locateAll(await this.device.app.captureNative()).find((e) => e.node.id === id);
    if (!entry) throw new Error(`Element not found: ${id}`);
    return entry;
  }

  /** A real tap at the middle of the part of the view that shows; out of sight, the demo's own text (docs/protocol.md#p-ar-ios-errors). */
  private async tapLocated(entry: Located, id: string): Promise<void> {
    if (!entry.shown) throw new Error(`Element is not on screen: ${id} (scroll_to_element first)`);
    const { x, y } = centerOf(entry.shown);
    await this.device.app.tap(x, y);
  }

  /** Gives a text field keyboard focus the way a user does: a tap, unless it already has it; failing, the demo's own text (docs/protocol.md#p-ar-ios-errors). */
  private async focus(entry: Located, id: string): Promise<void> {
    const focused = await this.device.app.focusedField();
    if (focused?.kind === 'native' && focused.axId === id) return;
    await this.tapLocated(entry, id);
    const now = await this.device.app.focusedField();
    if (now?.kind !== 'native' || now.axId !== id) throw new Error(`Element did not take focus: ${id}`);
  }

  /** Scrolls the element's scroll view until the element is wholly in view; false when it is not built. */
  private async reveal(located: Located[], id: string): Promise<boolean> {
    const entry = located.find((e) => e.node.id === id);
    if (!entry) return false;
    const parent = entry.ancestors.find((a) => a.scrollable);
    const scroller = parent ? located.find((e) => e.node === parent) : undefined;
    const viewport = scroller?.viewport;
    if (!scroller || !viewport) return true;
    const [, y, , h] = entry.node.rect;
    const top = viewport[1];
    const bottom = viewport[1] + viewport[3];
    // scrollRectToVisible: the least movement that brings the whole rect in.
    const dy = y < top ? y - top : y + h > bottom ? Math.min(y + h - bottom, y - top) : 0;
    if (dy !== 0) await this.scrollBy(scroller, { dx: 0, dy });
    return true;
  }

  /** setContentOffset by a delta; a scroll view without an identifier gets a finger drag instead. */
  private async scrollBy(scroller: Located, delta: { dx: number; dy: number }): Promise<void> {
    const { app } = this.device;
    if (delta.dx === 0 && delta.dy === 0) return;
    if (scroller.node.id && (await app.scrollViewBy(scroller.node.id, delta.dx, delta.dy))) return;
    const area = scroller.viewport ?? scroller.shown;
    if (!area) throw new Error('The scroll view is not on screen');
    const { x, y } = centerOf(area);
    await app.swipe(x, y, x - delta.dx, y - delta.dy, 300);
  }

  private async scrollOffset(node: NativeNode): Promise<number | undefined> {
    const now = locateAll(await this.device.app.captureNative()).find((entry) => sameScroller(entry.node, node));
    return now?.node.scroll?.top;
  }

  /** The web view controls the bridge describes, placed on screen; none for a web view not on screen. */
  private domTargets(located: Located[]): DomTarget[] {
    const out: DomTarget[] = [];
    for (const entry of located) {
      const { node } = entry;
      if (!node.webViewId || !entry.shown) continue;
      const read = this.device.web.snapshot(node.webViewId);
      if (!read.ok) continue;
      const [ox, oy] = node.contentOrigin ?? [node.rect[0], node.rect[1]];
      for (const element of read.snapshot.elements) {
        const [x, y, w, h] = element.bounds;
        const frame: Rect = [x + ox, y + oy, w, h];
        const target: DomTarget = { webViewId: node.webViewId, snapshotId: read.snapshot.snapshotId, element, frame };
        const shown = entry.viewport ? intersect(frame, entry.viewport) : undefined;
        if (shown) target.shown = shown;
        out.push(target);
      }
    }
    return out;
  }

  /** A DOM-backed element (from get_elements) driven by one bounded bridge action. */
  private async domAction(id: string, action: (target: DomTarget) => WebControlAction, needsText = false): Promise<ActionOutcome> {
    const targets = this.domTargets(locateAll(await this.device.app.captureNative()));
    const target = targets.find((t) => domElementId(t.webViewId, t.element) === id);
    if (!target) throw new Error(`Element not found: ${id}`);
    if (needsText && !domEditable(target.element)) throw new Error(`Element not editable: ${id}`);
    await this.performWeb(target.webViewId, action(target));
    return undefined;
  }

  private async performWeb(webViewId: string, action: WebControlAction): Promise<void> {
    const result = await this.device.web.perform(webViewId, action);
    if (!result.success) {
      const reason = result.reason ?? 'rejected';
      throw new AppRevealToolError(`The web view refused the action: ${reason}`, { reason });
    }
  }

  /** The named web view, or the first on screen; only one that is on screen now can be driven. */
  private async webViewOnScreen(webviewId: string | undefined): Promise<{ webViewId: string; frame: Frame }> {
    const located = locateAll(await this.device.app.captureNative());
    const onScreen = located.filter((entry) => entry.node.webViewId && entry.shown).map((entry) => entry.node.webViewId as string);
    const webViewId = webviewId ?? onScreen[0];
    // WebViewBridge.swift evaluate: no such web view (or none at all) throws `.notFound(webViewId ?? "default")`,
    // "WebView not found: …" (its errorDescription), which WebViewTools.swift answers as `{"error": …}`.
    if (webViewId === undefined || !onScreen.includes(webViewId)) throw new Error(`WebView not found: ${webviewId ?? 'default'}`);
    if (!this.device.web.isRegistered(webViewId)) throw new Error(`Web view ${webViewId} has no web view bridge`);
    const frame = this.device.app.webViewFrame(webViewId);
    if (!frame) throw new Error(`Web view ${webViewId} has no content`);
    return { webViewId, frame };
  }

  private async readNodes(frame: Frame, selector: string | undefined, limit: number, values = false): Promise<DomNode[]> {
    let raw: unknown;
    try {
      raw = await frame.evaluate(`${DOM_READ_SCRIPT}(${JSON.stringify({ selector: selector ?? null, limit, values })})`);
    } catch {
      throw new Error('The web view is not responding');
    }
    const read = raw as { invalid?: boolean; nodes?: DomNode[] } | null;
    // A selector querySelector rejects throws in the page: WKWebView's evaluateJavaScript fails with
    // WKError.javaScriptExceptionOccurred, whose localizedDescription WebViewTools.swift answers as `{"error": …}`.
    if (read?.invalid) throw new Error(JS_EXCEPTION);
    return Array.isArray(read?.nodes) ? read.nodes : [];
  }

  /**
   * DOM nodes joined to the bridge's latest snapshot by their boxes. A snapshot trails the page by up to
   * 100 ms (the bridge coalesces), so a box the snapshot does not have yet is read again shortly.
   */
  private async readDom(
    webViewId: string,
    frame: Frame,
    selector: string | undefined,
    limit: number,
    values = false,
  ): Promise<Array<{ node: DomNode; element: WebElement; snapshotId: string }>> {
    for (let attempt = 0; ; attempt++) {
      const snapshot = this.device.web.snapshot(webViewId);
      if (!snapshot.ok) throw new AppRevealToolError(`The web view bridge has no snapshot: ${snapshot.failure}`, { reason: snapshot.failure });
      const nodes = (await this.readNodes(frame, selector, limit, values)).filter((node) => node.bounds[2] > 0 && node.bounds[3] > 0);
      const joined: Array<{ node: DomNode; element: WebElement; snapshotId: string }> = [];
      let missing = 0;
      for (const node of nodes) {
        const boxes = snapshot.snapshot.elements.filter((e) => sameBounds(e.bounds, node.bounds));
        const roles = roleForTag(node);
        const element = boxes.find((e) => roles.includes(e.role ?? '')) ?? boxes.find((e) => DOM_INTERACTIVE_ROLES.has(e.role ?? ''));
        if (element) joined.push({ node, element, snapshotId: snapshot.snapshot.snapshotId });
        else missing++;
      }
      if (missing === 0 || attempt >= 10) return joined;
      await sleep(50);
    }
  }

  /** The selector's first node and its bridge element; undefined when the page has none (the script's own answer). */
  private async resolveSelector(
    webViewId: string,
    frame: Frame,
    selector: string,
  ): Promise<{ node: DomNode; element: WebElement; snapshotId: string } | undefined> {
    // querySelector('') throws a SyntaxError in the page, as any selector it cannot parse.
    if (selector.trim() === '') throw new Error(JS_EXCEPTION);
    const nodes = await this.readNodes(frame, selector, 1);
    if (nodes.length === 0) return undefined;
    const [first] = await this.readDom(webViewId, frame, selector, 1);
    if (!first) throw new Error(`Element is not visible to the web view bridge: ${selector}`);
    return first;
  }
}

// ---- Helpers -----------------------------------------------------------------------------------------

function nearestTappable(located: Located[], entry: Located): Located | undefined {
  const ancestor = entry.ancestors.find((a) => TAPPABLE.has(a.cls) || a.scrollable === true);
  return ancestor ? located.find((e) => e.node === ancestor) : undefined;
}

function sameScroller(a: NativeNode, b: NativeNode): boolean {
  return a.scrollable === true && (a.id !== undefined ? a.id === b.id : a.cls === b.cls && sameBounds(a.rect, b.rect));
}

/** One page (80% of what shows) in a direction, clamped to the content like setContentOffset. */
function pageDelta(scroller: Located, direction: ScrollDirection): { dx: number; dy: number } {
  const area = scroller.viewport ?? scroller.node.rect;
  if (direction === 'left' || direction === 'right') {
    const step = area[2] * SCROLL_PAGE;
    return { dx: direction === 'right' ? step : -step, dy: 0 };
  }
  const step = area[3] * SCROLL_PAGE;
  const scroll = scroller.node.scroll;
  if (!scroll) return { dx: 0, dy: direction === 'down' ? step : -step };
  const max = Math.max(0, scroll.height - scroll.clientHeight);
  const target = Math.min(max, Math.max(0, scroll.top + (direction === 'down' ? step : -step)));
  return { dx: 0, dy: Math.round(target - scroll.top) };
}

function screenInfo(native: NativeCapture): AppRevealScreenInfo {
  const key = native.screen ?? 'unknown';
  const screenNode = native.root ? findNode(native.root, (node) => node.id === `screen.${key}`) : undefined;
  const navBar = screenNode ? findNode(screenNode, (node) => node.cls === 'UINavigationBar') : undefined;
  const heading = navBar ? findNode(navBar, (node) => node.cls === 'UILabel') : undefined;
  const selectedTab = native.root ? findNode(native.root, (node) => node.cls === 'UIButton' && node.selected && (node.id ?? '').startsWith('tab.')) : undefined;
  const controller = CONTROLLERS[key] ?? 'UIViewController';
  const title = heading?.label ?? navBar?.id ?? selectedTab?.label ?? key;
  const modal = MODAL_SCREENS.has(key);
  const info: AppRevealScreenInfo = {
    screenKey: key,
    screenTitle: title,
    frameworkType: 'uikit',
    // A pushed screen sits in its tab's navigation controller; a full-screen presentation has no parent.
    controllerChain: modal ? [controller] : ['UITabBarController', 'UINavigationController', controller],
    navigationDepth: modal ? 0 : 1,
    presentedModals: modal ? [controller] : [],
    confidence: native.screen ? 1 : 0,
    source: native.screen ? 'explicit' : 'derived',
    // The tab's title rather than its controller's class name: every tab here is a UINavigationController.
    activeTab: selectedTab?.label,
    appBarTitle: navBar ? title : undefined,
  };
  return info;
}
