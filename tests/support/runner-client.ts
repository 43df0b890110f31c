/**
 * A plain WebSocket client of the demo device's runner port, as the peer tests talk to it (no Parallax
 * code in between): requests answered by their requestId, the runner's unasked pushes kept, every frame
 * checked against the shared runner schemas (but the runner's `error` frame, its answer to a frame it
 * could not read, docs/protocol.md#p-runner-error). The demo-device and web-view peer tests share it.
 */
import WebSocket from 'ws';
import { decodeRunnerInbound } from '@shared/protocol/runner';

/** A frame as the device sent it, read field by field. */
export type Msg = Record<string, any>;

/** How long a wait for a push may last before it fails: a hang, never a slow machine. */
export const PUSH_CEILING_MS = 30_000;

export class RunnerClient {
  readonly pushes: Msg[] = [];
  readonly rawFrames: string[] = [];
  private readonly waiting = new Map<string, (reply: { msg: Msg; raw: string }) => void>();
  private readonly pushWaiters: Array<{ pred: (m: Msg) => boolean; resolve: (m: Msg) => void }> = [];
  private seq = 0;
  closed = false;

  private constructor(readonly ws: WebSocket) {
    ws.on('close', () => (this.closed = true));
    ws.on('message', (data) => {
      const raw = data.toString();
      this.rawFrames.push(raw);
      let msg: Msg;
      try {
        msg = JSON.parse(raw);
      } catch {
        return;
      }
      // Every frame the device sends must decode with the shared runner schemas.
      const decoded = decodeRunnerInbound(raw);
      if (!decoded.ok && msg.type !== 'error') throw new Error(`undecodable frame from the device: ${decoded.error.message}: ${raw.slice(0, 300)}`);
      if (typeof msg.requestId === 'string' && this.waiting.has(msg.requestId)) {
        this.waiting.get(msg.requestId)?.({ msg, raw });
        this.waiting.delete(msg.requestId);
        return;
      }
      this.pushes.push(msg);
      for (const waiter of [...this.pushWaiters]) {
        if (waiter.pred(msg)) {
          this.pushWaiters.splice(this.pushWaiters.indexOf(waiter), 1);
          waiter.resolve(msg);
        }
      }
    });
  }

  static async connect(url: string): Promise<RunnerClient> {
    const ws = new WebSocket(url);
    const client = new RunnerClient(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    await client.waitForPush((m) => m.type === 'connected');
    return client;
  }

  /**
   * The first push `pred` accepts, as soon as it comes. The ceiling only catches a push that never comes:
   * 30 s, far past a loaded machine's delay, and it costs nothing when the push arrives.
   */
  waitForPush(pred: (m: Msg) => boolean, timeoutMs = PUSH_CEILING_MS): Promise<Msg> {
    const seen = this.pushes.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching push within ${timeoutMs} ms`)), timeoutMs);
      this.pushWaiters.push({ pred, resolve: (m) => (clearTimeout(timer), resolve(m)) });
    });
  }

  requestRaw(type: string, extra: Record<string, unknown> = {}, timeoutMs = 20_000): Promise<{ msg: Msg; raw: string }> {
    const requestId = `${type}_${++this.seq}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${type} timed out`)), timeoutMs);
      this.waiting.set(requestId, (reply) => {
        clearTimeout(timer);
        resolve(reply);
      });
      this.ws.send(JSON.stringify({ type, requestId, ...extra }));
    });
  }

  async request(type: string, extra: Record<string, unknown> = {}, timeoutMs = 20_000): Promise<Msg> {
    return (await this.requestRaw(type, extra, timeoutMs)).msg;
  }

  /** Sends a frame as is and resolves with the next frame that arrives. */
  /** The answer to a raw frame: the next message that is not one of the runner's own pushes (they may come between). */
  sendRaw(frame: string | Buffer): Promise<string> {
    return new Promise((resolve) => {
      const onMessage = (data: WebSocket.RawData) => {
        const text = data.toString();
        if (isPush(text)) return;
        this.ws.off('message', onMessage);
        resolve(text);
      };
      this.ws.on('message', onMessage);
      this.ws.send(frame);
    });
  }

  close(): void {
    this.ws.close();
  }
}

/** A push the runner sends unasked (a hierarchy that changed, a performance sample): no requestId. */
function isPush(text: string): boolean {
  try {
    const message = JSON.parse(text) as { type?: unknown; requestId?: unknown };
    return (message.type === 'hierarchy_update' || message.type === 'performance_update') && message.requestId === undefined;
  } catch {
    return false;
  }
}
