import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { RunnerClient, RunnerError } from '@main/runner/client';
import { startReplayDevice, type ReplayDevice } from '@demo/replay-device';
import type { HierarchyUpdate, UiNode } from '@shared/protocol/runner';
import { flattenTree } from '@shared/model/tree';
import { GOLDEN_DIR as GOLDEN } from '../support/golden';

const findNode = (root: UiNode | undefined, predicate: (node: UiNode) => boolean): UiNode | undefined =>
  root ? flattenTree(root).find((f) => predicate(f.node))?.node : undefined;

/** A scripted runner on a real socket, for the faults a recording cannot show. */
class FakeRunner {
  readonly wss: WebSocketServer;
  readonly received: Array<Record<string, unknown>> = [];
  sockets: WebSocket[] = [];
  onRequest: (request: Record<string, unknown>, socket: WebSocket) => void = () => {};

  private constructor(
    readonly server: Server,
    readonly port: number,
    readonly supportedCommands: string[],
  ) {
    this.wss = new WebSocketServer({ server, path: '/ws' });
    this.wss.on('connection', (socket) => {
      this.sockets.push(socket);
      socket.send(JSON.stringify({ type: 'connected', id: 1, supportedCommands: this.supportedCommands, supportedFeatures: [] }));
      socket.on('message', (data) => {
        const request = JSON.parse(data.toString()) as Record<string, unknown>;
        this.received.push(request);
        this.onRequest(request, socket);
      });
    });
  }

  static async start(supportedCommands = ['request_hierarchy', 'request_screenshot'], port = 0): Promise<FakeRunner> {
    const server = createServer();
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    return new FakeRunner(server, (server.address() as AddressInfo).port, supportedCommands);
  }

  get url() {
    return `ws://127.0.0.1:${this.port}/ws`;
  }

