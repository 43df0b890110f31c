/**
 * The rendered demo app: one Chromium page that plays the iPhone screen.
 *
 * Everything that touches the page goes through here: reading the screen, screenshots, and input.
 * Input is real (CDP touch events, Playwright's keyboard), serialised so two gestures never interleave,
 * which a real touch screen could not do either.
 *
 * Calls into the page never carry code built from a request: the evaluated scripts are fixed, and data
 * goes in as JSON literals.
 *
 * Over 500 lines on purpose: the page is one resource with one queue, and every call that touches it
 * (reads, screenshots, touches, keys) must go through that queue; split apart, the queue would leak.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { EventEmitter } from 'node:events';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, CDPSession, Frame, Page } from 'playwright-core';
import { APP_ORIGIN, DEVICE_GEOMETRY, newDeviceContext } from './browser';
import {
  decodeNativeCapture,
  NativeCaptureSchema,
  WebCaptureSchema,
  walkNative,
  type NativeCapture,
  type NativeDecode,
  type NativeNode,
  type ScreenCapture,
  type WebCapture,
} from './capture-model';
import { ScreenPicture } from './picture';
import { rememberReadDigest } from './frame-context';
import { FlatTree } from './flat-tree';
import { pngSize } from '@shared/protocol/png';

export const SCREENS = ['login', 'feed', 'checkout', 'hostile', 'edges', 'heavy', 'access'] as const;
/** The heavy screen's size when nobody asks for another (docs/rules.md#r-perf-01). */
export const DEFAULT_HEAVY_NODES = 50_000;
/** The range the heavy screen can be built in: from one tile to four times the issue's 50,000. */
export const HEAVY_NODES_RANGE = { min: 61, max: 200_000 } as const;
export type ScreenName = (typeof SCREENS)[number];
export const isScreenName = (name: string): name is ScreenName => (SCREENS as readonly string[]).includes(name);

/** Hooks for the web view bridge's page script (bindings exist before any document loads). */
export interface WebBridgeHooks {
  hello(frame: Frame, documentId: unknown): unknown;
  post(frame: Frame, message: unknown): void;
}

/** What is focused for text entry: a native field, a web field inside a web view, or nothing. */
export type FocusedField = { kind: 'native'; multiline: boolean; axId?: string } | { kind: 'web'; webViewId: string; multiline: boolean } | null;

/** A sliced read's text comes over in pieces of about this many characters (docs/rules.md#r-perf-10). */
const TRANSFER_CHUNK = 512 * 1024;
/** How long the page writes a sliced read's views out before it lets the page draw. */
const WRITE_SLICE_MS = 8;
/** The longest read text taken: four times a 200,000-view heavy screen's. */
const MAX_READ_CHARS = 96 * 1024 * 1024;

/** The previous approach's decode, in one go (benches compare it: AppPage.slicedReads). */
function oneTaskDecode(raw: unknown): NativeDecode {
  const parsed = NativeCaptureSchema.safeParse(raw);
  return parsed.success ? { ok: true, capture: parsed.data } : { ok: false, issue: parsed.error.issues[0]?.message ?? 'invalid' };
}

/** The longest an input waits for the frame after it. */
const SETTLE_LIMIT_MS = 250;
/** The longest a screenshot holds the input chain. */
const SCREENSHOT_LIMIT_MS = 4_000;

/** Key names a runner client sends, mapped to Playwright key names. */
const KEY_NAMES: Record<string, string> = {
  tab: 'Tab',
  enter: 'Enter',
  return: 'Enter',
  backspace: 'Backspace',
  delete: 'Backspace',
  forwarddelete: 'Delete',
  escape: 'Escape',
  space: ' ',
  up: 'ArrowUp',
  down: 'ArrowDown',
  left: 'ArrowLeft',
  right: 'ArrowRight',
  arrowup: 'ArrowUp',
  arrowdown: 'ArrowDown',
  arrowleft: 'ArrowLeft',
  arrowright: 'ArrowRight',
  home: 'Home',
  end: 'End',
  pageup: 'PageUp',
  pagedown: 'PageDown',
};

