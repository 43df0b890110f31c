/**
 * The web host: the built renderer and the one API, served on 127.0.0.1 for a browser.
 *
 * Every request must carry the per-start token: the first page load has it in `?token=`, which sets an
 * HttpOnly, SameSite=Strict cookie so the page's own assets and API socket carry it too. A request with
 * neither is refused (401). The token never appears in a log line: URLs are logged without the query.
 *
 * Before the token, the Host header must name this host (`127.0.0.1:PORT` or `localhost:PORT`), so a page
 * on a rebound DNS name never reaches it (docs/rules.md#r-host-02). The API socket takes frames up to
 * MAX_API_FRAME_BYTES; a bigger one closes that socket only (R-HOST-01).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { ApiCallEnvelopeSchema, MAX_API_FRAME_BYTES, MAX_TRACE_BYTES, TRACE_UPLOAD_PATH } from '@shared/api/api';
import { packFrames, WirePacker } from '@shared/protocol/wire';
import type { ApiService } from './api';
import { jsonChunks } from './json-chunks';
import { epochNow, liveTrace } from '@main/connection/live-trace';
import { letIoIn } from '@main/connection/io-turn';

export const RENDERER_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  // The try box evaluates selectors in a worker of the page's own origin (docs/rules.md#r-hand-13).
  "worker-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self' ws://127.0.0.1:* ws://localhost:*",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'none'",
].join('; ');

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

const COOKIE = 'parallax_token';

export interface WebHost {
  /** The URL to open, with the token. Never log it. */
  url: string;
  port: number;
  close(): Promise<void>;
}

export interface WebHostOptions {
  api: ApiService;
  rendererDir: string;
  port?: number;
  token?: string;
}

