/**
 * The renderer's end of the one API (src-shared/api/api.ts).
 *
 * In Electron the preload exposes `window.parallax` ({ call, on }) and calls travel over IPC. In a browser
 * the web host serves this page and the same API over a WebSocket at `/api?token=…`, the token taken from
 * the page's own `?token=` parameter. Either way every reply is decoded with its method's `output` schema
 * and every event with its event schema before the UI sees it. Before that, the observations and
 * screenshots the host sent once and now only refers to are put back (docs/protocol.md#p-api-wire); a
 * reference this window cannot resolve starts the connection's wire state anew and re-reads everything,
 * rather than showing a wrong frame.
 *
 * Over 500 lines on purpose: both transports share the decoding above them, and the WebSocket one is
 * one state machine (reconnect, pending calls, the wire's reset) that reads best whole.
 */
import {
  apiEvents,
  apiMethods,
  ApiReplyEnvelopeSchema,
  ApiServerMessageSchema,
  type ApiEvent,
  type ApiEventPayload,
  type ApiInput,
  type ApiMethod,
  type ApiOutput,
  type ParallaxApi,
  type TraceOpened,
  TRACE_UPLOAD_PATH,
  MAX_API_FRAME_BYTES,
} from '@shared/api/api';
import { parseJsonLossless, stringifyJsonLossless } from '@shared/protocol/json';
import { unpackFrames, WIRE_RESET_METHOD, WireRefError, WireUnpacker } from '@shared/protocol/wire';

/** How the page is connected to its host. IPC is always `connected`. */
export type HostState = 'connecting' | 'connected' | 'lost';

export interface HostStatus {
  state: HostState;
  /** One line saying why, when the state is not `connected`. */
  detail?: string;
}

export interface Transport extends ParallaxApi {
  readonly kind: 'ipc' | 'websocket';
  /**
   * Opens a trace file the user picked or dropped: Electron by its path on disk, the browser by sending
   * its bytes to the web host (it has no path). Either way the answer is `trace.open`'s.
   */
  openTraceFile(file: File): Promise<TraceOpened>;
  status(): HostStatus;
  onStatus(listener: (status: HostStatus) => void): () => void;
  close(): void;
}

/**
 * A failed call, with the host's error code (or one of ours: bad_input, bad_reply, host_connection_lost,
 * timeout, wire_unresolved: the reply referred to a frame this window does not hold, so it is re-read).
 */
export class ApiCallError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly method?: string,
  ) {
    super(message);
    this.name = 'ApiCallError';
  }
}

/** What the Electron preload exposes (`call` resolves with a reply envelope's JSON text: {ok, result} or {ok: false, error}). */
interface PreloadBridge {
  call(method: string, params: unknown): Promise<string>;
  on(event: string, listener: (payload: unknown) => void): () => void;
  pathForFile(file: File): string;
}

