/**
 * A client for the iOS runner's WebSocket protocol (docs/protocol.md#p-runner).
 *
 * The `connected` push decides what may be sent: a command the runner did not list fails here with
 * `unsupported_command` and never reaches the wire. Replies are matched by requestId; each request has
 * its own timeout. When the socket drops, every request in flight fails with `disconnected` and is never
 * re-sent (it may already have run), and the client reconnects with exponential backoff.
 */
import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import {
  decodeRunnerInbound,
  encodeRunnerMessage,
  isUnmatchedErrorReply,
  RESULT_TYPES,
  RUNNER_ERROR_REPLY_TYPE,
  type ConnectedPush,
  type HierarchyUpdate,
  type PerformanceUpdate,
  type RunnerCommand,
  type RunnerReply,
  type RunnerRequest,
} from '@shared/protocol/runner';
import { MAX_FRAME_BYTES, ProtocolDecodeError } from '@shared/protocol/errors';
import { plainConnectError } from '@shared/inspect/connect-error';
import { epochNow, liveTrace } from '@main/connection/live-trace';

/** Bench instrumentation (live-trace.ts): runner messages this long have their decode traced. */
const TRACED_FRAME_CHARS = 100_000;

export type RunnerClientState = 'connecting' | 'connected' | 'disconnected';

/**
 * `refused`: the runner answered with its error reply (docs/protocol.md#p-runner-error), so it ran
 * nothing; `unexpected_reply`: an answer that could not be read, after which the command may have run.
 */
export type RunnerErrorCode = 'not_connected' | 'unsupported_command' | 'timeout' | 'disconnected' | 'unexpected_reply' | 'refused' | 'closed';

export class RunnerError extends Error {
  constructor(
    readonly code: RunnerErrorCode,
    message: string,
    /** The runner's own words, verbatim, when it sent any. */
    readonly detail?: string,
  ) {
    super(message);
    this.name = 'RunnerError';
  }
}

type RequestPayload<C extends RunnerCommand> = Omit<Extract<RunnerRequest, { type: C }>, 'type' | 'requestId'>;

export interface RunnerClientOptions {
  /** Default per-request timeout in ms. */
  requestTimeoutMs?: number;
  /** Backoff for reconnecting: first delay and ceiling, in ms. */
  reconnectInitialMs?: number;
  reconnectMaxMs?: number;
  /** How long to wait for the `connected` push after the socket opens. */
  handshakeTimeoutMs?: number;
  /** The largest frame taken from the runner (default MAX_FRAME_BYTES, docs/rules.md#r-lim-01). */
  maxFrameBytes?: number;
}

interface Pending {
  command: RunnerCommand;
  resolve: (reply: RunnerReply) => void;
  reject: (error: RunnerError) => void;
  timer: NodeJS.Timeout;
}

/** How a request that went out on the wire ended. */
export type RequestSettlement =
  | { readonly outcome: 'reply'; readonly reply: RunnerReply; readonly durationMs: number }
  | { readonly outcome: 'timeout' | 'disconnected' | 'error'; readonly durationMs: number }
  /** The socket refused the frame: it never left. */
  | { readonly outcome: 'unsent'; readonly durationMs: number };

/**
 * A request handed to the socket, announced synchronously in its caller's async context (see ledger.ts).
 * `whenSettled` callbacks run before the caller's own await resumes, so what they record is there when
 * the caller looks.
 */
export interface SentRequest {
  readonly command: RunnerCommand;
  whenSettled(callback: (settlement: RequestSettlement) => void): void;
}

interface RunnerClientEvents {
  state: [state: RunnerClientState, error: string | undefined];
  /** Every request as it goes out; `whenSettled` says how it ended. */
  request: [sent: SentRequest];
  hierarchy: [update: HierarchyUpdate];
  /**
   * A reply arrived, told in the order the socket delivered it among the pushes (synchronously, before
   * the request's promise settles): every push the runner sent before this reply has been emitted.
   */
  reply: [command: RunnerCommand];
  performance: [update: PerformanceUpdate];
  protocolError: [error: ProtocolDecodeError];
}

export class RunnerClient extends EventEmitter<RunnerClientEvents> {
  private socket: WebSocket | undefined;
  private readonly pending = new Map<string, Pending>();
  private handshake: ConnectedPush | undefined;
  private handshakeWaiters: Array<() => void> = [];
  private reconnectTimer: NodeJS.Timeout | undefined;
  private reconnectDelay: number;
  private closed = false;
  private currentState: RunnerClientState = 'disconnected';
  private lastError: string | undefined;
  private readonly options: Required<RunnerClientOptions>;

