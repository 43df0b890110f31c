/**
 * Attacks on the web host over its real sockets: frames over the API socket's limit, a Host header that
 * is not this host, a path that does not decode, uploads that fail, and paths from a page that name
 * files the user never chose (docs/rules.md#r-host-01 and the rows after it, R-PATH-01…).
 */
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { MAX_VIEW_DEPTH } from '@shared/model/node';
import { TRACE_UPLOAD_PATH } from '@shared/api/api';
import { startReplayDevice, type ReplayDevice } from '@demo/replay-device';
import type { WebHost } from '@main/host/web-host';
import type { ApiResult } from '@main/host/api';
import { dataDir } from '@main/paths';
import { DeviceManager } from '@main/devices/manager';
import { TraceRecorder } from '@main/trace/recorder';
import { GOLDEN_DIR as GOLDEN } from '../support/golden';
import { openApiSocket } from '../support/api-socket';
import { recordingApi, startTestWebHost, type TestWebHost } from '../support/web-host';

let replay: ReplayDevice;
let manager: DeviceManager;
let web: TestWebHost;
let host: WebHost;
let origin: string;
let token: string;
let outside: string;
let tracesDir: string;
let deviceId: string;
/** Told of each upload as the host starts taking it in. */
let onUpload: ((name: string, answer: Promise<ApiResult>) => void) | undefined;

const MANIFEST = { device: { name: 'Demo', kind: 'demo', url: 'ws://127.0.0.1:1/ws' } };

beforeAll(async () => {
  outside = await mkdtemp(join(tmpdir(), 'parallax-outside-'));
  replay = await startReplayDevice(GOLDEN);
  manager = new DeviceManager();
  deviceId = manager.connect(replay.url, { kind: 'replay', name: 'golden' }).id;
  const recording = await recordingApi(manager);
  tracesDir = recording.tracesDir;
  // Each upload the host takes in, with its answer to come: what a test waits on instead of a pause.
  const receive = recording.api.receiveTrace.bind(recording.api);
  recording.api.receiveTrace = (name, body) => {
    const answer = receive(name, body);
    onUpload?.(name, answer);
    return answer;
  };
  web = await startTestWebHost(recording.api);
  ({ host, origin, token } = web);
});

afterAll(async () => {
  await web?.close();
  await manager?.closeAll();
  await replay?.close();
  await rm(outside, { recursive: true, force: true });
});

const apiSocket = () => openApiSocket(origin, `?token=${token}`);

/** A raw HTTP GET with the headers given, so Host and the path go out exactly as written. */
function rawGet(path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: host.port, path, headers }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the API socket has a limit, and going over it closes only that socket', () => {
  it('R-HOST-01: 1 MB of text typed into a field arrives and is answered', async () => {
    const { ws, call } = await apiSocket();
    try {
      const text = 'é'.repeat(512 * 1024); // 1 MiB of UTF-8
      const reply = await call('device.act', { deviceId, action: { action: 'type', text } });
      // The recorded runner cannot type; what matters is a typed answer and a live host.
      expect(typeof reply.ok).toBe('boolean');
      expect((await call('app.info', {})).ok).toBe(true);
    } finally {
      ws.close();
    }
  });

  it('R-HOST-01: a frame over the limit closes that socket with 1009; the host and other sockets keep working', async () => {
    const bystander = await apiSocket();
    const { ws } = await apiSocket();
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    ws.on('error', () => undefined);
    ws.send(JSON.stringify({ id: 1, method: 'app.info', params: { pad: 'x'.repeat(17 * 1024 * 1024) } }));
    expect(await closed).toBe(1009);
    expect((await bystander.call('devices.list', {})).ok).toBe(true);
    const fresh = await apiSocket();
    expect((await fresh.call('app.info', {})).result).toEqual({ version: 'test', host: 'web' });
    fresh.ws.close();
    bystander.ws.close();
  });
});

