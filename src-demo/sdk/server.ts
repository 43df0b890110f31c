/**
 * The in-app SDK's loopback HTTP server (docs/protocol.md#p-sdk-http): the app side of the bridges. Only
 * the runner talks to it. Routes:
 *   GET  /health               status, capabilities, observationBridge, webViewBridge
 *   POST /observation/snapshot the observation bridge's AutoMobileObservationSnapshot
 *   POST /observation/action   body: one AutoMobileAction (Swift enum JSON) → AutoMobileActionResult
 *   POST /webview/snapshot     body: {webViewId?} → {webViewId, snapshot}
 *   POST /webview/action       body: {webViewId, action} → AutoMobileWebActionResult
 * Failures answer with a JSON body {failure?, error, detail?}; invalid action JSON is 400 bad_request.
 */
import { browserRefusal, refuseHttp } from '@demo/base/guard';
import { setTimeout as sleep } from 'node:timers/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { validateWith } from '@shared/protocol/errors';
import { parseJsonLossless, stringifyJsonLossless } from '@shared/protocol/json';
import { decodeAutoMobileAction, WebControlActionSchema } from '@shared/protocol/sdk';
import type { Faults } from '@demo/phone/faults';
import type { ObservationBridge } from './observation-bridge';
import { SdkWebActionRequestSchema, SdkWebSnapshotRequestSchema, type SdkErrorBody } from './http';
import type { WebBridge } from './web-bridge';
import { DEMO_BUNDLE_ID } from '@demo/phone/xctest-projection';

const MAX_BODY_BYTES = 4 * 1024 * 1024;
export const SDK_VERSION = '1.6.0';
/** An SDK from before bridge discovery (SDK_TOO_OLD, docs/rules.md#r-disc-06). */
export const OLD_SDK_VERSION = '1.2.0';

class BodyTooLarge extends Error {}

function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        reject(new BodyTooLarge());
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  const text = stringifyJsonLossless(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  res.end(text);
}

const fail = (res: ServerResponse, status: number, body: SdkErrorBody) => send(res, status, body);

export class SdkServer {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private port = 0;
  readonly requests: Record<string, number> = {};
  /** Requests being answered now: a slow fault's read outlives the caller that gave up on it (admin stats' `busy`). */
  inFlight = 0;

  constructor(
    private readonly bridge: ObservationBridge,
    private readonly web: WebBridge,
    private readonly faults: Faults,
  ) {}