function isPreloadBridge(value: unknown): value is PreloadBridge {
  if (value === null || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  return typeof v['call'] === 'function' && typeof v['on'] === 'function' && typeof v['pathForFile'] === 'function';
}

function firstIssue(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  const path = issue.path.map(String).join('.');
  return path ? `${path}: ${issue.message}` : issue.message;
}

function checkInput<M extends ApiMethod>(method: M, input: ApiInput<M>): unknown {
  const parsed = apiMethods[method].input.safeParse(input);
  if (!parsed.success) throw new ApiCallError('bad_input', firstIssue(parsed.error), method);
  return parsed.data;
}

/**
 * A reply envelope without its id ({ok, result} or {ok: false, error}), as IPC and the upload route answer;
 * `unpack` puts back what the host sent before (IPC), and may throw WireRefError.
 */
function decodeReply<M extends ApiMethod>(method: M, reply: unknown, unpack: (result: unknown) => unknown = (result) => result): ApiOutput<M> {
  const envelope = ApiReplyEnvelopeSchema.safeParse(reply !== null && typeof reply === 'object' ? { ...reply, id: 0 } : reply);
  if (!envelope.success) {
    throw new ApiCallError('bad_reply', `the host's reply to ${method} is not an envelope (${firstIssue(envelope.error)})`, method);
  }
  if (!envelope.data.ok) throw new ApiCallError(envelope.data.error.code, envelope.data.error.message, method);
  return decodeOutput(method, unpack(envelope.data.result));
}

function unresolved(method: string, error: WireRefError): ApiCallError {
  return new ApiCallError('wire_unresolved', `the host's reply to ${method} could not be read (${error.message}); the window reads it again`, method);
}

function decodeOutput<M extends ApiMethod>(method: M, result: unknown): ApiOutput<M> {
  const parsed = apiMethods[method].output.safeParse(result);
  if (!parsed.success) {
    throw new ApiCallError('bad_reply', `the host's reply to ${method} is malformed (${firstIssue(parsed.error)})`, method);
  }
  return parsed.data as ApiOutput<M>;
}

function decodeEvent<E extends ApiEvent>(event: E, payload: unknown): ApiEventPayload<E> | undefined {
  const parsed = apiEvents[event].safeParse(payload);
  if (!parsed.success) {
    console.warn(`[parallax] dropped a malformed ${event} event: ${firstIssue(parsed.error)}`);
    return undefined;
  }
  return parsed.data as ApiEventPayload<E>;
}

function isApiEvent(name: string): name is ApiEvent {
  return Object.hasOwn(apiEvents, name);
}

/** A small listener set per key. */
class Emitter<T> {
  private readonly listeners = new Set<(value: T) => void>();
  add(listener: (value: T) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  emit(value: T): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(value);
      } catch (error) {
        console.error('[parallax] listener failed', error);
      }
    }
  }
}

/** The page's listeners per event: each payload decoded with its event's schema before a listener sees it. */
class EventListeners {
  private readonly byEvent = new Map<string, Emitter<unknown>>();
  on<E extends ApiEvent>(event: E, listener: (payload: ApiEventPayload<E>) => void): () => void {
    let emitter = this.byEvent.get(event);
    if (!emitter) this.byEvent.set(event, (emitter = new Emitter<unknown>()));
    return emitter.add((payload) => {
      const decoded = decodeEvent(event, payload);
      if (decoded !== undefined) listener(decoded);
    });
  }
  /** `payload` as the host sent it, its wire references already put back. */
  emit(event: ApiEvent, payload: unknown): void {
    this.byEvent.get(event)?.emit(payload);
  }
}

// ---------------------------------------------------------------------------------------------------
// Electron: IPC through the preload

export class IpcTransport implements Transport {
  readonly kind = 'ipc' as const;
  private current: HostStatus = { state: 'connected' };
  private readonly statusEmitter = new Emitter<HostStatus>();
  private readonly events = new EventListeners();
  private readonly unpacker = new WireUnpacker();
  /** While the host's side is being emptied: calls wait for it, and a reference that fails meanwhile is expected. */
  private resetting: Promise<void> | null = null;
  private readonly offBridge: Array<() => void>;

  constructor(private readonly bridge: PreloadBridge) {
    // Every event is heard here once, in the order the host sent them, so each definition is kept
    // whether or not the page listens to that event yet.
    this.offBridge = (Object.keys(apiEvents) as ApiEvent[]).map((event) => bridge.on(event, (payload) => this.receiveEvent(event, payload)));
    // A reloaded page holds nothing the host may think it sent (docs/protocol.md#p-api-wire).
    this.reset(false);
  }

  async call<M extends ApiMethod>(method: M, input: ApiInput<M>): Promise<ApiOutput<M>> {
    const params = checkInput(method, input);
    if (this.resetting) await this.resetting;
    let reply: unknown;
    try {
      // Text, parsed here as a WebSocket message is (docs/rules.md#r-mem-09).
      reply = parseJsonLossless(await this.bridge.call(method, params));
    } catch (error) {
      throw new ApiCallError('ipc_failed', error instanceof Error ? error.message : String(error), method);
    }
    // The preload resolves with the same reply envelope the web host sends, without the id.
    try {
      return decodeReply(method, reply, (result) => unpackFrames(this.unpacker, result));
    } catch (error) {
      if (!(error instanceof WireRefError)) throw error;
      this.reset(true);
      throw unresolved(method, error);
    }
  }