  constructor(
    readonly url: string,
    options: RunnerClientOptions = {},
  ) {
    super();
    this.options = {
      requestTimeoutMs: options.requestTimeoutMs ?? 10_000,
      reconnectInitialMs: options.reconnectInitialMs ?? 250,
      reconnectMaxMs: options.reconnectMaxMs ?? 5_000,
      handshakeTimeoutMs: options.handshakeTimeoutMs ?? 5_000,
      maxFrameBytes: options.maxFrameBytes ?? MAX_FRAME_BYTES,
    };
    this.reconnectDelay = this.options.reconnectInitialMs;
  }

  get state(): RunnerClientState {
    return this.currentState;
  }

  get error(): string | undefined {
    return this.lastError;
  }

  /** The runner's `connected` push, once the handshake is done. */
  get connectedInfo(): ConnectedPush | undefined {
    return this.handshake;
  }

  supports(command: RunnerCommand): boolean {
    return this.handshake?.supportedCommands.includes(command) ?? false;
  }

  /** Connects, and keeps reconnecting with backoff until `close()`. */
  start(): void {
    if (this.closed) throw new RunnerError('closed', 'runner client is closed');
    if (!this.socket) this.connect();
  }

  /** Resolves once the handshake is done, or rejects after `timeoutMs`. */
  waitUntilConnected(timeoutMs = this.options.handshakeTimeoutMs): Promise<ConnectedPush> {
    if (this.handshake && this.currentState === 'connected') return Promise.resolve(this.handshake);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.handshakeWaiters = this.handshakeWaiters.filter((w) => w !== onReady);
        reject(new RunnerError('not_connected', `runner at ${this.url} is not connected${this.lastError ? `: ${this.lastError}` : ''}`));
      }, timeoutMs);
      const onReady = () => {
        clearTimeout(timer);
        resolve(this.handshake as ConnectedPush);
      };
      this.handshakeWaiters.push(onReady);
    });
  }

  /**
   * Sends one command and resolves with its reply (a reply with `success: false` is still a reply).
   * Rejects with a RunnerError when it cannot be sent, times out, or the connection drops.
   */
  async request<C extends RunnerCommand>(command: C, payload: RequestPayload<C>, options: { timeoutMs?: number } = {}): Promise<RunnerReply> {
    const timeoutMs = options.timeoutMs ?? this.options.requestTimeoutMs;
    const started = Date.now();
    if (this.currentState !== 'connected') await this.waitUntilConnected(timeoutMs);
    if (!this.supports(command)) {
      throw new RunnerError('unsupported_command', `runner at ${this.url} does not support ${command}`);
    }
    const socket = this.socket;
    if (!socket || socket.readyState !== WebSocket.OPEN) {
      throw new RunnerError('not_connected', `runner at ${this.url} is not connected`);
    }
    const remaining = Math.max(1, timeoutMs - (Date.now() - started));
    const requestId = `${command.replace(/^(request_|get_)/, '')}_${randomUUID()}`;
    const frame = encodeRunnerMessage({ ...payload, type: command, requestId, timeoutMs: remaining });
    let unsent = false;
    const sentAt = performance.now();
    const reply = new Promise<RunnerReply>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(requestId);
        reject(new RunnerError('timeout', `${command} got no reply within ${timeoutMs} ms`));
      }, remaining);
      this.pending.set(requestId, { command, resolve, reject, timer });
      socket.send(frame, (error) => {
        if (!error) return;
        const entry = this.pending.get(requestId);
        if (!entry) return;
        unsent = true;
        clearTimeout(entry.timer);
        this.pending.delete(requestId);
        reject(new RunnerError('disconnected', `${command} could not be sent: ${error.message}`));
      });
    });
    if (this.listenerCount('request') > 0) {
      const callbacks: Array<(settlement: RequestSettlement) => void> = [];
      const settle = (settlement: RequestSettlement) => {
        for (const callback of callbacks) callback(settlement);
      };
      // Registered before the caller awaits `reply`, so these run first.
      reply.then(
        (answer) => settle({ outcome: 'reply', reply: answer, durationMs: performance.now() - sentAt }),
        (error: unknown) => {
          const durationMs = performance.now() - sentAt;
          if (unsent) return settle({ outcome: 'unsent', durationMs });
          const code = error instanceof RunnerError ? error.code : undefined;
          settle({ outcome: code === 'timeout' ? 'timeout' : code === 'disconnected' || code === 'closed' ? 'disconnected' : 'error', durationMs });
        },
      );
      this.emit('request', { command, whenSettled: (callback) => callbacks.push(callback) });
    }
    return reply;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    this.failPending('closed', 'runner client closed');
    const socket = this.socket;
    this.socket = undefined;
    if (socket && socket.readyState !== WebSocket.CLOSED) {
      await new Promise<void>((resolve) => {
        socket.once('close', () => resolve());
        socket.close();
        setTimeout(() => {
          socket.terminate();
          resolve();
        }, 500).unref();
      });
    }
    this.setState('disconnected', undefined);
  }

  private connect(): void {
    this.handshake = undefined;
    this.setState('connecting', this.lastError);
    const socket = new WebSocket(this.url, { handshakeTimeout: this.options.handshakeTimeoutMs, maxPayload: this.options.maxFrameBytes });
    this.socket = socket;
    const handshakeTimer = setTimeout(() => {
      if (!this.handshake) socket.terminate();
    }, this.options.handshakeTimeoutMs);

    socket.on('message', (data, isBinary) => {
      if (isBinary) return;
      this.onFrame(data.toString());
    });
    socket.on('error', (error) => {
      this.lastError = plainConnectError(error as NodeJS.ErrnoException, this.url);
      if ((error as NodeJS.ErrnoException).code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') {
        // ws refuses the frame from its header, before holding it, then waits up to 30 s for a close
        // handshake the runner (still sending) never answers: the requests in flight would time out
        // instead of saying why. They fail now, and the connection is dropped and reopened (R-LIM-04).
        const size = (socket as unknown as { _receiver?: { _totalPayloadLength?: number } })._receiver?._totalPayloadLength;
        this.lastError = `the runner sent a frame of ${typeof size === 'number' && size > 0 ? size : 'more than that many'} bytes, over the ${this.options.maxFrameBytes}-byte limit`;
        this.failPending('disconnected', `${this.lastError}; the connection was closed`);
        this.handshake = undefined;
        this.setState('disconnected', this.lastError);
        socket.terminate();
      }
    });
    socket.on('close', () => {
      clearTimeout(handshakeTimer);
      if (this.socket !== socket) return;
      this.socket = undefined;
      this.handshake = undefined;
      this.failPending('disconnected', `runner at ${this.url} disconnected`);
      if (this.closed) return;
      this.lastError ??= 'connection closed';
      this.setState('disconnected', this.lastError);
      this.scheduleReconnect();
    });
  }

  private scheduleReconnect(): void {
    const delay = this.reconnectDelay;
    this.reconnectDelay = Math.min(this.reconnectDelay * 2, this.options.reconnectMaxMs);
    this.reconnectTimer = setTimeout(() => {
      if (!this.closed) this.connect();
    }, delay);
    this.reconnectTimer.unref();
  }

  private onFrame(text: string): void {
    const started = liveTrace && text.length > TRACED_FRAME_CHARS ? epochNow() : 0;
    const decoded = decodeRunnerInbound(text);
    if (started) liveTrace?.span('decode', started, undefined, `${text.length}`);
    if (!decoded.ok) {
      this.emit('protocolError', decoded.error);
      // A garbage frame naming a request we wait for still ends that request: better a clear error now
      // than a timeout later (docs/rules.md#r-wire-02). A frame cut short is found by the id in its text,
      // or, when the id never came, by its reply type if exactly one request waits for that type.
      const requestId = extractRequestId(text) ?? (decoded.error.kind === 'truncated' ? this.onlyWaiterFor(text) : undefined);
      const entry = requestId === undefined ? undefined : this.pending.get(requestId);
      if (entry && requestId !== undefined) {
        clearTimeout(entry.timer);
        this.pending.delete(requestId);
        entry.reject(new RunnerError('unexpected_reply', `${entry.command}: ${decoded.error.message}`));
      }
      return;
    }
    const message = decoded.value;
    if ('requestId' in message && typeof message.requestId === 'string') {
      this.onReply(message as RunnerReply);
      return;
    }
    if (isUnmatchedErrorReply(message)) {
      this.onUnmatchedError(message.error);
      return;
    }
    switch (message.type) {
      case 'connected':
        this.handshake = message as ConnectedPush;
        this.lastError = undefined;
        this.reconnectDelay = this.options.reconnectInitialMs;
        this.setState('connected', undefined);
        for (const waiter of this.handshakeWaiters.splice(0)) waiter();
        return;
      case 'hierarchy_update':
        this.emit('hierarchy', message as HierarchyUpdate);
        return;
      case 'performance_update':
        this.emit('performance', message as PerformanceUpdate);
        return;
      default:
        return;
    }
  }

  private onReply(reply: RunnerReply): void {
    const entry = this.pending.get(reply.requestId);
    if (!entry) return; // a reply to nothing we wait for (late, or another client's) is noise
    clearTimeout(entry.timer);
    this.pending.delete(reply.requestId);
    this.emit('reply', entry.command);
    const expected = RESULT_TYPES[entry.command];
    if (reply.type === RUNNER_ERROR_REPLY_TYPE) {
      // The runner's own refusal: it could not decode or does not know the command, and ran nothing.
      const text = typeof reply.error === 'string' ? reply.error : 'the runner refused the command';
      entry.reject(new RunnerError('refused', `${entry.command} was refused by the runner: ${text}`, text));
      return;
    }
    if (!expected.includes(reply.type)) {
      const detail = 'error' in reply && typeof reply.error === 'string' ? `: ${reply.error}` : '';
      entry.reject(new RunnerError('unexpected_reply', `${entry.command} was answered with ${reply.type}${detail}`));
      return;
    }
    entry.resolve(reply);
  }

  /** The one request waiting for the reply type a (cut-short) frame starts with, if only one is. */
  private onlyWaiterFor(text: string): string | undefined {
    const type = /^\s*\{\s*"type"\s*:\s*"([a-z_]{1,64})"/.exec(text)?.[1];
    if (type === undefined) return undefined;
    const waiting = [...this.pending].filter(([, entry]) => RESULT_TYPES[entry.command].includes(type));
    return waiting.length === 1 ? waiting[0]![0] : undefined;
  }

  /**
   * An error reply with `requestId: null`: the runner could not read the id of a request it could not
   * decode. With exactly one request in flight it can only be that one, which then fails now instead of
   * at its timeout; with several the reply names none of them, and each waits for its own answer or
   * timeout (docs/protocol.md#p-runner-error). During an action's dispatch its request is the only one
   * in flight (the device gate), so an action is always matched.
   */
  private onUnmatchedError(error: string | undefined): void {
    const text = error ?? 'the runner refused a request it could not read';
    if (this.pending.size !== 1) {
      this.emit(
        'protocolError',
        new ProtocolDecodeError(
          'invalid_message',
          'requestId',
          `an error reply without a requestId (${text}) while ${this.pending.size} requests are in flight`,
        ),
      );
      return;
    }
    const [requestId, entry] = [...this.pending][0]!;
    clearTimeout(entry.timer);
    this.pending.delete(requestId);
    entry.reject(new RunnerError('refused', `${entry.command} was refused by the runner: ${text}`, text));
  }

  private failPending(code: RunnerErrorCode, message: string): void {
    for (const [requestId, entry] of this.pending) {
      clearTimeout(entry.timer);
      this.pending.delete(requestId);
      entry.reject(new RunnerError(code, `${entry.command}: ${message}`));
    }
  }

  private setState(state: RunnerClientState, error: string | undefined): void {
    const changed = state !== this.currentState || error !== this.lastErrorReported;
    this.currentState = state;
    this.lastErrorReported = error;
    if (changed) this.emit('state', state, error);
  }

  private lastErrorReported: string | undefined;
}

/**
 * The requestId a frame that did not decode names: from its JSON when it parses, else from its text
 * (a reply cut short keeps the fields before the cut).
 */
function extractRequestId(text: string): string | undefined {
  if (text.length <= 1024 * 1024) {
    try {
      const value: unknown = JSON.parse(text);
      if (value && typeof value === 'object' && 'requestId' in value) return typeof value.requestId === 'string' ? value.requestId : undefined;
    } catch {
      // not JSON: look in the text
    }
  }
  const match = /"requestId"\s*:\s*"([A-Za-z0-9_.:-]{1,200})"/.exec(text);
  return match?.[1];
}
