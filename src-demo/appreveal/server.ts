/**
 * An AppReveal server (docs/protocol.md#p-appreveal) in front of an abstract app: the demo device embeds
 * it the way a debug iOS build embeds the AppReveal framework, and tests use it as a real peer.
 *
 * The wire is the JSON-only form of MCP Streamable HTTP that AppReveal speaks: each POST carries one
 * JSON-RPC object and gets one application/json reply; no SSE, no Mcp-Session-Id. The MCP SDK's server
 * transport would answer notifications with 202 and insist on an Accept header AppReveal does not
 * require, so the small JSON-RPC surface is implemented here by hand. Nothing is printed, ever.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Bonjour } from 'bonjour-service';
import {
  APPREVEAL_INSTANCE_PREFIX,
  APPREVEAL_SERVICE_TYPE,
  SCROLL_DIRECTIONS,
  SESSION_TOKEN_PARAM,
  type AppRevealElement,
  type AppRevealFrame,
  type AppRevealScreenInfo,
  type AppRevealWindow,
  type ScrollDirection,
} from '@shared/protocol/appreveal';

export const APPREVEAL_PROTOCOL_VERSION = '2025-06-18';
export const APPREVEAL_SERVER_VERSION = '1.4.0';
const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

type MaybePromise<T> = T | Promise<T>;
/** What an action may add to its `{success: true}` result. */
export type ActionOutcome = void | Record<string, unknown>;

export interface TapTextOptions {
  matchMode: 'exact' | 'contains';
  /** 0-based pick among several matches; absent means "there must be exactly one". */
  occurrence?: number;
  windowId?: string;
}

export interface WebTypeOptions {
  clear: boolean;
  webviewId?: string;
  windowId?: string;
}

/**
 * The app behind the server. A tool-level failure is a thrown error: its message becomes the
 * `{"error": ...}` text, and an AppRevealToolError's `extra` (for example tap_text's `candidates`) is
 * merged into it.
 */
export interface AppRevealApp {
  readonly bundleId: string;
  readonly version: string;
  listWindows(): MaybePromise<AppRevealWindow[]>;
  getScreen(windowId?: string): MaybePromise<AppRevealScreenInfo>;
  getElements(windowId?: string): MaybePromise<AppRevealElement[]>;
  /** PNG (or JPEG) bytes of the window. */
  screenshot(windowId?: string): Promise<Buffer>;
  tapElement(id: string, windowId?: string): MaybePromise<ActionOutcome>;
  tapText(text: string, options: TapTextOptions): MaybePromise<ActionOutcome>;
  tapPoint(x: number, y: number, windowId?: string): MaybePromise<ActionOutcome>;
  typeText(text: string, elementId?: string, windowId?: string): MaybePromise<ActionOutcome>;
  clearText(elementId: string, windowId?: string): MaybePromise<ActionOutcome>;
  scroll(direction: ScrollDirection, containerId?: string, windowId?: string): MaybePromise<ActionOutcome>;
  scrollToElement(id: string, windowId?: string): MaybePromise<ActionOutcome>;
  navigateBack(windowId?: string): MaybePromise<ActionOutcome>;
  // Web view tools: registered only when the app implements them.
  getWebViews?(windowId?: string): MaybePromise<unknown[]>;
  getDomInteractive?(webviewId?: string, windowId?: string): MaybePromise<unknown>;
  webClick?(selector: string, webviewId?: string, windowId?: string): MaybePromise<unknown>;
  webType?(selector: string, text: string, options: WebTypeOptions): MaybePromise<unknown>;
}

