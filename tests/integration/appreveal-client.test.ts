/**
 * AppRevealClient against the AppReveal server over real sockets: auth, origins, both element forms,
 * tools the app did not register, tool-level errors, tap_text ambiguity, timeouts and screenshots.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AppRevealClient, AppRevealError } from '@main/appreveal/client';
import { ALWAYS_PRESENT_TOOLS, startAppRevealServer, type AppRevealServerHandle, type AppRevealServerOptions } from '@demo/appreveal/server';
import { parseAppRevealSessionUrl } from '@shared/protocol/appreveal';
import { APPREVEAL_UI_TOOLS } from '@shared/protocol/appreveal-tools';
import { FAKE_BUNDLE_ID, FakeApp, FakeWebApp } from './appreveal-fake-app';

const servers: AppRevealServerHandle[] = [];
const clients: AppRevealClient[] = [];
const rawServers: Server[] = [];

async function serve(options: Partial<AppRevealServerOptions> = {}): Promise<{ server: AppRevealServerHandle; app: FakeApp }> {
  const app = (options.app as FakeApp | undefined) ?? new FakeApp();
  const server = await startAppRevealServer({ ...options, app });
  servers.push(server);
  return { server, app };
}

function client(url: string, options: ConstructorParameters<typeof AppRevealClient>[1] = {}): AppRevealClient {
  const c = AppRevealClient.fromSessionUrl(url, options);
  clients.push(c);
  return c;
}

async function expectAppRevealError(promise: Promise<unknown>, code: AppRevealError['code']): Promise<AppRevealError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppRevealError);
  expect((error as AppRevealError).code).toBe(code);
  return error as AppRevealError;
}

/** Everything printed while a test runs, to prove the token never is. */
let printed: string[] = [];
beforeEach(() => {
  printed = [];
  const capture = (...args: unknown[]) => {
    printed.push(args.map((a) => (typeof a === 'string' ? a : inspect(a))).join(' '));
  };
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) vi.spyOn(console, method).mockImplementation(capture);
  const write = (chunk: unknown) => {
    printed.push(String(chunk));
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(write as typeof process.stdout.write);
  vi.spyOn(process.stderr, 'write').mockImplementation(write as typeof process.stderr.write);
});

afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await Promise.all(
    rawServers.splice(0).map(
      (s) =>
        new Promise<void>((resolve) => {
          s.closeAllConnections();
          s.close(() => resolve());
        }),
    ),
  );
});

function assertNothingPrinted(token: string | null): void {
  expect(printed.filter((line) => line.trim() !== '')).toEqual([]);
  if (token) expect(printed.join('\n')).not.toContain(token);
}

