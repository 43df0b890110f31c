/**
 * The runner port probe against real local servers on ports of the runner range (8765–8864): healthy
 * runners, garbage, a reset mid-answer, silence, an HTML page, an AppReveal app; and Discovery keeping
 * its live list as they come and go.
 */
import { once } from 'node:events';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startAppRevealServer, type AppRevealServerHandle } from '@demo/appreveal/server';
import { Discovery, RUNNER_PORT_FIRST, RUNNER_PORT_LAST, probeRunnerPorts, type DiscoveredDevice } from '@main/discovery/index';
import { FakeApp } from './appreveal-fake-app';

type AnyServer = HttpServer | TcpServer;
const servers: AnyServer[] = [];
const sockets = new Set<Socket>();
const appReveals: AppRevealServerHandle[] = [];
const discoveries: Discovery[] = [];

afterEach(async () => {
  await Promise.all(discoveries.splice(0).map((d) => d.stop()));
  for (const socket of sockets) socket.destroy();
  sockets.clear();
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  await Promise.all(appReveals.splice(0).map((s) => s.close()));
});

/** Binds `server` to a free port of the runner range (other suites may hold some of them). */
async function listenInRange(server: AnyServer): Promise<number> {
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const span = RUNNER_PORT_LAST - RUNNER_PORT_FIRST + 1;
  const start = Math.floor(Math.random() * span);
  for (let i = 0; i < span; i++) {
    const port = RUNNER_PORT_FIRST + ((start + i) % span);
    try {
      server.listen(port, '127.0.0.1');
      await once(server, 'listening');
      servers.push(server);
      return port;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    }
  }
  throw new Error('no free port in the runner range');
}

function jsonServer(status: number, body: string, contentType = 'application/json'): HttpServer {
  return createHttpServer((req, res) => {
    if (req.url !== '/health') {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(status, { 'content-type': contentType });
    res.end(body);
  });
}

/** Every kind of peer a port of the range can have. */
async function startPeers() {
  const healthy = await listenInRange(jsonServer(200, JSON.stringify({ status: 'ok', device: 'iPhone 17', bundleId: 'com.example.app' })));
  const plainOk = await listenInRange(jsonServer(200, 'OK\n', 'text/plain'));
  const garbage = await listenInRange(
    createTcpServer((socket) => {
      socket.end(Buffer.from([0x00, 0xff, 0x13, 0x37, 0x0d, 0x0a, 0x0d, 0x0a, 0x47, 0x41, 0x52, 0x42]));
    }),
  );
  const midResponse = await listenInRange(
    createHttpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"status":"o');
      setTimeout(() => res.socket?.destroy(), 20);
    }),
  );
  const hangUp = await listenInRange(createTcpServer((socket) => socket.destroy()));
  const silent = await listenInRange(createTcpServer(() => undefined));
  const html = await listenInRange(jsonServer(200, '<html><body>hello</body></html>', 'text/html'));
  const failing = await listenInRange(jsonServer(500, '{"error":"boom"}'));
  const sick = await listenInRange(jsonServer(200, JSON.stringify({ status: 'error', device: 'Sick runner' })));
  const jsonArray = await listenInRange(jsonServer(200, '[1,2,3]'));
  // A port of the range that nothing listens on.
  const probe = createTcpServer();
  const closed = await listenInRange(probe);
  servers.splice(servers.indexOf(probe), 1);
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return { healthy, plainOk, garbage, midResponse, hangUp, silent, html, failing, sick, jsonArray, closed };
}