  on<E extends ApiEvent>(event: E, listener: (payload: ApiEventPayload<E>) => void): () => void {
    return this.events.on(event, listener);
  }

  private receiveEvent(event: ApiEvent, payload: unknown): void {
    let resolved: unknown;
    try {
      resolved = unpackFrames(this.unpacker, payload);
    } catch (error) {
      if (!(error instanceof WireRefError)) throw error;
      console.warn(`[parallax] dropped a ${event} event: ${error.message}`);
      this.reset(true);
      return;
    }
    this.events.emit(event, resolved);
  }

  /**
   * Empties both sides' wire state. After a reference that failed (`reread`), the page reads everything
   * again, as after a lost connection: the status goes `lost` and back to `connected`.
   */
  private reset(reread: boolean): void {
    if (this.resetting) return;
    if (reread) this.setStatus({ state: 'lost', detail: 'the host referred to a frame this window does not hold; reading again' });
    const done = () => {
      this.unpacker.clear();
      this.resetting = null;
      this.setStatus({ state: 'connected' });
    };
    this.resetting = this.bridge.call(WIRE_RESET_METHOD, {}).then(done, done);
  }

  private setStatus(status: HostStatus): void {
    if (status.state === this.current.state && status.detail === this.current.detail) return;
    this.current = status;
    this.statusEmitter.emit(status);
  }

  openTraceFile(file: File): Promise<TraceOpened> {
    const path = this.bridge.pathForFile(file);
    if (!path) return Promise.reject(new ApiCallError('bad_input', `${file.name} is not a file on disk`, 'trace.open'));
    return this.call('trace.open', { path });
  }

  status(): HostStatus {
    return this.current;
  }

  onStatus(listener: (status: HostStatus) => void): () => void {
    return this.statusEmitter.add(listener);
  }

  close(): void {
    for (const off of this.offBridge) off();
  }
}

// ---------------------------------------------------------------------------------------------------
// Browser: the web host's WebSocket

interface PendingCall {
  method: string;
  resolve: (result: unknown) => void;
  reject: (error: ApiCallError) => void;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** The frame, until it has been written to a socket. */
  unsent?: string;
}

/**
 * Calls that run an action: the host answers each with its result however long the action takes (a
 * fresh read, the act and the observation after may each take seconds), so no timeout here may turn
 * one that is still running into a failure (docs/rules.md#r-act-05). Only a lost connection ends them.
 */
export const UNBOUNDED_METHODS: ReadonlySet<ApiMethod> = new Set<ApiMethod>(['device.act', 'device.navigateBack', 'device.webAct']);

export interface WebSocketTransportOptions {
  url: string;
  /** How long any other call may wait for its reply (including waiting for the socket to open). */
  callTimeoutMs?: number;
  /** Reconnect delays grow from the first to the last value. */
  reconnectDelaysMs?: readonly number[];
  /** What to say while the connection is down, when we know better than "host connection lost". */
  lostDetail?: string;
}

const LOST = 'host connection lost';

export class WebSocketTransport implements Transport {
  readonly kind = 'websocket' as const;
  private socket: WebSocket | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, PendingCall>();
  private readonly events = new EventListeners();
  private readonly statusEmitter = new Emitter<HostStatus>();
  /** What the host sent on the current socket; a new socket starts empty on both sides. */
  private readonly unpacker = new WireUnpacker();
  private current: HostStatus = { state: 'connecting' };
  private attempt = 0;
  private reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;
  private readonly callTimeoutMs: number;
  private readonly delays: readonly number[];

  constructor(private readonly options: WebSocketTransportOptions) {
    this.callTimeoutMs = options.callTimeoutMs ?? 30_000;
    this.delays = options.reconnectDelaysMs ?? [250, 500, 1000, 2000, 4000];
    this.open();
  }