async function rpc(baseUrl: string, body: unknown, headers: Record<string, string> = {}, query = ''): Promise<Response> {
  return fetch(`${baseUrl}${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

describe('AppReveal connection', () => {
  it('probes /health, initializes, and offers exactly the tools the app listed', async () => {
    const { server } = await serve();
    expect(server.token).toMatch(/^[0-9a-f]{64}$/);
    expect(server.url).toBe(`${server.baseUrl}?appreveal_session_token=${server.token}`);
    const c = client(server.url);
    const states: string[] = [];
    c.on('state', (state) => states.push(state));
    await c.connect();
    expect(c.state).toBe('connected');
    expect(states).toEqual(['connecting', 'connected']);
    expect(c.health).toMatchObject({ status: 'ok', port: server.port, auth: 'session-token' });
    // No real /health names the app: launch_context does (R-AR-20).
    expect(c.health).not.toHaveProperty('bundleId');
    expect(c.identity).toMatchObject({ bundleId: FAKE_BUNDLE_ID, version: '2.3.4', platform: 'iOS' });
    expect(c.serverInfo?.name).toBe('AppReveal');
    // This app opens no deep links (openDeeplink is optional, as in a real app without a URL handler).
    expect([...c.tools].sort()).toEqual([...APPREVEAL_UI_TOOLS.filter((t) => t !== 'open_deeplink'), ...ALWAYS_PRESENT_TOOLS].sort());
    expect(c.has('get_elements')).toBe(true);
    expect(c.has('web_click')).toBe(false);
    expect(c.webTools).toEqual([]);
    expect(server.requests['GET /health']).toBe(1);
    assertNothingPrinted(server.token);
  });

  it('reads the screen, the windows and the elements', async () => {
    const { server } = await serve();
    const c = client(server.url);
    await c.connect();
    const screen = await c.getScreen();
    expect(screen).toMatchObject({
      screenKey: 'login',
      screenTitle: 'Sign in',
      confidence: 1,
      source: 'explicit',
      frameworkType: 'uikit',
      appBarTitle: 'Sign in',
    });
    expect(screen.controllerChain).toEqual(['UINavigationController', 'SigninViewController']);

    const windows = await c.listWindows();
    expect(windows).toEqual([
      { id: 'w0', title: 'Main', isKey: true, frame: { x: 0, y: 0, width: 390, height: 844 } },
      { id: 'w1', title: 'Overlay', isKey: false, frame: { x: 0, y: 600, width: 390, height: 244 } },
    ]);

    const { screenKey, elements } = await c.getElements();
    expect(screenKey).toBe('login');
    expect(elements.map((e) => e.id)).toEqual(['email', 'login', 'continue_1', 'continue_2', 'promo', 'terms', 'list', 'hidden']);
    expect(elements.find((e) => e.id === 'email')).toEqual({
      id: 'email',
      type: 'textField',
      label: 'Email',
      enabled: true,
      visible: true,
      tappable: true,
      frame: { x: 16, y: 200, width: 358, height: 44 },
      actions: ['tap', 'type', 'clear'],
      idSource: 'explicit',
      ocr: false,
    });
    expect(elements.find((e) => e.id === 'promo')).toMatchObject({ idSource: 'ocr', ocr: true });
    expect(elements.find((e) => e.id === 'terms')).toMatchObject({ enabled: false, idSource: 'semantics' });
    expect(elements.find((e) => e.id === 'hidden')).toMatchObject({ visible: false });

    const overlay = await c.getElements('w1');
    // get_elements lists the named window's elements, but its screenKey is `ScreenResolver.shared.resolve()`
    // with no window id: the key window's screen (UnlikeOtherAI/AppReveal MCPTools.swift at 0ad27a7, get_elements).
    expect(overlay.screenKey).toBe('login');
    expect(overlay.elements.map((e) => e.id)).toEqual(['dismiss']);
    expect((await c.getScreen({ windowId: 'w1' })).screenKey).toBe('overlay');
  });

  it('R-AR-10: normalizes the string form (iOS, Android) and the boolean form (Flutter) to the same elements', async () => {
    const strings = await serve({ elementForm: 'strings' });
    const booleans = await serve({ elementForm: 'booleans' });

    // The two servers really do send different JSON.
    const wire = async (server: AppRevealServerHandle) => {
      const res = await rpc(
        server.baseUrl,
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_elements', arguments: {} } },
        {
          authorization: `Bearer ${server.token}`,
        },
      );
      const body = (await res.json()) as { result: { content: Array<{ text: string }> } };
      return JSON.parse(body.result.content[0]?.text ?? '') as { elements: Array<Record<string, unknown>> };
    };
    const rawStrings = (await wire(strings.server)).elements[0];
    const rawBooleans = (await wire(booleans.server)).elements[0];
    expect(rawStrings).toMatchObject({ enabled: 'true', frame: '16,200,358,44', actions: 'tap,type,clear' });
    expect(rawBooleans).toMatchObject({ enabled: true, frame: '16,200,358,44', actions: ['tap', 'type', 'clear'] });

    const a = client(strings.server.url);
    const b = client(booleans.server.url);
    await Promise.all([a.connect(), b.connect()]);
    expect(await a.getElements()).toEqual(await b.getElements());
    expect(await a.listWindows()).toEqual(await b.listWindows());
    expect((await a.getElements()).elements.length).toBe(8);
  });

  it('returns the screenshot as a base64 PNG', async () => {
    const { server } = await serve();
    const c = client(server.url);
    await c.connect();
    const shot = await c.screenshot();
    expect(shot.format).toBe('png');
    expect(shot.width).toBe(39);
    expect(shot.height).toBe(84);
    const bytes = Buffer.from(shot.dataBase64, 'base64');
    expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  });

  it('runs actions and reports them with the tool and duration', async () => {
    const { server, app } = await serve();
    const c = client(server.url);
    await c.connect();

    const typed = await c.typeText('ada@example.test', 'email');
    // R-SECRET-08: the app's echo of what was typed is not kept (the field may read back as a secret).
    expect(typed).toEqual({ tool: 'type_text', durationMs: expect.any(Number), result: { success: true } });
    expect(typed.durationMs).toBeGreaterThanOrEqual(0);
    expect((await c.getElements()).elements.find((e) => e.id === 'email')?.value).toBe('ada@example.test');
    await c.clearText('email');
    expect((await c.getElements()).elements.find((e) => e.id === 'email')?.value).toBeUndefined();

    await c.tapPoint(100, 200);
    await c.scroll('down', 'list');
    await c.scrollToElement('terms');
    await c.tapText('Continue', { occurrence: 1 });
    expect(app.log).toEqual(['tap_point 100,200', 'scroll down list', 'scroll_to_element terms', 'tap_text Continue', 'tapped continue_2']);

    expect(await c.tapElement('login')).toMatchObject({ tool: 'tap_element', result: { success: true, element_id: 'login' } });
    expect((await c.getScreen()).screenKey).toBe('profile');
    await c.navigateBack();
    expect((await c.getScreen()).screenKey).toBe('login');
    assertNothingPrinted(server.token);
  });
});

describe('AppReveal errors', () => {
  it('without the token: 401 → unauthorized, and the error says a token is needed', async () => {
    const { server } = await serve();
    const raw = await rpc(server.baseUrl, { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} });
    expect(raw.status).toBe(401);

    const c = client(server.baseUrl);
    const error = await expectAppRevealError(c.connect(), 'unauthorized');
    expect(error.details.status).toBe(401);
    expect(error.message).toContain(`127.0.0.1:${server.port}`);
    expect(error.message).toMatch(/needs a session token/);
    expect(c.state).toBe('disconnected');
    expect(c.error).toBe(error.message);
  });

  it('with a wrong token: unauthorized, and neither token appears in the error', async () => {
    const { server } = await serve();
    const wrong = 'f'.repeat(64);
    const c = client(`${server.baseUrl}?appreveal_session_token=${wrong}`);
    const error = await expectAppRevealError(c.connect(), 'unauthorized');
    const everything = `${error.message} ${JSON.stringify(error)} ${inspect(error)} ${inspect(c)}`;
    expect(everything).not.toContain(wrong);
    expect(everything).not.toContain(server.token ?? '-');
    assertNothingPrinted(server.token);
  });

  it('accepts the token as Bearer, X-AppReveal-Session or the query parameter', async () => {
    const { server } = await serve();
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} };
    const token = server.token ?? '';
    expect((await rpc(server.baseUrl, init, { authorization: `Bearer ${token}` })).status).toBe(200);
    expect((await rpc(server.baseUrl, init, { 'x-appreveal-session': token })).status).toBe(200);
    expect((await rpc(server.baseUrl, init, {}, `?appreveal_session_token=${token}`)).status).toBe(200);
    expect((await rpc(server.baseUrl, init, { authorization: `Bearer ${token.slice(1)}x` })).status).toBe(401);
  });

  it('speaks the JSON-only transport: 204 for a notification, 405, 413, unauthenticated /health', async () => {
    const { server } = await serve({ maxBodyBytes: 4096 });
    const auth = { authorization: `Bearer ${server.token}` };
    const initialize = await rpc(server.baseUrl, { jsonrpc: '2.0', id: 7, method: 'initialize', params: {} }, auth);
    expect(initialize.headers.get('content-type')).toBe('application/json');
    expect(initialize.headers.get('mcp-session-id')).toBeNull();
    expect(await initialize.json()).toMatchObject({ id: 7, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} } } });

    const notification = await rpc(server.baseUrl, { jsonrpc: '2.0', method: 'notifications/initialized' }, auth);
    expect(notification.status).toBe(204);

    expect((await fetch(server.baseUrl, { headers: auth })).status).toBe(405);
    expect((await fetch(server.baseUrl, { method: 'PUT', headers: auth, body: '{}' })).status).toBe(405);

    const big = await rpc(server.baseUrl, { jsonrpc: '2.0', id: 1, method: 'ping', pad: 'x'.repeat(10_000) }, auth);
    expect(big.status).toBe(413);

    const health = await fetch(`${server.baseUrl}health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', port: server.port, auth: 'session-token' });
  });

  it('a non-loopback Origin: 403 → forbidden_origin; a loopback Origin is fine', async () => {
    const { server } = await serve();
    const raw = await rpc(
      server.baseUrl,
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} },
      {
        authorization: `Bearer ${server.token}`,
        origin: 'https://evil.example',
      },
    );
    expect(raw.status).toBe(403);

    const refused = client(server.url, { headers: { Origin: 'https://evil.example' } });
    const error = await expectAppRevealError(refused.connect(), 'forbidden_origin');
    expect(error.details.status).toBe(403);

    const loopback = client(server.url, { headers: { Origin: 'http://localhost:5173' } });
    await loopback.connect();
    expect((await loopback.getScreen()).screenKey).toBe('login');
  });

  it('a tool the app did not register is not offered, and calling it fails without a request', async () => {
    const tools = APPREVEAL_UI_TOOLS.filter((t) => t !== 'scroll' && t !== 'tap_text' && t !== 'screenshot');
    const { server } = await serve({ tools });
    const c = client(server.url);
    await c.connect();
    expect(c.has('scroll')).toBe(false);
    expect(c.tools).not.toContain('tap_text');
    const posts = server.requests['POST /'];
    const error = await expectAppRevealError(c.scroll('down'), 'unknown_tool');
    expect(error.details.tool).toBe('scroll');
    await expectAppRevealError(c.tapText('Continue'), 'unknown_tool');
    await expectAppRevealError(c.screenshot(), 'unknown_tool');
    await expectAppRevealError(c.webClick('#go'), 'unknown_tool');
    expect(server.requests['POST /']).toBe(posts);
    expect(server.toolCalls).toEqual({});
    // A registered tool still works.
    expect((await c.getScreen()).screenKey).toBe('login');
  });

  it('a tool-level {"error": ...} is a tool_error carrying the app\'s message', async () => {
    const { server } = await serve();
    const c = client(server.url);
    await c.connect();
    const missing = await expectAppRevealError(c.tapElement('nope'), 'tool_error');
    expect(missing.message).toContain('Element not found: nope');
    expect(missing.details.tool).toBe('tap_element');
    const disabled = await expectAppRevealError(c.tapElement('terms'), 'tool_error');
    expect(disabled.message).toContain('disabled');
    await expectAppRevealError(c.navigateBack(), 'tool_error');
    // The connection survives tool failures.
    expect(c.state).toBe('connected');
  });

  it('an ambiguous tap_text lists the candidates', async () => {
    const { server, app } = await serve();
    const c = client(server.url);
    await c.connect();
    const error = await expectAppRevealError(c.tapText('Continue'), 'tool_error');
    expect(error.details.candidates).toEqual([
      { text: 'Continue', id: 'continue_1', type: 'button', frame: { x: 16, y: 330, width: 170, height: 44 }, index: 0 },
      { text: 'Continue', id: 'continue_2', type: 'button', frame: { x: 204, y: 330, width: 170, height: 44 }, index: 1 },
    ]);
    expect(error.details.hint).toMatch(/occurrence/);
    expect(error.message).toContain('2 candidates');
    expect(error.message).toContain('continue_2');
    expect(app.log).toEqual(['tap_text Continue']);
  });

  it('a call that takes longer than its timeout fails with timeout, and the next call works', async () => {
    const { server, app } = await serve();
    const c = client(server.url, { timeoutMs: 2_000 });
    await c.connect();
    app.screenDelayMs = 600;
    const error = await expectAppRevealError(c.getScreen({ timeoutMs: 150 }), 'timeout');
    expect(error.message).toContain(`127.0.0.1:${server.port}`);
    expect(error.message).toContain('within 150 ms');
    app.screenDelayMs = 0;
    expect((await c.getScreen()).screenKey).toBe('login');
  });

  it('nothing listening → unreachable; a closed client → unreachable', async () => {
    const { server } = await serve();
    const url = server.url;
    await server.close();
    const c = client(url, { healthTimeoutMs: 1_000 });
    const error = await expectAppRevealError(c.connect(), 'unreachable');
    expect(error.message).toMatch(/ECONNREFUSED/);
    expect(error.message).not.toContain(parseAppRevealSessionUrl(url).token ?? '-');

    const live = await serve();
    const closed = client(live.server.url);
    await closed.connect();
    await closed.close();
    await expectAppRevealError(closed.getScreen(), 'unreachable');
  });

  it('a peer that answers garbage → bad_reply, not a crash', async () => {
    const garbage = createServer((req, res) => {
      if (req.url === '/health') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: 'ok', port: 1, auth: 'session-token' }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"this is": "not json-rpc"');
    });
    rawServers.push(garbage);
    await new Promise<void>((resolve) => garbage.listen(0, '127.0.0.1', () => resolve()));
    const port = (garbage.address() as AddressInfo).port;
    const c = client(`http://127.0.0.1:${port}/?appreveal_session_token=${'a'.repeat(64)}`);
    await expectAppRevealError(c.connect(), 'bad_reply');

    const notHealth = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>hello</html>');
    });
    rawServers.push(notHealth);
    await new Promise<void>((resolve) => notHealth.listen(0, '127.0.0.1', () => resolve()));
    const other = client(`http://127.0.0.1:${(notHealth.address() as AddressInfo).port}/`);
    await expectAppRevealError(other.connect(), 'bad_reply');
  });

  it('an app with auth disabled is reachable without a token', async () => {
    const { server } = await serve({ token: null });
    expect(server.url).toBe(server.baseUrl);
    const c = client(server.url);
    await c.connect();
    expect(c.health?.auth).toBe('disabled');
    expect((await c.getScreen()).screenKey).toBe('login');
  });

  it('web view tools are offered when the app lists them', async () => {
    const app = new FakeWebApp();
    const { server } = await serve({ app });
    const c = client(server.url);
    await c.connect();
    expect(c.webTools).toEqual(['get_webviews', 'get_dom_interactive', 'web_click', 'web_type']);
    expect(await c.getWebViews()).toEqual([{ id: 'wv0', url: 'https://example.test/form', title: 'Form' }]);
    expect(await c.getDomInteractive()).toEqual([{ selector: '#q', tag: 'input' }]);
    expect((await c.webClick('#go', 'wv0')).result).toEqual({ result: { clicked: '#go' } });
    // R-SECRET-08: web_type's echo of the text is not kept; the rest of the answer is.
    expect((await c.webType('#q', 'hello')).result).toEqual({ result: { selector: '#q' } });
    expect(app.clicked).toEqual(['#go']);
    await expectAppRevealError(c.webSelect('#s', 'a'), 'unknown_tool');
  });
});

