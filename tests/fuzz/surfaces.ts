/**
 * The fuzz suite's surfaces (docs/rules.md#r-fuzz-01): every input a device, a file or a page can hand
 * the host, generated with fast-check from real frames (the recorded runner session), valid samples and
 * their mutations, and plain garbage. Each case must end in a typed result: a decoded value or the
 * decoder's typed error; anything thrown is a crash, and a case slower than HANG_MS is a hang. Run
 * briefly inside `npm test` (tests/fuzz/fuzz.test.ts) and in full with `npm run fuzz` (tests/fuzz/run.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { strToU8, zipSync, type Zippable } from 'fflate';
import WebSocket from 'ws';
import { apiMethods } from '@shared/api/api';
import { ProtocolDecodeError } from '@shared/protocol/errors';
import {
  AppRevealElementsReplySchema,
  AppRevealHealthSchema,
  AppRevealScreenInfoSchema,
  AppRevealScreenshotTextSchema,
  AppRevealToolFailureSchema,
  AppRevealWindowsReplySchema,
} from '@shared/protocol/appreveal';
import { decodeRunnerInbound, decodeRunnerRequest, RUNNER_COMMANDS, RUNNER_REPLY_TYPES } from '@shared/protocol/runner';
import { decodeAutoMobileAction, decodeWebControlAction } from '@shared/protocol/sdk';
import { encodeTraceEvent, encodeTraceManifest } from '@shared/trace/encode';
import { createApiService, type ApiService } from '@main/host/api';
import { startWebHost, type WebHost } from '@main/host/web-host';
import { DeviceManager } from '@main/devices/manager';
import { openTraceFile, TraceOpenError } from '@main/trace/open';
import { SessionRecording } from '@main/trace/recording';
import { appRevealElementsToUiNodes } from '@shared/observe/appreveal';

/** A single case slower than this is reported as a hang. */
export const HANG_MS = 5_000;

export class FuzzFailure extends Error {
  override readonly name = 'FuzzFailure';
  constructor(
    readonly kind: 'crash' | 'hang' | 'untyped',
    message: string,
  ) {
    super(message);
  }
}

export interface Surface {
  name: string;
  /** Cases for one run; the property is async for surfaces with files or sockets. */
  property(onCase: () => void): fc.IAsyncPropertyWithHooks<unknown[]> | fc.IPropertyWithHooks<unknown[]>;
  setup?(): Promise<void>;
  teardown?(): Promise<void>;
}