export function playwrightKey(key: string): string | undefined {
  const mapped = KEY_NAMES[key.toLowerCase()];
  if (mapped) return mapped;
  // A single printable character types itself.
  return [...key].length === 1 && key >= ' ' ? key : undefined;
}

/**
 * The session captures go through. A browser that draws at the phone's scale
 * (DEVICE_LAUNCH_ARGS) captures its own surface, 1206 x 2622, as drawn. Any other (a browser launched
 * without the flag) captures at 1x unless the session emulates 3x, and then Chromium rasters the page
 * again at 3x for every capture and back after it: slower, and a redraw the damage probe counts as a
 * change, so a kept picture is rarely answered again (docs/rules.md#r-perf-05).
 */
async function captureSession(context: BrowserContext, page: Page): Promise<CDPSession> {
  const session = await context.newCDPSession(page);
  const trial = await session.send('Page.captureScreenshot', { format: 'png', optimizeForSpeed: true });
  if (pngSize(Buffer.from(trial.data, 'base64'))?.width === DEVICE_GEOMETRY.width * DEVICE_GEOMETRY.scale) return session;
  await session.send('Emulation.setDeviceMetricsOverride', {
    width: DEVICE_GEOMETRY.width,
    height: DEVICE_GEOMETRY.height,
    deviceScaleFactor: DEVICE_GEOMETRY.scale,
    mobile: true,
    screenWidth: DEVICE_GEOMETRY.width,
    screenHeight: DEVICE_GEOMETRY.height,
  });
  return session;
}

export class AppPage extends EventEmitter<{ changed: [] }> {
  private inputChain: Promise<unknown> = Promise.resolve();
  private webHooks: WebBridgeHooks | undefined;
  private closed = false;
  /** How many views the heavy screen is built with; a relaunch builds it again at the same size. */
  private heavyNodes = DEFAULT_HEAVY_NODES;
  /**
   * Moves with every change the app could show: the page's own change notifications (DOM, scroll,
   * input, focus: ax-notifier.js) and every input or app control made through here, before and after.
   */
  private version = 0;
  /** The native capture of one version: readers of an unchanged screen share it instead of reading 50,000 views again. */
  private nativeCapture: { version: number; capture: Promise<NativeCapture> } | undefined;

  /** The session captures go through, chosen at the first capture (a blank page may not capture yet). */
  private shots: Promise<CDPSession> | undefined;

  /** The last picture, kept while Chromium draws nothing new (picture.ts). */
  readonly picture: ScreenPicture;

  private constructor(
    readonly context: BrowserContext,
    readonly page: Page,
    private readonly cdp: CDPSession,
    probe: CDPSession,
    private readonly introspectSource: string,
  ) {
    super();
    this.picture = new ScreenPicture(probe, async () => {
      const data = await this.captureScreenshot();
      // The mapping comes back with the next frame, not with the reply: the next touch waits for it.
      await this.settle();
      return data;
    });
  }

  /** Something the app shows may have changed: the kept capture and the kept picture are retired. */
  private changed(): void {
    this.version++;
    this.picture.touched();
  }

  /**
   * Creates the page with its bindings and injected scripts, but loads nothing yet: the web bridge
   * must be listening before the first web document posts its snapshot.
   */
  static async create(browser: Browser, appDir: string): Promise<AppPage> {
    const context = await newDeviceContext(browser, appDir);
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    // introspect.js is one function expression; the formatter ends it with a semicolon, which cannot sit inside `(…)(args)`.
    const introspect = readFileSync(join(appDir, 'introspect.js'), 'utf8').trim().replace(/;$/, '');
    // The damage probe has a session of its own, so its frames never share one with input or captures.
    const probe = await context.newCDPSession(page);
    const app = new AppPage(context, page, cdp, probe, introspect);
    // Bindings first, then the scripts that use them (init scripts run in registration order).
    await page.exposeBinding('__parallaxAxChanged', () => {
      app.changed();
      if (!app.closed) app.emit('changed');
    });
    await page.exposeBinding('__autoMobileWebBridgeHello', (source, documentId: unknown) => app.webHooks?.hello(source.frame, documentId));
    await page.exposeBinding('__autoMobileWebBridgePost', (source, message: unknown) => {
      app.webHooks?.post(source.frame, message);
    });
    // The probe outlives navigations (a relaunch): started once, here.
    await app.picture.start();
    await context.addInitScript({ path: join(appDir, 'ax-notifier.js') });
    await context.addInitScript({ path: join(appDir, 'webview-bridge.js') });
    return app;
  }