describe('runner port probe', () => {
  it('lists healthy runners as available, anything else that answers as unreachable, and skips closed ports', async () => {
    const peers = await startPeers();
    const ports = Object.values(peers);
    // The silent peer never answers: only the probe's own timeout ends this call (else the test times out). The
    // timeout is wide, so a loaded machine's slow answers are not read as silence.
    const results = await probeRunnerPorts({ ports, timeoutMs: 5_000, concurrency: 4 });
    const byPort = new Map(results.map((r) => [r.port, r]));

    expect(byPort.get(peers.healthy)).toEqual({
      host: '127.0.0.1',
      port: peers.healthy,
      kind: 'runner',
      state: 'available',
      name: 'iPhone 17',
      bundleId: 'com.example.app',
    });
    expect(byPort.get(peers.plainOk)).toMatchObject({ kind: 'runner', state: 'available' });
    expect(byPort.get(peers.garbage)).toMatchObject({ state: 'unreachable', error: 'answered something that is not HTTP' });
    expect(byPort.get(peers.midResponse)).toMatchObject({ state: 'unreachable', error: 'closed the connection mid-answer' });
    expect(byPort.get(peers.hangUp)).toMatchObject({ state: 'unreachable', error: 'closed the connection mid-answer' });
    expect(byPort.get(peers.silent)).toMatchObject({ state: 'unreachable', error: 'no answer within 5000 ms' });
    expect(byPort.get(peers.html)).toMatchObject({ state: 'unreachable', error: expect.stringMatching(/not a health reply/) });
    expect(byPort.get(peers.failing)).toMatchObject({ state: 'unreachable', error: 'answered /health with HTTP 500' });
    expect(byPort.get(peers.sick)).toMatchObject({ state: 'unreachable', error: 'reports status "error"', name: 'Sick runner' });
    expect(byPort.get(peers.jsonArray)).toMatchObject({ state: 'unreachable' });
    expect(byPort.has(peers.closed)).toBe(false);
    expect(results).toHaveLength(ports.length - 1);
  });

  it('recognizes an AppReveal app that sits in the range', async () => {
    let server: AppRevealServerHandle | undefined;
    for (let attempt = 0; attempt < 20 && !server; attempt++) {
      const port = RUNNER_PORT_FIRST + Math.floor(Math.random() * (RUNNER_PORT_LAST - RUNNER_PORT_FIRST + 1));
      server = await startAppRevealServer({ app: new FakeApp(), port }).catch(() => undefined);
    }
    if (!server) throw new Error('no free port in the runner range');
    appReveals.push(server);
    const [result] = await probeRunnerPorts({ ports: [server.port], timeoutMs: 500 });
    // No real /health names the app (R-AR-20): the probe knows it is AppReveal, not which app.
    expect(result).toEqual({ host: '127.0.0.1', port: server.port, kind: 'appreveal', state: 'available', auth: 'session-token' });
  });

  it('probes the whole default range and finds the runner in it', async () => {
    const healthy = await listenInRange(jsonServer(200, JSON.stringify({ status: 'ok', device: 'Range runner' })));
    // Wide, as above: other programs may hold ports of the range and answer slowly on a loaded machine.
    const results = await probeRunnerPorts({ timeoutMs: 5_000 });
    expect(results.every((r) => r.port >= RUNNER_PORT_FIRST && r.port <= RUNNER_PORT_LAST)).toBe(true);
    expect(results.find((r) => r.port === healthy)).toMatchObject({ state: 'available', name: 'Range runner' });
  });
});

describe('Discovery with the runner probe', () => {
  function waitForList(discovery: Discovery, predicate: (devices: DiscoveredDevice[]) => boolean, timeoutMs = 5_000): Promise<DiscoveredDevice[]> {
    return new Promise((resolve, reject) => {
      if (predicate(discovery.list())) return resolve(discovery.list());
      const timer = setTimeout(() => reject(new Error(`timed out: ${JSON.stringify(discovery.list())}`)), timeoutMs);
      const listener = (devices: DiscoveredDevice[]) => {
        if (!predicate(devices)) return;
        clearTimeout(timer);
        discovery.off('changed', listener);
        resolve(devices);
      };
      discovery.on('changed', listener);
    });
  }

  it('keeps a live list: runners appear and disappear; garbage is listed unreachable and never crashes it', async () => {
    const peers = await startPeers();
    const ports = Object.values(peers);
    const discovery = new Discovery({ bonjour: false, runnerProbe: { ports, timeoutMs: 300 }, intervalMs: 150 });
    discoveries.push(discovery);
    const warnings: Error[] = [];
    discovery.on('warning', (error) => warnings.push(error));
    await discovery.start();

    const list = discovery.list();
    const healthy = list.find((d) => d.id === `runner:127.0.0.1:${peers.healthy}`);
    expect(healthy).toEqual({
      id: `runner:127.0.0.1:${peers.healthy}`,
      kind: 'runner',
      name: 'iPhone 17',
      bundleId: 'com.example.app',
      url: `ws://127.0.0.1:${peers.healthy}/ws`,
      state: 'available',
      sources: ['probe'],
    });
    expect(list.find((d) => d.id === `runner:127.0.0.1:${peers.garbage}`)).toMatchObject({
      state: 'unreachable',
      name: `Runner 127.0.0.1:${peers.garbage}`,
      error: 'answered something that is not HTTP',
    });
    expect(list.find((d) => d.id === `runner:127.0.0.1:${peers.midResponse}`)?.state).toBe('unreachable');
    expect(list.some((d) => d.url.includes(`:${peers.closed}/`))).toBe(false);

    // A runner that goes away disappears at the next sweep.
    const healthyServer = servers.find((s) => (s.address() as { port?: number } | null)?.port === peers.healthy);
    for (const socket of sockets) if (socket.localPort === peers.healthy) socket.destroy();
    await new Promise<void>((resolve) => healthyServer?.close(() => resolve()));
    await waitForList(discovery, (devices) => !devices.some((d) => d.id === `runner:127.0.0.1:${peers.healthy}`));

    // A new one on a closed port appears.
    const fresh = jsonServer(200, JSON.stringify({ status: 'ok', device: 'Late runner' }));
    fresh.listen(peers.closed, '127.0.0.1');
    await once(fresh, 'listening');
    servers.push(fresh);
    const devices = await waitForList(discovery, (ds) => ds.some((d) => d.id === `runner:127.0.0.1:${peers.closed}` && d.state === 'available'));
    expect(devices.find((d) => d.id === `runner:127.0.0.1:${peers.closed}`)?.name).toBe('Late runner');
    expect(warnings).toEqual([]);
  });
});
