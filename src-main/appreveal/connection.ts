/**
 * A device behind AppReveal (an MCP server inside a debug build): the same screen, boxes and tree as a
 * runner device, read through get_screen / get_elements / list_windows / screenshot, each only when the
 * app registered it: an app with none of them (Tauri's always-present tools only) still shows its
 * identity and app state, and its observation says it has no element tree (docs/rules.md#r-ar-24).
 * After each action the app's read-only tools are read too, so the timeline and a recording keep what
 * they said then (docs/rules.md#r-ar-22).
 *
 * AppReveal is request/response HTTP with no connection to watch, so liveness is its /health: while
 * connected the connection checks it every few seconds, and a device that stops answering is shown
 * disconnected and reconnected with backoff. The session token stays inside the client.
 */
import { checkAssertion } from '@shared/act/assert';
import { selectorValue } from '@shared/act/resolve';
import { EventEmitter } from 'node:events';
import { stripSessionToken, type AppRevealScreenInfo, type AppRevealWindow } from '@shared/protocol/appreveal';
import type { AppState } from '@shared/protocol/appreveal-tools';
import { appRevealObservation, windowFrameInViewport, type AppRevealElementsRead } from '@shared/observe/appreveal';
import { AppRevealClient, AppRevealError, type AppRevealScreenshot } from './client';
import { actThroughAppReveal } from './actions';
import { DeviceGate } from '@main/connection/gate';
import type { ActedStep, ConnectionEvents, ConnectionState, DeviceConnection, ObserveOptions } from '@main/connection/connection';
import type { WebControls } from '@shared/api/api';
import type { ObservedFrame } from '@shared/protocol/device';
import { WEB_TOOLS, type ActionRequest, type ActionResult, type AssertRequest } from '@shared/protocol/action';
import { plainAppRevealError } from '@shared/inspect/connect-error';

const MAX_WEB_CONTROLS = 200;

const HEALTH_INTERVAL_MS = 3_000;

export class AppRevealConnection extends EventEmitter<ConnectionEvents> implements DeviceConnection {
  readonly kind = 'appreveal' as const;
  readonly url: string;
  client: AppRevealClient;
  /** Kept to build a fresh client on reconnect; private, so it is never serialised or inspected. */
  #sessionUrl: string;
  private currentState: ConnectionState = 'disconnected';
  private lastError: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private backoffMs = 250;
  private closed = false;
  private waiters: Array<() => void> = [];
  private readonly gate = new DeviceGate();

  constructor(sessionUrl: string) {
    super();
    this.#sessionUrl = sessionUrl;
    this.client = AppRevealClient.fromSessionUrl(sessionUrl, { timeoutMs: 10_000 });
    this.url = stripSessionToken(sessionUrl);
  }

  get state(): ConnectionState {
    return this.currentState;
  }
  get error(): string | undefined {
    return this.currentState === 'connected' ? undefined : this.lastError;
  }
  get capabilities(): readonly string[] {
    return this.client.tools;
  }
  /** The app's bundle id, from launch_context or device_info (docs/rules.md#r-ar-20). */
  get bundleId(): string | undefined {
    return this.client.identity.bundleId;
  }
  /** The phone as the app's launch_context names it (UIDevice.current.name, .model, .systemVersion). */
  get phone() {
    const { deviceName, deviceModel, systemVersion } = this.client.identity;
    return { ...(deviceName ? { deviceName } : {}), ...(deviceModel ? { deviceModel } : {}), ...(systemVersion ? { systemVersion } : {}) };
  }
  /** The screen's size in points, as device_info said at connect. */
  get screenPoints(): { width: number; height: number } | undefined {
    return this.client.screenPoints;
  }

  start(): void {
    void this.connect();
  }