/** A tool-level failure with extra fields for the `{"error": ...}` object. */
export class AppRevealToolError extends Error {
  override readonly name = 'AppRevealToolError';
  constructor(
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** iOS/Android encode booleans, frames and actions as strings; Flutter/Tauri as real JSON types. */
export type AppRevealElementForm = 'strings' | 'booleans';

export interface AppRevealServerOptions {
  app: AppRevealApp;
  /** 0 or absent: any free port. */
  port?: number;
  /** Listen address; loopback unless the caller wants the LAN. */
  host?: string;
  /** The session token; absent: a fresh 64-hex-char one; null: auth disabled. */
  token?: string | null;
  /** The tools to register (only these are listed and callable); absent: every tool the app can serve. */
  tools?: readonly string[];
  elementForm?: AppRevealElementForm;
  /** Publish `_appreveal._tcp` over Bonjour once listening. */
  advertise?: boolean;
  maxBodyBytes?: number;
}

export interface AppRevealServerHandle {
  /** The session URL an app prints: base URL plus `appreveal_session_token` (unless auth is disabled). */
  readonly url: string;
  readonly baseUrl: string;
  readonly port: number;
  readonly token: string | null;
  /** The registered tool names. */
  readonly tools: readonly string[];
  /** How many HTTP requests arrived, by `METHOD path` (tests check that nothing was sent). */
  readonly requests: Readonly<Record<string, number>>;
  /** tools/call counts by tool name. */
  readonly toolCalls: Readonly<Record<string, number>>;
  close(): Promise<void>;
}

type ToolResult = { kind: 'json'; value: unknown } | { kind: 'image'; data: Buffer };
type Args = Record<string, unknown>;
interface ToolDef {
  description: string;
  properties: Record<string, { type: string; description?: string; enum?: readonly string[] }>;
  required?: string[];
  run(args: Args): Promise<ToolResult>;
}

class BodyTooLarge extends Error {}

export async function startAppRevealServer(options: AppRevealServerOptions): Promise<AppRevealServerHandle> {
  const app = options.app;
  const token = options.token === undefined ? randomBytes(32).toString('hex') : options.token;
  const form: AppRevealElementForm = options.elementForm ?? 'strings';
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const allTools = buildTools(app, form);
  const wanted = options.tools ?? Object.keys(allTools);
  const tools = new Map<string, ToolDef>();
  for (const name of wanted) {
    const def = allTools[name];
    if (def) tools.set(name, def);
  }
  const requests: Record<string, number> = {};
  const toolCalls: Record<string, number> = {};
  let port = 0;
  let advertiser: Advertiser | undefined;

  const server: Server = createServer((req, res) => {
    void handle(req, res).catch(() => {
      // A handler bug must not take the app down; the client sees a 500.
      if (!res.headersSent) sendJson(res, 500, { error: 'internal error' });
      else res.destroy();
    });
  });
  // A client that opens a socket and says nothing must not hold the server forever.
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://appreveal.invalid');
    const key = `${req.method ?? '?'} ${url.pathname}`;
    requests[key] = (requests[key] ?? 0) + 1;

    const origin = req.headers.origin;
    if (origin !== undefined && !isLoopbackOrigin(origin)) {
      sendJson(res, 403, { error: 'origin not allowed' });
      return;
    }
    if (origin !== undefined) {
      res.setHeader('access-control-allow-origin', origin);
      res.setHeader('vary', 'Origin');
    }
    if (req.method === 'OPTIONS' && origin !== undefined) {
      res.writeHead(204, {
        'access-control-allow-methods': 'GET, POST, OPTIONS',
        'access-control-allow-headers': 'authorization, content-type, x-appreveal-session, mcp-protocol-version',
        'access-control-max-age': '600',
      });
      res.end();
      return;
    }
    if (req.method === 'GET' && url.pathname === '/health') {
      sendJson(res, 200, {
        status: 'ok',
        port,
        auth: token === null ? 'disabled' : 'session-token',
        bundleId: app.bundleId,
        version: app.version,
        transport: 'streamable-http',
        server: { name: 'AppReveal', version: APPREVEAL_SERVER_VERSION },
        bonjour: { advertised: advertiser?.published ?? false, ...(advertiser ? { name: advertiser.name } : {}) },
      });
      return;
    }
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST');
      sendJson(res, 405, { error: 'method not allowed' });
      return;
    }
    if (token !== null && !authorized(req, url, token)) {
      res.setHeader('www-authenticate', 'Bearer');
      sendJson(res, 401, { error: 'unauthorized' });
      return;
    }
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBody) {
      tooLarge(req, res);
      return;
    }
    let body: string;
    try {
      body = await readBody(req, maxBody);
    } catch (error) {
      if (error instanceof BodyTooLarge) tooLarge(req, res);
      else res.destroy();
      return;
    }
    let message: unknown;
    try {
      message = JSON.parse(body);
    } catch {
      sendJson(res, 400, rpcError(null, -32700, 'Parse error'));
      return;
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      sendJson(res, 400, rpcError(null, -32600, 'Invalid Request: one JSON-RPC object per POST'));
      return;
    }
    const msg = message as { id?: unknown; method?: unknown; params?: unknown };
    if (msg.id === undefined || typeof msg.method !== 'string') {
      // A notification (or a stray response): nothing to answer.
      res.writeHead(204);
      res.end();
      return;
    }
    const id = typeof msg.id === 'string' || typeof msg.id === 'number' ? msg.id : null;
    sendJson(res, 200, await dispatch(id, msg.method, msg.params));
  }

  async function dispatch(id: string | number | null, method: string, params: unknown): Promise<unknown> {
    switch (method) {
      case 'initialize':
        return rpcResult(id, {
          protocolVersion: APPREVEAL_PROTOCOL_VERSION,
          capabilities: { tools: {} },
          serverInfo: { name: 'AppReveal', version: APPREVEAL_SERVER_VERSION },
        });
      case 'ping':
        return rpcResult(id, {});
      case 'tools/list':
        return rpcResult(id, {
          tools: [...tools].map(([name, def]) => ({
            name,
            description: def.description,
            inputSchema: { type: 'object', properties: def.properties, ...(def.required ? { required: def.required } : {}) },
          })),
        });
      case 'tools/call': {
        const p = (typeof params === 'object' && params !== null ? params : {}) as { name?: unknown; arguments?: unknown };
        if (typeof p.name !== 'string') return rpcError(id, -32602, 'Missing tool name');
        const def = tools.get(p.name);
        if (!def) return rpcError(id, -32601, `Tool not found: ${p.name}`);
        toolCalls[p.name] = (toolCalls[p.name] ?? 0) + 1;
        const args = (typeof p.arguments === 'object' && p.arguments !== null && !Array.isArray(p.arguments) ? p.arguments : {}) as Args;
        const result = await runTool(def, args);
        if (result.kind === 'image') {
          return rpcResult(id, { content: [{ type: 'image', data: result.data.toString('base64'), mimeType: imageMimeType(result.data) }] });
        }
        return rpcResult(id, { content: [{ type: 'text', text: JSON.stringify(result.value) }] });
      }
      default:
        return rpcError(id, -32601, `Method not found: ${method}`);
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  const listenHost = options.host ?? '127.0.0.1';
  const urlHost = listenHost === '0.0.0.0' || listenHost === '::' ? '127.0.0.1' : listenHost.includes(':') ? `[${listenHost}]` : listenHost;
  const baseUrl = `http://${urlHost}:${port}/`;
  const url = token === null ? baseUrl : `${baseUrl}?${SESSION_TOKEN_PARAM}=${token}`;

  if (options.advertise) advertiser = advertise(app, port, token === null ? 'disabled' : 'session-token');

  let closing: Promise<void> | undefined;
  return {
    url,
    baseUrl,
    port,
    token,
    tools: [...tools.keys()],
    requests,
    toolCalls,
    close() {
      closing ??= (async () => {
        await advertiser?.stop();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      })();
      return closing;
    },
  };
}

// ---- HTTP helpers ------------------------------------------------------------------------------------

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  res.end(text);
}

