/**
 * A browser hands the web host a trace's bytes (it has no path): they stream over HTTP to a copy under
 * PARALLAX_HOME, which opens as `trace.open` would. Behind the page's token, from the page's origin only;
 * copies never pile up, and one over the limit leaves nothing behind.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { request } from 'node:http';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiService } from '@main/host/api';
import { dataDir } from '@main/paths';
import { DeviceManager } from '@main/devices/manager';
import { OPENED_COPIES_KEPT, receiveTrace, recentTraces, traceResource } from '@main/trace/view';
import { TraceOpenError } from '@main/trace/index';
import { TraceRecorder } from '@main/trace/recorder';
import { MAX_TRACE_BYTES, TRACE_UPLOAD_PATH, TraceOpenedSchema } from '@shared/api/api';
import { startTestWebHost, type TestWebHost } from '../support/web-host';

let dir: string;
let trace: Buffer;
let shotRef: string;
let web: TestWebHost;
let origin: string;
let token: string;
const copiesDir = () => join(dataDir(), 'opened-traces');
const copies = () => readdir(copiesDir()).catch(() => [] as string[]);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parallax-trace-upload-'));
  const image = new PNG({ width: 4, height: 4 });
  image.data.fill(90);
  const recorder = await TraceRecorder.start({ dir, manifest: { device: { name: 'Demo', kind: 'demo', url: 'ws://127.0.0.1:1/ws' } } });
  shotRef = await recorder.addResource('screenshot', PNG.sync.write(image));
  await recorder.append({ type: 'action.before', callId: 'a', action: { kind: 'tap' }, target: { point: { x: 1, y: 2 } }, screenshotRef: shotRef });
  await recorder.append({ type: 'action.after', callId: 'a', result: { success: true, backend: 'xctest' } });
  trace = await readFile(await recorder.stop({ outFile: join(dir, 'login.parallax-trace') }));

  web = await startTestWebHost(createApiService({ manager: new DeviceManager() }, { host: 'web', version: 'test' }));
  ({ origin, token } = web);
  await rm(copiesDir(), { recursive: true, force: true });
});
afterAll(async () => {
  await web?.close();
  await rm(dir, { recursive: true, force: true });
});

function upload(body: BodyInit, options: { name?: string; token?: string | null; origin?: string; method?: string } = {}) {
  const url = new URL(TRACE_UPLOAD_PATH, origin);
  if (options.token !== null) url.searchParams.set('token', options.token ?? token);
  if (options.name !== '') url.searchParams.set('name', options.name ?? 'login.parallax-trace');
  return fetch(url, {
    method: options.method ?? 'POST',
    body: options.method === 'GET' ? null : body,
    headers: options.origin ? { origin: options.origin } : {},
  });
}

async function* chunks(buffer: Buffer, size: number): AsyncIterable<Uint8Array> {
  for (let i = 0; i < buffer.length; i += size) yield buffer.subarray(i, i + size);
}

describe(`POST ${TRACE_UPLOAD_PATH}`, () => {
  it('opens the uploaded trace as trace.open would; its copy reads its screenshots', async () => {
    const response = await upload(new Uint8Array(trace));
    expect(response.status).toBe(200);
    const reply = (await response.json()) as { ok: true; result: unknown };
    expect(reply.ok).toBe(true);
    const opened = TraceOpenedSchema.parse(reply.result);
    expect(opened.steps).toHaveLength(1);
    expect(opened.path).toMatch(/login\.parallax-trace$/);
    expect((await traceResource(opened.path, shotRef, 'png')).kind).toBe('png');
  });

  it('a foreign file is refused with what it is; no token, another origin, no name or another method are refused', async () => {
    const foreign = await upload(new TextEncoder().encode('{"name":"parallax"}'), { name: 'package.json' });
    expect(foreign.status).toBe(400);
    expect(await foreign.json()).toMatchObject({
      ok: false,
      error: { code: 'trace_not_zip', message: expect.stringMatching(/not a zip archive \(it looks like JSON text\)/) },
    });
    expect((await upload(new Uint8Array(trace), { token: null })).status).toBe(401);
    expect((await upload(new Uint8Array(trace), { token: 'f'.repeat(64) })).status).toBe(401);
    expect((await upload(new Uint8Array(trace), { origin: 'https://evil.example' })).status).toBe(403);
    expect((await upload(new Uint8Array(trace), { name: '' })).status).toBe(400);
    expect((await upload(new Uint8Array(trace), { method: 'GET' })).status).toBe(405);
  });

  it('a declared size over the limit is refused before any byte is written', async () => {
    await rm(copiesDir(), { recursive: true, force: true });
    const url = new URL(TRACE_UPLOAD_PATH, origin);
    url.searchParams.set('token', token);
    url.searchParams.set('name', 'huge.parallax-trace');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(url, { method: 'POST', headers: { 'content-length': String(MAX_TRACE_BYTES + 1) } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end(); // the body never comes: the host must answer from the header alone
    });
    expect(status).toBe(413);
    expect(await copies()).toEqual([]);
  });
});

describe('copies of uploaded traces', () => {
  it(`keeps only the newest ${OPENED_COPIES_KEPT}, and the newest still reads its screenshots`, async () => {
    await rm(copiesDir(), { recursive: true, force: true });
    let last: string | undefined;
    for (let i = 0; i < OPENED_COPIES_KEPT + 3; i++) {
      const opened = await receiveTrace(`drop-${i}.parallax-trace`, chunks(trace, 4096));
      expect(opened.steps).toHaveLength(1);
      last = opened.path;
    }
    const numbers = (await copies()).map((name) => Number(/drop-(\d+)/.exec(name)?.[1])).sort((a, b) => a - b);
    expect(numbers).toEqual([3, 4, 5, 6]);
    expect((await traceResource(last!, shotRef, 'png')).kind).toBe('png');
  });

  it('a copy still arriving is never pruned by other uploads, and one over the limit leaves nothing behind', async () => {
    await rm(copiesDir(), { recursive: true, force: true });
    // A slow upload: half now, the rest after other uploads have come and gone.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const half = Math.floor(trace.length / 2);
    const slow = receiveTrace(
      'slow.parallax-trace',
      (async function* () {
        yield trace.subarray(0, half);
        await gate;
        yield trace.subarray(half);
      })(),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    for (let i = 0; i < OPENED_COPIES_KEPT + 1; i++) await receiveTrace(`other-${i}.parallax-trace`, chunks(trace, 65536));
    release();
    expect((await slow).steps).toHaveLength(1);

    await rm(copiesDir(), { recursive: true, force: true });
    const block = Buffer.alloc(8 * 1024 * 1024);
    const huge = (async function* () {
      for (let sent = 0; sent <= MAX_TRACE_BYTES; sent += block.length) yield block;
    })();
    const failure = await receiveTrace('huge.parallax-trace', huge).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TraceOpenError);
    expect((failure as Error).message).toMatch(/huge\.parallax-trace is larger than 512 MiB/);
    expect(await copies()).toEqual([]);
  }, 60_000);
});

describe('recent traces', () => {
  it('lists the trace files of a folder newest first, and nothing else', async () => {
    const folder = join(dir, 'traces');
    await mkdir(folder);
    const at = (minutes: number) => new Date(Date.UTC(2026, 10, 29, 12, minutes));
    for (const [name, minutes] of [
      ['old.parallax-trace', 1],
      ['new.parallax-trace', 3],
      ['mid.parallax-trace', 2],
    ] as const) {
      await writeFile(join(folder, name), trace);
      await utimes(join(folder, name), at(minutes), at(minutes));
    }
    await writeFile(join(folder, 'notes.txt'), 'not a trace');
    await mkdir(join(folder, 'live.parallax-trace.d'));
    const listed = await recentTraces(folder);
    expect(listed.map((t) => t.name)).toEqual(['new.parallax-trace', 'mid.parallax-trace', 'old.parallax-trace']);
    expect(listed[0]).toMatchObject({ path: join(folder, 'new.parallax-trace'), bytes: trace.length, modifiedAt: at(3).getTime() });
    expect(await recentTraces(join(dir, 'missing'))).toEqual([]);
  });
});
