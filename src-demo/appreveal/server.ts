/**
 * An AppReveal server (docs/protocol.md#p-appreveal) in front of an abstract app: the demo device embeds
 * it the way a debug build embeds AppReveal, and tests use it as a real peer. It speaks as one of the
 * real servers, chosen by `flavor` (docs/rules.md#r-ar-25):
 *   - `ios`: the iOS framework's hand-written HTTP server (`iOS/Sources/AppReveal/MCPServer/MCPServer.swift`):
 *     empty 403/405/413 bodies, a JSON-RPC 401 without `id`, `"jsonrpc": "2.0"` required, a notification
 *     (no id, or `"id": null`) answered 204;
 *   - `tauri`: the Rust crate's (`Windows/appreveal-tauri/src/server.rs`, `protocol.rs`): 405 and 403 as
 *     plain text, JSON-RPC bodies with `"id": null` for 400/401/413, `Invalid Request: …` messages,
 *     `ping`, tools listed in name order, keys of every result in name order (serde_json).
 * The tools of each flavour are in tools.ts.
 *
 * The wire is the JSON-only form of MCP Streamable HTTP both speak: each POST carries one JSON-RPC object
 * and gets one application/json reply, connection closed; no SSE, no Mcp-Session-Id. Nothing is
 * printed, ever.
 *
 * Over 500 lines because the two flavours' HTTP edges (status codes, bodies, Bonjour) differ in detail and
 * are kept side by side. The app interface it serves lives in app-interface.ts, which the server and its
 * tools both import, so neither imports the other back.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { Bonjour, Service } from 'bonjour-service';
import { APPREVEAL_INSTANCE_PREFIX, APPREVEAL_SERVICE_TYPE, SESSION_TOKEN_PARAM } from '@shared/protocol/appreveal';
import { APPREVEAL_SERVER_VERSION, buildTools, type AppRevealFlavor, type ToolDef, type ToolResult } from './tools';

export { ALWAYS_PRESENT_TOOLS, APPREVEAL_FLAVORS, APPREVEAL_SERVER_VERSION, AppRevealToolError, type AppRevealFlavor } from './tools';

export const APPREVEAL_PROTOCOL_VERSION = '2025-06-18';
const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

export type {
  ActionOutcome,
  AppErrorEntry,
  AppLogEntry,
  AppNavigationStack,
  AppNetworkCall,
  AppNetworkMessage,
  AppRevealApp,
  AppRevealElementForm,
  MaybePromise,
  TapTextOptions,
  WebTypeOptions,
} from './app-interface';
import type { AppRevealApp, AppRevealElementForm } from './app-interface';

export interface AppRevealServerOptions {
  app: AppRevealApp;
  /** Which real server to speak as (default ios). */
  flavor?: AppRevealFlavor;
  /** 0 or absent: any free port. */
  port?: number;
  /** Listen address; loopback unless the caller wants the LAN. Bonjour advertises exactly where it listens. */
  host?: string;
  /** The session token; absent: a fresh 64-hex-char one; null: auth disabled. */
  token?: string | null;
  /** The tools to register (only these are listed and callable); absent: every tool the flavour serves. */
  tools?: readonly string[];
  elementForm?: AppRevealElementForm;
  /** iOS: the screenshot as an image content block (newer routers, default) or as `{image}` JSON text (stored tools). */
  screenshotForm?: 'image' | 'text';
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
  readonly flavor: AppRevealFlavor;
  /** The registered tool names. */
  readonly tools: readonly string[];
  /** How many HTTP requests arrived, by `METHOD path` (tests check that nothing was sent). */
  readonly requests: Readonly<Record<string, number>>;
  /** tools/call counts by tool name. */
  readonly toolCalls: Readonly<Record<string, number>>;
  /** The addresses Bonjour advertises (empty when not advertising). */
  readonly advertisedAddresses: readonly string[];
  close(): Promise<void>;
}

class BodyTooLarge extends Error {}

type RpcId = string | number | null;