describe('a device that sends a tree 5,000 levels deep', () => {
  it('R-LIM-02: is observed over the API socket: every node arrives, nested to MAX_VIEW_DEPTH, and the host keeps serving', async () => {
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', path: '/ws' });
    await new Promise((resolve) => wss.once('listening', resolve));
    let tree = '{"className":"Leaf","bounds":{"left":0,"top":0,"right":10,"bottom":10}}';
    for (let i = 1; i < 5_000; i++) tree = `{"className":"Other","bounds":{"left":0,"top":0,"right":390,"bottom":844},"node":[${tree}]}`;
    wss.on('connection', (socket) => {
      socket.send(JSON.stringify({ type: 'connected', supportedCommands: ['request_hierarchy', 'request_screenshot'], supportedFeatures: [] }));
      socket.on('message', (data) => {
        const request = JSON.parse(data.toString()) as { type: string; requestId: string };
        socket.send(
          request.type === 'request_hierarchy'
            ? `{"type":"hierarchy_update","requestId":"${request.requestId}","data":{"screenWidth":390,"screenHeight":844,"screenScale":3,"hierarchy":${tree}}}`
            : JSON.stringify({ type: 'screenshot_error', requestId: request.requestId, error: 'none' }),
        );
      });
    });
    const deep = manager.connect(`ws://127.0.0.1:${(wss.address() as { port: number }).port}/ws`, { name: 'deep' });
    const { ws, call } = await apiSocket();
    try {
      await manager.connectionOf(deep.id).waitUntilConnected(5_000);
      const observed = await call('device.observe', { deviceId: deep.id, strategy: 'raw' });
      expect(observed.error).toBeUndefined();
      let depth = 0;
      let count = 0;
      const stack = [(observed.result as { observation: { viewHierarchy: { hierarchy: { node?: unknown[] } } } }).observation.viewHierarchy.hierarchy];
      const depths = [1];
      while (stack.length > 0) {
        const node = stack.pop() as { node?: unknown[] };
        const at = depths.pop()!;
        count++;
        depth = Math.max(depth, at);
        for (const child of node.node ?? []) {
          stack.push(child as { node?: unknown[] });
          depths.push(at + 1);
        }
      }
      expect(count).toBe(5_000);
      expect(depth).toBe(MAX_VIEW_DEPTH + 1);
      expect((await call('app.info', {})).ok).toBe(true);
    } finally {
      ws.close();
      await manager.disconnect(deep.id);
      wss.close();
    }
  });
});

describe('the host checks who is calling', () => {
  it('R-HOST-02: a Host header other than 127.0.0.1:PORT or localhost:PORT is refused (DNS rebinding)', async () => {
    expect((await rawGet(`/?token=${token}`, { host: `127.0.0.1:${host.port}` })).status).toBe(200);
    expect((await rawGet(`/?token=${token}`, { host: `localhost:${host.port}` })).status).toBe(200);
    for (const bad of ['evil.example', `evil.example:${host.port}`, '127.0.0.1', `127.0.0.1:${host.port + 1}`]) {
      const refused = await rawGet(`/?token=${token}`, { host: bad });
      expect(refused.status, bad).toBe(421);
      expect(refused.body).toMatch(/Host/);
    }
    const ws = new WebSocket(`${origin.replace('http', 'ws')}/api?token=${token}`, { origin, headers: { host: `rebound.example:${host.port}` } });
    const status = await new Promise<number | undefined>((resolve) => {
      ws.once('unexpected-response', (_req, res) => resolve(res.statusCode));
      ws.once('open', () => resolve(101));
      ws.once('error', () => resolve(undefined));
    });
    expect(status).toBe(421);
  });

  it('R-HOST-03: a path that does not decode is 400, not 500', async () => {
    const response = await rawGet(`/%E0%A4%A?token=${token}`, { host: `127.0.0.1:${host.port}` });
    expect(response.status).toBe(400);
    expect((await fetch(host.url)).status).toBe(200);
  });
});

describe('failed uploads leave nothing behind', () => {
  const copies = () => readdir(join(dataDir(), 'opened-traces')).catch(() => [] as string[]);

  it('R-PATH-04: a foreign file, a damaged trace and a body cut off mid-way leave no copy', async () => {
    const before = await copies();
    const post = (body: Uint8Array<ArrayBuffer>) =>
      fetch(`${origin}${TRACE_UPLOAD_PATH}?token=${token}&name=x.parallax-trace`, { method: 'POST', body, headers: { origin } });
    expect((await post(new TextEncoder().encode('not a zip'))).status).toBe(400);
    const zipHead = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3, 4]);
    expect((await post(zipHead)).status).toBe(400);
    // A client that promises more than it sends and hangs up, once the host is taking its body in; then the
    // host's own answer to that upload says it is done with it (no pause that a busy machine may outlast).
    // (Resolved with a box: resolved with the answer itself, it would wait for the answer.)
    const taken = new Promise<{ answer: Promise<ApiResult> }>((resolve) => {
      onUpload = (name, answer) => {
        if (name === 'cut.parallax-trace') resolve({ answer });
      };
    });
    const req = request({
      host: '127.0.0.1',
      port: host.port,
      method: 'POST',
      path: `${TRACE_UPLOAD_PATH}?token=${token}&name=cut.parallax-trace`,
      headers: { 'content-length': '100000', origin },
    });
    req.on('error', () => undefined);
    req.write(Buffer.alloc(1000, 1));
    const { answer } = await taken;
    req.destroy();
    expect(await answer).toMatchObject({ ok: false, error: { message: expect.stringContaining('did not arrive whole') } });
    onUpload = undefined;
    expect(await copies()).toEqual(before);
  });
});