/** The fake app, until `flood` is set: then one element whose label is that many characters. */
class FloodingApp extends FakeApp {
  flood = 0;
  override getElements(windowId?: string) {
    const elements = super.getElements(windowId);
    if (this.flood === 0) return elements;
    return [{ ...elements[0]!, label: 'x'.repeat(this.flood) }];
  }
}

describe('reply limits', () => {
  const LIMIT = 256 * 1024;

  it('R-LIM-06: a reply that declares more than the limit is refused before its body is read; the connection goes on', async () => {
    const app = new FloodingApp();
    const { server } = await serve({ app });
    const c = client(server.url, { maxReplyBytes: LIMIT });
    await c.connect();
    app.flood = 2 * LIMIT;
    const error = await expectAppRevealError(c.getElements(), 'bad_reply');
    expect(error.message).toMatch(/declared\), over the 262144-byte limit/);
    app.flood = 0;
    expect((await c.getElements()).elements.length).toBeGreaterThan(0);
  });

  it('R-LIM-06: a reply that streams past the limit without a length is cut off there, and the rest is never sent', async () => {
    const app = new FloodingApp();
    const { server } = await serve({ app });
    // A proxy that passes every reply on without its length, in chunks, as a chunked stream would.
    const upstream = new URL(server.baseUrl);
    let written = 0;
    let total = 0;
    let cutOff = false;
    const proxy = createServer((req, res) => {
      const forward = fetch(new URL(req.url ?? '/', upstream), {
        method: req.method ?? 'GET',
        headers: Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'content-length' && k !== 'connection')) as Record<
          string,
          string
        >,
        ...(req.method === 'POST' ? { body: req as unknown as ReadableStream, duplex: 'half' } : {}),
      } as RequestInit);
      void forward.then(async (reply) => {
        const body = Buffer.from(await reply.arrayBuffer());
        total = body.length;
        res.writeHead(reply.status, { 'content-type': reply.headers.get('content-type') ?? 'application/json' });
        res.on('close', () => {
          if (!res.writableFinished) cutOff = true;
        });
        const step = 64 * 1024;
        const pump = () => {
          while (written < body.length && !res.destroyed) {
            const chunk = body.subarray(written, written + step);
            written += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', pump);
          }
          if (!res.destroyed) res.end();
        };
        written = 0;
        pump();
      });
    });
    rawServers.push(proxy);
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', () => resolve()));
    const port = (proxy.address() as AddressInfo).port;
    const c = client(`http://127.0.0.1:${port}/?appreveal_session_token=${server.token ?? ''}`, { maxReplyBytes: LIMIT });
    await c.connect();
    app.flood = 64 * 1024 * 1024;
    const error = await expectAppRevealError(c.getElements(), 'bad_reply');
    expect(error.message).toMatch(/over the 262144-byte limit/);
    await expect.poll(() => cutOff, { timeout: 5_000 }).toBe(true);
    // What reached the socket before the client closed it: the limit and what the socket buffers hold,
    // a small part of the 64 MiB reply.
    expect(written).toBeLessThan(total / 4);
  }, 60_000);
});