  waitUntilConnected(timeoutMs = 5_000): Promise<void> {
    if (this.currentState === 'connected') return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== done);
        reject(new Error(`AppReveal at ${this.client.endpoint} is not connected${this.lastError ? `: ${this.lastError}` : ''}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      this.waiters.push(done);
    });
  }

  observe(options: ObserveOptions): Promise<ObservedFrame> {
    return this.gate.read(() => this.observeNow(options));
  }

  private async observeNow(options: ObserveOptions): Promise<ObservedFrame> {
    await this.waitUntilConnected();
    const client = this.client;
    const started = performance.now();
    const windowId = options.windowId;
    const readErrors: Array<{ tool: string; message: string }> = [];
    const optional = <T>(tool: string, read: () => Promise<T>): Promise<T | undefined> =>
      client.has(tool)
        ? read().catch((error: unknown) => {
            readErrors.push({ tool, message: (error as Error).message });
            return undefined;
          })
        : Promise.resolve(undefined);
    const wantScreenshot = options.screenshot !== false && client.has('screenshot');
    const [screen, elements, windows, screenshot] = await Promise.all([
      optional<AppRevealScreenInfo>('get_screen', () => client.getScreen(windowId !== undefined ? { windowId } : {})),
      this.readElements(windowId),
      optional<AppRevealWindow[]>('list_windows', () => client.listWindows()),
      wantScreenshot
        ? client.screenshot(windowId).then(
            (shot): { shot: AppRevealScreenshot } => ({ shot }),
            (error: Error) => ({ error: error.message }),
          )
        : Promise.resolve(undefined),
    ]);
    // Tauri: the elements' frames are in the web view (CSS px) and its window frames physical at the outer
    // position; both are put in the web view's space, and the screen is its viewport (docs/rules.md#r-ar-33).
    const origin = elements.kind === 'read' ? elements.elements.find((element) => element.origin)?.origin : undefined;
    const viewport = elements.kind === 'read' ? elements.viewport : undefined;
    const windowList = (windows ?? []).map((window) =>
      origin && viewport && window.frame ? { ...window, frame: windowFrameInViewport(window.frame, viewport, origin) } : window,
    );
    if (windowId !== undefined && windows === undefined) {
      // iOS AppReveal reads an id it does not know as every window (IOSWindowProvider.windowsForInteraction,
      // docs/protocol.md#p-ar-ios-errors), so without the window list these elements may not be that window's.
      throw new AppRevealError('tool_error', `AppReveal at ${client.endpoint} did not list its windows, so window ${windowId} cannot be confirmed`);
    }
    if (windowId !== undefined && windows !== undefined && !windows.some((window) => window.id === windowId)) {
      // A window that is not there is the caller's mistake, not an empty screen.
      const ids = windows.map((window) => window.id).join(', ') || 'none';
      throw new AppRevealError('tool_error', `AppReveal at ${client.endpoint} has no window ${windowId} (it lists ${ids})`);
    }
    const keyWindow =
      (windowId !== undefined ? windowList.find((window) => window.id === windowId) : undefined) ?? windowList.find((window) => window.isKey) ?? windowList[0];
    const geometry = viewport ?? (keyWindow?.frame ? { width: keyWindow.frame.width, height: keyWindow.frame.height } : undefined);
    const observation = appRevealObservation({
      strategy: options.strategy ?? 'visible',
      now: Date.now(),
      elements,
      screen,
      identity: client.identity,
      geometry,
      timings: { appreveal: performance.now() - started },
      readErrors,
    });
    const frame: ObservedFrame = {
      observation,
      screenshot: null,
      receivedAt: Date.now(),
      appReveal: { screen: screen ?? null, tools: [...client.tools], windows: windowList, identity: { ...client.identity } },
    };
    if (screenshot && 'shot' in screenshot) frame.screenshot = { format: 'png', dataBase64: screenshot.shot.dataBase64 };
    else frame.screenshotError = screenshot?.error ?? 'this app did not register the screenshot tool';
    return frame;
  }

  /** get_elements when the app has it. An app that is gone fails the observe; any other failure is the verdict's. */
  private async readElements(windowId: string | undefined): Promise<AppRevealElementsRead> {
    if (!this.client.has('get_elements')) return { kind: 'not_offered' };
    try {
      const read = await this.client.getElements(windowId);
      return {
        kind: 'read',
        elements: read.elements,
        ...(read.screenKey !== undefined ? { screenKey: read.screenKey } : {}),
        ...(read.viewport !== undefined ? { viewport: read.viewport } : {}),
      };
    } catch (error) {
      if (error instanceof AppRevealError && (error.code === 'unreachable' || error.code === 'unauthorized')) throw error;
      return { kind: 'failed', message: (error as Error).message };
    }
  }

  /** What the app's read-only tools say now; an app that registered none gives an empty reading. */
  appState(): Promise<AppState> {
    return this.gate.read(async () => {
      await this.waitUntilConnected();
      return this.client.readAppState();
    });
  }

  /** One network call in full (get_network_call_detail), by its id; read-only. */
  networkCall(id: string): Promise<unknown> {
    return this.gate.read(async () => {
      await this.waitUntilConnected();
      return this.client.networkCallDetail(id);
    });
  }

  screenshot(): Promise<Pick<ObservedFrame, 'screenshot' | 'screenshotError'>> {
    return this.gate.read(() => this.screenshotNow());
  }

  private async screenshotNow(): Promise<Pick<ObservedFrame, 'screenshot' | 'screenshotError'>> {
    if (!this.client.has('screenshot')) return { screenshot: null, screenshotError: 'this app did not register the screenshot tool' };
    try {
      return { screenshot: { format: 'png', dataBase64: (await this.client.screenshot()).dataBase64 } };
    } catch (error) {
      return { screenshot: null, screenshotError: (error as Error).message };
    }
  }

  /** The web view's interactive elements (get_dom_interactive), decoded and bounded: never a value. */
  webControls(): Promise<WebControls> {
    return this.gate.read(async () => {
      await this.waitUntilConnected();
      const controls = await this.client.webControls();
      return {
        controls: controls.slice(0, MAX_WEB_CONTROLS),
        truncated: controls.length > MAX_WEB_CONTROLS,
        tools: WEB_TOOLS.filter((tool) => this.client.has(tool)),
      };
    });
  }

  async act(request: ActionRequest): Promise<ActedStep> {
    await this.waitUntilConnected();
    return this.gate.exclusive(async () => {
      if (request.action === 'assert') return this.assertOn(request);
      const result = await actThroughAppReveal(this.client, request);
      const after = await this.observeNow({}).catch(() => undefined);
      // What the action did to the app's state, read in the same turn, so no other action comes between.
      if (after?.appReveal && this.client.readTools.length > 0) {
        const app = await this.client.readAppState().catch(() => undefined);
        if (app) after.appReveal.app = app;
      }
      return { result, after };
    });
  }

  /** A recorded assertion (docs/rules.md#r-asrt-01): checked on one read of the app's elements; no tool acts. */
  private async assertOn(request: AssertRequest): Promise<ActedStep> {
    const started = performance.now();
    const after = await this.observeNow({}).catch(() => undefined);
    const check = checkAssertion(request, after?.observation?.viewHierarchy?.hierarchy);
    const result: ActionResult = {
      success: check.ok,
      backend: 'appreveal',
      warnings: [check.detail],
      target: { resolvedBy: 'screen', selector: selectorValue(request.target) },
      timings: { total: performance.now() - started },
      requestsSent: 0,
      ...(check.ok ? {} : { failureReason: 'assertion_failed' as const, mayHaveRun: false }),
    };
    return { result, after };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.client.close();
    this.setState('disconnected', undefined);
  }

  /**
   * The session URL pasted again for this app: when it carries another token, the connection starts over
   * with it (an app that restarted has a new one), and says in plain words if the app refuses it
   * (docs/rules.md#r-conn-words-ar), rather than keeping the old session silently. True when it did.
   */
  useSession(sessionUrl: string): boolean {
    if (this.closed || sessionUrl === this.#sessionUrl) return false;
    this.#sessionUrl = sessionUrl;
    const stale = this.client;
    this.client = AppRevealClient.fromSessionUrl(sessionUrl, { timeoutMs: 10_000 });
    void stale.close();
    clearTimeout(this.timer);
    this.backoffMs = 250;
    void this.connect();
    return true;
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = this.client;
    this.setState('connecting', this.lastError);
    try {
      await client.connect();
      // A session replaced meanwhile (useSession) is connecting on its own.
      if (client !== this.client) return;
      this.backoffMs = 250;
      this.setState('connected', undefined);
      for (const waiter of this.waiters.splice(0)) waiter();
      this.schedule(HEALTH_INTERVAL_MS, () => this.checkHealth());
    } catch (error) {
      if (client !== this.client) return;
      this.setState('disconnected', plainAppRevealError(error as AppRevealError, this.url));
      this.schedule(this.backoffMs, () => this.connect());
      this.backoffMs = Math.min(this.backoffMs * 2, 5_000);
    }
  }

  private async checkHealth(): Promise<void> {
    if (this.closed) return;
    try {
      await this.client.checkHealth(2_000);
      this.schedule(HEALTH_INTERVAL_MS, () => this.checkHealth());
    } catch (error) {
      this.setState('disconnected', `AppReveal at ${this.client.endpoint} stopped answering: ${plainAppRevealError(error as AppRevealError, this.url)}`);
      // The old client still believes it is connected; a reconnect starts over with /health and initialize.
      const stale = this.client;
      this.client = AppRevealClient.fromSessionUrl(this.#sessionUrl, { timeoutMs: 10_000 });
      void stale.close();
      this.schedule(this.backoffMs, () => this.connect());
    }
  }

  private schedule(ms: number, run: () => Promise<void>): void {
    clearTimeout(this.timer);
    if (this.closed) return;
    this.timer = setTimeout(() => void run(), ms);
    this.timer.unref();
  }

  private setState(state: ConnectionState, error: string | undefined): void {
    const changed = state !== this.currentState || error !== this.lastError;
    this.currentState = state;
    this.lastError = error;
    if (changed) this.emit('state');
  }
}