  setWebBridgeHooks(hooks: WebBridgeHooks): void {
    this.webHooks = hooks;
  }

  async load(screen: ScreenName = 'login'): Promise<void> {
    this.changed();
    await this.page.goto(`${APP_ORIGIN}/`, { waitUntil: 'load' });
    this.changed();
    if (this.heavyNodes !== DEFAULT_HEAVY_NODES) await this.control(`window.__demoApp.setHeavyNodes(${JSON.stringify(this.heavyNodes)})`);
    if (screen !== 'login') await this.showScreen(screen);
  }

  /** Sizes the heavy screen (built, or built again, when it shows). */
  async setHeavyNodes(nodes: number): Promise<void> {
    if (!Number.isInteger(nodes) || nodes < HEAVY_NODES_RANGE.min || nodes > HEAVY_NODES_RANGE.max) {
      throw new Error(`the heavy screen takes ${HEAVY_NODES_RANGE.min} to ${HEAVY_NODES_RANGE.max} nodes, not ${nodes}`);
    }
    this.heavyNodes = nodes;
    // Before the first load there is no app yet: load() applies the size.
    if (this.page.url().startsWith(APP_ORIGIN)) await this.control(`window.__demoApp.setHeavyNodes(${JSON.stringify(nodes)})`);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.context.close().catch(() => {});
  }

  // ---- Reading the screen ---------------------------------------------------------------------------

  /**
   * Whether native reads are sliced, yielding to the page so it keeps drawing (docs/rules.md#r-perf-10).
   * Off only for benches that compare with the previous approach, a read in one task.
   */
  slicedReads = true;
  /** Names the page-side slot each sliced read's text waits in while it is fetched. */
  private reads = 0;

  /** A web view's content, or an unsliced native read (the previous approach), in one evaluate. */
  private async introspectInOneTask(frame: Frame, mode: 'native' | 'web'): Promise<{ raw: unknown; text: string | undefined }> {
    // As one JSON string: Playwright's own value serializer takes seconds over a heavy screen's 50,000
    // views (7.3 s against 0.6 s measured), JSON.stringify in the page and JSON.parse here do not.
    const text = await frame.evaluate(`JSON.stringify((${this.introspectSource})(${JSON.stringify({ mode, sliced: false })}))`);
    return typeof text === 'string' ? { raw: JSON.parse(text), text } : { raw: text, text: undefined };
  }