export async function startWebHost(options: WebHostOptions): Promise<WebHost> {
  const token = options.token ?? randomBytes(32).toString('hex');
  const rendererDir = resolve(options.rendererDir);
  const host = '127.0.0.1';
  /** Set once listening; no request is served before. */
  let port = 0;
  const parseUrl = (raw: string | undefined): URL | undefined => {
    try {
      return new URL(raw ?? '/', `http://${host}`);
    } catch {
      return undefined;
    }
  };

  const server: Server = createServer((request, response) => {
    void serveHttp(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });

  async function serveHttp(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (!hostMatches(request)) {
      response.writeHead(421, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
      response.end(`Parallax answers only Host: ${host}:${port} or localhost:${port}.\n`);
      return;
    }
    const url = parseUrl(request.url);
    if (!url) {
      response.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' }).end('bad request: the URL does not parse\n');
      return;
    }
    const fromQuery = url.searchParams.get('token');
    const authorized = tokenMatches(fromQuery, token) || tokenMatches(cookieToken(request), token);
    if (!authorized) {
      response.writeHead(401, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
      response.end('Parallax: this URL needs the token printed when the host started.\n');
      return;
    }
    if (url.pathname === TRACE_UPLOAD_PATH) {
      await receiveTraceUpload(request, response, url);
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405).end();
      return;
    }
    let relative: string;
    try {
      relative = url.pathname === '/' ? 'index.html' : decodeURIComponent(url.pathname.slice(1));
    } catch {
      // A percent escape that is not UTF-8 (docs/rules.md#r-host-03).
      response.writeHead(400, { 'content-type': 'text/plain; charset=utf-8' }).end('bad request: the path does not decode\n');
      return;
    }
    const file = normalize(join(rendererDir, relative));
    if (!file.startsWith(rendererDir + sep)) {
      response.writeHead(404).end();
      return;
    }
    let body: Buffer;
    try {
      body = await readFile(file);
    } catch {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    const headers: Record<string, string> = {
      'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    };
    if (extname(file) === '.html') {
      headers['content-security-policy'] = RENDERER_CSP;
      headers['x-frame-options'] = 'DENY';
    }
    if (fromQuery) headers['set-cookie'] = `${COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`;
    response.writeHead(200, headers);
    response.end(request.method === 'HEAD' ? undefined : body);
  }

  /** Whether the request names this host: DNS rebinding gives another name (R-HOST-02). */
  function hostMatches(request: IncomingMessage): boolean {
    const named = request.headers.host;
    return named === `${host}:${port}` || named === `localhost:${port}`;
  }

  /** Whether a request comes from this host's own page (or from no page at all, like a test's client). */
  function sameOrigin(request: IncomingMessage): boolean {
    const origin = request.headers.origin;
    return origin === undefined || origin === `http://${host}:${port}` || origin === `http://localhost:${port}`;
  }

  /** A browser's trace file, streamed to the host; the reply is `trace.open`'s envelope. */
  async function receiveTraceUpload(request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
    const reply = async (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
      // A trace view's listing, a piece per turn, each written when the page took the last (R-MEM-07).
      for (const chunk of jsonChunks(body)) {
        if (response.destroyed) return;
        if (!response.write(chunk))
          await new Promise<void>((resolve) => {
            // Either ends the wait; neither listener stays (a listing of 120 MiB waits a hundred times).
            const done = () => {
              response.off('drain', done).off('close', done);
              resolve();
            };
            response.once('drain', done).once('close', done);
          });
        await new Promise((resolve) => setImmediate(resolve));
      }
      response.end();
    };
    if (request.method !== 'POST') {
      response.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    // The page's token guards the route; a page of another origin may not post to it with the cookie.
    if (!sameOrigin(request)) {
      await reply(403, { ok: false, error: { code: 'forbidden', message: 'not the Parallax page' } });
      return;
    }
    const name = url.searchParams.get('name') ?? '';
    if (name === '' || name.length > 1024) {
      await reply(400, { ok: false, error: { code: 'bad_request', message: `${TRACE_UPLOAD_PATH} needs ?name=<the file's name> (at most 1024 characters)` } });
      return;
    }
    const declared = Number(request.headers['content-length'] ?? NaN);
    if (declared > MAX_TRACE_BYTES) {
      await reply(413, {
        ok: false,
        error: { code: 'trace_unreadable', message: `${name} is larger than ${MAX_TRACE_BYTES / (1024 * 1024)} MiB, more than a trace may be` },
      });
      request.resume();
      return;
    }
    const result = await options.api.receiveTrace(name, request);
    await reply(result.ok ? 200 : 400, result);
  }

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_API_FRAME_BYTES });
  wss.on('error', () => undefined);
  server.on('upgrade', (request, socket, head) => {
    socket.on('error', () => socket.destroy());
    if (!hostMatches(request)) {
      socket.write('HTTP/1.1 421 Misdirected Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      socket.destroy();
      return;
    }
    const url = parseUrl(request.url);
    const authorized = url !== undefined && (tokenMatches(url.searchParams.get('token'), token) || tokenMatches(cookieToken(request), token));
    if (url?.pathname !== '/api' || !authorized || !sameOrigin(request)) {
      socket.write('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      socket.destroy();
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => serveApiSocket(ws, options.api));
  });

  await new Promise<void>((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolvePromise());
  });
  const address = server.address();
  port = typeof address === 'object' && address ? address.port : 0;

  return {
    url: `http://${host}:${port}/?token=${token}`,
    port,
    async close() {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((done) => wss.close(() => done()));
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}

function serveApiSocket(ws: WebSocket, api: ApiService): void {
  // What this page already received: each observation and screenshot crosses this socket once; a new
  // socket (a reload, a reconnect) starts empty on both sides (docs/protocol.md#p-api-wire).
  const packer = new WirePacker();
  // A message of one chunk goes at once; a bigger one (the trace view's listing: over 100 MiB of JSON at
  // the step limit) goes as fragments of one WebSocket message, a chunk per turn, each once the last was
  // written (docs/rules.md#r-mem-07). Messages sent meanwhile wait their turn: fragments of two messages
  // may not interleave, and the page learns ids in the socket's order: a message is packed when it is
  // written. An event (a heavy screen's pushed frame among them) is written after the I/O that waited
  // while it was made: packing and writing it is the next long hold of the event loop (R-PERF-15).
  const waiting: Array<{ message: () => unknown; traced?: { kind: string; start: number } | undefined; afterIo?: true }> = [];
  /** A message is going out in fragments, or an event waits for its turn to be written. */
  let busy = false;
  const pump = () => {
    while (!busy && waiting.length > 0) {
      const next = waiting.shift()!;
      if (!next.afterIo) {
        write(next.message, next.traced);
        continue;
      }
      busy = true;
      void letIoIn().then(() => {
        busy = false;
        write(next.message, next.traced);
        pump();
      });
    }
  };
  const send = (message: () => unknown, traced?: { kind: string; start: number }, afterIo?: true) => {
    if (ws.readyState !== ws.OPEN) return;
    waiting.push({ message, traced, ...(afterIo ? { afterIo } : {}) });
    pump();
  };
  const write = (message: () => unknown, traced: { kind: string; start: number } | undefined) => {
    if (ws.readyState !== ws.OPEN) return;
    const started = liveTrace ? epochNow() : 0;
    const chunks = jsonChunks(message());
    const first = chunks.next();
    if (first.done) return;
    const second = chunks.next();
    if (second.done) {
      ws.send(first.value);
      if (traced) liveTrace?.span(traced.kind, traced.start);
      liveTrace?.span('send', started, undefined, `${first.value.length}`);
      return;
    }
    busy = true;
    liveTrace?.span('send', started, undefined, 'pieces');
    const streamed = liveTrace ? epochNow() : 0;
    void sendFragments(first.value, second.value, chunks).finally(() => {
      liveTrace?.span('stream', streamed);
      busy = false;
      pump();
    });
  };
  const sendFragments = async (first: string, second: string, rest: Iterator<string>) => {
    let chunk = first;
    let next: IteratorResult<string> = { done: false, value: second };
    for (;;) {
      const fin = next.done === true;
      const written = new Promise<void>((resolve) => ws.send(chunk, { fin }, () => resolve()));
      if (fin) return;
      await written;
      // Between two fragments the page's requests and the devices' answers are read.
      await letIoIn();
      if (ws.readyState !== ws.OPEN) return;
      chunk = next.value;
      next = rest.next();
    }
  };
  const unsubscribe = api.subscribe((event, payload) => {
    if (ws.readyState === ws.OPEN) send(() => ({ event, payload: packFrames(packer, payload) }), undefined, true);
  });
  ws.on('close', unsubscribe);
  // A frame over maxPayload (or any protocol error) is an 'error' on this socket, which ws then closes
  // (1009 for the size). Without a listener Node would exit, taking every device with it (R-HOST-01).
  ws.on('error', () => undefined);
  ws.on('message', (data, isBinary) => {
    if (isBinary) return;
    let raw: unknown;
    try {
      raw = JSON.parse(data.toString());
    } catch {
      send(() => ({ id: -1, ok: false, error: { code: 'bad_request', message: 'a call must be one JSON object' } }));
      return;
    }
    const envelope = ApiCallEnvelopeSchema.safeParse(raw);
    if (!envelope.success) {
      const id = raw && typeof raw === 'object' && 'id' in raw && typeof raw.id === 'number' ? raw.id : -1;
      send(() => ({ id, ok: false, error: { code: 'bad_request', message: 'a call is {id, method, params}' } }));
      return;
    }
    const { id, method, params } = envelope.data;
    const traced = liveTrace && method === 'device.screenshot' ? { kind: 'shot-out', start: epochNow() } : undefined;
    if (traced) liveTrace?.span('shot-in', traced.start, traced.start, `${id}`);
    // Packed when sent, not when asked: the socket's order is the order the page learns ids in.
    void api.handle(method, params).then((result) => {
      if (ws.readyState !== ws.OPEN) return;
      send(() => (result.ok ? { id, ok: true, result: packFrames(packer, result.result) } : { id, ...result }), traced);
    });
  });
}

function cookieToken(request: IncomingMessage): string | null {
  const header = request.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === COOKIE) return rest.join('=');
  }
  return null;
}

function tokenMatches(candidate: string | null, token: string): boolean {
  if (!candidate) return false;
  const a = Buffer.from(candidate);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}
