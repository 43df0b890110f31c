/**
 * Contract cases over the traffic recorded from AppReveal's own Rust server
 * (tests/fixtures/appreveal-tauri, with its README): each recorded reply is served to the client as the
 * answer to the request of its kind, and the client must decode and classify it as the server meant
 * (`replayExchangeAgainstClient`); each recorded request is sent to the demo's server in the Tauri
 * flavour, and its answer must have the recorded shape (`compareWithDemo`). Used by
 * tests/integration/appreveal-contract.test.ts and by `npm run bench -- appreveal`, which prints the counts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AppRevealClient, AppRevealError } from '@main/appreveal/client';
import { actThroughAppReveal } from '@main/appreveal/actions';
import { ALWAYS_PRESENT_TOOLS, startAppRevealServer, type AppRevealServerHandle } from '@demo/appreveal/server';
import { appReadingView, logRows, networkRows } from '@shared/inspect/app-state';
import { identityOf } from '@shared/protocol/appreveal';
import { FakeProvidersApp } from '../integration/appreveal-fake-app';

export const FIXTURES = join(fileURLToPath(new URL('.', import.meta.url)), '..', 'fixtures', 'appreveal-tauri');
export const FIXTURE_SETS = ['example', 'builtins'] as const;
export type FixtureSet = (typeof FIXTURE_SETS)[number];

export interface RecordedExchange {
  set: FixtureSet;
  file: string;
  request: { method: string; path: string; headers: Record<string, string>; body: unknown };
  response: { status: number; headers: Record<string, string>; body: string };
}

export function loadExchanges(set: FixtureSet): RecordedExchange[] {
  const dir = join(FIXTURES, set);
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => ({ set, file, ...(JSON.parse(readFileSync(join(dir, file), 'utf8')) as Omit<RecordedExchange, 'set' | 'file'>) }));
}

const bodyOf = (exchange: RecordedExchange) => exchange.request.body as { method?: string; params?: { name?: string } } | null;
const kindOf = (exchange: RecordedExchange) => `${exchange.request.method} ${bodyOf(exchange)?.method ?? ''} ${bodyOf(exchange)?.params?.name ?? ''}`.trim();

// ---- A server that answers with recorded replies --------------------------------------------------------

export interface ScriptedServer {
  baseUrl: string;
  /** The recorded reply the next tools/call gets (whatever it asked); undefined: the recorded one for its tool. */
  next: RecordedExchange | undefined;
  /** The tools/call requests that arrived, by tool name, with their arguments. */
  calls: Array<{ name: string; arguments: unknown }>;
  close(): Promise<void>;
}

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        resolve(undefined);
      }
    });
  });
}

/** The recorded body with the request's id put in (the client numbers its own requests). */
function withId(body: string, id: unknown): string {
  try {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    if (parsed && typeof parsed === 'object' && 'id' in parsed && parsed.id !== null) parsed.id = id;
    return JSON.stringify(parsed);
  } catch {
    return body;
  }
}

/**
 * Serves one fixture set: /health, initialize and the initialized notification from their recordings;
 * tools/list from the recording (example) or, for builtins, whose list the recording does not keep, a
 * list of the tools its calls recorded; tools/call from `next` or the recorded call of that tool.
 */