  async kill(): Promise<void> {
    for (const socket of this.sockets) socket.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function client(url: string, options: ConstructorParameters<typeof RunnerClient>[1] = {}) {
  const c = new RunnerClient(url, { reconnectInitialMs: 50, reconnectMaxMs: 200, ...options });
  cleanups.push(() => c.close());
  c.start();
  return c;
}

describe('runner client against the replay device (recorded Settings session)', () => {
  let replay: ReplayDevice;

  it('a replay device asked for a port in use says so, and the caller can try the next (cli.test.ts does)', async () => {
    const taken = await startReplayDevice(GOLDEN);
    cleanups.push(() => taken.close());
    const port = Number(new URL(taken.url).port);
    // Before, the socket server's own error listener threw the listen error uncaught and the start never settled.
    await expect(startReplayDevice(GOLDEN, { port })).rejects.toMatchObject({ code: 'EADDRINUSE' });
    const next = await startReplayDevice(GOLDEN);
    cleanups.push(() => next.close());
    expect(next.url).not.toBe(taken.url);
  });

  it('completes the connected handshake with the recorded runner command list', async () => {
    replay = await startReplayDevice(GOLDEN);
    cleanups.push(() => replay.close());
    const c = client(replay.url);
    const info = await c.waitUntilConnected();
    expect(info.supportedCommands).toContain('request_hierarchy_if_stale');
    expect(c.supports('request_tap_coordinates')).toBe(true);
    expect(c.state).toBe('connected');
  });

  it('answers a hierarchy request with the recorded Settings screen, General at 16,380–386,432', async () => {
    replay = await startReplayDevice(GOLDEN);
    cleanups.push(() => replay.close());
    const c = client(replay.url);
    const reply = (await c.request('request_hierarchy_if_stale', {})) as HierarchyUpdate;
    expect(reply.type).toBe('hierarchy_update');
    const general = findNode(reply.data?.hierarchy, (node) => node['resource-id'] === 'com.apple.settings.general');
    expect(general?.bounds).toEqual({ left: 16, top: 380, right: 386, bottom: 432 });
    expect(reply.data?.screenWidth).toBe(402);
    expect(reply.data?.screenHeight).toBe(874);
  });

  it('replays the session in order: after the recorded tap the next read shows the General screen', async () => {
    replay = await startReplayDevice(GOLDEN);
    cleanups.push(() => replay.close());
    const c = client(replay.url);
    const pushes: HierarchyUpdate[] = [];
    c.on('hierarchy', (update) => pushes.push(update));
    await c.waitUntilConnected();
    const before = (await c.request('request_hierarchy_if_stale', {})) as HierarchyUpdate;
    const title = (h: HierarchyUpdate) => h.data?.hierarchy?.node?.[0]?.['resource-id'];
    expect(title(before)).toBe('Settings');
    const tap = await c.request('request_tap_coordinates', { x: 201, y: 406, duration: 0 });
    expect(tap.type).toBe('tap_coordinates_result');
    const after = (await c.request('request_hierarchy_if_stale', {})) as HierarchyUpdate;
    expect(title(after)).toBe('General');
    // The General screen was pushed while the tap was in flight, as the real runner did.
    expect(pushes.map(title)).toEqual(['Settings', 'Settings', 'General']);
  });

  it('a read repeated before the recorded tap shows the same screen: the replay never skips an action', async () => {
    replay = await startReplayDevice(GOLDEN);
    cleanups.push(() => replay.close());
    const c = client(replay.url);
    const title = (h: HierarchyUpdate) => h.data?.hierarchy?.node?.[0]?.['resource-id'];
    const reads: HierarchyUpdate[] = [];
    for (let i = 0; i < 3; i++) reads.push((await c.request('request_hierarchy', {})) as HierarchyUpdate);
    expect(reads.map(title)).toEqual(['Settings', 'Settings', 'Settings']);
    await c.request('request_tap_coordinates', { x: 201, y: 406, duration: 0 });
    const after = (await c.request('request_hierarchy', {})) as HierarchyUpdate;
    expect(title(after)).toBe('General');
  });

  it('refuses a command the runner did not announce without sending it', async () => {
    const runner = await FakeRunner.start(['request_hierarchy']);
    cleanups.push(() => runner.kill());
    const c = client(runner.url);
    await c.waitUntilConnected();
    await expect(c.request('request_sdk_observation', {})).rejects.toMatchObject({ code: 'unsupported_command' });
    expect(runner.received).toHaveLength(0);
  });

  it('answers a screenshot request with screenshot_error when the recording holds none', async () => {
    replay = await startReplayDevice(GOLDEN);
    cleanups.push(() => replay.close());
    const c = client(replay.url);
    const reply = await c.request('request_screenshot', {});
    expect(reply.type).toBe('screenshot_error');
  });
});

describe('runner client against a faulty runner', () => {
  it('matches replies to requests by requestId when they arrive out of order', async () => {
    const runner = await FakeRunner.start();
    cleanups.push(() => runner.kill());
    const held: Array<[Record<string, unknown>, WebSocket]> = [];
    runner.onRequest = (request, socket) => {
      held.push([request, socket]);
      if (held.length === 2) {
        for (const [r, s] of held.reverse()) {
          const type = r.type === 'request_screenshot' ? 'screenshot' : 'hierarchy_update';
          const payload = type === 'screenshot' ? { format: 'png', data: 'AAAA' } : { data: { hierarchy: { className: 'XCUIApplication' } } };
          s.send(JSON.stringify({ type, requestId: r.requestId, timestamp: 1, ...payload }));
        }
      }
    };
    const c = client(runner.url);
    const [hierarchy, screenshot] = await Promise.all([c.request('request_hierarchy', {}), c.request('request_screenshot', {})]);
    expect(hierarchy.type).toBe('hierarchy_update');
    expect(screenshot.type).toBe('screenshot');
  });

  it('times out one request without disturbing the connection', async () => {
    const runner = await FakeRunner.start();
    cleanups.push(() => runner.kill());
    const c = client(runner.url);
    await c.waitUntilConnected();
    const error = await c.request('request_hierarchy', {}, { timeoutMs: 150 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunnerError);
    expect((error as RunnerError).code).toBe('timeout');
    expect(c.state).toBe('connected');
    // The runner is told the budget it has, so it can give up too.
    expect(runner.received[0]?.timeoutMs).toBeLessThanOrEqual(150);
  });

  it('a runner killed mid-request fails that request once, reports disconnected, and reconnects', async () => {
    const runner = await FakeRunner.start();
    const port = runner.port;
    const c = client(runner.url);
    await c.waitUntilConnected();
    const states: string[] = [];
    c.on('state', (state) => states.push(state));
    runner.onRequest = () => void runner.kill();
    const error = await c.request('request_hierarchy', {}).catch((e: unknown) => e);
    expect((error as RunnerError).code).toBe('disconnected');
    expect(c.state).not.toBe('connected');
    expect(c.error).toBeTruthy();

    const back = await FakeRunner.start(['request_hierarchy'], port);
    cleanups.push(() => back.kill());
    back.onRequest = (r, s) =>
      s.send(JSON.stringify({ type: 'hierarchy_update', requestId: r.requestId, data: { hierarchy: { className: 'XCUIApplication' } } }));
    await c.waitUntilConnected(5_000);
    expect(states).toContain('disconnected');
    expect(states.at(-1)).toBe('connected');
    const reply = await c.request('request_hierarchy', {});
    expect(reply.type).toBe('hierarchy_update');
    // The request in flight when the runner died was never sent again.
    expect(runner.received).toHaveLength(1);
    expect(back.received).toHaveLength(1);
  });

  it('survives garbage frames: reports them, fails the request they name, keeps serving', async () => {
    const runner = await FakeRunner.start();
    cleanups.push(() => runner.kill());
    const errors: string[] = [];
    const c = client(runner.url);
    c.on('protocolError', (error) => errors.push(error.kind));
    await c.waitUntilConnected();
    let calls = 0;
    runner.onRequest = (request, socket) => {
      calls++;
      if (calls === 1) {
        socket.send('\u0000\u0001 not json at all {{{');
        socket.send('x'.repeat(10 * 1024 * 1024));
        socket.send(JSON.stringify({ type: 'hierarchy_update', requestId: request.requestId, data: { hierarchy: { node: 'x' } } }));
      } else {
        socket.send(JSON.stringify({ type: 'hierarchy_update', requestId: request.requestId, data: { hierarchy: { className: 'XCUIApplication' } } }));
      }
    };
    const first = await c.request('request_hierarchy', {}).catch((e: unknown) => e);
    expect((first as RunnerError).code).toBe('unexpected_reply');
    expect((first as RunnerError).message).toMatch(/node/);
    expect(errors).toEqual(['invalid_json', 'invalid_json', 'invalid_message']);
    const second = await c.request('request_hierarchy', {});
    expect(second.type).toBe('hierarchy_update');
    expect(c.state).toBe('connected');
  });

  it('R-LIM-04: a truncated reply fails its request at once, saying it was cut short, never as a timeout', async () => {
    const runner = await FakeRunner.start();
    cleanups.push(() => runner.kill());
    // A timeout far past the test's own: "at once" is shown by the request failing at all, on any machine.
    const c = client(runner.url, { requestTimeoutMs: 120_000 });
    await c.waitUntilConnected();
    let calls = 0;
    runner.onRequest = (request, socket) => {
      calls++;
      const whole = JSON.stringify({ type: 'screenshot', requestId: request.requestId, format: 'png', data: 'iVBORw0KGgo'.repeat(100_000) });
      // The second time the id comes after the data, so only the reply's type can say which request it was.
      const reordered = `{"type":"screenshot","format":"png","data":"${'iVBORw0KGgo'.repeat(100_000)}","requestId":"${String(request.requestId)}"}`;
      socket.send((calls === 1 ? whole : reordered).slice(0, 500_000));
    };
    for (let i = 0; i < 2; i++) {
      const error = (await c.request('request_screenshot', {}).catch((e: unknown) => e)) as RunnerError;
      expect(error).toBeInstanceOf(RunnerError);
      expect(error.code).toBe('unexpected_reply');
      expect(error.message).toMatch(/truncated.*cut short/);
      expect(error.message).not.toMatch(/no reply within/);
    }
    expect(c.state).toBe('connected');
  });

  it('R-LIM-04: a reply over the frame limit fails the request at once, naming the limit and the size; the client reconnects', async () => {
    const runner = await FakeRunner.start();
    cleanups.push(() => runner.kill());
    const c = client(runner.url, { requestTimeoutMs: 120_000, maxFrameBytes: 1024 * 1024 });
    await c.waitUntilConnected();
    let calls = 0;
    runner.onRequest = (request, socket) => {
      calls++;
      const data = calls === 1 ? 'A'.repeat(2 * 1024 * 1024) : 'AAAA';
      socket.send(JSON.stringify({ type: 'screenshot', requestId: request.requestId, format: 'png', data }));
    };
    const error = (await c.request('request_screenshot', {}).catch((e: unknown) => e)) as RunnerError;
    expect(error).toBeInstanceOf(RunnerError);
    expect(error.message).toMatch(/frame of \d+ bytes, over the 1048576-byte limit/);
    expect(error.message).not.toMatch(/no reply within/);
    await c.waitUntilConnected(5_000);
    expect((await c.request('request_screenshot', {})).type).toBe('screenshot');
  });

  it('R-LIM-01: a 50 MB screenshot reply (real traffic) arrives whole under the default limit', async () => {
    const runner = await FakeRunner.start();
    cleanups.push(() => runner.kill());
    const c = client(runner.url);
    await c.waitUntilConnected();
    const data = 'A'.repeat(50 * 1000 * 1000);
    runner.onRequest = (request, socket) => socket.send(JSON.stringify({ type: 'screenshot', requestId: request.requestId, format: 'png', data }));
    const reply = (await c.request('request_screenshot', {}, { timeoutMs: 15_000 })) as { data?: string };
    expect(reply.data?.length).toBe(data.length);
  });

  it('R-WIRE-04: a reply of the wrong type fails the request with what was received', async () => {
    const runner = await FakeRunner.start();
    cleanups.push(() => runner.kill());
    runner.onRequest = (r, s) => s.send(JSON.stringify({ type: 'swipe_result', requestId: r.requestId, success: false, error: 'not the answer' }));
    const c = client(runner.url);
    const error = await c.request('request_hierarchy', {}).catch((e: unknown) => e);
    expect((error as RunnerError).code).toBe('unexpected_reply');
    expect((error as RunnerError).message).toContain('not the answer');
  });

  it("R-WIRE-09: the runner's error reply is its refusal: the request fails now as refused, with the runner's own words", async () => {
    const runner = await FakeRunner.start();
    cleanups.push(() => runner.kill());
    runner.onRequest = (r, s) =>
      s.send(JSON.stringify({ error: 'Unknown command type: request_hierarchy', requestId: r.requestId, success: false, timestamp: 1, type: 'error' }));
    const c = client(runner.url);
    // Its timeout is far past the test's own: failing at all is failing now, not at the timeout.
    const error = await c.request('request_hierarchy', {}, { timeoutMs: 120_000 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'refused', detail: 'Unknown command type: request_hierarchy' });
  });

  it('R-WIRE-09: an error reply with requestId null fails the one request in flight now, not at its timeout', async () => {
    const runner = await FakeRunner.start();
    cleanups.push(() => runner.kill());
    runner.onRequest = (_r, s) =>
      s.send('{"error":"Invalid value \'x\' for parameter \'type\'","requestId":null,"success":false,"timestamp":1,"type":"error"}');
    const c = client(runner.url);
    const errors: string[] = [];
    c.on('protocolError', (e) => errors.push(e.message));
    // Its timeout is far past the test's own: failing at all is failing now, not at the timeout.
    const error = await c.request('request_hierarchy', {}, { timeoutMs: 120_000 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'refused', detail: "Invalid value 'x' for parameter 'type'" });
    expect(errors).toEqual([]);
  });

  it('R-WIRE-09: with several requests in flight a null-id error reply names none of them: reported, and each waits for its own answer', async () => {
    const runner = await FakeRunner.start();
    cleanups.push(() => runner.kill());
    let seen = 0;
    runner.onRequest = (r, s) => {
      seen++;
      if (seen === 2) {
        s.send('{"error":"bad frame","requestId":null,"success":false,"type":"error"}');
        // The first one's own answer still comes, and still settles it.
        s.send(JSON.stringify({ type: 'hierarchy_update', requestId: r.requestId, data: { hierarchy: { className: 'XCUIApplication' } } }));
      }
    };
    const c = client(runner.url);
    const errors: string[] = [];
    c.on('protocolError', (e) => errors.push(e.message));
    await c.waitUntilConnected();
    const first = c.request('request_hierarchy', {}, { timeoutMs: 600 }).catch((e: unknown) => e);
    const second = c.request('request_hierarchy', {}, { timeoutMs: 600 }).catch((e: unknown) => e);
    const [a, b] = await Promise.all([first, second]);
    expect([a, b].filter((x) => x instanceof RunnerError).map((x) => (x as RunnerError).code)).toEqual(['timeout']);
    expect(errors.some((m) => m.includes('bad frame'))).toBe(true);
  });

  it('R-WIRE-12: a connected push without supportedCommands completes the handshake with the base commands, never the relay ones', async () => {
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await once(wss, 'listening');
    cleanups.push(() => new Promise<void>((resolve) => wss.close(() => resolve())));
    wss.on('connection', (socket) => {
      socket.send('{"type":"connected","id":7}');
      socket.on('message', (data) => {
        const r = JSON.parse(data.toString()) as { requestId: string };
        socket.send(JSON.stringify({ type: 'hierarchy_update', requestId: r.requestId, data: { hierarchy: { className: 'XCUIApplication' } } }));
      });
    });
    const c = client(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}/ws`);
    const info = await c.waitUntilConnected();
    expect(info).toMatchObject({ id: 7, commandsListed: false });
    expect(c.supports('request_tap_coordinates')).toBe(true);
    expect(c.supports('request_sdk_action')).toBe(false);
    expect(await c.request('request_hierarchy', {})).toMatchObject({ type: 'hierarchy_update' });
    await expect(c.request('request_sdk_observation', {})).rejects.toMatchObject({ code: 'unsupported_command' });
  });

  it('emits hierarchy and performance pushes', async () => {
    const runner = await FakeRunner.start();
    cleanups.push(() => runner.kill());
    const c = client(runner.url);
    await c.waitUntilConnected();
    const hierarchy = once(c, 'hierarchy');
    const performance = once(c, 'performance');
    runner.sockets[0]?.send(JSON.stringify({ type: 'hierarchy_update', frameContext: 'a:1:b', data: { hierarchy: { className: 'XCUIApplication' } } }));
    runner.sockets[0]?.send(
      JSON.stringify({
        type: 'performance_update',
        performanceData: { fps: 60, frameTimeMs: 16.6, jankFrames: 0, cpuUsagePercent: 1, memoryUsageMb: 100, timestamp: 1 },
      }),
    );
    const [update] = (await hierarchy) as [HierarchyUpdate];
    expect(update.frameContext).toBe('a:1:b');
    await performance;
  });

  it('reports a runner that is not there as disconnected with the reason, and keeps retrying', async () => {
    const runner = await FakeRunner.start();
    const url = runner.url;
    await runner.kill();
    const c = client(url);
    await expect(c.waitUntilConnected(300)).rejects.toMatchObject({ code: 'not_connected' });
    expect(c.state).not.toBe('connected');
    expect(c.error).toMatch(/ECONNREFUSED/);
  });
});
