/**
 * The demo device is a peer on this machine, and any page a browser shows can send requests to its
 * ports (docs/rules.md#r-peer-01). No browser page is one of its clients (the host, the CLI and the tests
 * talk to it from Node; its own app page reaches nothing but through Playwright), so a request that
 * carries a browser's marks is refused before it is read: an `Origin` header (every cross-origin fetch,
 * every POST, every WebSocket upgrade a page makes), or `Sec-Fetch-Site` other than `none` (a no-cors GET
 * or a form post). On a loopback listener the `Host` must name the port as 127.0.0.1 or localhost (DNS
 * rebinding: a page on evil.example resolved to 127.0.0.1).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '[::1]'];

/** Why `req` is refused, or undefined when it may go on. `port` is the listener's; `loopback` whether it listens on loopback alone. */
export function browserRefusal(req: IncomingMessage, port: number, loopback = true): string | undefined {
  const origin = req.headers.origin;
  if (origin !== undefined) return `a browser page (Origin ${String(origin).slice(0, 100)}) may not drive the demo device`;
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'none') return `a browser page (Sec-Fetch-Site ${String(site).slice(0, 40)}) may not drive the demo device`;
  if (loopback) {
    const host = (req.headers.host ?? '').toLowerCase();
    if (!LOOPBACK_HOSTS.some((name) => host === `${name}:${port}`)) return `Host ${JSON.stringify(host.slice(0, 100))} is not this device's address`;
  }
  return undefined;
}

/** The plain answer a refused HTTP request gets. */
export function refuseHttp(res: ServerResponse, why: string): void {
  const body = JSON.stringify({ error: 'forbidden', detail: why });
  res.writeHead(403, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), connection: 'close' });
  res.end(body);
}

/** The same, on a socket asking to upgrade to a WebSocket. */
export function refuseUpgrade(socket: Duplex, why: string): void {
  socket.end(`HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${why.replace(/[\r\n]/g, ' ')}`);
}
