/**
 * The web host's API socket as the renderer uses it: open it (with the token in `query`, from the
 * page's origin) and make calls over it, each answered by its id.
 */
import WebSocket from 'ws';
import { ApiServerMessageSchema } from '@shared/api/api';

export type ApiReply = { ok: boolean; result?: unknown; error?: { code: string; message: string } };

export async function openApiSocket(origin: string, query: string): Promise<{ ws: WebSocket; call: (method: string, params: unknown) => Promise<ApiReply> }> {
  const ws = new WebSocket(`${origin.replace('http', 'ws')}/api${query}`, { origin });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
  });
  let nextId = 1;
  const call = (method: string, params: unknown) =>
    new Promise<ApiReply>((resolve, reject) => {
      const id = nextId++;
      const onMessage = (data: WebSocket.RawData) => {
        const message = ApiServerMessageSchema.parse(JSON.parse(data.toString()));
        if ('id' in message && message.id === id) {
          ws.off('message', onMessage);
          resolve(message);
        }
      };
      ws.on('message', onMessage);
      // A socket closed under a call (over its frame limit) fails the call instead of leaving it waiting.
      ws.once('close', (code) => reject(new Error(`socket closed ${code}`)));
      ws.send(JSON.stringify({ id, method, params }));
    });
  return { ws, call };
}
