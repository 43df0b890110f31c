/**
 * The web host's API socket as the renderer uses it: open it (with the token in `query`, from the
 * page's origin) and make calls over it, each answered by its id. Every message is read in order and
 * its frames put back as the renderer's transport does (docs/protocol.md#p-api-wire); `received` keeps
 * what came, with its size on the wire, for the tests that count it.
 */
import WebSocket from 'ws';
import { ApiServerMessageSchema } from '@shared/api/api';
import { unpackFrames, WireUnpacker } from '@shared/protocol/wire';

export type ApiReply = { ok: boolean; result?: unknown; error?: { code: string; message: string } };

export interface ReceivedMessage {
  /** The event's name, or `reply` with the call's id. */
  what: string;
  bytes: number;
  /** The text as it came, before any reference was resolved. */
  text: string;
  /** The reply's result or the event's payload, resolved. */
  value: unknown;
}

export async function openApiSocket(
  origin: string,
  query: string,
): Promise<{ ws: WebSocket; call: (method: string, params: unknown) => Promise<ApiReply>; received: ReceivedMessage[] }> {
  const ws = new WebSocket(`${origin.replace('http', 'ws')}/api${query}`, { origin });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
  });
  const unpacker = new WireUnpacker();
  const received: ReceivedMessage[] = [];
  const waiting = new Map<number, (reply: ApiReply) => void>();
  ws.on('message', (data: WebSocket.RawData) => {
    const text = data.toString();
    const message = ApiServerMessageSchema.parse(JSON.parse(text));
    if ('event' in message) {
      received.push({ what: message.event, bytes: Buffer.byteLength(text), text, value: unpackFrames(unpacker, message.payload) });
      return;
    }
    const reply: ApiReply = message.ok ? { ok: true, result: unpackFrames(unpacker, message.result) } : message;
    received.push({ what: `reply ${message.id}`, bytes: Buffer.byteLength(text), text, value: reply.ok ? reply.result : reply.error });
    waiting.get(message.id)?.(reply);
    waiting.delete(message.id);
  });
  let nextId = 1;
  const call = (method: string, params: unknown) =>
    new Promise<ApiReply>((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, resolve);
      // A socket closed under a call (over its frame limit) fails the call instead of leaving it waiting.
      ws.once('close', (code) => reject(new Error(`socket closed ${code}`)));
      ws.send(JSON.stringify({ id, method, params }));
    });
  return { ws, call, received };
}