function expectTyped<T>(what: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    throw new FuzzFailure('crash', `${what} threw ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
  }
}

function timed<T>(what: string, started: number, value: T): T {
  const took = performance.now() - started;
  if (took > HANG_MS) throw new FuzzFailure('hang', `${what} took ${Math.round(took)} ms`);
  return value;
}

// ---- Seeds ------------------------------------------------------------------------------------------

const RECORDING = fileURLToPath(new URL('../../resources/recordings/settings-tap-general/', import.meta.url));

/** Every frame of the recorded runner session, as the runner sent it. */
export const GOLDEN_FRAMES: string[] = readdirSync(RECORDING)
  .filter((name) => name.endsWith('.json'))
  .flatMap((name) => {
    const recorded = JSON.parse(readFileSync(join(RECORDING, name), 'utf8')) as Record<string, unknown>;
    return ['response', 'push'].filter((key) => recorded[key] !== undefined).map((key) => JSON.stringify(recorded[key]));
  });

const box = { left: 0, top: 0, right: 100, bottom: 40 };
const SDK_FRAMES = [
  {
    type: 'sdk_observation_result',
    requestId: 'r',
    available: true,
    snapshot: {
      captureIdentity: '18446744073709551615',
      orientation: 'portrait',
      coordinateSpace: 'screen',
      bounds: box,
      root: { id: 'root', role: 'group', bounds: box, children: [{ id: 'b', role: 'button', label: 'Go', bounds: box }] },
      capabilities: ['tap'],
    },
  },
  { type: 'sdk_action_result', requestId: 'r', available: true, result: { success: true, nextObservationIdentity: 7 } },
  {
    type: 'sdk_web_snapshot_result',
    requestId: 'r',
    available: true,
    snapshot: {
      documentId: 'd',
      snapshotId: 's',
      url: 'https://a.example/',
      viewport: { offsetLeft: 0, offsetTop: 0, width: 390, height: 600, scale: 1 },
      elements: [{ id: 'e1', role: 'button', label: 'Pay', bounds: [1, 2, 3, 4], visible: true, enabled: true, focused: false }],
    },
  },
  { type: 'sdk_web_action_result', requestId: 'r', available: false, failure: 'bridge_unavailable' },
  { type: 'sdk_capabilities_result', requestId: 'r', available: true, observationBridge: { schemaVersion: 1, available: true, supportedActions: ['tap'] } },
];

const MCP_SAMPLES: Array<[string, { safeParse(value: unknown): { success: boolean; data?: unknown } }, unknown]> = [
  [
    'elements',
    AppRevealElementsReplySchema,
    { elements: [{ id: 'login.submit', type: 'button', label: 'Log in', frame: { x: 1, y: 2, width: 100, height: 44 }, tappable: true }] },
  ],
  ['screen', AppRevealScreenInfoSchema, { screenKey: 'login', screenTitle: 'Login', frameworkType: 'uikit', confidence: 0.9, source: 'explicit' }],
  ['windows', AppRevealWindowsReplySchema, { windows: [{ id: 'w1', isKey: true, frame: { x: 0, y: 0, width: 390, height: 844 } }] }],
  ['failure', AppRevealToolFailureSchema, { success: false, error: 'element not found', candidates: [{ id: 'a' }] }],
  ['screenshot', AppRevealScreenshotTextSchema, { image: 'iVBORw0KGgo=', format: 'png', width: 390, height: 844, scale: 3 }],
  ['health', AppRevealHealthSchema, { status: 'ok', platform: 'ios', bundleId: 'com.example', version: '1.0' }],
];

// ---- Mutations --------------------------------------------------------------------------------------

/** A JSON value with one place in it replaced, removed, or the text cut or flipped. */
function mutatedText(seeds: readonly string[]): fc.Arbitrary<string> {
  const seed = fc.constantFrom(...seeds);
  const cut = fc.tuple(seed, fc.nat()).map(([text, at]) => text.slice(0, at % (text.length + 1)));
  const flip = fc
    .tuple(seed, fc.nat(), fc.string({ minLength: 1, maxLength: 4 }))
    .map(([text, at, s]) => text.slice(0, at % text.length) + s + text.slice((at % text.length) + 1));
  const replaced = fc.tuple(seed, fc.array(fc.nat(), { minLength: 1, maxLength: 8 }), hostileValue()).map(([text, picks, value]) => {
    const root = JSON.parse(text) as unknown;
    replaceAt(root, picks, value);
    return JSON.stringify(root);
  });
  return fc.oneof(seed, cut, flip, replaced, replaced);
}

/** Values a decoder must survive: wrong types, impossible numbers, huge strings, deep and wide trees. */
function hostileValue(): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.constantFrom(-402, 0, -3, 1e308, -1e308, 2 ** 64, 0.5, '', 'true', null, [], {}, { left: 10, top: 0, right: 5, bottom: 0 }),
    // Deep trees of either child key; built as text would be too (JSON.stringify recurses, so they stay shallow enough to encode).
    fc.tuple(fc.integer({ min: 1, max: 1_500 }), fc.constantFrom('node', 'children')).map(([depth, key]) => {
      let node: Record<string, unknown> = {};
      for (let i = 0; i < depth; i++) node = { [key]: [node] };
      return node;
    }),
    fc.integer({ min: 1, max: 200_000 }).map((length) => 'x'.repeat(length)),
  );
}

/** Replaces the value at a path chosen by `picks` (each pick chooses a key of the container it is at). */
function replaceAt(root: unknown, picks: readonly number[], value: unknown): void {
  let at = root;
  for (let i = 0; i < picks.length; i++) {
    if (at === null || typeof at !== 'object') return;
    const keys = Object.keys(at);
    if (keys.length === 0) return;
    const key = keys[picks[i]! % keys.length]!;
    const child = (at as Record<string, unknown>)[key];
    if (i === picks.length - 1 || child === null || typeof child !== 'object') {
      (at as Record<string, unknown>)[key] = value;
      return;
    }
    at = child;
  }
}

// ---- Surfaces ---------------------------------------------------------------------------------------

function decoderSurface(name: string, text: fc.Arbitrary<string>, decode: (text: string) => { ok: boolean; error?: unknown }): Surface {
  return {
    name,
    property: (onCase) =>
      fc.property(text, (input) => {
        onCase();
        const started = performance.now();
        const result = timed(
          name,
          started,
          expectTyped(name, () => decode(input)),
        );
        if (!result.ok && !(result.error instanceof ProtocolDecodeError)) throw new FuzzFailure('untyped', `${name} failed without a ProtocolDecodeError`);
      }),
  };
}

const runnerRequestFrames = fc.oneof(
  fc.string(),
  fc
    .record({
      type: fc.constantFrom(...RUNNER_COMMANDS),
      requestId: fc.oneof(fc.string(), fc.integer()),
      rest: fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })),
    })
    .map(({ type, requestId, rest }) => JSON.stringify({ ...rest, type, requestId })),
);

const runnerFrames = fc.oneof(
  mutatedText(GOLDEN_FRAMES),
  fc.string(),
  fc.json({ maxDepth: 4 }),
  fc
    .record({
      type: fc.constantFrom(...RUNNER_REPLY_TYPES, 'connected', 'performance_update', 'error'),
      requestId: fc.option(fc.string()),
      data: hostileValue(),
    })
    .map((frame) => JSON.stringify(frame)),
);

const sdkFrames = fc.oneof(
  mutatedText(SDK_FRAMES.map((frame) => JSON.stringify(frame))),
  fc.string().map((actionJson) => `{"type":"request_sdk_action","requestId":"r","actionJson":${JSON.stringify(actionJson)}}`),
);

function mcpSurface(): Surface {
  const samples = fc.constantFrom(...MCP_SAMPLES);
  const value = fc.oneof(
    fc.tuple(samples, mutatedText(MCP_SAMPLES.map(([, , sample]) => JSON.stringify(sample)))).map(([sample, text]) => [sample, text] as const),
    fc.tuple(samples, fc.json({ maxDepth: 4 })).map(([sample, text]) => [sample, text] as const),
  );
  return {
    name: 'MCP replies (AppReveal tools)',
    property: (onCase) =>
      fc.property(value, ([[kind, schema], text]) => {
        onCase();
        const started = performance.now();
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          return; // not JSON: the MCP SDK refuses it before any schema
        }
        const result = expectTyped(`${kind} schema`, () => schema.safeParse(parsed));
        // What decodes is turned into nodes, as the connection does; that must not throw either.
        if (result.success && kind === 'elements') {
          const elements = (result.data as { elements: Parameters<typeof appRevealElementsToUiNodes>[0] }).elements;
          expectTyped('appRevealElementsToUiNodes', () => appRevealElementsToUiNodes(elements));
        }
        timed(kind, started, undefined);
      }),
  };
}

const bombs = new Map<number, Uint8Array>();
function bombOf(mib: number): Uint8Array {
  let bomb = bombs.get(mib);
  if (!bomb) {
    const manifest = encodeTraceManifest({ createdAt: '2026-10-08T09:20:44.198Z', device: { name: 'Demo', kind: 'demo', url: 'ws://127.0.0.1:1/ws' } });
    bomb = zipSync({ 'manifest.json': strToU8(manifest), 'events.jsonl': [new Uint8Array(mib << 20).fill(0x20), { level: 9 }] });
    bombs.set(mib, bomb);
  }
  return bomb;
}

/** Trace files: valid traces, their zips mutated, their events and manifest mutated, bombs. */
function traceSurface(): Surface {
  let dir = '';
  let n = 0;
  const manifest = encodeTraceManifest({ createdAt: '2026-10-08T09:20:44.198Z', device: { name: 'Demo', kind: 'demo', url: 'ws://127.0.0.1:1/ws' } });
  const hex = 'a'.repeat(64);
  const events = [
    encodeTraceEvent({
      type: 'action.before',
      callId: 'a',
      seq: 0,
      time: 1,
      action: { kind: 'tap' },
      target: { point: { x: 1, y: 2 } },
      screenshotRef: `sha256:${hex}`,
    }),
    encodeTraceEvent({ type: 'action.after', callId: 'a', seq: 1, time: 2, result: { success: true, backend: 'sdk' } }),
    encodeTraceEvent({ type: 'note', callId: 'n', seq: 2, time: 3, text: 'hello' }),
  ];
  const good = zipSync({ 'manifest.json': strToU8(manifest), 'events.jsonl': strToU8(events.join('')), [`resources/${hex}.png`]: new Uint8Array(8) });
  const entries = fc.record({
    manifest: fc.oneof(fc.constant(manifest), mutatedText([manifest.trim()])),
    events: fc.array(
      fc.oneof(
        fc.constantFrom(...events),
        mutatedText(events.map((e) => e.trim())).map((line) => `${line}\n`),
      ),
      { maxLength: 8 },
    ),
    extra: fc.dictionary(fc.string({ maxLength: 30 }), fc.uint8Array({ maxLength: 64 }), { maxKeys: 3 }),
    level: fc.constantFrom(0, 1, 9),
  });
  const bytes = fc.oneof(
    entries.map(({ manifest: m, events: e, extra, level }) => {
      const files: Zippable = { ...extra, 'manifest.json': strToU8(m), 'events.jsonl': [strToU8(e.join('')), { level }] };
      return zipSync(files);
    }),
    fc.tuple(fc.nat(), fc.nat({ max: 255 })).map(([at, byte]) => {
      const copy = good.slice();
      copy[at % copy.length] = byte;
      return copy;
    }),
    fc.nat().map((at) => good.slice(0, at % good.length)),
    fc.uint8Array({ maxLength: 512 }),
    // A bomb: one repeated byte deflated, 16 or 64 MiB inflated (built once each: deflating is the slow part).
    fc.constantFrom(16, 64).map((mib) => bombOf(mib)),
  );
  return {
    name: 'trace files',
    async setup() {
      dir = await mkdtemp(join(tmpdir(), 'parallax-fuzz-trace-'));
    },
    async teardown() {
      await rm(dir, { recursive: true, force: true });
    },
    property: (onCase) =>
      fc.asyncProperty(bytes, async (file) => {
        onCase();
        const path = join(dir, `case-${n++ % 8}.parallax-trace`);
        await writeFile(path, file);
        const started = performance.now();
        const typed = (error: unknown) => {
          if (!(error instanceof TraceOpenError)) throw new FuzzFailure('untyped', `openTraceFile threw ${String(error)}`);
        };
        try {
          const trace = await openTraceFile(path);
          for (const ref of trace.missingResources.concat(`sha256:${hex}`)) await trace.resource(ref).then(() => undefined, typed);
        } catch (error) {
          if (error instanceof FuzzFailure) throw error;
          typed(error);
        }
        timed('openTraceFile', started, undefined);
      }),
  };
}

/** API calls a page can make: any method name, any params, through the one API service. */
function apiSurface(): Surface {
  let manager: DeviceManager | undefined;
  let recording: SessionRecording | undefined;
  let api: ApiService | undefined;
  let dir = '';
  const method = fc.oneof(fc.constantFrom(...Object.keys(apiMethods)), fc.string());
  const call = fc
    .record({
      method,
      params: fc.oneof(
        fc.jsonValue({ maxDepth: 4 }),
        fc.record({ deviceId: fc.string(), path: fc.string(), folder: fc.string(), action: fc.jsonValue({ maxDepth: 3 }) }),
      ),
    })
    // A valid runner URL would start a real connection attempt; everything else about connect is fuzzed.
    .filter(
      ({ method: m, params }) =>
        !((m === 'devices.connect' || m === 'discovery.addManual') && /^(wss?|https?):\/\//.test(JSON.stringify(params).replace(/^.*?"url":"/, ''))),
    );
  return {
    name: 'API calls from a renderer',
    async setup() {
      manager = new DeviceManager();
      dir = await mkdtemp(join(tmpdir(), 'parallax-fuzz-api-'));
      recording = new SessionRecording(manager, { dir, version: 'fuzz' });
      api = createApiService({ manager, recording }, { host: 'web', version: 'fuzz' });
    },
    async teardown() {
      await recording?.close();
      await manager?.closeAll();
      await rm(dir, { recursive: true, force: true });
    },
    property: (onCase) =>
      fc.asyncProperty(call, async ({ method: m, params }) => {
        onCase();
        const started = performance.now();
        let reply: Awaited<ReturnType<ApiService['handle']>>;
        try {
          reply = await api!.handle(m, params);
        } catch (error) {
          throw new FuzzFailure('crash', `api.handle(${m}) threw ${String(error)}`);
        }
        if (!reply.ok && typeof reply.error.code !== 'string') throw new FuzzFailure('untyped', `${m} failed without an error code`);
        if (!reply.ok && reply.error.code === 'internal') throw new FuzzFailure('untyped', `${m} failed as internal: ${reply.error.message}`);
        timed(m, started, undefined);
      }),
  };
}

/** Frames a page sends over the web host's API socket: each is answered, or closes only that socket. */
function apiSocketSurface(): Surface {
  let manager: DeviceManager | undefined;
  let host: WebHost | undefined;
  let dir = '';
  const frame = fc.oneof(
    fc.string(),
    fc.json({ maxDepth: 3 }),
    fc
      .record({ id: fc.oneof(fc.integer(), fc.string()), method: fc.constantFrom(...Object.keys(apiMethods)), params: fc.jsonValue({ maxDepth: 3 }) })
      .map((c) => JSON.stringify(c)),
  );
  return {
    name: 'API socket frames from a page',
    async setup() {
      dir = await mkdtemp(join(tmpdir(), 'parallax-fuzz-host-'));
      await writeFile(join(dir, 'index.html'), '<!doctype html>');
      manager = new DeviceManager();
      host = await startWebHost({ api: createApiService({ manager }, { host: 'web', version: 'fuzz' }), rendererDir: dir });
    },
    async teardown() {
      await host?.close();
      await manager?.closeAll();
      await rm(dir, { recursive: true, force: true });
    },
    property: (onCase) =>
      fc.asyncProperty(frame, async (text) => {
        onCase();
        const url = new URL(host!.url);
        const ws = new WebSocket(`ws://${url.host}/api${url.search}`, { origin: url.origin });
        const started = performance.now();
        const answered = await new Promise<string>((resolve) => {
          const timer = setTimeout(() => resolve('hang'), HANG_MS);
          ws.once('open', () => ws.send(text));
          ws.on('message', (data) => {
            const message = JSON.parse(data.toString()) as { id?: unknown; event?: unknown };
            if (message.event === undefined) {
              clearTimeout(timer);
              resolve('answered');
            }
          });
          ws.once('close', () => (clearTimeout(timer), resolve('closed')));
          ws.once('error', () => (clearTimeout(timer), resolve('error')));
        });
        ws.terminate();
        if (answered === 'hang') throw new FuzzFailure('hang', 'the host did not answer a frame');
        if (answered === 'error') throw new FuzzFailure('crash', 'the API socket failed');
        timed('api socket', started, undefined);
      }),
  };
}