function tooLarge(req: IncomingMessage, res: ServerResponse): void {
  // Reading the rest of a huge body only to discard it is what 413 is meant to avoid: close instead.
  res.setHeader('connection', 'close');
  sendJson(res, 413, { error: 'payload too large' });
  req.resume();
}

function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!failed) resolve(Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', (error) => {
      if (!failed) reject(error);
    });
  });
}

function isLoopbackOrigin(origin: string): boolean {
  try {
    const { hostname, protocol } = new URL(origin);
    if (protocol !== 'http:' && protocol !== 'https:') return false;
    return hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
  } catch {
    // "null" (a sandboxed frame or a file:// page) is not a loopback origin.
    return false;
  }
}

function authorized(req: IncomingMessage, url: URL, token: string): boolean {
  const offered: string[] = [];
  const auth = req.headers.authorization;
  if (typeof auth === 'string') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    if (match?.[1]) offered.push(match[1]);
  }
  const header = req.headers['x-appreveal-session'];
  if (typeof header === 'string') offered.push(header.trim());
  offered.push(...url.searchParams.getAll(SESSION_TOKEN_PARAM));
  return offered.some((candidate) => sameSecret(candidate, token));
}

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function rpcResult(id: string | number | null, result: unknown): unknown {
  return { jsonrpc: '2.0', id, result };
}