/** How one flavour answers at the HTTP level. */
interface Wire {
  forbidden(res: ServerResponse): void;
  methodNotAllowed(res: ServerResponse): void;
  unauthorized(res: ServerResponse): void;
  tooLarge(res: ServerResponse): void;
  /** A 400 with a JSON-RPC error body. */
  badRequest(res: ServerResponse, id: RpcId, code: number, message: string): void;
  noContent(res: ServerResponse): void;
  /** The envelope of a JSON-RPC error reply (in a 200 or a 400). */
  errorBody(id: RpcId, code: number, message: string): Record<string, unknown>;
  /** A result as the flavour serializes it (Tauri: keys in name order). */
  result(value: unknown): unknown;
}

const IOS_WIRE: Wire = {
  forbidden: (res) => sendEmpty(res, 403, 'application/json'),
  methodNotAllowed: (res) => sendEmpty(res, 405, 'application/json'),
  // MCPResponse(id: nil, error: .internalError("Unauthorized")): Swift leaves nil optionals out.
  unauthorized: (res) => sendJson(res, 401, { jsonrpc: '2.0', error: { code: -32603, message: 'Unauthorized' } }),
  tooLarge: (res) => sendEmpty(res, 413, 'application/json'),
  badRequest: (res, _id, code, message) => sendJson(res, 400, { jsonrpc: '2.0', error: { code, message } }),
  noContent: (res) => sendEmpty(res, 204, 'application/json'),
  errorBody: (id, code, message) => (id === null ? { jsonrpc: '2.0', error: { code, message } } : { jsonrpc: '2.0', id, error: { code, message } }),
  result: (value) => value,
};

