/**
 * R-PERF-15: the host's heavy work gives the I/O that waited a turn between its steps (`letIoIn`). Real
 * loopback sockets: the turn is the event loop's, so only real I/O shows it.
 */
import { once } from 'node:events';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { letIoIn } from '@main/connection/io-turn';

const servers: Server[] = [];
const sockets: Socket[] = [];

/** A connected loopback pair: [the end that reads, the end that writes]. */
async function pair(): Promise<[Socket, Socket]> {
  const server = createServer();
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  const accepted = once(server, 'connection') as Promise<[Socket]>;
  const writer = connect(address.port, '127.0.0.1');
  await once(writer, 'connect');
  const [reader] = await accepted;
  sockets.push(reader, writer);
  return [reader, writer];
}

afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const server of servers.splice(0)) server.close();
});

describe('R-PERF-15: letIoIn', () => {
  it('R-PERF-15: called where a decoded reply continues (an I/O callback), it resolves after the data that arrived meanwhile was read; one setImmediate runs before', async () => {
    const [replies, device] = await pair();
    const [requests, page] = await pair();
    const order: string[] = [];
    requests.on('data', () => order.push('a request read'));
    const done = new Promise<void>((resolve) => {
      replies.once('data', () => {
        // A request reaches the host while it handles this reply (loopback: in the socket's buffer once
        // write returns), as a page's screenshot call does while a heavy reply is decoded.
        page.write('screenshot');
        setImmediate(() => order.push('one setImmediate'));
        void letIoIn().then(() => {
          order.push('letIoIn');
          resolve();
        });
      });
    });
    device.write('a big reply');
    await done;
    expect(order).toEqual(['one setImmediate', 'a request read', 'letIoIn']);
  });
});