function rpcError(id: string | number | null, code: number, message: string): unknown {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

function imageMimeType(data: Buffer): string {
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'image/jpeg';
  return 'image/png';
}

// ---- Tools -------------------------------------------------------------------------------------------

async function runTool(def: ToolDef, args: Args): Promise<ToolResult> {
  for (const name of def.required ?? []) {
    if (args[name] === undefined || args[name] === null) return json({ error: `${name} required` });
  }
  try {
    return await def.run(args);
  } catch (error) {
    if (error instanceof AppRevealToolError) return json({ ...error.extra, error: error.message });
    return json({ error: error instanceof Error ? error.message : String(error) });
  }
}

const json = (value: unknown): ToolResult => ({ kind: 'json', value });
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined);
const num = (value: unknown): number | undefined => {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(n) ? n : undefined;
};
const success = (outcome: ActionOutcome, echo: Record<string, unknown> = {}): ToolResult => json({ success: true, ...echo, ...(outcome ?? {}) });

const WINDOW_ID = { type: 'string', description: 'Target window ID from list_windows (default: key window)' };

function buildTools(app: AppRevealApp, form: AppRevealElementForm): Record<string, ToolDef> {
  const windowOf = (args: Args) => str(args.window_id);
  const defs: Record<string, ToolDef> = {
    list_windows: {
      description: 'List all visible app windows with IDs, titles, frames, and key status',
      properties: {},
      run: async () => {
        const windows = (await app.listWindows()).map((w) => encodeWindow(w, form));
        return json({ windows, count: windows.length });
      },
    },
    get_screen: {
      description: 'Get the currently active screen identity and metadata',
      properties: { window_id: WINDOW_ID },
      run: async (args) => json(await app.getScreen(windowOf(args))),
    },
    get_elements: {
      description: 'List all visible interactive elements on the current screen, with how each id was derived (idSource)',
      properties: { window_id: WINDOW_ID },
      run: async (args) => {
        const windowId = windowOf(args);
        const elements = (await app.getElements(windowId)).map((e) => encodeElement(e, form));
        let screenKey: string | undefined;
        try {
          screenKey = (await app.getScreen(windowId)).screenKey;
        } catch {
          screenKey = undefined;
        }
        return json(screenKey === undefined ? { elements } : { screenKey, elements });
      },
    },
    screenshot: {
      description: 'Capture a screenshot of the current screen as an image',
      properties: { window_id: WINDOW_ID, format: { type: 'string', enum: ['png'] } },
      run: async (args) => ({ kind: 'image', data: await app.screenshot(windowOf(args)) }),
    },
    tap_element: {
      description: 'Tap an element by ID',
      properties: { element_id: { type: 'string' }, window_id: WINDOW_ID },
      required: ['element_id'],
      run: async (args) => {
        const id = str(args.element_id) ?? '';
        return success(await app.tapElement(id, windowOf(args)), { element_id: id });
      },
    },
    tap_text: {
      description: 'Tap the nearest tappable element containing the given visible text',
      properties: {
        text: { type: 'string' },
        match_mode: { type: 'string', enum: ['exact', 'contains'] },
        occurrence: { type: 'integer', description: '0-based index when multiple matches exist' },
        window_id: WINDOW_ID,
      },
      required: ['text'],
      run: async (args) => {
        const text = str(args.text) ?? '';
        const occurrence = num(args.occurrence);
        const windowId = windowOf(args);
        const options: TapTextOptions = {
          matchMode: args.match_mode === 'contains' ? 'contains' : 'exact',
          ...(occurrence !== undefined && occurrence >= 0 ? { occurrence } : {}),
          ...(windowId !== undefined ? { windowId } : {}),
        };
        return success(await app.tapText(text, options), { text });
      },
    },
    tap_point: {
      description: 'Tap at specific screen coordinates',
      properties: { x: { type: 'number' }, y: { type: 'number' }, window_id: WINDOW_ID },
      required: ['x', 'y'],
      run: async (args) => {
        const x = num(args.x);
        const y = num(args.y);
        if (x === undefined || y === undefined) return json({ error: 'x and y are required numeric coordinates' });
        return success(await app.tapPoint(x, y, windowOf(args)), { x, y });
      },
    },
    type_text: {
      description: 'Type text into a text field',
      properties: { text: { type: 'string' }, element_id: { type: 'string' }, window_id: WINDOW_ID },
      required: ['text'],
      run: async (args) => {
        const text = str(args.text) ?? '';
        return success(await app.typeText(text, str(args.element_id), windowOf(args)), { text });
      },
    },
    clear_text: {
      description: 'Clear a text field',
      properties: { element_id: { type: 'string' }, window_id: WINDOW_ID },
      required: ['element_id'],
      run: async (args) => success(await app.clearText(str(args.element_id) ?? '', windowOf(args))),
    },
    scroll: {
      description: 'Scroll a container in a direction',
      properties: { direction: { type: 'string', enum: SCROLL_DIRECTIONS }, container_id: { type: 'string' }, window_id: WINDOW_ID },
      required: ['direction'],
      run: async (args) => {
        const direction = SCROLL_DIRECTIONS.find((d) => d === args.direction);
        if (!direction) return json({ error: 'Invalid direction' });
        return success(await app.scroll(direction, str(args.container_id), windowOf(args)));
      },
    },
    scroll_to_element: {
      description: 'Scroll until an element is visible',
      properties: { element_id: { type: 'string' }, window_id: WINDOW_ID },
      required: ['element_id'],
      run: async (args) => success(await app.scrollToElement(str(args.element_id) ?? '', windowOf(args))),
    },
    navigate_back: {
      description: 'Pop the current navigation stack',
      properties: { window_id: WINDOW_ID },
      run: async (args) => success(await app.navigateBack(windowOf(args))),
    },
  };
  const getWebViews = app.getWebViews?.bind(app);
  if (getWebViews) {
    defs.get_webviews = {
      description: 'List the web views on the current screen',
      properties: { window_id: WINDOW_ID },
      run: async (args) => {
        const webviews = await getWebViews(windowOf(args));
        return json({ webviews, count: webviews.length });
      },
    };
  }
  const getDomInteractive = app.getDomInteractive?.bind(app);
  if (getDomInteractive) {
    defs.get_dom_interactive = {
      description: 'Get the interactive DOM elements of a web view',
      properties: { webview_id: { type: 'string' }, window_id: WINDOW_ID },
      run: async (args) => json({ result: await getDomInteractive(str(args.webview_id), windowOf(args)) }),
    };
  }
  const webClick = app.webClick?.bind(app);
  if (webClick) {
    defs.web_click = {
      description: 'Click a DOM element by CSS selector',
      properties: { selector: { type: 'string' }, webview_id: { type: 'string' }, window_id: WINDOW_ID },
      required: ['selector'],
      run: async (args) => json({ result: await webClick(str(args.selector) ?? '', str(args.webview_id), windowOf(args)) }),
    };
  }
  const webType = app.webType?.bind(app);
  if (webType) {
    defs.web_type = {
      description: 'Type text into a DOM input by CSS selector',
      properties: {
        selector: { type: 'string' },
        text: { type: 'string' },
        clear: { type: 'boolean' },
        webview_id: { type: 'string' },
        window_id: WINDOW_ID,
      },
      required: ['selector', 'text'],
      run: async (args) => {
        const webviewId = str(args.webview_id);
        const windowId = windowOf(args);
        const options: WebTypeOptions = {
          clear: args.clear === true,
          ...(webviewId !== undefined ? { webviewId } : {}),
          ...(windowId !== undefined ? { windowId } : {}),
        };
        return json({ result: await webType(str(args.selector) ?? '', str(args.text) ?? '', options) });
      },
    };
  }
  return defs;
}