export async function scriptedServer(set: FixtureSet, extraTools: readonly string[] = []): Promise<ScriptedServer> {
  const exchanges = loadExchanges(set);
  // The answered one: a recorded 401 or 400 is a tools/list too.
  const find = (kind: string) => exchanges.find((e) => kindOf(e) === kind && e.response.status < 300);
  let toolsList: RecordedExchange =
    find('POST tools/list') ??
    ({
      set,
      file: '(stand-in)',
      request: { method: 'POST', path: '/', headers: {}, body: null },
      response: {
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 0,
          result: {
            tools: [...new Set(exchanges.map((e) => bodyOf(e)?.params?.name).filter((n): n is string => typeof n === 'string'))].map((name) => ({
              name,
              description: name,
              inputSchema: { type: 'object', properties: {} },
            })),
          },
        }),
      },
    } satisfies RecordedExchange);
  if (extraTools.length > 0) {
    const listed = JSON.parse(toolsList.response.body) as { result: { tools: unknown[] } };
    listed.result.tools.push(
      ...extraTools.map((name) => ({ name, description: name, inputSchema: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' } } } })),
    );
    toolsList = { ...toolsList, response: { ...toolsList.response, body: JSON.stringify(listed) } };
  }
  const state: ScriptedServer = { baseUrl: '', next: undefined, calls: [], close: async () => undefined };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const answer = (exchange: RecordedExchange, id: unknown) => {
        const headers = { ...exchange.response.headers };
        delete headers['content-length'];
        res.writeHead(exchange.response.status, headers);
        res.end(withId(exchange.response.body, id));
      };
      if (req.method === 'GET') {
        const health = find('GET');
        if (req.url?.startsWith('/health') && health) return answer(health, undefined);
        return answer(
          exchanges.find((e) => e.file.includes('get-root'))!,
          undefined,
        );
      }
      const body = (await readJson(req)) as { id?: unknown; method?: string; params?: { name?: string; arguments?: unknown } } | undefined;
      const method = body?.method ?? '';
      if (method === 'initialize') return answer(find('POST initialize')!, body?.id);
      if (method === 'notifications/initialized') return answer(find('POST notifications/initialized')!, undefined);
      if (method === 'tools/list') return answer(toolsList, body?.id);
      if (method === 'tools/call') {
        const name = body?.params?.name ?? '';
        state.calls.push({ name, arguments: body?.params?.arguments });
        const scripted = state.next ?? find(`POST tools/call ${name}`);
        if (scripted) return answer(scripted, body?.id);
      }
      res.writeHead(500);
      res.end();
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

// ---- The client reading each recorded reply -------------------------------------------------------------

export interface CaseOutcome {
  exchange: string;
  /** What the server meant, in a few words. */
  meant: string;
  /** What the client made of it. */
  got: string;
  ok: boolean;
}

async function failureOf(run: () => Promise<unknown>): Promise<AppRevealError | undefined> {
  try {
    await run();
    return undefined;
  } catch (error) {
    return error instanceof AppRevealError ? error : new AppRevealError('bad_reply', String(error));
  }
}

const describeError = (error: AppRevealError | undefined) =>
  error
    ? `${error.code}${error.details.rpcCode !== undefined ? ` ${error.details.rpcCode}` : ''}${error.details.status !== undefined ? ` HTTP ${error.details.status}` : ''}`
    : 'no error';

/**
 * What the server meant by each recorded reply, and how to ask the client for it. A refusal
 * (tool_error, unknown_tool, unauthorized) must also be reported by an action as "did not run".
 */
interface CheckContext {
  client: AppRevealClient;
  server: ScriptedServer;
  /** A second client whose server also lists tap_point, so a reply can be the answer to an action. */
  actions: AppRevealClient;
  actionServer: ScriptedServer;
}
type Check = (context: CheckContext, exchange: RecordedExchange) => Promise<{ got: string; ok: boolean }>;

const refusal =
  (code: AppRevealError['code'], rpcCode: number | undefined, status?: number): Check =>
  async ({ actions, actionServer }, exchange) => {
    actionServer.next = exchange;
    const error = await failureOf(() => actions.call('tap_point', { x: 1, y: 1 }));
    // The same reply to an action: the app answered, so it did not run.
    const action = await actThroughAppReveal(actions, { action: 'tap', target: { point: { x: 1, y: 1 } } }).catch(() => undefined);
    actionServer.next = undefined;
    const ok =
      error?.code === code &&
      error.details.rpcCode === rpcCode &&
      (status === undefined || error.details.status === status) &&
      action?.success === false &&
      action.mayHaveRun === false;
    return { got: `${describeError(error)}; as an action: ${action ? `mayHaveRun ${String(action.mayHaveRun)}` : 'threw'}`, ok };
  };

const CHECKS: Record<string, { meant: string; check: Check }> = {
  '0001-health.json': {
    meant: 'up, session-token auth, no app identity',
    check: async ({ client }) => ({
      got: JSON.stringify({ status: client.health?.status, auth: client.health?.auth, bundleIdInHealth: client.health?.['bundleId'] ?? null }),
      ok: client.health?.status === 'ok' && client.health.auth === 'session-token' && client.health['bundleId'] === undefined,
    }),
  },
  '0002-initialize.json': {
    meant: 'AppReveal 0.10.1',
    check: async ({ client }) => ({
      got: `${client.serverInfo?.name} ${client.serverInfo?.version}`,
      ok: client.serverInfo?.name === 'AppReveal' && client.serverInfo.version === '0.10.1',
    }),
  },
  '0003-notifications-initialized.json': {
    meant: 'accepted (204, no body)',
    check: async ({ client }) => ({ got: client.state, ok: client.state === 'connected' }),
  },
  '0004-tools-list.json': {
    meant: 'exactly batch, device_info, get_state, launch_context',
    check: async ({ client }) => ({
      got: client.tools.join(','),
      ok: client.tools.join(',') === ALWAYS_PRESENT_TOOLS.join(',') && client.spec('batch')?.properties?.includes('actions') === true,
    }),
  },
  '0013-token-in-query.json': {
    meant: 'the same four tools',
    check: async ({ client }, exchange) => {
      const listed = JSON.parse(exchange.response.body) as { result: { tools: Array<{ name: string }> } };
      const names = listed.result.tools.map((t) => t.name).join(',');
      return { got: names, ok: names === client.tools.join(',') };
    },
  },
  '0005-call-device_info.json': {
    meant: 'the app is "serve", on Windows, Tauri',
    check: async ({ client }) => {
      const value = await client.call('device_info');
      const identity = identityOf(value);
      return { got: JSON.stringify(identity), ok: identity.bundleId === 'serve' && identity.frameworkType === 'tauri' && identity.version === undefined };
    },
  },
  '0007-call-launch_context.json': {
    meant: 'the app is "serve" (its version "unknown" is none)',
    check: async ({ client }) => ({
      got: JSON.stringify(client.identity),
      ok:
        client.identity.bundleId === 'serve' &&
        client.identity.appName === 'serve' &&
        client.identity.platform === 'Windows' &&
        client.identity.version === undefined,
    }),
  },
  '0006-call-get_state.json': {
    meant: 'state {frameworkType: tauri, screen: tauri-example}',
    check: async ({ client }) => {
      const state = await client.readAppState();
      const reading = state.readings.find((r) => r.tool === 'get_state');
      return { got: JSON.stringify(reading), ok: reading?.ok === true && (reading.value as { screen?: string }).screen === 'tauri-example' };
    },
  },
  '0008-call-batch.json': { meant: 'refused: -32603 Invalid params, nothing run', check: refusal('tool_error', -32603) },
  '0009-call-unknown-tool.json': { meant: 'no such tool (-32601), nothing run', check: refusal('unknown_tool', -32601) },
  '0011-call-unknown-tool.json': { meant: 'no such tool (-32601), nothing run', check: refusal('unknown_tool', -32601) },
  '0010-unknown-method.json': { meant: 'no such method (-32601), nothing run', check: refusal('unknown_tool', -32601) },
  '0012-unknown-method.json': { meant: 'no such method (-32601), nothing run', check: refusal('unknown_tool', -32601) },
  '0011-no-token.json': { meant: '401: a token is needed', check: refusal('unauthorized', undefined, 401) },
  '0013-no-token.json': { meant: '401: a token is needed', check: refusal('unauthorized', undefined, 401) },
  '0012-wrong-token.json': { meant: '401: the token was refused', check: refusal('unauthorized', undefined, 401) },
  '0014-wrong-token.json': { meant: '401: the token was refused', check: refusal('unauthorized', undefined, 401) },
  '0014-missing-jsonrpc.json': { meant: '400 -32600: not a request, nothing run', check: refusal('tool_error', -32600, 400) },
  '0016-missing-jsonrpc.json': { meant: '400 -32600: not a request, nothing run', check: refusal('tool_error', -32600, 400) },
  '0015-not-json.json': { meant: '400 -32700: not JSON, nothing run', check: refusal('tool_error', -32700, 400) },
  '0017-not-json.json': { meant: '400 -32700: not JSON, nothing run', check: refusal('tool_error', -32700, 400) },
  '0016-get-root.json': { meant: '405 text: only POST, nothing run', check: refusal('tool_error', undefined, 405) },
  '0018-get-root.json': { meant: '405 text: only POST, nothing run', check: refusal('tool_error', undefined, 405) },
  '0005-call-list_windows.json': {
    meant: 'one key window "main", 800 x 600',
    check: async ({ client }) => {
      const windows = await client.listWindows();
      return { got: JSON.stringify(windows), ok: windows.length === 1 && windows[0]?.id === 'main' && windows[0].isKey && windows[0].frame?.width === 800 };
    },
  },
  '0006-call-get_screen.json': {
    meant: 'screen "login", Tauri, explicit',
    check: async ({ client }) => {
      const screen = await client.getScreen();
      return {
        got: JSON.stringify(screen),
        ok: screen.screenKey === 'login' && screen.frameworkType === 'tauri' && screen.source === 'explicit' && screen.navigationDepth === 2,
      };
    },
  },
  '0007-call-get_navigation_stack.json': {
    meant: 'route login, stack home › login',
    check: async ({ client }) => {
      const reading = (await client.readAppState()).readings.find((r) => r.tool === 'get_navigation_stack');
      const view = reading ? appReadingView(reading) : undefined;
      return { got: JSON.stringify(view), ok: view?.kind === 'navigation' && view.current === 'login' && view.stack.join('>') === 'home>login' };
    },
  },
  '0008-call-get_logs.json': {
    meant: 'one log line: info "hello"',
    check: async ({ client }) => {
      const reading = (await client.readAppState()).readings.find((r) => r.tool === 'get_logs');
      const rows = logRows(reading?.value);
      return { got: JSON.stringify(rows), ok: rows?.length === 1 && rows[0]?.level === 'info' && rows[0].message === 'hello' };
    },
  },
  '0009-call-get_feature_flags.json': {
    meant: 'flag newCheckout on',
    check: async ({ client }) => {
      const reading = (await client.readAppState()).readings.find((r) => r.tool === 'get_feature_flags');
      const view = reading ? appReadingView(reading) : undefined;
      return { got: JSON.stringify(view), ok: view?.kind === 'fields' && view.rows.some((row) => row.name === 'newCheckout' && row.value === 'true') };
    },
  },
  '0010-call-get_network_calls.json': {
    meant: 'one call to https://example.test/api, status 200',
    check: async ({ client }) => {
      const reading = (await client.readAppState()).readings.find((r) => r.tool === 'get_network_calls');
      const rows = networkRows(reading?.value);
      return { got: JSON.stringify(rows), ok: rows?.length === 1 && rows[0]?.url === 'https://example.test/api' && rows[0].status === '200' };
    },
  },
};

/** Each recorded exchange of a set, read by the client. */
export async function replaySetAgainstClient(set: FixtureSet): Promise<CaseOutcome[]> {
  const server = await scriptedServer(set);
  const actionServer = await scriptedServer(set, ['tap_point']);
  const client = new AppRevealClient({ baseUrl: server.baseUrl, token: 'contract-test-token' }, { timeoutMs: 5000 });
  const actions = new AppRevealClient({ baseUrl: actionServer.baseUrl, token: 'contract-test-token' }, { timeoutMs: 5000 });
  const context: CheckContext = { client, server, actions, actionServer };
  const out: CaseOutcome[] = [];
  try {
    await client.connect();
    await actions.connect();
    for (const exchange of loadExchanges(set)) {
      const entry = CHECKS[exchange.file];
      const name = `${set}/${exchange.file}`;
      if (!entry) {
        out.push({ exchange: name, meant: '(no case)', got: '', ok: false });
        continue;
      }
      try {
        const { got, ok } = await entry.check(context, exchange);
        out.push({ exchange: name, meant: entry.meant, got, ok });
      } catch (error) {
        out.push({ exchange: name, meant: entry.meant, got: `threw ${error instanceof Error ? error.message : String(error)}`, ok: false });
      } finally {
        server.next = undefined;
      }
    }
  } finally {
    await Promise.all([client.close(), actions.close()]);
    await Promise.all([server.close(), actionServer.close()]);
  }
  return out;
}

// ---- The demo's server answering each recorded request ---------------------------------------------------

export interface DemoComparison {
  exchange: string;
  ok: boolean;
  /** What differs, when something does. */
  differences: string[];
}

/** The demo in the Tauri flavour, set up as the recording was: the example's four tools, or all providers. */
export function demoServerFor(set: FixtureSet): Promise<AppRevealServerHandle> {
  return startAppRevealServer({ app: new FakeProvidersApp(), flavor: 'tauri', ...(set === 'example' ? { tools: ALWAYS_PRESENT_TOOLS } : {}) });
}

function keysOf(value: unknown): string[] {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.keys(value).sort() : [];
}

/** Tools whose answer is the app's own data: only that it is an object is compared. */
const APP_DATA = new Set(['get_state', 'get_feature_flags']);

/**
 * The recorded request, sent to the demo, answered in the recorded shape: status, content type, JSON-RPC
 * envelope, error code and message (a parse error's detail is the parser's own), the result's keys.
 */
export async function compareWithDemo(exchange: RecordedExchange, server: AppRevealServerHandle): Promise<DemoComparison> {
  const differences: string[] = [];
  const token = server.token ?? '';
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(exchange.request.headers)) headers[key] = value.replace('<SESSION_TOKEN>', token);
  const path = exchange.request.path.replace(/appreveal_session_token=[0-9a-f]+/, `appreveal_session_token=${token}`);
  const body =
    exchange.request.body === null ? undefined : typeof exchange.request.body === 'string' ? exchange.request.body : JSON.stringify(exchange.request.body);
  const response = await fetch(new URL(path, server.baseUrl), { method: exchange.request.method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await response.text();
  if (response.status !== exchange.response.status) differences.push(`status ${response.status}, recorded ${exchange.response.status}`);
  const recordedType = exchange.response.headers['content-type'];
  if (response.headers.get('content-type') !== recordedType) differences.push(`content-type ${response.headers.get('content-type')}, recorded ${recordedType}`);
  if (response.headers.get('connection') !== 'close') differences.push('the connection is not closed');
  const recorded = exchange.response.body;
  if (!recordedType?.startsWith('application/json') || recorded === '') {
    if (text !== recorded) differences.push(`body ${JSON.stringify(text)}, recorded ${JSON.stringify(recorded)}`);
    return { exchange: `${exchange.set}/${exchange.file}`, ok: differences.length === 0, differences };
  }
  const want = JSON.parse(recorded) as Record<string, unknown>;
  let got: Record<string, unknown>;
  try {
    got = JSON.parse(text) as Record<string, unknown>;
  } catch {
    differences.push(`body is not JSON: ${text.slice(0, 80)}`);
    return { exchange: `${exchange.set}/${exchange.file}`, ok: false, differences };
  }
  if (exchange.request.method === 'GET') {
    if (keysOf(got).join() !== keysOf(want).join()) differences.push(`keys ${keysOf(got)}, recorded ${keysOf(want)}`);
    return { exchange: `${exchange.set}/${exchange.file}`, ok: differences.length === 0, differences };
  }
  for (const key of ['jsonrpc', 'id'] as const)
    if (JSON.stringify(got[key]) !== JSON.stringify(want[key])) differences.push(`${key} ${JSON.stringify(got[key])}, recorded ${JSON.stringify(want[key])}`);
  if ('error' in want) {
    const e = got.error as { code?: number; message?: string } | undefined;
    const w = want.error as { code: number; message: string };
    if (e?.code !== w.code) differences.push(`error code ${e?.code}, recorded ${w.code}`);
    const parse = w.message.startsWith('Parse error:');
    if (parse ? !e?.message?.startsWith('Parse error:') : e?.message !== w.message)
      differences.push(`error message ${JSON.stringify(e?.message)}, recorded ${JSON.stringify(w.message)}`);
    return { exchange: `${exchange.set}/${exchange.file}`, ok: differences.length === 0, differences };
  }
  const result = got.result as Record<string, unknown> | undefined;
  const wanted = want.result as Record<string, unknown>;
  const method = (exchange.request.body as { method?: string }).method;
  if (method === 'initialize' || method === 'tools/list') {
    if (JSON.stringify(result) !== JSON.stringify(wanted)) differences.push(`${method} result differs: ${JSON.stringify(result).slice(0, 200)}`);
  } else {
    const tool = (exchange.request.body as { params?: { name?: string } }).params?.name ?? '';
    const inner = (r: Record<string, unknown> | undefined) =>
      JSON.parse(((r?.content as Array<{ text: string }> | undefined) ?? [])[0]?.text ?? 'null') as unknown;
    const g = inner(result);
    const w = inner(wanted);
    if (keysOf(result).join() !== keysOf(wanted).join()) differences.push(`result keys ${keysOf(result)}, recorded ${keysOf(wanted)}`);
    if (APP_DATA.has(tool)) {
      if (keysOf(g).length === 0) differences.push(`${tool} is not an object`);
    } else {
      // Every recorded key is there (the demo's Tauri app, as with the plugin, may add e.g. windows).
      const missing = keysOf(w).filter((key) => !keysOf(g).includes(key));
      if (missing.length > 0) differences.push(`${tool} lacks ${missing.join(', ')}`);
      const list = (v: unknown) =>
        (Array.isArray(v) ? v : typeof v === 'object' && v !== null ? Object.values(v).find(Array.isArray) : undefined) as unknown[] | undefined;
      const firstWant = list(w)?.[0];
      const firstGot = list(g)?.[0];
      if (firstWant !== undefined) {
        const lacking = keysOf(firstWant).filter((key) => !keysOf(firstGot).includes(key));
        if (lacking.length > 0) differences.push(`${tool}'s entries lack ${lacking.join(', ')}`);
      }
      if (JSON.stringify(Object.keys(g as object)) !== JSON.stringify(keysOf(g))) differences.push(`${tool}'s keys are not in name order (serde_json)`);
    }
  }
  return { exchange: `${exchange.set}/${exchange.file}`, ok: differences.length === 0, differences };
}

export async function compareSetWithDemo(set: FixtureSet): Promise<DemoComparison[]> {
  const server = await demoServerFor(set);
  try {
    const out: DemoComparison[] = [];
    for (const exchange of loadExchanges(set)) out.push(await compareWithDemo(exchange, server));
    return out;
  } finally {
    await server.close();
  }
}