export function surfaces(): Surface[] {
  return [
    decoderSurface('runner frames and replies', runnerFrames, decodeRunnerInbound),
    decoderSurface('runner requests (the demo and replay devices)', runnerRequestFrames, decodeRunnerRequest),
    decoderSurface('SDK and web view replies', sdkFrames, decodeRunnerInbound),
    decoderSurface('SDK and web view actionJson', fc.oneof(fc.string(), fc.json({ maxDepth: 3 })), (text) => {
      const native = decodeAutoMobileAction(text);
      return native.ok ? native : decodeWebControlAction(text);
    }),
    mcpSurface(),
    traceSurface(),
    apiSurface(),
    apiSocketSurface(),
  ];
}

export interface SurfaceReport {
  name: string;
  cases: number;
  failure?: string;
  /** What the failing case did: threw (crash), took over HANG_MS (hang), or ended without a typed error. */
  kind?: FuzzFailure['kind'];
  ms: number;
}

/** Runs one surface with a fixed seed, at most `numRuns` cases and `timeLimitMs`; reports what happened. */
export async function runSurface(
  surface: Surface,
  options: { seed: number; numRuns: number; timeLimitMs: number; onCase?: () => void },
): Promise<SurfaceReport> {
  let cases = 0;
  const started = performance.now();
  await surface.setup?.();
  try {
    const property = surface.property(() => {
      cases++;
      options.onCase?.();
    });
    const details = await fc.check(property as fc.IAsyncPropertyWithHooks<unknown[]>, {
      seed: options.seed,
      numRuns: options.numRuns,
      interruptAfterTimeLimit: options.timeLimitMs,
      markInterruptAsFailure: false,
    });
    const failure = details.failed
      ? `${String((details.errorInstance as Error | undefined)?.message ?? details.errorInstance)} (counterexample: ${fc.stringify(details.counterexample).slice(0, 300)})`
      : undefined;
    const kind = details.errorInstance instanceof FuzzFailure ? details.errorInstance.kind : 'crash';
    return { name: surface.name, cases, ms: Math.round(performance.now() - started), ...(failure ? { failure, kind } : {}) };
  } finally {
    await surface.teardown?.();
  }
}
