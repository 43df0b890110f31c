/**
 * A client for an app's embedded AppReveal MCP server (docs/protocol.md#p-appreveal), through the
 * official MCP SDK client over Streamable HTTP. One client for every port (iOS, Android, Flutter, Tauri).
 *
 * `connect()` probes `GET /health` (unauthenticated, bounded) first, so "nothing listens" and "wrong
 * token" are told apart, then initializes, reads `tools/list` (that list alone decides what may be
 * called, and each tool's inputSchema how its arguments are named: docs/rules.md#r-ar-19) and asks
 * launch_context / device_info who the app is (docs/rules.md#r-ar-20). A tool the app did not register
 * fails here with `unknown_tool` and never reaches the wire.
 *
 * Every way a server says no (an `{"error"}` or `{"success": false}` result, `isError`, a JSON-RPC error
 * of any code in a 200 or as the body of a 4xx) is `tool_error` / `unknown_tool`: the app answered and
 * did not do it. Only a lost connection or no answer is `unreachable` / `timeout` (docs/rules.md#r-ar-07).
 * The MCP SDK raises its own McpErrors for a closed connection (-32000) and a timeout (-32001); a
 * server may send those codes too, so the client notes every JSON-RPC error the server sent and tells
 * the two apart by that, never by the code alone.
 *
 * The session token lives in one private field and the transport's request headers. It is never put in
 * a URL, an error message, an event or a log line: errors name the endpoint as host:port only, and any
 * text that comes back from the peer is scrubbed of the token before it is quoted.
 *
 * Over 500 lines on purpose: connecting, calling and telling every way of saying no apart are one state
 * machine over one transport, so they stay in one class. The action methods are derived from ACTION_TOOLS;
 * the nine reads (screen, elements, windows, screenshot, app state, batch, web views, DOM, view tree) are
 * written out because each decodes a different reply shape with its own schema.
 */