  /**
   * A sliced native read (docs/rules.md#r-perf-10), and the digest of the text it came over as (the
   * frame's fingerprint, frame-context.ts). Nothing on either side handles the whole 5.7 MB of a heavy
   * screen in one task: the page writes its views out one by one in slices (a JSON.stringify of the whole
   * read held the page, and its picture, for hundreds of milliseconds), as flat records (a view with the
   * number of its children, in depth-first order) in pieces of about TRANSFER_CHUNK characters, each a JSON
   * text of its own; here each piece is parsed, hashed and put back into the tree as it comes, one piece a
   * turn (a JSON.parse of the whole text held the device's event loop for 100-400 ms).
   */
  private async introspectSliced(frame: Frame): Promise<{ raw: unknown; digest: string }> {
    const slot = JSON.stringify(`read${++this.reads}`);
    const head = (await frame.evaluate(
      `Promise.resolve((${this.introspectSource})(${JSON.stringify({ mode: 'native', sliced: true })})).then(async (read) => {
        const tick = () => new Promise((resolve) => {
          const channel = new MessageChannel();
          channel.port1.onmessage = () => resolve();
          channel.port2.postMessage(null);
        });
        const root = read.root;
        read.root = null;
        const shell = JSON.stringify(read);
        const pieces = [];
        let piece = '';
        let chars = shell.length;
        const pending = root ? [root] : [];
        let deadline = performance.now() + ${WRITE_SLICE_MS};
        while (pending.length) {
          const node = pending.pop();
          const children = node.children;
          node.children = children.length;
          piece += (piece ? ',' : '') + JSON.stringify(node);
          for (let i = children.length - 1; i >= 0; i--) pending.push(children[i]);
          if (piece.length >= ${TRANSFER_CHUNK}) {
            pieces.push('[' + piece + ']');
            chars += piece.length + 2;
            piece = '';
          }
          if (pending.length && performance.now() >= deadline) {
            await tick();
            deadline = performance.now() + ${WRITE_SLICE_MS};
          }
        }
        if (piece) {
          pieces.push('[' + piece + ']');
          chars += piece.length + 2;
        }
        if (pieces.length > 1) (window.__parallaxReads ||= {})[${slot}] = pieces;
        return { shell, chars, count: pieces.length, first: pieces[0] ?? null };
      })`,
    )) as { shell: string; chars: number; count: number; first: string | null };
    try {
      if (head.chars > MAX_READ_CHARS) throw new Error(`the app page returned a screen of ${head.chars} characters, over the ${MAX_READ_CHARS} a read takes`);
      const hash = createHash('sha256').update(head.shell);
      const shell = JSON.parse(head.shell) as Record<string, unknown>;
      const tree = new FlatTree();
      for (let at = 0; at < head.count; at++) {
        const piece = at === 0 ? head.first : await frame.evaluate(`((window.__parallaxReads || {})[${slot}] ?? null)?.[${at}] ?? null`);
        // A new document (a relaunch) has no slot: readNative reads it again, as after any navigation.
        if (typeof piece !== 'string') throw new Error('the app page navigated while it sent a screen');
        hash.update('\u0000').update(piece);
        tree.add(JSON.parse(piece));
        // The next piece is fetched in a turn of its own even when the page answers at once.
        if (at + 1 < head.count) await new Promise((resolve) => setImmediate(resolve));
      }
      return { raw: { ...shell, root: tree.finish() }, digest: hash.digest('hex') };
    } finally {
      if (head.count > 1) await frame.evaluate(`delete (window.__parallaxReads || {})[${slot}]`).catch(() => {});
    }
  }

  /**
   * The native views as they are now. A screen that has not changed since the last capture (no change
   * notification, no input, no app control in between) is that capture, shared: the page reads the
   * same thing again otherwise. Anything that could change what is drawn moves the version.
   */
  captureNative(): Promise<NativeCapture> {
    const cached = this.nativeCapture;
    if (cached && cached.version === this.version) return cached.capture;
    const entry = { version: this.version, capture: this.readNative() };
    this.nativeCapture = entry;
    entry.capture.catch(() => {
      if (this.nativeCapture === entry) this.nativeCapture = undefined;
    });
    return entry.capture;
  }

  private async readNative(): Promise<NativeCapture> {
    let raw: unknown;
    let digest: string;
    for (let attempt = 0; ; attempt++) {
      try {
        if (this.slicedReads) ({ raw, digest } = await this.introspectSliced(this.page.mainFrame()));
        else {
          const read = await this.introspectInOneTask(this.page.mainFrame(), 'native');
          raw = read.raw;
          digest = createHash('sha256')
            .update(read.text ?? JSON.stringify(read.raw))
            .digest('hex');
        }
        break;
      } catch (error) {
        // A relaunch replaces the document under a read; read the new one once it is there.
        if (attempt >= 5 || this.closed || !/context was destroyed|navigat/i.test(String(error))) throw error;
        await this.page.waitForLoadState('domcontentloaded').catch(() => {});
        await sleep(20);
      }
    }
    // A sliced read is decoded in slices as well: the device answers screenshots meanwhile.
    const decoded = this.slicedReads ? await decodeNativeCapture(raw) : oneTaskDecode(raw);
    if (!decoded.ok) throw new Error(`the app page returned an unreadable screen: ${decoded.issue}`);
    rememberReadDigest(decoded.capture, digest);
    return decoded.capture;
  }

  async captureWeb(webViewId: string): Promise<WebCapture | undefined> {
    const frame = this.webViewFrame(webViewId);
    if (!frame) return undefined;
    try {
      const parsed = WebCaptureSchema.safeParse((await this.introspectInOneTask(frame, 'web')).raw);
      return parsed.success ? parsed.data : undefined;
    } catch {
      // A document being replaced has no content to read yet.
      return undefined;
    }
  }