const TAURI_WIRE: Wire = {
  forbidden: (res) => sendText(res, 403, 'Origin is not allowed'),
  methodNotAllowed: (res) => sendText(res, 405, 'Only POST is supported'),
  unauthorized: (res) => sendJson(res, 401, { jsonrpc: '2.0', id: null, error: { code: -32603, message: 'Unauthorized' } }),
  tooLarge: (res) => sendJson(res, 413, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: request body too large' } }),
  badRequest: (res, id, code, message) => sendJson(res, 400, { jsonrpc: '2.0', id, error: { code, message } }),
  noContent: (res) => sendEmpty(res, 204, 'text/plain; charset=utf-8'),
  errorBody: (id, code, message) => ({ jsonrpc: '2.0', id, error: { code, message } }),
  result: (value) => sortKeys(value),
};

export async function startAppRevealServer(options: AppRevealServerOptions): Promise<AppRevealServerHandle> {
  const app = options.app;
  const flavor: AppRevealFlavor = options.flavor ?? 'ios';
  const wire = flavor === 'tauri' ? TAURI_WIRE : IOS_WIRE;
  const token = options.token === undefined ? randomBytes(32).toString('hex') : options.token;
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const allTools = buildTools(app, { flavor, elementForm: options.elementForm ?? 'strings', screenshotForm: options.screenshotForm ?? 'image' });
  const wanted = options.tools ?? Object.keys(allTools);
  const tools = new Map<string, ToolDef>();
  for (const name of wanted) {
    const def = allTools[name];
    if (def) tools.set(name, def);
  }
  const listed = flavor === 'tauri' ? [...tools.keys()].sort() : [...tools.keys()];
  const requests: Record<string, number> = {};
  const toolCalls: Record<string, number> = {};
  const listenHost = options.host ?? '127.0.0.1';
  let port = 0;
  let advertiser: Advertiser | undefined;

  const server: Server = createServer((req, res) => {
    void handle(req, res).catch(() => {
      // A handler bug must not take the app down; the client sees a 500.
      if (!res.headersSent) sendEmpty(res, 500, 'application/json');
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
    // Every real server answers once and closes.
    res.setHeader('connection', 'close');

    const origins = req.headersDistinct.origin;
    if (origins !== undefined) {
      const origin = origins[0] ?? '';
      // Tauri bound to every interface refuses any Origin; both refuse a non-loopback one or several.
      const wildcard = listenHost === '0.0.0.0' || listenHost === '::';
      if (origins.length !== 1 || !isLoopbackOrigin(origin) || (flavor === 'tauri' && wildcard)) {
        wire.forbidden(res);
        return;
      }
      res.setHeader('access-control-allow-origin', origin);
      res.setHeader('access-control-allow-methods', 'GET, POST, OPTIONS');
      res.setHeader(
        'access-control-allow-headers',
        flavor === 'tauri' ? 'authorization, content-type, x-appreveal-session' : 'Authorization, Content-Type, X-AppReveal-Session',
      );
      res.setHeader('vary', 'Origin');
    }
    if (req.method === 'OPTIONS') {
      sendEmpty(res, 204, flavor === 'tauri' ? 'text/plain; charset=utf-8' : 'application/json');
      return;
    }
    if (req.method === 'GET' && url.pathname === '/health') {
      sendJson(res, 200, health());
      return;
    }
    if (req.method !== 'POST') {
      wire.methodNotAllowed(res);
      return;
    }
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBody) {
      tooLarge(req, res);
      return;
    }
    if (token !== null && !authorized(req, url, token)) {
      wire.unauthorized(res);
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
    if (flavor === 'tauri' && body.trim() === '') {
      wire.badRequest(res, null, -32700, 'Parse error: Empty body');
      return;
    }
    let message: unknown;
    try {
      message = JSON.parse(body);
    } catch (error) {
      wire.badRequest(res, null, -32700, `Parse error: ${error instanceof Error ? error.message : 'not JSON'}`);
      return;
    }
    const checked = flavor === 'tauri' ? checkTauriRequest(message) : checkIosRequest(message);
    if (!checked.ok) {
      wire.badRequest(res, checked.id, checked.code, checked.message);
      return;
    }
    const reply = await dispatch(checked.id, checked.method, checked.params);
    if (checked.notification) {
      // A notification still runs; it just gets no body.
      wire.noContent(res);
      return;
    }
    sendJson(res, 200, reply);
  }

  function health(): Record<string, unknown> {
    const auth = token === null ? 'disabled' : 'session-token';
    // Neither real /health names the app: its identity is in launch_context (docs/protocol.md#p-ar-health).
    if (flavor === 'tauri') return sortKeys({ status: 'ok', port, auth, discovery: advertiser ? 'bonjour' : 'manual' }) as Record<string, unknown>;
    const usable = advertiser !== undefined && advertiser.addresses.some((address) => !isLoopback(address));
    return {
      status: 'ok',
      port,
      auth,
      bonjour: advertiser ? 'advertising' : 'not_started',
      bonjourDiagnostics: { status: advertiser ? 'advertising' : 'not_started', retryAttempt: 0, maxRetryAttempts: 5 },
      lan: {
        pathStatus: 'satisfied',
        pathInterfaces: ['loopback'],
        hasUsableLANAddress: usable,
        interfaces: advertiser ? [...advertiser.addresses] : [listenHost],
        warnings: usable ? [] : ['listening on loopback only: not reachable from the network'],
      },
    };
  }

  function tooLarge(req: IncomingMessage, res: ServerResponse): void {
    // Reading the rest of a huge body only to discard it is what 413 is meant to avoid: close instead.
    wire.tooLarge(res);
    req.resume();
  }

  async function dispatch(id: RpcId, method: string, params: unknown): Promise<unknown> {
    const result = (value: unknown) => ({ jsonrpc: '2.0', id, result: wire.result(value) });
    switch (method) {
      case 'initialize':
        return result({
          protocolVersion: APPREVEAL_PROTOCOL_VERSION,
          capabilities: { tools: {} },
          serverInfo: { name: 'AppReveal', version: APPREVEAL_SERVER_VERSION },
        });
      case 'ping':
        // Only the Tauri crate answers ping; iOS's router has no handler for it.
        if (flavor === 'tauri') return result({});
        return wire.errorBody(id, -32601, `Method not found: ${method}`);
      case 'tools/list':
        return result({
          tools: listed.map((name) => {
            const def = tools.get(name)!;
            return {
              name,
              description: def.description,
              inputSchema: { type: 'object', properties: def.properties, ...(def.required ? { required: def.required } : {}) },
            };
          }),
        });
      case 'tools/call': {
        const p = typeof params === 'object' && params !== null && !Array.isArray(params) ? (params as { name?: unknown; arguments?: unknown }) : undefined;
        if (!p || typeof p.name !== 'string') return wire.errorBody(id, -32602, 'Invalid params: Missing tool name');
        const isObject = typeof p.arguments === 'object' && p.arguments !== null && !Array.isArray(p.arguments);
        if (flavor === 'tauri' && p.arguments !== undefined && p.arguments !== null && !isObject) {
          return wire.errorBody(id, -32602, 'Invalid params: arguments must be an object');
        }
        const def = tools.get(p.name);
        if (!def) return wire.errorBody(id, -32601, `Method not found: ${p.name}`);
        toolCalls[p.name] = (toolCalls[p.name] ?? 0) + 1;
        // Tauri's batch tells "no arguments at all" from an empty object; iOS reads anything else as none.
        if (flavor === 'tauri' && p.name === 'batch' && p.arguments === undefined)
          return wire.errorBody(id, -32603, 'Invalid params: arguments must be an object');
        let outcome: ToolResult;
        try {
          outcome = await def.run(isObject ? (p.arguments as Record<string, unknown>) : {});
        } catch (error) {
          outcome = { kind: 'rpc_error', code: -32603, message: error instanceof Error ? error.message : String(error) };
        }
        return toolReply(id, outcome);
      }
      default:
        return wire.errorBody(id, -32601, `Method not found: ${method}`);
    }
  }

  function toolReply(id: RpcId, outcome: ToolResult): unknown {
    if (outcome.kind === 'rpc_error') return wire.errorBody(id, outcome.code, outcome.message);
    if (outcome.kind === 'image') {
      return {
        jsonrpc: '2.0',
        id,
        result: wire.result({
          content: [
            { type: 'image', data: outcome.data.toString('base64'), mimeType: imageMimeType(outcome.data) },
            { type: 'text', text: JSON.stringify(wire.result(outcome.meta)) },
          ],
          structuredContent: outcome.meta,
        }),
      };
    }
    return { jsonrpc: '2.0', id, result: { content: [{ text: JSON.stringify(wire.result(outcome.value)), type: 'text' }] } };
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, listenHost, () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  const urlHost = listenHost === '0.0.0.0' || listenHost === '::' ? '127.0.0.1' : listenHost.includes(':') ? `[${listenHost}]` : listenHost;
  // Tauri's session_url has no "/" before the query; iOS prints one.
  const baseUrl = `http://${urlHost}:${port}/`;
  const url =
    token === null ? baseUrl : flavor === 'tauri' ? `http://${urlHost}:${port}?${SESSION_TOKEN_PARAM}=${token}` : `${baseUrl}?${SESSION_TOKEN_PARAM}=${token}`;

  if (options.advertise) advertiser = advertise(app, port, token === null ? 'disabled' : 'session-token', listenHost);

  let closing: Promise<void> | undefined;
  return {
    url,
    baseUrl,
    port,
    token,
    flavor,
    tools: listed,
    requests,
    toolCalls,
    get advertisedAddresses() {
      return advertiser ? [...advertiser.addresses] : [];
    },
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

// ---- JSON-RPC envelope checks -------------------------------------------------------------------------

type Checked = { ok: true; id: RpcId; method: string; params: unknown; notification: boolean } | { ok: false; id: RpcId; code: number; message: string };

/** MCPServer.swift's order: an object, `"jsonrpc": "2.0"`, a string method, an Int or String id. */
function checkIosRequest(message: unknown): Checked {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    return { ok: false, id: null, code: -32600, message: 'Invalid Request: JSON-RPC payload must be an object' };
  }
  const msg = message as Record<string, unknown>;
  if (msg.jsonrpc !== '2.0') return { ok: false, id: null, code: -32600, message: 'Invalid Request: jsonrpc must be "2.0"' };
  if (typeof msg.method !== 'string') return { ok: false, id: null, code: -32600, message: 'Invalid Request: method is required' };
  const id = msg.id;
  if (id !== undefined && id !== null && typeof id !== 'string' && !(typeof id === 'number' && Number.isInteger(id))) {
    // The Codable decode of MCPRequest fails: reported as a parse error.
    return { ok: false, id: null, code: -32700, message: 'Parse error: id must be an integer or a string' };
  }
  if (msg.params !== undefined && (typeof msg.params !== 'object' || msg.params === null || Array.isArray(msg.params))) {
    return { ok: false, id: null, code: -32700, message: 'Parse error: params must be an object' };
  }
  // `"id": null` decodes as nil: a notification, like no id at all.
  const rpcId = id === undefined || id === null ? null : (id as string | number);
  return { ok: true, id: rpcId, method: msg.method, params: msg.params, notification: rpcId === null };
}

/** protocol.rs's parse_json_rpc_request: every failure names what was wrong after "Invalid Request:". */
function checkTauriRequest(message: unknown): Checked {
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    return { ok: false, id: null, code: -32600, message: 'Invalid Request: request must be an object' };
  }
  const msg = message as Record<string, unknown>;
  const echo: RpcId = typeof msg.id === 'string' || typeof msg.id === 'number' ? msg.id : null;
  if (!('jsonrpc' in msg)) return { ok: false, id: echo, code: -32600, message: 'Invalid Request: jsonrpc is required' };
  if (msg.jsonrpc !== '2.0') return { ok: false, id: echo, code: -32600, message: 'Invalid Request: jsonrpc must be "2.0"' };
  if (!('method' in msg)) return { ok: false, id: echo, code: -32600, message: 'Invalid Request: method is required' };
  if (typeof msg.method !== 'string') return { ok: false, id: echo, code: -32600, message: 'Invalid Request: method must be a string' };
  if (msg.method === '') return { ok: false, id: echo, code: -32600, message: 'Invalid Request: method must not be empty' };
  if ('id' in msg && msg.id !== null && typeof msg.id !== 'string' && typeof msg.id !== 'number') {
    return { ok: false, id: null, code: -32600, message: 'Invalid Request: id must be a string, number, or null' };
  }
  // Only a missing id is a notification: `"id": null` is a request and is answered with `"id": null`.
  return { ok: true, id: echo, method: msg.method, params: msg.params, notification: !('id' in msg) };
}

// ---- HTTP helpers ------------------------------------------------------------------------------------

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function sendText(res: ServerResponse, status: number, text: string): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function sendEmpty(res: ServerResponse, status: number, contentType: string): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': contentType, 'content-length': 0 });
  res.end();
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
    return hostname === 'localhost' || hostname.endsWith('.localhost') || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
  } catch {
    // "null" (a sandboxed frame or a file:// page) is not a loopback origin.
    return false;
  }
}

function authorized(req: IncomingMessage, url: URL, token: string): boolean {
  const offered: string[] = [];
  const auth = req.headers.authorization;
  if (typeof auth === 'string') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(auth.trim());
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

function imageMimeType(data: Buffer): string {
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'image/jpeg';
  return 'image/png';
}

/** serde_json's default map order: keys sorted, at every depth. */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null || Buffer.isBuffer(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
  );
}

// ---- Bonjour (docs/protocol.md#p-ar-bonjour) ------------------------------------------------------------

function isLoopback(address: string): boolean {
  return address.startsWith('127.') || address === '::1';
}

/**
 * The addresses a service bound to `listenHost` can be reached at, which are the only ones to advertise
 * (docs/rules.md#r-ar-26): a specific address is itself; a wildcard is every address of this machine's
 * interfaces (IPv4 only for 0.0.0.0), loopback last. Link-local IPv6 needs a zone an A/AAAA record
 * cannot carry, so it is left out.
 */
export function advertisableAddresses(listenHost: string, interfaces: ReturnType<typeof networkInterfaces> = networkInterfaces()): string[] {
  if (listenHost !== '0.0.0.0' && listenHost !== '::') return isIP(listenHost) !== 0 ? [listenHost] : ['127.0.0.1'];
  const all = Object.values(interfaces)
    .flat()
    .filter((info): info is NonNullable<typeof info> => info !== undefined)
    .filter((info) => (listenHost === '0.0.0.0' ? info.family === 'IPv4' : true))
    .filter((info) => !info.address.toLowerCase().startsWith('fe80'))
    .map((info) => info.address);
  const unique = [...new Set(all)];
  return [...unique.filter((a) => !isLoopback(a)), ...unique.filter(isLoopback)];
}

interface Advertiser {
  readonly name: string;
  readonly addresses: readonly string[];
  stop(): Promise<void>;
}

interface MdnsResponder {
  register(records: unknown[]): void;
  unregister(records: unknown[]): void;
  mdns: NodeJS.EventEmitter & { respond(packet: unknown, callback?: (error?: Error | null) => void): void };
}

interface ServiceRecord {
  name: string;
  type: string;
  ttl: number;
  data: unknown;
}

/**
 * Publishes `_appreveal._tcp` with A/AAAA records for exactly the addresses the server listens on.
 * bonjour-service's own publish always advertises every interface address (and never loopback), which
 * would send a client on the network where nothing listens; so its Service only builds the PTR, SRV and
 * TXT records, and the responder answers with those plus our address records.
 */
function advertise(app: AppRevealApp, port: number, auth: string, listenHost: string): Advertiser {
  // bonjour-service's default error callback throws, and its multicast socket emits 'error' with no
  // listener: either would crash the app over a Bonjour problem that should only cost discovery.
  const bonjour = new Bonjour({}, () => undefined);
  const responder = (bonjour as unknown as { server?: MdnsResponder }).server;
  responder?.mdns.on('error', () => undefined);
  responder?.mdns.on('warning', () => undefined);
  const addresses = advertisableAddresses(listenHost);
  const noop = () => undefined;
  const service = new Service(
    {
      name: `${APPREVEAL_INSTANCE_PREFIX}${app.bundleId}`,
      type: APPREVEAL_SERVICE_TYPE,
      protocol: 'tcp',
      port,
      txt: {
        bundleId: app.bundleId,
        version: app.version,
        transport: 'streamable-http',
        auth,
        ...(addresses.some((a) => !isLoopback(a)) ? { lan: 'available' } : {}),
      },
    },
    noop,
    noop,
  );
  const records: ServiceRecord[] = [
    ...(service.records() as ServiceRecord[]).filter((record) => record.type !== 'A' && record.type !== 'AAAA'),
    ...addresses.map((address) => ({ name: service.host, type: isIP(address) === 6 ? 'AAAA' : 'A', ttl: 120, data: address })),
  ];
  const timers: NodeJS.Timeout[] = [];
  const announce = () => {
    try {
      responder?.mdns.respond(records, () => undefined);
    } catch {
      // a closed socket: discovery is lost, the HTTP listener is not
    }
  };
  responder?.register(records);
  announce();
  // RFC 6762 §8.3: announce again, one second apart then growing, so a browser that missed one hears the next.
  for (const ms of [1000, 3000]) {
    const timer = setTimeout(announce, ms);
    timer.unref();
    timers.push(timer);
  }
  let stopped: Promise<void> | undefined;
  return {
    // bonjour-service turns dots into dashes in instance names ("AppReveal-dev-parallax-demo").
    name: service.name,
    addresses,
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
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
          responder?.unregister(records);
          responder?.mdns.respond(
            records.map((record) => ({ ...record, ttl: 0 })),
            done,
          );
          if (!responder) done();
        } catch {
          done();
        }
      });
      return stopped;
    },
  };
}