function encodeFrame(frame: AppRevealFrame, form: AppRevealElementForm): unknown {
  if (form === 'booleans') return { x: frame.x, y: frame.y, width: frame.width, height: frame.height };
  // iOS truncates to Int(...) when it formats the frame.
  return [frame.x, frame.y, frame.width, frame.height].map((v) => Math.trunc(v)).join(',');
}

function encodeElement(element: AppRevealElement, form: AppRevealElementForm): Record<string, unknown> {
  if (form === 'booleans') {
    return {
      id: element.id,
      type: element.type,
      ...(element.label !== undefined ? { label: element.label } : {}),
      ...(element.value !== undefined ? { value: element.value } : {}),
      enabled: element.enabled,
      visible: element.visible,
      tappable: element.tappable,
      frame: encodeFrame(element.frame, form),
      actions: [...element.actions],
      ...(element.idSource !== undefined ? { idSource: element.idSource } : {}),
    };
  }
  return {
    id: element.id,
    type: element.type,
    label: element.label ?? '',
    value: element.value ?? '',
    enabled: String(element.enabled),
    visible: String(element.visible),
    tappable: String(element.tappable),
    frame: encodeFrame(element.frame, form),
    actions: element.actions.join(','),
    ...(element.idSource !== undefined ? { idSource: element.idSource } : {}),
  };
}