  call<M extends ApiMethod>(method: M, input: ApiInput<M>): Promise<ApiOutput<M>> {
    let params: unknown;
    try {
      params = checkInput(method, input);
    } catch (error) {
      return Promise.reject(error);
    }
    const id = this.nextId++;
    const text = stringifyJsonLossless({ id, method, params });
    // The host closes a socket that a frame over its limit arrives on (docs/rules.md#r-host-01): such a
    // call is refused here, saying so, and the socket (and every call on it) goes on.
    const bytes = text.length * 3 <= MAX_API_FRAME_BYTES ? text.length : new TextEncoder().encode(text).length;
    if (bytes > MAX_API_FRAME_BYTES) {
      const mib = (n: number) => `${(n / (1024 * 1024)).toFixed(1)} MiB`;
      return Promise.reject(
        new ApiCallError('bad_input', `the call is ${mib(bytes)}, more than the host takes in one message (${mib(MAX_API_FRAME_BYTES)})`, method),
      );
    }
    return new Promise<unknown>((resolve, reject) => {
      const timer = UNBOUNDED_METHODS.has(method)
        ? undefined
        : setTimeout(() => {
            this.pending.delete(id);
            reject(new ApiCallError('timeout', `${method} got no answer within ${this.callTimeoutMs / 1000} s`, method));
          }, this.callTimeoutMs);
      const call: PendingCall = { method, resolve, reject, timer, unsent: text };
      this.pending.set(id, call);
      this.flush();
    }).then((result) => decodeOutput(method, result));
  }

  on<E extends ApiEvent>(event: E, listener: (payload: ApiEventPayload<E>) => void): () => void {
    return this.events.on(event, listener);
  }

  async openTraceFile(file: File): Promise<TraceOpened> {
    // The upload route lives beside the API socket, behind the same token.
    const url = new URL(this.options.url);
    url.protocol = url.protocol === 'wss:' ? 'https:' : 'http:';
    url.pathname = TRACE_UPLOAD_PATH;
    url.searchParams.set('name', file.name);
    let response: Response;
    try {
      response = await fetch(url, { method: 'POST', body: file, credentials: 'same-origin', headers: { 'content-type': 'application/octet-stream' } });
    } catch (error) {
      throw new ApiCallError(
        'host_connection_lost',
        `${file.name} could not be sent to the host: ${error instanceof Error ? error.message : String(error)}`,
        'trace.open',
      );
    }
    let reply: unknown;
    try {
      reply = await response.json();
    } catch {
      throw new ApiCallError('bad_reply', `the host answered the upload of ${file.name} with HTTP ${response.status} and no reply`, 'trace.open');
    }
    return decodeReply('trace.open', reply);
  }

  status(): HostStatus {
    return this.current;
  }

  onStatus(listener: (status: HostStatus) => void): () => void {
    return this.statusEmitter.add(listener);
  }

  close(): void {
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.socket?.close();
    this.failAll('host_connection_lost', 'the page closed its connection');
  }

  private setStatus(status: HostStatus): void {
    if (status.state === this.current.state && status.detail === this.current.detail) return;
    this.current = status;
    this.statusEmitter.emit(status);
  }