  get listeningPort(): number {
    return this.port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Listens (again) on the same port; the first call picks a free one. */
  async start(): Promise<void> {
    if (this.server) return;
    const server = createServer((req, res) => {
      // A page in a browser is no client of the bridge (docs/rules.md#r-peer-01).
      const refused = browserRefusal(req, this.port);
      if (refused !== undefined) return refuseHttp(res, refused);
      this.inFlight++;
      this.handle(req, res)
        .catch((error: unknown) => {
          fail(res, 500, { error: 'internal_error', detail: error instanceof Error ? error.message : String(error) });
        })
        .finally(() => this.inFlight--);
    });
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    const address = server.address();
    if (address && typeof address === 'object') this.port = address.port;
    this.server = server;
  }

  /** Stops listening, so connecting is refused: an app without the SDK. */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private count(route: string): void {
    this.requests[route] = (this.requests[route] ?? 0) + 1;
  }

  private health(): Record<string, unknown> {
    const tooOld = this.faults.has('sdk-too-old');
    const body: Record<string, unknown> = {
      status: 'ok',
      bundleId: DEMO_BUNDLE_ID,
      sdkVersion: tooOld ? OLD_SDK_VERSION : SDK_VERSION,
      capabilities: tooOld ? ['frameMetrics', 'sdkTrigger'] : ['frameMetrics', 'observationBridge', 'sdkTrigger', 'webViewBridge'],
    };
    if (!tooOld) {
      body.observationBridge = this.bridge.state();
      body.webViewBridge = this.web.entries();
    }
    return body;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const route = `${req.method ?? 'GET'} ${path}`;
    this.count(route);
    if (req.method === 'GET' && path === '/health') return send(res, 200, this.health());

    const routes = ['/observation/snapshot', '/observation/action', '/webview/snapshot', '/webview/action'];
    if (!routes.includes(path)) return fail(res, 404, { error: 'not_found' });
    if (req.method !== 'POST') return fail(res, 405, { error: 'method_not_allowed' });
    // An SDK from before discovery has none of the bridge routes.
    if (this.faults.has('sdk-too-old')) return fail(res, 404, { error: 'not_found' });

    let body: string;
    try {
      body = await readBody(req, MAX_BODY_BYTES);
    } catch (error) {
      if (error instanceof BodyTooLarge) return fail(res, 413, { failure: 'message_too_large', error: 'payload_too_large' });
      throw error;
    }
    if (this.faults.has('app-inactive')) return fail(res, 409, { failure: 'app_not_active', error: 'app_not_active' });

    switch (path) {
      case '/observation/snapshot':
        return this.observationSnapshot(res);
      case '/observation/action':
        return this.observationAction(res, body);
      case '/webview/snapshot':
        return this.webSnapshot(res, body);
      default:
        return this.webAction(res, body);
    }
  }

  private async observationSnapshot(res: ServerResponse): Promise<void> {
    if (!this.bridge.registered) return fail(res, 503, { failure: 'bridge_unavailable', error: 'bridge_unavailable' });
    await this.slow();
    send(res, 200, await this.bridge.snapshot());
  }

  private async observationAction(res: ServerResponse, body: string): Promise<void> {
    if (!this.bridge.registered) return fail(res, 503, { failure: 'bridge_unavailable', error: 'bridge_unavailable' });
    const action = decodeAutoMobileAction(body);
    if (!action.ok) return fail(res, 400, { error: 'bad_request', detail: action.error.message });
    send(res, 200, await this.bridge.perform(action.value));
  }

  private async webSnapshot(res: ServerResponse, body: string): Promise<void> {
    const request = validateWith(SdkWebSnapshotRequestSchema, body.trim() === '' ? {} : safeParse(body));
    if (!request.ok) return fail(res, 400, { error: 'bad_request', detail: request.error.message });
    await this.slow();
    const answer = this.web.snapshot(request.value.webViewId);
    if (!answer.ok) return fail(res, answer.failure === 'bridge_unavailable' ? 404 : 409, { failure: answer.failure, error: answer.failure });
    send(res, 200, { webViewId: answer.webViewId, snapshot: answer.snapshot });
  }

  private async webAction(res: ServerResponse, body: string): Promise<void> {
    if (Buffer.byteLength(body, 'utf8') > this.web.policy().maxMessageBytes) {
      return fail(res, 413, { failure: 'message_too_large', error: 'message_too_large' });
    }
    const request = validateWith(SdkWebActionRequestSchema, safeParse(body));
    if (!request.ok) return fail(res, 400, { error: 'bad_request', detail: request.error.message });
    const action = validateWith(WebControlActionSchema, request.value.action);
    if (!action.ok) return fail(res, 400, { error: 'bad_request', detail: action.error.message });
    if (!this.web.isRegistered(request.value.webViewId)) return fail(res, 404, { failure: 'bridge_unavailable', error: 'bridge_unavailable' });
    send(res, 200, await this.web.perform(request.value.webViewId, action.value));
  }

  private async slow(): Promise<void> {
    const ms = this.faults.number('bridge-slow') ?? 0;
    if (ms > 0) await sleep(ms);
  }
}

/** JSON.parse that yields undefined instead of throwing, so the schema reports the problem. */
function safeParse(text: string): unknown {
  try {
    return parseJsonLossless(text);
  } catch {
    return undefined;
  }
}