function encodeWindow(window: AppRevealWindow, form: AppRevealElementForm): Record<string, unknown> {
  return {
    id: window.id,
    title: window.title ?? '',
    isKey: window.isKey,
    ...(window.frame ? { frame: encodeFrame(window.frame, form) } : {}),
  };
}

// ---- Bonjour -----------------------------------------------------------------------------------------

interface Advertiser {
  readonly name: string;
  readonly published: boolean;
  stop(): Promise<void>;
}

function advertise(app: AppRevealApp, port: number, auth: string): Advertiser {
  // bonjour-service's default error callback throws, and its multicast socket emits 'error' with no
  // listener: either would crash the app over a Bonjour problem that should only cost discovery.
  const bonjour = new Bonjour({}, () => undefined);
  const mdns = (bonjour as unknown as { server?: { mdns?: NodeJS.EventEmitter } }).server?.mdns;
  mdns?.on('error', () => undefined);
  mdns?.on('warning', () => undefined);
  const name = `${APPREVEAL_INSTANCE_PREFIX}${app.bundleId}`;
  const service = bonjour.publish({
    name,
    type: APPREVEAL_SERVICE_TYPE,
    protocol: 'tcp',
    port,
    txt: { bundleId: app.bundleId, version: app.version, transport: 'streamable-http', auth },
    // Probing logs a conflict with console.log, and the server prints nothing; two demo devices with
    // one bundle id would both answer, which discovery tolerates (it keys devices by host and port).
    probe: false,
  });
  service.on('error', () => undefined);
  let stopped: Promise<void> | undefined;
  return {
    // bonjour-service turns dots into dashes in instance names ("AppReveal-dev-parallax-demo").
    name: service.name,
    get published() {
      return service.published;
    },
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        let finished = false;
        const done = () => {
          if (finished) return;
          finished = true;
          clearTimeout(timer);
          try {
            bonjour.destroy();
          } catch {
            // already torn down
          }
          resolve();
        };
        // The goodbye packet (TTL 0) tells browsers the service is gone; do not wait on it forever.
        const timer = setTimeout(done, 1000);
        try {
          bonjour.unpublishAll(done);
        } catch {
          done();
        }
      });
      return stopped;
    },
  };
}
