/**
 * A client for an app's embedded AppReveal MCP server (docs/protocol.md#p-appreveal), through the
 * official MCP SDK client over Streamable HTTP.
 *
 * `connect()` probes `GET /health` (unauthenticated) first, so "nothing listens" and "wrong token" are
 * told apart, then initializes and reads `tools/list`: that list alone decides what may be called. A
 * tool the app did not register fails here with `unknown_tool` and never reaches the wire.
 *
 * The session token lives in one private field and the transport's request headers. It is never put in
 * a URL, an error message, an event or a log line: errors name the endpoint as host:port only, and any
 * text that comes back from the peer is scrubbed of the token before it is quoted.
 */
import { EventEmitter } from 'node:events';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import {
  APPREVEAL_WEB_TOOLS,
  AppRevealElementsReplySchema,
  AppRevealHealthSchema,
  AppRevealScreenInfoSchema,
  AppRevealScreenshotTextSchema,
  AppRevealToolFailureSchema,
  AppRevealWindowsReplySchema,
  endpointLabel,
  isToolFailure,
  parseAppRevealSessionUrl,
  type AppRevealCandidate,
  type AppRevealElements,
  type AppRevealHealth,
  type AppRevealScreenInfo,
  type AppRevealSession,
  type AppRevealWindow,
  type ScrollDirection,
} from '@shared/protocol/appreveal';
import { isRecord } from '@shared/protocol/json';

export type AppRevealErrorCode = 'unauthorized' | 'forbidden_origin' | 'tool_error' | 'unknown_tool' | 'timeout' | 'unreachable' | 'bad_reply';

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

const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

export class AppRevealClient extends EventEmitter<AppRevealClientEvents> {
  /** Where requests go, without the token. */
  readonly baseUrl: string;
  /** host:port: the only way errors name the endpoint. */
  readonly endpoint: string;
  /** The last /health answer. */
  health: AppRevealHealth | undefined;
  /** The server's name and version from initialize. */
  serverInfo: { name: string; version: string } | undefined;