  /** The native views plus the content of every web view on screen. */
  async capture(): Promise<ScreenCapture> {
    const native = await this.captureNative();
    const webViewIds: string[] = [];
    if (native.root) {
      walkNative(native.root, (node) => {
        if (node.webViewId) webViewIds.push(node.webViewId);
      });
    }
    const web: Record<string, WebCapture> = {};
    await Promise.all(
      webViewIds.map(async (id) => {
        const content = await this.captureWeb(id);
        if (content) web[id] = content;
      }),
    );
    return { native, web, takenAt: Date.now() };
  }

  webViewFrame(webViewId: string): Frame | undefined {
    return this.page.frames().find((frame) => frame.name() === `wkwebview:${webViewId}` && frame.parentFrame() === this.page.mainFrame());
  }

  /** The web view id a frame is the main frame of, if any. */
  webViewIdOf(frame: Frame): string | undefined {
    if (frame.parentFrame() !== this.page.mainFrame()) return undefined;
    const name = frame.name();
    return name.startsWith('wkwebview:') ? name.slice('wkwebview:'.length) : undefined;
  }

  /**
   * A screenshot takes its turn with input, so it shows settled input. On a session that emulates the
   * scale (captureSession's fallback), Chromium also maps touch points at 1/deviceScaleFactor while a
   * capture is in flight, and two captures in flight together leave that mapping behind for every later
   * touch: a tap beside a concurrent screenshot (live mode, another client) would land elsewhere.
   */
  screenshot(): Promise<string> {
    return this.inTurn(() => this.picture.take());
  }

