/**
 * The runner's sockets (docs/protocol.md#p-runner-transport): `GET /health`, the WebSocket at `/ws`, and
 * the admin endpoint under `/admin` on the same port. Each connection gets `connected` first, then the
 * current hierarchy, then a `hierarchy_update` push whenever the screen changes.
 *
 * A frame that cannot be decoded gets a typed `success: false` reply naming the problem (with the
 * requestId when one could be read), never an exception.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { decodeRunnerRequest, encodeRunnerMessage, isRunnerCommand, RESULT_TYPES } from '@shared/protocol/runner';
import { swiftDecodeError } from './swift-types';
import { handleAdmin } from './admin';
import { randomBytes } from 'node:crypto';
import { browserRefusal, refuseHttp, refuseUpgrade } from '@demo/base/guard';
import { DEMO_DEVICE_NAME } from '@shared/protocol/demo-admin';
import type { DemoDevice } from '@demo/device/demo-device';
import { hierarchyPush, RunnerCommands, SUPPORTED_COMMANDS, SUPPORTED_FEATURES, type ConnectionState } from './commands';
import type { FrameState } from '@demo/phone/screen-monitor';
import { DemoPerformance } from './performance';
import { encodeMessage, writeTreeSliced } from './push-encoding';
import { projectHierarchySliced } from '@demo/phone/xctest-projection';

/** What runner-garbage answers with: not JSON, not even text a JSON parser could start on. */
export const GARBAGE_FRAME = '\u0000\u00ff<<garbage>> {"type": hierarchy_update, requestId: ???';

interface Connection extends ConnectionState {
  id: number;
  socket: WebSocket;
}

