/**
 * R-PERF-15: live mode's pictures have a socket of their own. The web host writes a big message (a
 * 50,000-node frame, about 6 MiB) as fragments of one WebSocket message, and every message sent after
 * it on that socket waits until the page has taken all of it (R-MEM-07): a picture answered meanwhile
 * waited too. `/api?events=off` subscribes to no event, so a picture answered while a tree streams on
 * the main socket reaches the page at once.
 *
 * The gate is the page's reading: the main socket stops reading (TCP backpressure), so the host's
 * stream of an event far larger than the socket buffers cannot end until the test lets it; whatever the
 * machine's speed, the picture is answered while the tree is still on its way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Socket } from 'node:net';
import type { ApiEventListener, ApiService } from '@main/host/api';
import { startTestWebHost, type TestWebHost } from '../support/web-host';

/** Far more than loopback's socket buffers hold: the stream stalls while the page does not read. */
const EVENT_MIB = 48;
const SHOT = { deviceId: 'device-1', receivedAt: 1, screenshot: { format: 'png', dataBase64: 'iVBORw0KGgo=' } };

let listeners: ApiEventListener[] = [];
const api = {
  handle: (method: string) =>
    Promise.resolve(method === 'device.screenshot' ? { ok: true, result: SHOT } : { ok: false, error: { code: 'x', message: method } }),
  subscribe(listener: ApiEventListener) {
    listeners.push(listener);
    return () => void (listeners = listeners.filter((l) => l !== listener));
  },
} as unknown as ApiService;

let web: TestWebHost;
beforeAll(async () => {
  web = await startTestWebHost(api);
});
afterAll(async () => {
  await web?.close();
});

/** A socket to the host, with every message it received in order. */
async function connect(query: string): Promise<{ ws: WebSocket; messages: string[]; next: () => Promise<string> }> {
  const ws = new WebSocket(`ws://127.0.0.1:${web.host.port}/api?token=${web.token}${query}`, { origin: web.origin });
  const messages: string[] = [];
  ws.on('message', (data) => void messages.push(data.toString()));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  let cursor = 0;
  /** The next message, in order, once it is there. */
  const next = async () => {
    const at = cursor++;
    while (messages.length <= at) await new Promise((resolve) => ws.once('message', resolve));
    return messages[at]!;
  };
  return { ws, messages, next };
}

describe('R-PERF-15: pictures do not wait behind a tree', () => {
  it('R-PERF-15: a picture asked on the pictures socket while a tree streams on the main socket is answered at once; on the main socket it would wait for the whole tree', async () => {
    const main = await connect('');
    const pictures = await connect('&events=off');
    const mainSocket = (main.ws as unknown as { _socket: Socket })._socket;
    mainSocket.pause();
    const piece = 'x'.repeat(1 << 20);
    // As the API tells every subscribed socket of a frame.
    const frame = { deviceId: 'device-1', big: Array.from({ length: EVENT_MIB }, () => piece) };
    for (const listener of listeners) listener('device.frame', frame as never);
    // A picture asked on the main socket too: the host answers it after the tree, whole.
    main.ws.send(JSON.stringify({ id: 2, method: 'device.screenshot', params: { deviceId: 'device-1' } }));

    pictures.ws.send(JSON.stringify({ id: 1, method: 'device.screenshot', params: { deviceId: 'device-1' } }));
    const reply = JSON.parse(await pictures.next()) as { id: number; ok: boolean; result: { screenshot: { $wire: string; value: unknown } } };
    expect(reply).toMatchObject({ id: 1, ok: true, result: { screenshot: { value: SHOT.screenshot } } });
    // The tree is still on its way: the main socket has received nothing of it.
    expect(main.messages).toEqual([]);
    expect(pictures.messages).toHaveLength(1);
    expect(listeners).toHaveLength(1); // the pictures socket subscribed to nothing

    mainSocket.resume();
    const first = await main.next();
    expect(first.startsWith('{"event":"device.frame"')).toBe(true);
    expect(first.length).toBeGreaterThan(EVENT_MIB << 20);
    expect(JSON.parse(await main.next())).toMatchObject({ id: 2, ok: true });
    main.ws.close();
    pictures.ws.close();
  }, 60_000);
});