  private async captureScreenshot(): Promise<string> {
    // Bounded, so one capture that never answers cannot hold every later input behind it.
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('the screenshot got no answer')), SCREENSHOT_LIMIT_MS);
    });
    try {
      if (!this.shots) {
        const chosen = captureSession(this.context, this.page);
        this.shots = chosen;
        // A failed choice is made again at the next capture.
        chosen.catch(() => {
          if (this.shots === chosen) this.shots = undefined;
        });
      }
      const shots = this.shots;
      const shot = await Promise.race([shots.then((session) => session.send('Page.captureScreenshot', { format: 'png', optimizeForSpeed: true })), limit]);
      return shot.data;
    } finally {
      clearTimeout(timer);
    }
  }

  async focusedField(): Promise<FocusedField> {
    const native = (await this.page.evaluate(`(() => {
      const a = document.activeElement;
      if (!a || a === document.body) return null;
      if (a.tagName === 'IFRAME') return { frame: a.name };
      const text = a.matches('textarea, [contenteditable=""], [contenteditable="true"], input:not([type=checkbox]):not([type=radio]):not([type=button]):not([type=submit])');
      return text ? { multiline: a.tagName === 'TEXTAREA', axId: a.dataset.axId } : null;
    })()`)) as { frame?: string; multiline?: boolean; axId?: string } | null;
    if (!native) return null;
    if (native.frame === undefined) {
      const field: FocusedField = { kind: 'native', multiline: !!native.multiline };
      if (native.axId) field.axId = native.axId;
      return field;
    }
    const webViewId = native.frame.startsWith('wkwebview:') ? native.frame.slice('wkwebview:'.length) : undefined;
    const frame = webViewId ? this.webViewFrame(webViewId) : undefined;
    if (!frame || !webViewId) return null;
    const web = (await frame
      .evaluate(
        `(() => {
        const a = document.activeElement;
        if (!a || a === document.body) return null;
        const text = a.isContentEditable || a.matches('textarea, input:not([type=checkbox]):not([type=radio]):not([type=button]):not([type=submit])');
        return text ? { multiline: a.tagName === 'TEXTAREA' || a.isContentEditable } : null;
      })()`,
      )
      .catch(() => null)) as { multiline: boolean } | null;
    return web ? { kind: 'web', webViewId, multiline: web.multiline } : null;
  }

  /** Centre of the native view with this accessibility identifier, if it is on screen. */
  async centerOf(axId: string): Promise<{ x: number; y: number } | undefined> {
    const native = await this.captureNative();
    let found: NativeNode | undefined;
    if (native.root) {
      walkNative(native.root, (node) => {
        if (!found && node.id === axId) found = node;
        return !found;
      });
    }
    if (!found) return undefined;
    const [x, y, w, h] = found.rect;
    return { x: x + w / 2, y: y + h / 2 };
  }

  // ---- App control (the app's own API, as a launch argument or deep link would drive it) -------------

  async showScreen(screen: ScreenName): Promise<void> {
    await this.control(`window.__demoApp.showScreen(${JSON.stringify(screen)})`);
  }

  /**
   * An app control (not input): what it changes is read afresh. The page counts controls
   * (`__parallaxControls`): a sliced read under way starts again, since a control may change what no
   * DOM mutation or event shows, a field's value (docs/rules.md#r-perf-10).
   */
  private async control(script: string): Promise<unknown> {
    this.changed();
    try {
      return await this.page.evaluate(`(window.__parallaxControls = (window.__parallaxControls || 0) + 1, ${script})`);
    } finally {
      this.changed();
    }
  }

  async currentScreen(): Promise<string> {
    return String(await this.page.evaluate('window.__demoApp.currentScreen()'));
  }

  async back(): Promise<boolean> {
    return Boolean(await this.control('window.__demoApp.back()'));
  }

  /** The app as a designer changed it (variants.ts); the list replaces the one before. */
  async setVariants(variants: readonly string[]): Promise<void> {
    await this.page.evaluate(`window.__demoApp.setVariants(${JSON.stringify(variants)})`);
  }

  /**
   * Arms the gate of the fault xctest-read-hold: the next sliced read waits after its first slice until
   * the page changes; clearing it lets a waiting read go on. Page state, not a control: a read sees nothing.
   */
  async holdReads(hold: boolean): Promise<void> {
    await this.page.evaluate(
      hold
        ? 'window.__parallaxHoldReads = true'
        : 'window.__parallaxHoldReads = false; window.__parallaxReadsReleased = (window.__parallaxReadsReleased || 0) + 1',
    );
  }

  /** How many sliced reads have stopped at the gate so far (it never waits for a read: the page is free while one is held). */
  async readsHeld(): Promise<number> {
    return Number(await this.page.evaluate('window.__parallaxReadsHeld || 0'));
  }

  async setWebViews(state: { twoWebViews: boolean; checkoutTerminated: boolean }): Promise<void> {
    await this.control(`window.__demoApp.setWebViews(${JSON.stringify(state)})`);
  }

  /** Programmatic scroll of a scrolling view, as UIScrollView.setContentOffset would do. */
  async scrollViewBy(axId: string, dx: number, dy: number): Promise<boolean> {
    return Boolean(
      await this.control(`(() => {
        const el = document.querySelector('[data-ax-id=' + JSON.stringify(${JSON.stringify(axId)}) + ']');
        if (!el) return false;
        el.scrollBy({ left: ${Number(dx) || 0}, top: ${Number(dy) || 0}, behavior: 'instant' });
        return true;
      })()`),
    );
  }

  /**
   * Keeps the scrolling view under (x, y) moving by `dy` px a frame for `ms` after a stroke, as a fling
   * glides on after the finger lifts (fault scroll-glide). Not awaited by the page: the glide runs on.
   */
  async glide(x: number, y: number, dy: number, ms: number): Promise<void> {
    await this.control(`(() => {
      let el = document.elementFromPoint(${Number(x) || 0}, ${Number(y) || 0});
      while (el && !(el.scrollHeight > el.clientHeight && getComputedStyle(el).overflowY !== 'visible')) el = el.parentElement;
      if (!el) return false;
      const end = performance.now() + ${Number(ms) || 0};
      const step = () => { if (performance.now() >= end) return; el.scrollBy(0, ${Number(dy) || 0}); requestAnimationFrame(step); };
      requestAnimationFrame(step);
      return true;
    })()`);
  }

  /** A cold launch: the page reloads, every document (and its bridge state) starts over. */
  relaunch(screen: ScreenName = 'login'): Promise<void> {
    // In turn with input and screenshots: a capture in flight across the navigation never answers.
    return this.withInput(() => this.load(screen));
  }

  // ---- Input ----------------------------------------------------------------------------------------

  /** Runs `fn` after every earlier input finished; input never interleaves. */
  withInput<T>(fn: () => Promise<T>): Promise<T> {
    return this.inTurn(async () => {
      this.changed();
      try {
        return await fn();
      } finally {
        this.changed();
      }
    });
  }

  /** Runs `fn` in turn with input without counting as a change (a screenshot draws nothing). */
  private inTurn<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.inputChain.then(fn, fn);
    this.inputChain = run.catch(() => {});
    return run;
  }

  private clampPoint(x: number, y: number): { x: number; y: number } {
    return {
      x: Math.min(Math.max(x, 0), DEVICE_GEOMETRY.width - 0.01),
      y: Math.min(Math.max(y, 0), DEVICE_GEOMETRY.height - 0.01),
    };
  }

  private touch(type: 'touchStart' | 'touchMove' | 'touchEnd', point?: { x: number; y: number }): Promise<unknown> {
    return this.cdp.send('Input.dispatchTouchEvent', {
      type,
      touchPoints: point ? [{ x: point.x, y: point.y, radiusX: 1, radiusY: 1, force: 1, id: 1 }] : [],
    });
  }

  /** A finger down and up at a screen point; held for `holdMs` when that is a long press. */
  tap(x: number, y: number, holdMs = 0): Promise<void> {
    return this.withInput(async () => {
      const point = this.clampPoint(x, y);
      await this.touch('touchStart', point);
      if (holdMs > 0) await sleep(holdMs);
      await this.touch('touchEnd');
      await this.settle();
    });
  }

  /** A finger stroke from one point to another over `durationMs`. */
  swipe(x1: number, y1: number, x2: number, y2: number, durationMs: number): Promise<void> {
    return this.withInput(async () => {
      const start = this.clampPoint(x1, y1);
      const end = this.clampPoint(x2, y2);
      const duration = durationMs > 0 ? durationMs : 250;
      // Each CDP touch event costs a frame or so; 4-20 moves give Chromium a real velocity to fling with.
      const steps = Math.min(20, Math.max(4, Math.round(duration / 16)));
      const began = Date.now();
      await this.touch('touchStart', start);
      for (let t = 0; t < 1;) {
        // Where the finger is by the clock, at least a step on: behind it (each touch event waits for a busy
        // renderer), the stroke sends fewer moves rather than every one late, so it lasts its duration
        // and not that many events' latency (a 250 ms swipe took seconds on a loaded machine).
        t = Math.min(1, Math.max(t + 1 / steps, (Date.now() - began) / duration));
        await this.touch('touchMove', { x: start.x + (end.x - start.x) * t, y: start.y + (end.y - start.y) * t });
        const due = began + duration * t - Date.now();
        if (due > 0) await sleep(due);
      }
      await this.touch('touchEnd');
      await this.settle();
    });
  }

  typeText(text: string): Promise<void> {
    return this.withInput(async () => {
      await this.page.keyboard.insertText(text);
      await this.settle();
    });
  }

  /** Replaces the focused field's content: select all, then type (or delete when `text` is empty). */
  replaceText(text: string): Promise<void> {
    return this.withInput(async () => {
      await this.page.keyboard.press('ControlOrMeta+A');
      if (text === '') await this.page.keyboard.press('Backspace');
      else await this.page.keyboard.insertText(text);
      await this.settle();
    });
  }

  /** Moves the caret to the end of the focused field, then types. */
  appendText(text: string, multiline: boolean): Promise<void> {
    return this.withInput(async () => {
      await this.page.keyboard.press(multiline ? 'ControlOrMeta+End' : 'End');
      await this.page.keyboard.insertText(text);
      await this.settle();
    });
  }

  pressKey(key: string): Promise<void> {
    return this.withInput(async () => {
      await this.page.keyboard.press(key);
      await this.settle();
    });
  }

  /** Waits for the frame after an input, so the next screenshot or read shows its effect. */
  private async settle(): Promise<void> {
    // Bounded: a document being replaced (a relaunch) may never answer, and the input chain must not
    // wait on it forever.
    await Promise.race([this.page.evaluate('new Promise((r) => requestAnimationFrame(() => r(null)))').catch(() => {}), sleep(SETTLE_LIMIT_MS)]);
  }
}