export class RunnerServer {
  private readonly server: Server;
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 16 * 1024 * 1024 });
  private readonly connections = new Set<Connection>();
  private readonly sockets = new Set<Socket>();
  private readonly commands: RunnerCommands;
  private nextConnectionId = 1;
  private port = 0;
  /** What the admin endpoint's path must carry, `/admin/<token>/…` (docs/rules.md#r-peer-02): printed at start, in `adminUrl`. */
  readonly adminToken = randomBytes(16).toString('hex');
  private readonly onFrame = (frame: FrameState) => {
    this.olderFrame = this.newestFrame;
    this.newestFrame = frame;
    this.broadcast(frame);
  };
  /** The last two frames the screen moved to: the older one is what `runner-stale-push` sends again. */
  private newestFrame: FrameState | undefined;
  private olderFrame: FrameState | undefined;
  private readonly performance: DemoPerformance;

  constructor(private readonly device: DemoDevice) {
    this.commands = new RunnerCommands(device);
    this.performance = new DemoPerformance(device.faults, (update) => {
      const push = encodeRunnerMessage(update);
      for (const connection of this.connections) this.send(connection, push);
    });
    this.server = createServer((req, res) => {
      const refused = browserRefusal(req, this.port);
      if (refused !== undefined) return refuseHttp(res, refused);
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      if (path === '/health' && req.method === 'GET') {
        // CtrlProxy's HealthResponse, sorted keys (docs/protocol.md#p-runner-transport), plus the `device` that
        // names the demo to its host (docs/protocol.md#p-demo-admin).
        const body = JSON.stringify({ deviceId: device.udid, device: DEMO_DEVICE_NAME, port: this.port, status: 'ok' });
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.end(body);
        return;
      }
      if (path === '/admin' || path.startsWith('/admin/')) {
        void handleAdmin(device, req, res, path, this.adminToken);
        return;
      }
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"not found"}');
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    this.server.on('upgrade', (req, socket, head) => {
      const refused = browserRefusal(req, this.port);
      if (refused !== undefined) return refuseUpgrade(socket, refused);
      const path = (req.url ?? '/').split('?')[0];
      if (path !== '/ws') {
        socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
        return;
      }
      this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
    });
    device.monitor.on('frame', this.onFrame);
    device.monitor.prepare = (frame) => this.preparePush(frame);
  }

  /**
   * The push of a new frame made ready in slices before the monitor emits it (the projection, then its
   * text), so the broadcast and each reply for that frame splice what is made: the device's event loop is
   * never held for the 50,000 views of a heavy screen (docs/rules.md#r-perf-10). A hostile screen's
   * reads are sparse or fail: nothing to make ahead.
   */
  private async preparePush(frame: FrameState): Promise<void> {
    if (this.connections.size === 0 || frame.capture.native.hostile) return;
    const data = await projectHierarchySliced(frame.capture);
    if (data.hierarchy) await writeTreeSliced(data.hierarchy);
  }

  async listen(port: number): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    this.port = (this.server.address() as AddressInfo).port;
    return this.port;
  }

  async close(): Promise<void> {
    this.device.monitor.off('frame', this.onFrame);
    if (this.device.monitor.prepare) this.device.monitor.prepare = undefined;
    this.performance.close();
    for (const connection of this.connections) connection.socket.terminate();
    this.wss.close();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private send(connection: Connection, message: object | string): void {
    if (connection.socket.readyState !== connection.socket.OPEN) return;
    connection.socket.send(typeof message === 'string' ? message : encodeMessage(message));
  }

  private accept(socket: WebSocket): void {
    const connection: Connection = { id: this.nextConnectionId++, socket };
    this.connections.add(connection);
    socket.on('close', () => {
      this.connections.delete(connection);
      this.performance.setListening(this.connections.size > 0);
    });
    this.performance.setListening(true);
    socket.on('error', () => socket.terminate());
    socket.on('message', (data, isBinary) => {
      void this.onMessage(connection, data, isBinary);
    });
    this.send(connection, {
      type: 'connected',
      id: connection.id,
      supportedCommands: [...SUPPORTED_COMMANDS],
      supportedFeatures: [...SUPPORTED_FEATURES],
      timestamp: Date.now(),
    });
    // Like the real runner: the screen as it is, right after `connected`.
    this.device.monitor
      .current()
      .then((frame) => this.send(connection, hierarchyPush(this.device, frame)))
      .catch(() => {});
  }

  private broadcast(frame: FrameState): void {
    if (this.connections.size === 0) return;
    const push = encodeMessage(hierarchyPush(this.device, frame));
    for (const connection of this.connections) this.send(connection, push);
  }

  private async onMessage(connection: Connection, data: RawData, isBinary: boolean): Promise<void> {
    const text = isBinary ? undefined : rawToString(data);
    const peek = text === undefined ? {} : peekEnvelope(text);
    this.device.countRequest(peek.type && isRunnerCommand(peek.type) ? peek.type : 'invalid');

    const faults = this.device.faults;
    if (faults.consume('runner-drop-next') || faults.consumeFor('runner-drop-at', peek.type)) {
      connection.socket.terminate();
      return;
    }
    if (faults.consume('runner-garbage') || faults.consumeFor('runner-garbage-at', peek.type)) {
      this.send(connection, GARBAGE_FRAME);
      return;
    }
    if (faults.consumeFor('runner-error-reply', peek.type)) {
      // What a real runner sends for a request it cannot decode: no id it could read (docs/protocol.md#p-runner-error).
      this.send(connection, {
        error: `Invalid value '${peek.type}' for parameter 'type'`,
        requestId: null,
        success: false,
        timestamp: Date.now(),
        type: 'error',
      });
      return;
    }
    if (text === undefined) {
      this.send(connection, { type: 'error', success: false, error: 'invalid_message at (frame): binary frames are not supported', timestamp: Date.now() });
      return;
    }
    // The real runner's own Decodable types first: what one of them cannot decode, a real runner refuses.
    const command = peek.type !== undefined && isRunnerCommand(peek.type) ? peek.type : undefined;
    const swiftError = command ? swiftDecodeError(command, JSON.parse(text)) : undefined;
    if (command && swiftError !== undefined) {
      const reply: Record<string, unknown> = { type: RESULT_TYPES[command][0] ?? 'error', success: false, error: swiftError, timestamp: Date.now() };
      if (peek.requestId !== undefined) reply.requestId = peek.requestId;
      this.send(connection, reply);
      return;
    }
    const decoded = decodeRunnerRequest(text);
    if (!decoded.ok) {
      const reply: Record<string, unknown> = { success: false, error: decoded.error.message, timestamp: Date.now() };
      // A known command with a bad payload is answered with its own result type, so the waiting client
      // fails that request now rather than at its timeout.
      reply.type = peek.type && isRunnerCommand(peek.type) ? (RESULT_TYPES[peek.type][0] ?? 'error') : 'error';
      if (peek.type && !isRunnerCommand(peek.type) && decoded.error.field === 'type') reply.error = `Unknown command type: ${peek.type}`;
      if (peek.requestId !== undefined) reply.requestId = peek.requestId;
      this.send(connection, reply);
      return;
    }
    const late = faults.consumeFor('runner-deadline', peek.type);
    this.device.commandsInFlight++;
    const reply = await this.commands.handle(decoded.value, connection).finally(() => this.device.commandsInFlight--);
    // The gate of docs/rules.md#r-perf-07: the last push before a read's answer shows an older frame than
    // the answer, as a push sent while the read was being answered does when a busy machine delays it.
    if (decoded.value.type === 'request_hierarchy' && faults.has('runner-stale-push') && this.olderFrame)
      this.send(connection, hierarchyPush(this.device, this.olderFrame));
    if (late) {
      // The gesture ran; the runner says it finished past its deadline, as CtrlProxy's CommandError does.
      this.send(connection, {
        ...reply,
        success: false,
        error: `Command ${decoded.value.type} exceeded deadline at 5000ms (gesture completed after its deadline; outcome is indeterminate)`,
        errorCode: 'deadline_completed_late',
      });
      return;
    }
    this.send(connection, reply);
  }
}

function rawToString(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}

/** The type and requestId of a frame, if it is a JSON object that has them; for replies to bad frames. */
function peekEnvelope(text: string): { type?: string; requestId?: string } {
  try {
    const raw: unknown = JSON.parse(text);
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return {};
    const { type, requestId } = raw as { type?: unknown; requestId?: unknown };
    const out: { type?: string; requestId?: string } = {};
    if (typeof type === 'string') out.type = type;
    if (typeof requestId === 'string') out.requestId = requestId;
    return out;
  } catch {
    return {};
  }
}
