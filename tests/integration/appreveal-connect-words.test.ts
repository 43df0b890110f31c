/**
 * R-CONN-WORDS-AR: an AppReveal connection that fails says so in plain words with the next step, over
 * real sockets: a closed port, https to a plain port, a path the app does not serve, a refused token,
 * and (R-CONN-WORDS-AR's second half) a session URL pasted again with another token for an app already
 * connected, which the entry takes and answers for instead of keeping the old session silently.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DeviceManager } from '@main/devices/manager';
import { startAppRevealServer, type AppRevealServerHandle } from '@demo/appreveal/server';
import { SESSION_TOKEN_PARAM } from '@shared/protocol/appreveal';
import { FakeApp } from './appreveal-fake-app';

const managers: DeviceManager[] = [];
const servers: AppRevealServerHandle[] = [];
const raw: Server[] = [];

afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.closeAll()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await Promise.all(raw.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

async function serveApp(): Promise<AppRevealServerHandle> {
  const server = await startAppRevealServer({ app: new FakeApp() });
  servers.push(server);
  return server;
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Connects and waits until the entry has an error (or, with `until: 'connected'`, connects). */
async function entryError(url: string, manager = new DeviceManager()): Promise<string> {
  if (!managers.includes(manager)) managers.push(manager);
  const { id } = manager.connect(url);
  const deadline = Date.now() + 15_000;
  for (;;) {
    const summary = manager.summaryOf(id);
    if (summary.error !== undefined && summary.state === 'disconnected') return summary.error;
    if (Date.now() > deadline) throw new Error(`no error on the entry: ${JSON.stringify(summary)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function connected(manager: DeviceManager, id: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (manager.summaryOf(id).state !== 'connected') {
    if (Date.now() > deadline) throw new Error(`not connected: ${JSON.stringify(manager.summaryOf(id))}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('R-CONN-WORDS-AR: AppReveal connection errors in plain words', () => {
  it('R-CONN-WORDS-AR: a closed port says nothing listens there and to start the app or check the port', async () => {
    const port = await closedPort();
    const error = await entryError(`http://127.0.0.1:${port}/?${SESSION_TOKEN_PARAM}=${'a'.repeat(64)}`);
    expect(error).toMatch(new RegExp(`^nothing is listening at 127\\.0\\.0\\.1:${port}: start the app .* check the port`));
    expect(error).toContain('ECONNREFUSED');
    expect(error).not.toContain('a'.repeat(64));
  });

  it('R-CONN-WORDS-AR: https to the app’s plain port says the Session URL is http://', async () => {
    const server = await serveApp();
    const error = await entryError(server.url.replace(/^http:/, 'https:'));
    expect(error).toMatch(/secure connection to 127\.0\.0\.1:\d+ failed: an AppReveal Session URL is http:\/\//);
    expect(error).not.toContain(server.token!);
  });

  it('R-CONN-WORDS-AR: a refused token says to paste the Session URL line again, and never shows the token', async () => {
    const server = await serveApp();
    const wrong = 'b'.repeat(64);
    const error = await entryError(`${server.baseUrl}?${SESSION_TOKEN_PARAM}=${wrong}`);
    expect(error).toMatch(/refused the session token: .* paste the "Session URL" line from the app's log again/);
    expect(error).not.toContain(wrong);
  });

  it('R-CONN-WORDS-AR: a port that is not an AppReveal app (it answers 404) says so and to paste the URL as printed', async () => {
    const other = createServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not here');
    });
    raw.push(other);
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const { port } = other.address() as AddressInfo;
    const error = await entryError(`http://127.0.0.1:${port}/?${SESSION_TOKEN_PARAM}=${'c'.repeat(64)}`);
    expect(error).toMatch(/has no AppReveal endpoint at this path \(404\): paste the Session URL exactly as the app printed it/);
  });

  it('R-CONN-WORDS-AR: pasting a wrong token for an app already connected is not silent: the entry says the token was refused', async () => {
    const server = await serveApp();
    const manager = new DeviceManager();
    managers.push(manager);
    const { id } = manager.connect(server.url);
    await connected(manager, id);
    const again = manager.connect(`${server.baseUrl}?${SESSION_TOKEN_PARAM}=${'d'.repeat(64)}`);
    expect(again.id).toBe(id);
    expect(await entryError(`${server.baseUrl}?${SESSION_TOKEN_PARAM}=${'d'.repeat(64)}`, manager)).toMatch(/refused the session token/);
    // The right URL pasted again brings the same entry back.
    manager.connect(server.url);
    await connected(manager, id);
    expect(manager.list()).toHaveLength(1);
  });
});