import { EventEmitter } from 'node:events';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { boundedFetch, MAX_APPREVEAL_REPLY_BYTES, replyTooLarge } from './bounded-fetch';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { ErrorCode, McpError, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import {
  AppRevealElementsReplySchema,
  AppRevealHealthSchema,
  AppRevealScreenInfoSchema,
  AppRevealScreenshotTextSchema,
  AppRevealToolFailureSchema,
  AppRevealWindowsReplySchema,
  endpointLabel,
  identityOf,
  isToolFailure,
  JsonRpcErrorBodySchema,
  MAX_HEALTH_BYTES,
  mergeIdentities,
  parseAppRevealSessionUrl,
  type AppRevealCandidate,
  type AppRevealErrorCode,
  type AppRevealElements,
  type AppRevealHealth,
  type AppRevealIdentity,
  type AppRevealScreenInfo,
  type AppRevealSession,
  type AppRevealWindow,
  type WebControl,
} from '@shared/protocol/appreveal';
import {
  APPREVEAL_NETWORK_DETAIL_TOOL,
  APPREVEAL_READ_TOOLS,
  APPREVEAL_WEB_TOOLS,
  AppRevealBatchReplySchema,
  buildToolArguments,
  MAX_APP_STATE_READING_CHARS,
  toolSpecOf,
  type AppRevealBatchItem,
  type AppRevealToolSpec,
  type AppRevealUiTool,
  type AppRevealWebTool,
  type AppState,
  type AppStateReading,
  type ScrollDirection,
  type ToolArgumentRequest,
} from '@shared/protocol/appreveal-tools';
import { isRecord } from '@shared/protocol/json';
import { pngSize } from '@shared/protocol/png';
import { httpGet } from '@main/discovery/http-probe';
import { redactDomInteractive, redactViewTree, secretElementIds, webControlsOf } from '@shared/observe/appreveal-redact';

export class AppRevealError extends Error {
  override readonly name = 'AppRevealError';
  constructor(
    readonly code: AppRevealErrorCode,
    message: string,
    readonly details: {
      /** The tool that failed, when a tool call failed. */
      tool?: string;
      /** The HTTP status, when one explains the failure. */
      status?: number;
      /** tap_text matched several elements: each one, so the UI can offer them. */
      candidates?: AppRevealCandidate[];
      /** The app's hint, if it gave one (tap_text: "use occurrence"). */
      hint?: string;
      /** The JSON-RPC error code the server answered with, when it answered with one. */
      rpcCode?: number;
      /** The app's own words about the failure, verbatim but scrubbed of the token (a result's `deviceMessage`). */
      appMessage?: string;
    } = {},
  ) {
    super(message);
  }
}

export type AppRevealClientState = 'disconnected' | 'connecting' | 'connected' | 'closed';

export interface AppRevealClientOptions {
  /** Per-call timeout in ms (each tool call, initialize, tools/list). */
  timeoutMs?: number;
  /** Timeout of the /health probe in ms. */
  healthTimeoutMs?: number;
  /** Extra request headers (never logged); tests use it to act as a browser page with an Origin. */
  headers?: Record<string, string>;
  /** The name the client gives in initialize. */
  clientName?: string;
  clientVersion?: string;
  /** The most bytes one reply may have (default MAX_APPREVEAL_REPLY_BYTES), held to while it streams. */
  maxReplyBytes?: number;
}

export interface CallOptions {
  /** A window from listWindows(); absent: the app's key window. */
  windowId?: string;
  timeoutMs?: number;
}

export interface AppRevealScreenshot {
  format: 'png' | 'jpeg';
  dataBase64: string;
  width?: number;
  height?: number;
}

/** What an action returns: the app's result object and how long the round trip took. */
export interface AppRevealActionResult {
  tool: string;
  durationMs: number;
  result: Record<string, unknown>;
}

interface AppRevealClientEvents {
  state: [state: AppRevealClientState, error: string | undefined];
}

/** Tools that read and change nothing: an internal error there is a failed read, never "may have run". */
const READ_ONLY_TOOL = /^(get_|list_|query_|find_|screenshot$|device_info$|launch_context$)/;

/** iOS web view tools, whose answer wraps the page script's JSON as a string. */
const PAGE_TOOL = /^(web_|get_dom_|query_dom$|find_dom_text$)/;

const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** What an action method hands its tool: the arguments by role (named by the tool's inputSchema) and the call's options. */
type ActionCall = readonly [request: ToolArgumentRequest, options: CallOptions];
type WebOptions = CallOptions & { webviewId?: string };

/**
 * Every action tool the inspector sends, one row each: the method's name, the tool (iOS MCPTools.swift /
 * Tauri's tool list), and how the method's parameters become the tool's arguments. The methods are made
 * from this table (AppRevealClient's static block), so one generic call sends every action and a new tool
 * is one row (docs/architecture.md#floors, issue 23).
 */
const ACTION_TOOLS = {
  tapElement: { tool: 'tap_element', call: (id: string, o: CallOptions = {}): ActionCall => [{ element: id, window: o.windowId }, o] },
  /**
   * Taps by visible text. Several matches fail with `tool_error` whose `details.candidates` lists them;
   * pass `occurrence` (0-based) to pick one. Tauri's tap_text has no match_mode (it matches exactly, or as
   * a CSS selector): left out there.
   */
  tapText: {
    tool: 'tap_text',
    call: (text: string, o: CallOptions & { matchMode?: 'exact' | 'contains'; occurrence?: number } = {}): ActionCall => [
      { window: o.windowId, values: { text, match_mode: o.matchMode, occurrence: o.occurrence }, optional: ['match_mode'] },
      o,
    ],
  },
  tapPoint: { tool: 'tap_point', call: (x: number, y: number, o: CallOptions = {}): ActionCall => [{ window: o.windowId, values: { x, y } }, o] },
  typeText: {
    tool: 'type_text',
    call: (text: string, elementId?: string, o: CallOptions = {}): ActionCall => [{ element: elementId, window: o.windowId, values: { text } }, o],
  },
  clearText: { tool: 'clear_text', call: (elementId: string, o: CallOptions = {}): ActionCall => [{ element: elementId, window: o.windowId }, o] },
  scroll: {
    tool: 'scroll',
    call: (direction: ScrollDirection, containerId?: string, o: CallOptions = {}): ActionCall => [
      { container: containerId, window: o.windowId, values: { direction } },
      o,
    ],
  },
  scrollToElement: { tool: 'scroll_to_element', call: (id: string, o: CallOptions = {}): ActionCall => [{ element: id, window: o.windowId }, o] },
  /** open_deeplink {url} (iOS MCPTools.swift): the app opens the URL with UIApplication.open. */
  openDeeplink: { tool: 'open_deeplink', call: (url: string, o: CallOptions = {}): ActionCall => [{ values: { url } }, o] },
  navigateBack: { tool: 'navigate_back', call: (o: CallOptions = {}): ActionCall => [{ window: o.windowId }, o] },
  webClick: {
    tool: 'web_click',
    call: (selector: string, webviewId?: string, o: CallOptions = {}): ActionCall => [{ webview: webviewId, window: o.windowId, values: { selector } }, o],
  },
  webType: {
    tool: 'web_type',
    call: (selector: string, text: string, o: WebOptions & { clear?: boolean } = {}): ActionCall => [
      { webview: o.webviewId, window: o.windowId, values: { selector, text, clear: o.clear ? true : undefined } },
      o,
    ],
  },
  webSelect: {
    tool: 'web_select',
    call: (selector: string, value: string, o: WebOptions = {}): ActionCall => [{ webview: o.webviewId, window: o.windowId, values: { selector, value } }, o],
  },
  webToggle: {
    tool: 'web_toggle',
    call: (selector: string, checked: boolean, o: WebOptions = {}): ActionCall => [
      { webview: o.webviewId, window: o.windowId, values: { selector, checked } },
      o,
    ],
  },
  webScrollTo: {
    tool: 'web_scroll_to',
    call: (selector: string, o: WebOptions = {}): ActionCall => [{ webview: o.webviewId, window: o.windowId, values: { selector } }, o],
  },
  webNavigate: {
    tool: 'web_navigate',
    call: (url: string, o: WebOptions = {}): ActionCall => [{ webview: o.webviewId, window: o.windowId, values: { url } }, o],
  },
} as const satisfies Record<string, { tool: AppRevealUiTool | AppRevealWebTool; call: (...params: never[]) => ActionCall }>;

type ActionMethods = {
  [Name in keyof typeof ACTION_TOOLS]: (...params: Parameters<(typeof ACTION_TOOLS)[Name]['call']>) => Promise<AppRevealActionResult>;
};

// The action methods are made from ACTION_TOOLS (the class's static block); this names them for callers.
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
export interface AppRevealClient extends ActionMethods {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class AppRevealClient extends EventEmitter<AppRevealClientEvents> {
  static {
    for (const [name, spec] of Object.entries(ACTION_TOOLS)) {
      const call = spec.call as (...params: unknown[]) => ActionCall;
      Object.defineProperty(AppRevealClient.prototype, name, {
        value(this: AppRevealClient, ...params: unknown[]) {
          const [request, options] = call(...params);
          return this.action(spec.tool, request, options);
        },
        writable: true,
        configurable: true,
      });
    }
  }

  /** Where requests go, without the token. */
  readonly baseUrl: string;
  /** host:port: the only way errors name the endpoint. */
  readonly endpoint: string;
  /** The last /health answer. */
  health: AppRevealHealth | undefined;
  /** The server's name and version from initialize. */
  serverInfo: { name: string; version: string } | undefined;
  /** Who the app is: from /health, launch_context and device_info, whichever has each field. */
  identity: AppRevealIdentity = {};
  /** The screen's size in points as device_info said at connect, if it did. */
  screenPoints: { width: number; height: number } | undefined;

  readonly #token: string | undefined;
  readonly #options: Required<Omit<AppRevealClientOptions, 'headers'>> & { headers: Record<string, string> };
  #mcp: Client | undefined;
  #tools: string[] = [];
  #specs = new Map<string, AppRevealToolSpec>();
  #viewportLocal = false;
  #state: AppRevealClientState = 'disconnected';
  #lastError: string | undefined;
  #connecting: Promise<void> | undefined;
  /** JSON-RPC errors the server sent and no request has claimed yet, by "code message". */
  readonly #serverErrors = new Map<string, number>();

  constructor(session: AppRevealSession, options: AppRevealClientOptions = {}) {
    super();
    this.baseUrl = session.baseUrl;
    this.endpoint = endpointLabel(session.baseUrl);
    this.#token = session.token;
    this.#options = {
      timeoutMs: options.timeoutMs ?? 10_000,
      healthTimeoutMs: options.healthTimeoutMs ?? 3_000,
      headers: { ...(options.headers ?? {}) },
      clientName: options.clientName ?? 'parallax',
      clientVersion: options.clientVersion ?? '0.1.0',
      maxReplyBytes: options.maxReplyBytes ?? MAX_APPREVEAL_REPLY_BYTES,
    };
  }

  /** From a pasted session URL; throws AppRevealUrlError (without the token in it) when it is not one. */
  static fromSessionUrl(url: string, options?: AppRevealClientOptions): AppRevealClient {
    return new AppRevealClient(parseAppRevealSessionUrl(url), options);
  }

  get state(): AppRevealClientState {
    return this.#state;
  }

  get error(): string | undefined {
    return this.#lastError;
  }

  /** The tool names the app registered, in its order. */
  get tools(): readonly string[] {
    return this.#tools;
  }

  has(tool: string): boolean {
    return this.#specs.has(tool);
  }

  /** What the app's tools/list says of one tool's arguments. */
  spec(tool: string): AppRevealToolSpec | undefined {
    return this.#specs.get(tool);
  }

  /** The web view tools the app listed. */
  get webTools(): readonly string[] {
    return APPREVEAL_WEB_TOOLS.filter((tool) => this.has(tool));
  }

  /** The read-only tools (app state) the app listed, in the App panel's order. */
  get readTools(): readonly string[] {
    return APPREVEAL_READ_TOOLS.filter((tool) => this.has(tool));
  }

  /** /health, then initialize, then tools/list. Rejects with an AppRevealError; never leaves a half-open client. */
  connect(): Promise<void> {
    if (this.#state === 'closed') return Promise.reject(this.closedError());
    if (this.#state === 'connected') return Promise.resolve();
    this.#connecting ??= this.doConnect().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  private async doConnect(): Promise<void> {
    this.setState('connecting', this.#lastError);
    let mcp: Client | undefined;
    try {
      this.health = await this.probeHealth();
      const headers: Record<string, string> = { ...this.#options.headers };
      if (this.#token !== undefined) headers.Authorization = `Bearer ${this.#token}`;
      const transport = new StreamableHTTPClientTransport(new URL(this.baseUrl), {
        requestInit: { headers },
        fetch: boundedFetch(this.#options.maxReplyBytes),
        // AppReveal has no SSE stream to resume; a dropped request is a failed request.
        reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 1000, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1 },
      });
      // Set before connect: the SDK's Protocol calls the handler it finds there before its own.
      transport.onmessage = (message) => this.noteServerMessage(message);
      mcp = new Client({ name: this.#options.clientName, version: this.#options.clientVersion }, { capabilities: {} });
      // The SDK reports transport trouble here as well as by rejecting the request; the rejection is
      // what we act on, so this only keeps the SDK from treating it as unhandled.
      mcp.onerror = () => undefined;
      const timeout = this.#options.timeoutMs;
      await mcp.connect(transport, { timeout });
      const info = mcp.getServerVersion();
      this.serverInfo = info ? { name: info.name, version: info.version } : undefined;
      const specs = new Map<string, AppRevealToolSpec>();
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await mcp.listTools(cursor === undefined ? undefined : { cursor }, { timeout });
        for (const tool of page.tools) {
          const spec = toolSpecOf(tool);
          if (spec && !specs.has(spec.name)) specs.set(spec.name, spec);
        }
        cursor = page.nextCursor;
        pages++;
      } while (cursor !== undefined && pages < 50);
      if (this.#state === 'closed') {
        await mcp.close().catch(() => undefined);
        throw this.closedError();
      }
      this.#mcp = mcp;
      this.#specs = specs;
      this.#tools = [...specs.keys()];
      this.identity = await this.readIdentity();
      this.setState('connected', undefined);
    } catch (error) {
      const mapped = this.mapError(error, 'connect');
      this.#mcp = undefined;
      await mcp?.close().catch(() => undefined);
      if (this.#state !== 'closed') this.setState('disconnected', mapped.message);
      throw mapped;
    }
  }

  /**
   * Who the app is. /health names no app on any real server, so launch_context is asked, and
   * device_info when launch_context is missing or has no bundle id. A failed read costs only the name.
   */
  private async readIdentity(): Promise<AppRevealIdentity> {
    const read = async (tool: string): Promise<AppRevealIdentity> => {
      if (!this.has(tool)) return {};
      try {
        return identityOf(this.parseText(tool, await this.callContent(tool, {}, {})));
      } catch {
        return {};
      }
    };
    const fromHealth = identityOf(this.health);
    const launch = await read('launch_context');
    const merged = mergeIdentities(fromHealth, launch);
    // device_info is read too for the screen's size in points (iOS `screen.width/height`, UIScreen.main.bounds,
    // MCPTools.swift device_info): the device list pairs an app with its phone's runner by it (docs/rules.md#r-phone-01).
    const info = this.has('device_info') ? await this.readDeviceInfo() : undefined;
    this.screenPoints = screenPointsOf(info);
    return merged.bundleId !== undefined ? merged : mergeIdentities(merged, identityOf(info));
  }

  private async readDeviceInfo(): Promise<unknown> {
    try {
      return this.parseText('device_info', await this.callContent('device_info', {}, {}));
    } catch {
      return undefined;
    }
  }

  async close(): Promise<void> {
    if (this.#state === 'closed') return;
    this.setState('closed', undefined);
    const mcp = this.#mcp;
    this.#mcp = undefined;
    await mcp?.close().catch(() => undefined);
  }

  /** GET /health now (bounded): the liveness check of a connected device. Throws an AppRevealError. */
  async checkHealth(timeoutMs = this.#options.healthTimeoutMs): Promise<AppRevealHealth> {
    this.health = await this.probeHealth(timeoutMs);
    return this.health;
  }

  // ---- Observation ---------------------------------------------------------------------------------

  async getScreen(options: CallOptions = {}): Promise<AppRevealScreenInfo> {
    const args = this.args('get_screen', { window: options.windowId, optional: ['window'] });
    return this.decode('get_screen', AppRevealScreenInfoSchema, await this.callJson('get_screen', args, options));
  }

  async getElements(windowId?: string, options: CallOptions = {}): Promise<AppRevealElements> {
    const args = this.args('get_elements', { window: windowId ?? options.windowId, optional: ['window'] });
    const read = this.decode('get_elements', AppRevealElementsReplySchema, await this.callJson('get_elements', args, options));
    if (read.elements.some((element) => element.origin)) this.#viewportLocal = true;
    return read;
  }

  /**
   * Whether this app's element frames are in its web view rather than on its screen (Tauri's localRect):
   * a point Parallax sends back then needs the view's place on the screen added (docs/rules.md#r-ar-33).
   */
  get viewportLocal(): boolean {
    return this.#viewportLocal;
  }

  async listWindows(options: CallOptions = {}): Promise<AppRevealWindow[]> {
    return this.decode('list_windows', AppRevealWindowsReplySchema, await this.callJson('list_windows', {}, options));
  }

  /** The image content block (or the JSON `{image}` form older ports send) as base64 PNG/JPEG. */
  async screenshot(windowId?: string, options: CallOptions = {}): Promise<AppRevealScreenshot> {
    const args = this.args('screenshot', { window: windowId ?? options.windowId, optional: ['window'] });
    const content = await this.callContent('screenshot', args, options);
    const image = content.find((block) => block.type === 'image');
    if (image && typeof image.data === 'string') return this.checkImage(image.data);
    const value = this.parseText('screenshot', content);
    if (isToolFailure(value)) throw this.toolFailure('screenshot', value);
    const parsed = this.decode('screenshot', AppRevealScreenshotTextSchema, value);
    const shot = this.checkImage(parsed.image);
    return {
      ...shot,
      ...(parsed.width !== undefined ? { width: parsed.width } : {}),
      ...(parsed.height !== undefined ? { height: parsed.height } : {}),
    };
  }

  /**
   * Any tool the app listed, by name, with its JSON answer (what AppReveal's own CLI calls `call`). Every
   * failure form is a tool_error as for the typed methods. `web_evaluate` is refused: Parallax never has
   * an app run arbitrary JavaScript (docs/rules.md#r-ar-16).
   */
  async call(tool: string, args: Record<string, unknown> = {}, options: CallOptions = {}): Promise<unknown> {
    if (tool === 'web_evaluate') throw new AppRevealError('no_form', 'web_evaluate is never sent: Parallax does not run JavaScript in an app', { tool });
    return this.unwrapPageResult(tool, await this.callJson(tool, args, options));
  }

  /**
   * iOS's web view tools answer what the page's script produced as a JSON string inside `result` (or
   * `dom` for get_dom_tree), a failure included: parsed a second time, and a failure inside is a tool_error.
   */
  private unwrapPageResult(tool: string, value: unknown): unknown {
    if (!PAGE_TOOL.test(tool) || !isRecord(value)) return value;
    const key = typeof value.result === 'string' ? 'result' : typeof value.dom === 'string' ? 'dom' : undefined;
    if (key === undefined) return value;
    const inner = parseJsonOr(value[key] as string);
    if (isToolFailure(inner)) throw this.toolFailure(tool, inner);
    return { ...value, [key]: inner };
  }

  // ---- App state (the read-only tools) -------------------------------------------------------------

  /**
   * Every read-only tool the app registered (docs/rules.md#r-ar-22), in one `batch` when the app has it
   * (else one call each). Each reading is the tool's value, scrubbed of the session token, or why there
   * is none; nothing here changes anything in the app. Never rejects for one tool's failure.
   */
  async readAppState(options: CallOptions = {}): Promise<AppState> {
    const tools = [...this.readTools];
    let readings: AppStateReading[] | undefined;
    if (tools.length > 1 && this.has('batch')) {
      try {
        const items = await this.batch(
          tools.map((tool) => ({ tool })),
          options,
        );
        readings = tools.map((tool, index) => {
          const item = items.find((entry) => entry.tool === tool) ?? items.find((entry) => entry.index === index && entry.tool === undefined);
          if (!item) return { tool, ok: false, error: 'the batch reply has no result for it' };
          return item.ok ? this.reading(tool, item.value) : { tool, ok: false, error: this.scrub(item.error ?? 'failed') };
        });
      } catch (error) {
        // A lost connection stays lost for single calls too; anything else is worth the slow way.
        if (error instanceof AppRevealError && (error.code === 'unreachable' || error.code === 'unauthorized')) throw error;
        readings = undefined;
      }
    }
    readings ??= await Promise.all(
      tools.map(async (tool): Promise<AppStateReading> => {
        try {
          return this.reading(tool, this.parseText(tool, await this.callContent(tool, {}, options), MAX_APP_STATE_READING_CHARS));
        } catch (error) {
          return { tool, ok: false, error: error instanceof Error ? error.message : String(error) };
        }
      }),
    );
    return { readAt: Date.now(), readings };
  }

  /**
   * One captured network call in full (get_network_call_detail, docs/rules.md#r-ar-32), by the id
   * get_network_calls gave: bounded like a reading, scrubbed of the session token. Read-only.
   */
  async networkCallDetail(id: string, options: CallOptions = {}): Promise<unknown> {
    const tool = APPREVEAL_NETWORK_DETAIL_TOOL;
    const args = this.args(tool, { values: { id } });
    const value = this.parseText(tool, await this.callContent(tool, args, options), MAX_APP_STATE_READING_CHARS);
    if (isToolFailure(value)) throw this.toolFailure(tool, value);
    return this.scrubDeep(value);
  }

  /** Several tools in one call; each result decoded from its port's form (docs/rules.md#r-ar-21). */
  async batch(actions: ReadonlyArray<{ tool: string; arguments?: Record<string, unknown> }>, options: CallOptions = {}): Promise<AppRevealBatchItem[]> {
    const args = this.args('batch', { values: { actions: actions.map((a) => ({ tool: a.tool, ...(a.arguments ? { arguments: a.arguments } : {}) })) } });
    const limit = MAX_APP_STATE_READING_CHARS * Math.max(1, actions.length);
    const value = this.parseText('batch', await this.callContent('batch', args, options), limit);
    if (isToolFailure(value)) throw this.toolFailure('batch', value);
    return this.decode('batch', AppRevealBatchReplySchema, value);
  }

  private reading(tool: string, value: unknown): AppStateReading {
    const size = JSON.stringify(value ?? null).length;
    if (size > MAX_APP_STATE_READING_CHARS) return { tool, ok: false, error: `the answer is larger than ${MAX_APP_STATE_READING_CHARS} characters (${size})` };
    return { tool, ok: true, value: this.scrubDeep(value) };
  }

  // ---- Web views (only what the app listed) --------------------------------------------------------

  async getWebViews(options: CallOptions = {}): Promise<unknown[]> {
    const value = await this.callJson('get_webviews', this.args('get_webviews', { window: options.windowId, optional: ['window'] }), options);
    const list = isRecord(value) ? value.webviews : value;
    if (!Array.isArray(list)) throw this.badReply('get_webviews', 'expected a webviews list');
    return list;
  }

  async getDomInteractive(webviewId?: string, options: CallOptions = {}): Promise<unknown> {
    const args = this.args('get_dom_interactive', { webview: webviewId, window: options.windowId, optional: ['window', 'webview'] });
    // iOS wraps the page's answer in `result` (a JSON string); Tauri answers the element list itself.
    const value = this.unwrapPageResult('get_dom_interactive', await this.callJson('get_dom_interactive', args, options));
    // iOS sends a password input's `node.value` in clear: out before anything holds it (docs/rules.md#r-secret-07).
    return redactDomInteractive(isRecord(value) && 'result' in value ? value.result : value);
  }

  /** The web view's interactive elements as web controls (get_dom_interactive, decoded once: `webControlsOf`). */
  async webControls(webviewId?: string, options: CallOptions = {}): Promise<WebControl[]> {
    return webControlsOf(await this.getDomInteractive(webviewId, options));
  }

  /**
   * The native view tree (iOS get_view_tree), a secure field's `text` taken out (docs/rules.md#r-secret-06):
   * secrecy from the view's own keys and, where the app offers it, get_elements read just before.
   */
  async getViewTree(maxDepth = 50, options: CallOptions = {}): Promise<unknown[]> {
    const inventory = this.has('get_elements')
      ? await this.getElements(undefined, options).then(
          (reply) => reply.elements,
          () => [],
        )
      : [];
    const args = this.args('get_view_tree', { window: options.windowId, optional: ['window'], values: { max_depth: maxDepth } });
    const value = await this.callJson('get_view_tree', args, options);
    const views = isRecord(value) ? value.views : value;
    if (!Array.isArray(views)) throw this.badReply('get_view_tree', 'expected a views list');
    return redactViewTree(views, secretElementIds(inventory));
  }

  // ---- Internals -----------------------------------------------------------------------------------

  private async probeHealth(timeoutMs = this.#options.healthTimeoutMs): Promise<AppRevealHealth> {
    const url = new URL('/health', this.baseUrl);
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    // Bounded before it is read whole: a peer that floods /health is refused, not buffered.
    const outcome = await httpGet(host, port, '/health', {
      timeoutMs,
      maxBytes: MAX_HEALTH_BYTES,
      secure: url.protocol === 'https:',
      headers: this.#options.headers,
    });
    if (outcome.kind === 'absent') throw new AppRevealError('unreachable', `AppReveal at ${this.endpoint} is unreachable (ECONNREFUSED)`);
    if (outcome.kind === 'failed') {
      if (/^no answer/.test(outcome.reason)) throw new AppRevealError('timeout', `AppReveal at ${this.endpoint} did not answer /health within ${timeoutMs} ms`);
      throw new AppRevealError('unreachable', `AppReveal at ${this.endpoint} ${outcome.reason} (/health)`);
    }
    if (outcome.status === 403) throw this.forbidden(403);
    if (outcome.status === 401) throw this.unauthorized(401);
    if (outcome.status !== 200) {
      throw new AppRevealError('bad_reply', `AppReveal at ${this.endpoint} answered /health with HTTP ${outcome.status}`, { status: outcome.status });
    }
    let body: unknown;
    try {
      body = JSON.parse(outcome.body);
    } catch {
      throw new AppRevealError('bad_reply', `AppReveal at ${this.endpoint} answered /health with something that is not JSON`);
    }
    const parsed = AppRevealHealthSchema.safeParse(body);
    if (!parsed.success) {
      throw new AppRevealError('bad_reply', `AppReveal at ${this.endpoint} answered /health without a status`);
    }
    if (parsed.data.status !== 'ok') {
      throw new AppRevealError('unreachable', `AppReveal at ${this.endpoint} reports status "${this.scrub(parsed.data.status)}"`);
    }
    return parsed.data;
  }

  /** A tool's arguments as its inputSchema names them; `no_form` (nothing sent) when it cannot take them. */
  private args(tool: string, request: ToolArgumentRequest): Record<string, unknown> {
    const built = buildToolArguments(this.#specs.get(tool) ?? { name: tool }, request);
    if (!built.ok) throw new AppRevealError('no_form', `${tool} at AppReveal ${this.endpoint}: ${built.why}`, { tool });
    return built.args;
  }

  private async action(tool: string, request: ToolArgumentRequest, options: CallOptions): Promise<AppRevealActionResult> {
    const args = this.args(tool, request);
    const started = performance.now();
    const value = withoutTypedEcho(tool, this.unwrapPageResult(tool, await this.callJson(tool, args, options)));
    return { tool, durationMs: Math.round(performance.now() - started), result: isRecord(value) ? value : { value } };
  }

  /** A tool call whose one text block is JSON; `{"error": ...}` or `{"success": false}` becomes a tool_error. */
  private async callJson(tool: string, args: Record<string, unknown>, options: CallOptions): Promise<unknown> {
    const value = this.parseText(tool, await this.callContent(tool, args, options));
    if (isToolFailure(value)) throw this.toolFailure(tool, value);
    return value;
  }

  private async callContent(tool: string, args: Record<string, unknown>, options: CallOptions): Promise<ContentBlock[]> {
    if (this.#state === 'closed') throw this.closedError();
    const mcp = this.#mcp;
    if (!mcp) throw new AppRevealError('unreachable', `not connected to AppReveal at ${this.endpoint}`, { tool });
    if (!this.#specs.has(tool)) {
      throw new AppRevealError('unknown_tool', `AppReveal at ${this.endpoint} does not offer ${tool}`, { tool });
    }
    let result: unknown;
    const timeout = options.timeoutMs ?? this.#options.timeoutMs;
    try {
      result = await mcp.callTool({ name: tool, arguments: args }, undefined, { timeout });
    } catch (error) {
      const mapped = this.mapError(error, tool, timeout);
      if (mapped.code === 'unreachable' || mapped.code === 'unauthorized') this.setState('disconnected', mapped.message);
      throw mapped;
    }
    if (this.#state === 'disconnected') this.setState('connected', undefined);
    if (!isRecord(result) || !Array.isArray(result.content)) throw this.badReply(tool, 'the result has no content');
    const content = result.content.filter(isRecord) as ContentBlock[];
    if (result.isError === true) {
      const text = firstText(content);
      throw new AppRevealError('tool_error', `${tool} failed: ${this.scrub(text ?? 'the app reported an error')}`, {
        tool,
        ...(text !== undefined ? { appMessage: this.scrub(text) } : {}),
      });
    }
    return content;
  }

  private parseText(tool: string, content: ContentBlock[], maxChars?: number): unknown {
    const text = firstText(content);
    if (text === undefined) throw this.badReply(tool, 'the result has no text block');
    if (maxChars !== undefined && text.length > maxChars) throw this.badReply(tool, `the answer is larger than ${maxChars} characters (${text.length})`);
    try {
      return JSON.parse(text);
    } catch {
      throw this.badReply(tool, 'the text block is not JSON');
    }
  }

  private decode<T>(tool: string, schema: z.ZodType<T>, value: unknown): T {
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.map(String).join('.')}` : '';
    throw this.badReply(tool, `unexpected result${where}: ${this.scrub(issue?.message ?? 'does not match')}`);
  }

  private toolFailure(tool: string, value: unknown): AppRevealError {
    const parsed = AppRevealToolFailureSchema.safeParse(value);
    if (!parsed.success) return new AppRevealError('tool_error', `${tool} failed`, { tool });
    const failure = parsed.data;
    const candidates = failure.candidates ?? [];
    if (candidates.length > 0) {
      const names = candidates.map((c) => (c.id !== undefined && c.id !== c.text ? `"${c.text}" (${c.id})` : `"${c.text}"`));
      return new AppRevealError('tool_error', this.scrub(`${tool}: ${failure.error} — ${candidates.length} candidates: ${names.join(', ')}`), {
        tool,
        appMessage: this.scrub(failure.error),
        candidates,
        ...(failure.hint !== undefined ? { hint: failure.hint } : {}),
      });
    }
    return new AppRevealError('tool_error', `${tool} failed: ${this.scrub(failure.error)}`, {
      tool,
      appMessage: this.scrub(failure.error),
      ...(failure.hint !== undefined ? { hint: failure.hint } : {}),
    });
  }

  private checkImage(dataBase64: string): AppRevealScreenshot {
    const bytes = Buffer.from(dataBase64, 'base64');
    if (bytes.length >= PNG_MAGIC.length && PNG_MAGIC.every((b, i) => bytes[i] === b)) {
      return { format: 'png', dataBase64: bytes.toString('base64'), ...(pngSize(bytes) ?? {}) };
    }
    if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) {
      return { format: 'jpeg', dataBase64: bytes.toString('base64') };
    }
    throw this.badReply('screenshot', 'the image is neither PNG nor JPEG');
  }

  /** Every JSON-RPC error response the server sends is noted, so mapError can tell it from the SDK's own. */
  private noteServerMessage(message: JSONRPCMessage): void {
    if (!isRecord(message) || !('error' in message) || !isRecord(message.error)) return;
    const { code, message: text } = message.error;
    if (typeof code !== 'number' || typeof text !== 'string') return;
    const key = `${code} ${text}`;
    this.#serverErrors.set(key, (this.#serverErrors.get(key) ?? 0) + 1);
    // Unclaimed notes (a reply to a request that had already timed out) must not pile up.
    if (this.#serverErrors.size > 100) this.#serverErrors.delete(this.#serverErrors.keys().next().value as string);
  }

  /** Whether this McpError is one the server sent (and claims the note), rather than one the SDK made. */
  private fromServer(error: McpError): boolean {
    const prefix = `MCP error ${error.code}: `;
    const text = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
    const key = `${error.code} ${text}`;
    const count = this.#serverErrors.get(key);
    if (count === undefined) return false;
    if (count <= 1) this.#serverErrors.delete(key);
    else this.#serverErrors.set(key, count - 1);
    return true;
  }

  private mapError(error: unknown, what: string, timeoutMs = this.#options.timeoutMs): AppRevealError {
    if (error instanceof AppRevealError) return error;
    const tool = what === 'connect' ? {} : { tool: what };
    const tooLarge = replyTooLarge(error);
    if (tooLarge) return new AppRevealError('bad_reply', `AppReveal at ${this.endpoint} answered ${what} with more than it may: ${tooLarge.message}`, tool);
    if (error instanceof StreamableHTTPError) {
      if (error.code === 401) return this.unauthorized(401, tool);
      if (error.code === 403) return this.forbidden(403, tool);
      if (error.code === -1) return new AppRevealError('bad_reply', `AppReveal at ${this.endpoint} answered ${what} with an unexpected content type`, tool);
      const rpc = jsonRpcErrorIn(error.message);
      if (rpc && what !== 'connect') {
        // A 400 with a JSON-RPC body (-32700 parse error, -32600 invalid request): refused, not run.
        return new AppRevealError(
          'tool_error',
          `${what} refused by AppReveal at ${this.endpoint} (HTTP ${error.code}, ${rpc.code}): ${this.scrub(rpc.message)}`,
          {
            ...tool,
            status: error.code,
            rpcCode: rpc.code,
          },
        );
      }
      if (error.code !== undefined && error.code >= 400 && error.code < 500 && what !== 'connect') {
        // iOS answers 400 and 413 with an empty body: it read the request and ran nothing.
        return new AppRevealError('tool_error', `${what} refused by AppReveal at ${this.endpoint} (HTTP ${error.code})`, { ...tool, status: error.code });
      }
      const detail = rpc ? `: ${rpc.code} ${this.scrub(rpc.message)}` : '';
      return new AppRevealError('bad_reply', `AppReveal at ${this.endpoint} answered ${what} with HTTP ${error.code}${detail}`, {
        ...tool,
        status: error.code,
      });
    }
    if (error instanceof UnauthorizedError) return this.unauthorized(401, tool);
    if (error instanceof McpError) {
      if (this.fromServer(error)) {
        const text = this.scrub(error.message.replace(/^MCP error -?\d+: /, ''));
        if (what === 'connect')
          return new AppRevealError('bad_reply', `AppReveal at ${this.endpoint} refused to connect (${error.code}): ${text}`, { rpcCode: error.code });
        if (error.code === ErrorCode.MethodNotFound) {
          return new AppRevealError('unknown_tool', `AppReveal at ${this.endpoint} does not offer ${what} (${text})`, { ...tool, rpcCode: error.code });
        }
        // -32603 is the server's "internal error". The Tauri crate sends every tool's Err as -32603
        // (protocol.rs `handle_tool_call`, `RpcError::internal_error`): bad arguments, before dispatch, as
        // `Invalid params: …` (error.rs:23, the Display of `InvalidParams`), and a failed tool as its own
        // words (`Tool`, error.rs:26), e.g. its evaluation timeout, which comes after the page script was
        // dispatched (tauri_integration.rs); iOS sends a handler that threw (MCPRouter.swift:80
        // `.internalError`). Only the first is "not run" (docs/protocol.md#p-ar-outcomes).
        // A read (get_*, list_*, screenshot, …) changes nothing, so there its failure stays "did not do it".
        if (error.code === ErrorCode.InternalError && !/^invalid params\b/i.test(text) && !READ_ONLY_TOOL.test(what)) {
          return new AppRevealError('server_error', `${what} failed inside AppReveal at ${this.endpoint} (${error.code}): ${text}`, {
            ...tool,
            rpcCode: error.code,
            appMessage: text,
          });
        }
        return new AppRevealError('tool_error', `${what} failed: ${text}`, { ...tool, rpcCode: error.code, appMessage: text });
      }
      switch (error.code) {
        case ErrorCode.RequestTimeout:
          return new AppRevealError('timeout', `${what} got no answer from AppReveal at ${this.endpoint} within ${timeoutMs} ms`, tool);
        case ErrorCode.ConnectionClosed:
          return new AppRevealError('unreachable', `the connection to AppReveal at ${this.endpoint} closed during ${what}`, tool);
        default:
          break;
      }
      return new AppRevealError('bad_reply', `${what} failed at AppReveal ${this.endpoint}: ${this.scrub(error.message)}`, tool);
    }
    if (isAbort(error)) {
      return new AppRevealError('unreachable', `the request to AppReveal at ${this.endpoint} was aborted during ${what}`, tool);
    }
    if (error instanceof TypeError && error.message === 'fetch failed') {
      return new AppRevealError('unreachable', `AppReveal at ${this.endpoint} is unreachable${causeCode(error)}`, tool);
    }
    // ZodError (a reply that is not JSON-RPC), SyntaxError (a body that is not JSON), and anything else.
    const name = error instanceof Error ? error.name : 'error';
    return new AppRevealError('bad_reply', `AppReveal at ${this.endpoint} sent an unusable reply to ${what} (${name})`, tool);
  }

  private unauthorized(status: number, extra: { tool?: string } = {}): AppRevealError {
    const why =
      this.#token === undefined
        ? 'it needs a session token; paste the session URL the app printed'
        : 'the session token was refused (the app may have restarted with a new one)';
    return new AppRevealError('unauthorized', `AppReveal at ${this.endpoint} answered ${status}: ${why}`, { ...extra, status });
  }

  private forbidden(status: number, extra: { tool?: string } = {}): AppRevealError {
    return new AppRevealError('forbidden_origin', `AppReveal at ${this.endpoint} refused the request's Origin (${status}); it accepts loopback origins only`, {
      ...extra,
      status,
    });
  }

  private badReply(tool: string, detail: string): AppRevealError {
    return new AppRevealError('bad_reply', `${tool} at AppReveal ${this.endpoint}: ${detail}`, { tool });
  }

  private closedError(): AppRevealError {
    return new AppRevealError('unreachable', `the AppReveal client for ${this.endpoint} is closed`);
  }

  /** Peer text quoted in an error: one line, bounded, and never the token. */
  private scrub(text: string): string {
    const out = this.withoutToken(text).replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ');
    return out.length > 300 ? `${out.slice(0, 300)}…` : out;
  }

  private withoutToken(text: string): string {
    let out = text;
    if (this.#token !== undefined && this.#token !== '') out = out.split(this.#token).join('‹token›');
    return out.replace(/appreveal_session_token=[^&\s"']*/gi, 'appreveal_session_token=‹token›');
  }

  /** An app's own data (its logs may print the session URL), with every string scrubbed of the token. */
  private scrubDeep(value: unknown): unknown {
    if (typeof value === 'string') return this.withoutToken(value);
    if (Array.isArray(value)) return value.map((item) => this.scrubDeep(item));
    if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [this.withoutToken(key), this.scrubDeep(item)]));
    return value;
  }

  private setState(state: AppRevealClientState, error: string | undefined): void {
    const changed = state !== this.#state || error !== this.#lastError;
    this.#state = state;
    this.#lastError = error;
    if (changed) this.emit('state', state, error);
  }
}

/**
 * A typing tool's answer with every echo of the field's contents taken out, before anything holds it
 * (docs/rules.md#r-secret-08): iOS `web_type` answers the page script's `{success:true, value:el.value}`
 * (AppReveal iOS/Sources/AppReveal/WebView/DOMSerializer.swift `typeJS`, wrapped as `{"result": …}` by
 * WebViewTools.swift web_type), the whole field's value, a password's in clear; the demo's iOS type_text
 * answers `text`; Tauri's page script answers `element: descriptor(element)`, whose `value`, `label` and
 * `text` are the field's (Windows/appreveal-tauri/src/tauri_integration.rs `dom_action_script`). Whether
 * the field is a secret is decided later, on a read-back: so no typing tool's echo is ever kept.
 */
const TYPING_TOOLS = new Set(['web_type', 'type_text', 'clear_text']);
const ECHO_KEYS = ['value', 'text', 'label'];
function withoutTypedEcho(tool: string, value: unknown): unknown {
  if (!TYPING_TOOLS.has(tool) || !isRecord(value)) return value;
  const strip = (record: Record<string, unknown>): Record<string, unknown> =>
    Object.fromEntries(
      Object.entries(record)
        .filter(([key]) => !ECHO_KEYS.includes(key))
        .map(([key, item]) => [key, isRecord(item) ? strip(item) : item]),
    );
  return strip(value);
}

function parseJsonOr(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The JSON-RPC error a StreamableHTTPError quotes from a non-2xx body, if the body was one. */
/** device_info's `screen` in points (iOS: `{width, height, scale, …}`); Tauri reports none. */
function screenPointsOf(info: unknown): { width: number; height: number } | undefined {
  const screen = isRecord(info) ? info.screen : undefined;
  if (!isRecord(screen)) return undefined;
  const { width, height } = screen;
  if (typeof width !== 'number' || typeof height !== 'number' || !(width > 0 && width < 100_000 && height > 0 && height < 100_000)) return undefined;
  return { width, height };
}

function jsonRpcErrorIn(message: string): { code: number; message: string } | undefined {
  const start = message.indexOf('{');
  if (start < 0) return undefined;
  try {
    const parsed = JsonRpcErrorBodySchema.safeParse(JSON.parse(message.slice(start)));
    return parsed.success ? { code: parsed.data.error.code, message: parsed.data.error.message } : undefined;
  } catch {
    return undefined;
  }
}

interface ContentBlock {
  type?: unknown;
  text?: unknown;
  data?: unknown;
  mimeType?: unknown;
}

function firstText(content: ContentBlock[]): string | undefined {
  for (const block of content) {
    if (block.type === 'text' && typeof block.text === 'string') return block.text;
  }
  return undefined;
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}

/** " (ECONNREFUSED)" from a fetch failure's cause; never its message, which may quote the URL. */
function causeCode(error: unknown): string {
  const cause = error instanceof Error ? (error as { cause?: unknown }).cause : undefined;
  const code = isRecord(cause) && typeof cause.code === 'string' ? cause.code : undefined;
  return code && /^[A-Z0-9_]+$/.test(code) ? ` (${code})` : '';
}