describe('paths from a page are only the traces the user opened or the ones Parallax keeps', () => {
  async function packedTrace(dir: string, name: string): Promise<string> {
    const recorder = await TraceRecorder.start({ dir, manifest: MANIFEST });
    await recorder.append({ type: 'note', callId: 'n', text: 'kept' });
    return recorder.stop({ outFile: join(dir, name) });
  }

  it('R-PATH-01: trace.open, trace.resource and trace.exportMaestro refuse a file outside PARALLAX_HOME/traces', async () => {
    const foreign = await packedTrace(outside, 'elsewhere.parallax-trace');
    await writeFile(join(outside, 'secret.txt'), 'not for the page');
    const { ws, call } = await apiSocket();
    try {
      for (const path of [foreign, join(outside, 'secret.txt'), '/etc/passwd', join(tracesDir, '..', '..', 'x.parallax-trace')]) {
        const opened = await call('trace.open', { path });
        expect(opened, path).toMatchObject({ ok: false, error: { code: 'trace_forbidden' } });
        expect(opened.error?.message).toMatch(/not a trace you opened/);
      }
      expect(await call('trace.resource', { path: foreign, ref: `sha256:${'a'.repeat(64)}`, as: 'png' })).toMatchObject({
        ok: false,
        error: { code: 'trace_forbidden' },
      });
      expect(await call('trace.exportMaestro', { path: foreign })).toMatchObject({ ok: false, error: { code: 'trace_forbidden' } });
      // One Parallax keeps opens.
      const kept = await packedTrace(tracesDir, 'kept.parallax-trace');
      expect(await call('trace.open', { path: kept })).toMatchObject({ ok: true });
    } finally {
      ws.close();
    }
  });

  it('R-PATH-02: a symlink under traces/ that points outside is refused too', async () => {
    const foreign = await packedTrace(outside, 'linked.parallax-trace');
    const { symlink } = await import('node:fs/promises');
    const link = join(tracesDir, 'link.parallax-trace');
    await rm(link, { force: true });
    await symlink(foreign, link);
    const { ws, call } = await apiSocket();
    try {
      expect(await call('trace.open', { path: link })).toMatchObject({ ok: false, error: { code: 'trace_forbidden' } });
    } finally {
      ws.close();
    }
  });

  it('R-PATH-03: recording.recover never packs or removes a folder outside PARALLAX_HOME/traces, nor one that is not an unfinished trace', async () => {
    const victim = join(outside, 'precious');
    await mkdir(victim, { recursive: true });
    await writeFile(join(victim, 'thesis.txt'), 'years of work');
    const recorder = await TraceRecorder.start({ dir: outside, manifest: MANIFEST, traceId: 'x' });
    await recorder.append({ type: 'note', callId: 'n', text: 'kept' });
    // An unfinished recording whose process died, but outside the traces folder.
    const unfinished = join(outside, 'y.parallax-trace.d');
    await cp(recorder.folder, unfinished, { recursive: true });
    const plain = join(tracesDir, 'plain-folder');
    await mkdir(plain, { recursive: true });
    await writeFile(join(plain, 'keep.txt'), 'mine');
    const { ws, call } = await apiSocket();
    try {
      for (const folder of [victim, unfinished, plain, tracesDir, dataDir()]) {
        const reply = await call('recording.recover', { folder });
        expect(reply, folder).toMatchObject({ ok: false, error: { code: 'trace_forbidden' } });
      }
      expect(await readFile(join(victim, 'thesis.txt'), 'utf8')).toBe('years of work');
      expect((await stat(unfinished)).isDirectory()).toBe(true);
      expect(await readFile(join(plain, 'keep.txt'), 'utf8')).toBe('mine');
      expect((await readdir(outside)).filter((n) => n.endsWith('.parallax-trace') && n.startsWith('y'))).toEqual([]);
    } finally {
      ws.close();
      await recorder.stop();
    }
  });
});