  readonly #token: string | undefined;
  readonly #options: Required<Omit<AppRevealClientOptions, 'headers'>> & { headers: Record<string, string> };
  #mcp: Client | undefined;
  #tools: string[] = [];
  #toolSet = new Set<string>();
  #state: AppRevealClientState = 'disconnected';
  #lastError: string | undefined;
  #connecting: Promise<void> | undefined;

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
    return this.#toolSet.has(tool);
  }

  /** The web view tools the app listed. */
  get webTools(): readonly string[] {
    return APPREVEAL_WEB_TOOLS.filter((tool) => this.#toolSet.has(tool));
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
        // AppReveal has no SSE stream to resume; a dropped request is a failed request.
        reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 1000, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1 },
      });
      mcp = new Client({ name: this.#options.clientName, version: this.#options.clientVersion }, { capabilities: {} });
      // The SDK reports transport trouble here as well as by rejecting the request; the rejection is
      // what we act on, so this only keeps the SDK from treating it as unhandled.
      mcp.onerror = () => undefined;
      const timeout = this.#options.timeoutMs;
      await mcp.connect(transport, { timeout });
      const info = mcp.getServerVersion();
      this.serverInfo = info ? { name: info.name, version: info.version } : undefined;
      const tools: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await mcp.listTools(cursor === undefined ? undefined : { cursor }, { timeout });
        tools.push(...page.tools.map((tool) => tool.name));
        cursor = page.nextCursor;
        pages++;
      } while (cursor !== undefined && pages < 50);
      if (this.#state === 'closed') {
        await mcp.close().catch(() => undefined);
        throw this.closedError();
      }
      this.#mcp = mcp;
      this.#tools = [...new Set(tools)];
      this.#toolSet = new Set(this.#tools);
      this.setState('connected', undefined);
    } catch (error) {
      const mapped = this.mapError(error, 'connect');
      await mcp?.close().catch(() => undefined);
      if (this.#state !== 'closed') this.setState('disconnected', mapped.message);
      throw mapped;
    }
  }

  async close(): Promise<void> {
    if (this.#state === 'closed') return;
    this.setState('closed', undefined);
    const mcp = this.#mcp;
    this.#mcp = undefined;
    await mcp?.close().catch(() => undefined);
  }

  // ---- Observation ---------------------------------------------------------------------------------

  async getScreen(options: CallOptions = {}): Promise<AppRevealScreenInfo> {
    return this.decode('get_screen', AppRevealScreenInfoSchema, await this.callJson('get_screen', windowArgs(options), options));
  }

  async getElements(windowId?: string, options: CallOptions = {}): Promise<AppRevealElements> {
    const args = windowArgs({ ...options, ...(windowId !== undefined ? { windowId } : {}) });
    return this.decode('get_elements', AppRevealElementsReplySchema, await this.callJson('get_elements', args, options));
  }

  async listWindows(options: CallOptions = {}): Promise<AppRevealWindow[]> {
    return this.decode('list_windows', AppRevealWindowsReplySchema, await this.callJson('list_windows', {}, options));
  }

  /** The image content block (or the JSON `{image}` form older ports send) as base64 PNG/JPEG. */
  async screenshot(windowId?: string, options: CallOptions = {}): Promise<AppRevealScreenshot> {
    const args = windowArgs({ ...options, ...(windowId !== undefined ? { windowId } : {}) });
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

  // ---- Actions -------------------------------------------------------------------------------------

  tapElement(id: string, options: CallOptions = {}): Promise<AppRevealActionResult> {
    return this.action('tap_element', { element_id: id, ...windowArgs(options) }, options);
  }

  /**
   * Taps by visible text. Several matches fail with `tool_error` whose `details.candidates` lists them;
   * pass `occurrence` (0-based) to pick one.
   */
  tapText(text: string, options: CallOptions & { matchMode?: 'exact' | 'contains'; occurrence?: number } = {}): Promise<AppRevealActionResult> {
    const args: Record<string, unknown> = { text, ...windowArgs(options) };
    if (options.matchMode) args.match_mode = options.matchMode;
    if (options.occurrence !== undefined) args.occurrence = options.occurrence;
    return this.action('tap_text', args, options);
  }

  tapPoint(x: number, y: number, options: CallOptions = {}): Promise<AppRevealActionResult> {
    return this.action('tap_point', { x, y, ...windowArgs(options) }, options);
  }

  typeText(text: string, elementId?: string, options: CallOptions = {}): Promise<AppRevealActionResult> {
    return this.action('type_text', { text, ...(elementId !== undefined ? { element_id: elementId } : {}), ...windowArgs(options) }, options);
  }

  clearText(elementId: string, options: CallOptions = {}): Promise<AppRevealActionResult> {
    return this.action('clear_text', { element_id: elementId, ...windowArgs(options) }, options);
  }

  scroll(direction: ScrollDirection, containerId?: string, options: CallOptions = {}): Promise<AppRevealActionResult> {
    return this.action('scroll', { direction, ...(containerId !== undefined ? { container_id: containerId } : {}), ...windowArgs(options) }, options);
  }

  scrollToElement(id: string, options: CallOptions = {}): Promise<AppRevealActionResult> {
    return this.action('scroll_to_element', { element_id: id, ...windowArgs(options) }, options);
  }

  navigateBack(options: CallOptions = {}): Promise<AppRevealActionResult> {
    return this.action('navigate_back', windowArgs(options), options);
  }

  // ---- Web views (only what the app listed) --------------------------------------------------------

  async getWebViews(options: CallOptions = {}): Promise<unknown[]> {
    const value = await this.callJson('get_webviews', windowArgs(options), options);
    const list = isRecord(value) ? value.webviews : value;
    if (!Array.isArray(list)) throw this.badReply('get_webviews', 'expected a webviews list');
    return list;
  }

  async getDomInteractive(webviewId?: string, options: CallOptions = {}): Promise<unknown> {
    const value = await this.callJson('get_dom_interactive', { ...webviewArgs(webviewId), ...windowArgs(options) }, options);
    return isRecord(value) && 'result' in value ? value.result : value;
  }

  webClick(selector: string, webviewId?: string, options: CallOptions = {}): Promise<AppRevealActionResult> {
    return this.action('web_click', { selector, ...webviewArgs(webviewId), ...windowArgs(options) }, options);
  }

  webType(selector: string, text: string, options: CallOptions & { webviewId?: string; clear?: boolean } = {}): Promise<AppRevealActionResult> {
    const args = { selector, text, ...(options.clear ? { clear: true } : {}), ...webviewArgs(options.webviewId), ...windowArgs(options) };
    return this.action('web_type', args, options);
  }

  webSelect(selector: string, value: string, options: CallOptions & { webviewId?: string } = {}): Promise<AppRevealActionResult> {
    return this.action('web_select', { selector, value, ...webviewArgs(options.webviewId), ...windowArgs(options) }, options);
  }

  webToggle(selector: string, checked: boolean, options: CallOptions & { webviewId?: string } = {}): Promise<AppRevealActionResult> {
    return this.action('web_toggle', { selector, checked, ...webviewArgs(options.webviewId), ...windowArgs(options) }, options);
  }

  webScrollTo(selector: string, options: CallOptions & { webviewId?: string } = {}): Promise<AppRevealActionResult> {
    return this.action('web_scroll_to', { selector, ...webviewArgs(options.webviewId), ...windowArgs(options) }, options);
  }

  webNavigate(url: string, options: CallOptions & { webviewId?: string } = {}): Promise<AppRevealActionResult> {
    return this.action('web_navigate', { url, ...webviewArgs(options.webviewId), ...windowArgs(options) }, options);
  }

  // ---- Internals -----------------------------------------------------------------------------------

  private async probeHealth(): Promise<AppRevealHealth> {
    const url = new URL('/health', this.baseUrl);
    let response: Response;
    try {
      response = await fetch(url, {
        headers: { accept: 'application/json', ...this.#options.headers },
        signal: AbortSignal.timeout(this.#options.healthTimeoutMs),
        redirect: 'error',
      });
    } catch (error) {
      if (isAbort(error)) {
        throw new AppRevealError('timeout', `AppReveal at ${this.endpoint} did not answer /health within ${this.#options.healthTimeoutMs} ms`);
      }
      throw new AppRevealError('unreachable', `AppReveal at ${this.endpoint} is unreachable${causeCode(error)}`);
    }
    let text: string;
    try {
      text = await response.text();
    } catch {
      throw new AppRevealError('unreachable', `AppReveal at ${this.endpoint} closed the connection during /health`);
    }
    if (response.status === 403) throw this.forbidden(403);
    if (response.status === 401) throw this.unauthorized(401);
    if (response.status !== 200) {
      throw new AppRevealError('bad_reply', `AppReveal at ${this.endpoint} answered /health with HTTP ${response.status}`, { status: response.status });
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
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

  private async action(tool: string, args: Record<string, unknown>, options: CallOptions): Promise<AppRevealActionResult> {
    const started = performance.now();
    const value = await this.callJson(tool, args, options);
    return { tool, durationMs: Math.round(performance.now() - started), result: isRecord(value) ? value : { value } };
  }

  /** A tool call whose one text block is JSON; `{"error": ...}` becomes a tool_error. */
  private async callJson(tool: string, args: Record<string, unknown>, options: CallOptions): Promise<unknown> {
    const value = this.parseText(tool, await this.callContent(tool, args, options));
    if (isToolFailure(value)) throw this.toolFailure(tool, value);
    return value;
  }

  private async callContent(tool: string, args: Record<string, unknown>, options: CallOptions): Promise<ContentBlock[]> {
    if (this.#state === 'closed') throw this.closedError();
    const mcp = this.#mcp;
    if (!mcp) throw new AppRevealError('unreachable', `not connected to AppReveal at ${this.endpoint}`, { tool });
    if (!this.#toolSet.has(tool)) {
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
      throw new AppRevealError('tool_error', `${tool} failed: ${this.scrub(text ?? 'the app reported an error')}`, { tool });
    }
    return content;
  }

  private parseText(tool: string, content: ContentBlock[]): unknown {
    const text = firstText(content);
    if (text === undefined) throw this.badReply(tool, 'the result has no text block');
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
        candidates,
        ...(failure.hint !== undefined ? { hint: failure.hint } : {}),
      });
    }
    return new AppRevealError('tool_error', `${tool} failed: ${this.scrub(failure.error)}`, {
      tool,
      ...(failure.hint !== undefined ? { hint: failure.hint } : {}),
    });
  }

  private checkImage(dataBase64: string): AppRevealScreenshot {
    const bytes = Buffer.from(dataBase64, 'base64');
    if (bytes.length >= PNG_MAGIC.length && PNG_MAGIC.every((b, i) => bytes[i] === b)) {
      return { format: 'png', dataBase64: bytes.toString('base64'), ...pngSize(bytes) };
    }
    if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) {
      return { format: 'jpeg', dataBase64: bytes.toString('base64') };
    }
    throw this.badReply('screenshot', 'the image is neither PNG nor JPEG');
  }

  private mapError(error: unknown, what: string, timeoutMs = this.#options.timeoutMs): AppRevealError {
    if (error instanceof AppRevealError) return error;
    const tool = what === 'connect' ? {} : { tool: what };
    if (error instanceof StreamableHTTPError) {
      if (error.code === 401) return this.unauthorized(401, tool);
      if (error.code === 403) return this.forbidden(403, tool);
      if (error.code === -1) return new AppRevealError('bad_reply', `AppReveal at ${this.endpoint} answered ${what} with an unexpected content type`, tool);
      return new AppRevealError('bad_reply', `AppReveal at ${this.endpoint} answered ${what} with HTTP ${error.code}`, { ...tool, status: error.code });
    }
    if (error instanceof UnauthorizedError) return this.unauthorized(401, tool);
    if (error instanceof McpError) {
      switch (error.code) {
        case ErrorCode.RequestTimeout:
          return new AppRevealError('timeout', `${what} got no answer from AppReveal at ${this.endpoint} within ${timeoutMs} ms`, tool);
        case ErrorCode.ConnectionClosed:
          return new AppRevealError('unreachable', `the connection to AppReveal at ${this.endpoint} closed during ${what}`, tool);
        case ErrorCode.MethodNotFound:
          if (what !== 'connect') return new AppRevealError('unknown_tool', `AppReveal at ${this.endpoint} does not offer ${what}`, tool);
          break;
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
    let out = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ');
    if (this.#token !== undefined && this.#token !== '') out = out.split(this.#token).join('‹token›');
    out = out.replace(/appreveal_session_token=[^&\s"']*/gi, 'appreveal_session_token=‹token›');
    return out.length > 300 ? `${out.slice(0, 300)}…` : out;
  }

  private setState(state: AppRevealClientState, error: string | undefined): void {
    const changed = state !== this.#state || error !== this.#lastError;
    this.#state = state;
    this.#lastError = error;
    if (changed) this.emit('state', state, error);
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

function windowArgs(options: CallOptions): Record<string, unknown> {
  return options.windowId !== undefined ? { window_id: options.windowId } : {};
}

function webviewArgs(webviewId: string | undefined): Record<string, unknown> {
  return webviewId !== undefined ? { webview_id: webviewId } : {};
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

function pngSize(bytes: Buffer): { width?: number; height?: number } {
  // IHDR is the first chunk: width and height are big-endian at bytes 16 and 20.
  if (bytes.length < 24 || bytes.toString('ascii', 12, 16) !== 'IHDR') return {};
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}