  private open(): void {
    if (this.closed) return;
    let socket: WebSocket;
    try {
      socket = new WebSocket(this.options.url);
    } catch (error) {
      this.setStatus({ state: 'lost', detail: `${LOST}: ${String(error)}` });
      this.scheduleReconnect();
      return;
    }
    this.socket = socket;
    this.unpacker.clear();
    socket.onopen = () => {
      if (this.socket !== socket) return;
      this.attempt = 0;
      this.setStatus({ state: 'connected' });
      this.flush();
    };
    socket.onmessage = (message) => {
      if (this.socket === socket) this.receive(message.data);
    };
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      // 1009: the host refused a frame over its limit (docs/rules.md#r-host-01).
      const why = event.code === 1009 ? `${LOST}: it refused a message larger than it takes` : LOST;
      // A call already written may have run: it fails, it is never sent again.
      this.failSent('host_connection_lost', `${why} before the answer came; what was sent may still be running on the host`);
      if (this.closed) return;
      const detail = this.options.lostDetail ?? `${why}; reconnecting…`;
      this.setStatus({ state: 'lost', detail });
      this.scheduleReconnect();
    };
    socket.onerror = () => {
      // `close` follows and does the work.
    };
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer) return;
    const delay = this.delays[Math.min(this.attempt, this.delays.length - 1)] ?? 1000;
    this.attempt++;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.open();
    }, delay);
  }

  private flush(): void {
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) return;
    for (const call of this.pending.values()) {
      if (call.unsent === undefined) continue;
      socket.send(call.unsent);
      delete call.unsent;
    }
  }

  private receive(data: unknown): void {
    if (typeof data !== 'string') return;
    let raw: unknown;
    try {
      raw = parseJsonLossless(data);
    } catch {
      console.warn('[parallax] dropped a frame that is not JSON');
      return;
    }
    const parsed = ApiServerMessageSchema.safeParse(raw);
    if (!parsed.success) {
      console.warn(`[parallax] dropped a malformed frame: ${firstIssue(parsed.error)}`);
      return;
    }
    const message = parsed.data;
    if ('event' in message) {
      if (!isApiEvent(message.event)) return;
      let payload: unknown;
      try {
        payload = unpackFrames(this.unpacker, message.payload);
      } catch (error) {
        if (!(error instanceof WireRefError)) throw error;
        console.warn(`[parallax] dropped a ${message.event} event: ${error.message}`);
        this.startAnew();
        return;
      }
      this.events.emit(message.event, payload);
      return;
    }
    // Resolved even for an answer nobody waits for: its definitions are what the host refers to next.
    let result: unknown;
    let failure: WireRefError | undefined;
    try {
      result = message.ok ? unpackFrames(this.unpacker, message.result) : undefined;
    } catch (error) {
      if (!(error instanceof WireRefError)) throw error;
      failure = error;
    }
    const call = this.pending.get(message.id);
    if (call) {
      this.pending.delete(message.id);
      clearTimeout(call.timer);
      if (failure) call.reject(unresolved(call.method, failure));
      else if (message.ok) call.resolve(result);
      else call.reject(new ApiCallError(message.error.code, message.error.message, call.method));
    }
    if (failure) this.startAnew();
  }

  /**
   * The host referred to a frame this window does not hold: a new socket starts both sides empty, and
   * the reconnect re-reads everything (subscribeHostEvents), as after any lost connection.
   */
  private startAnew(): void {
    this.socket?.close();
  }

  private failSent(code: string, message: string): void {
    for (const [id, call] of this.pending) {
      if (call.unsent !== undefined) continue;
      this.pending.delete(id);
      clearTimeout(call.timer);
      call.reject(new ApiCallError(code, message, call.method));
    }
  }

  private failAll(code: string, message: string): void {
    for (const [id, call] of this.pending) {
      this.pending.delete(id);
      clearTimeout(call.timer);
      call.reject(new ApiCallError(code, message, call.method));
    }
  }
}

/** The WebSocket URL of the web host that served this page. */
export function webSocketApiUrl(location: Pick<Location, 'protocol' | 'host' | 'search'>): {
  url: string;
  token: string | null;
} {
  const token = new URLSearchParams(location.search).get('token');
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  // Without a token in the page URL the host's cookie (set by the first, tokened load) may still let us in.
  const query = token ? `?token=${encodeURIComponent(token)}` : '';
  return { url: `${scheme}://${location.host}/api${query}`, token };
}

/** The preload's bridge when running in Electron, else a WebSocket to the host that served the page. */
export function createTransport(): Transport {
  const bridge: unknown = (globalThis as { parallax?: unknown }).parallax;
  if (isPreloadBridge(bridge)) return new IpcTransport(bridge);
  const { url, token } = webSocketApiUrl(window.location);
  return new WebSocketTransport({
    url,
    ...(token ? {} : { lostDetail: `${LOST}: open the URL with the ?token= the host printed` }),
  });
}
