/**
 * Drag and drop hands a trace's bytes to the host, which keeps a copy under PARALLAX_HOME to open it.
 * Those copies must not pile up: the newest few stay (the one on screen still reads its screenshots),
 * the rest go.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataDir } from '../../src-main/paths';
import { MAX_TRACE_BYTES, OPENED_COPIES_KEPT, openTraceBytes, traceResource } from '../../src-main/session/trace-view';
import { TraceOpenError } from '../../src-main/trace/index';
import { TraceRecorder } from '../../src-main/trace/recorder';

let dir: string;
let trace: Buffer;
let shotRef: string;
const copies = () => readdir(join(dataDir(), 'opened-traces')).catch(() => [] as string[]);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parallax-trace-upload-'));
  const image = new PNG({ width: 4, height: 4 });
  image.data.fill(90);
  const recorder = await TraceRecorder.start({ dir, manifest: { device: { name: 'Demo', kind: 'demo', url: 'ws://127.0.0.1:1/ws' } } });
  shotRef = await recorder.addResource('screenshot', PNG.sync.write(image));
  await recorder.append({ type: 'action.before', callId: 'a', action: { kind: 'tap' }, target: { point: { x: 1, y: 2 } }, screenshotRef: shotRef });
  await recorder.append({ type: 'action.after', callId: 'a', result: { success: true, backend: 'xctest' } });
  trace = await readFile(await recorder.stop({ outFile: join(dir, 'login.parallax-trace') }));
  await rm(join(dataDir(), 'opened-traces'), { recursive: true, force: true });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('copies of dropped traces', () => {
  it(`keeps only the newest ${OPENED_COPIES_KEPT}, and the newest still reads its screenshots`, async () => {
    let last: string | undefined;
    for (let i = 0; i < OPENED_COPIES_KEPT + 3; i++) {
      const opened = await openTraceBytes({ name: `drop-${i}.parallax-trace`, dataBase64: trace.toString('base64') });
      expect('steps' in opened && opened.steps).toHaveLength(1);
      last = 'path' in opened ? opened.path : undefined;
    }
    const kept = (await copies()).sort();
    expect(kept).toHaveLength(OPENED_COPIES_KEPT);
    const numbers = kept.map((name) => Number(/drop-(\d+)/.exec(name)?.[1])).sort((a, b) => a - b);
    expect(numbers).toEqual([3, 4, 5, 6]);
    const shot = await traceResource(last!, shotRef);
    expect(shot.kind).toBe('png');
  });

  it('a file in parts keeps its copy while it arrives, and a file over the limit leaves none', async () => {
    await rm(join(dataDir(), 'opened-traces'), { recursive: true, force: true });
    const half = Math.floor(trace.length / 3) * 3;
    const first = await openTraceBytes({ name: 'parts.parallax-trace', dataBase64: trace.subarray(0, half).toString('base64'), done: false });
    expect('uploadId' in first).toBe(true);
    const uploadId = (first as { uploadId: string }).uploadId;
    // Other drops meanwhile must not delete the part already received.
    for (let i = 0; i < OPENED_COPIES_KEPT + 1; i++) await openTraceBytes({ name: `other-${i}.parallax-trace`, dataBase64: trace.toString('base64') });
    const whole = await openTraceBytes({ name: 'parts.parallax-trace', dataBase64: trace.subarray(half).toString('base64'), uploadId, done: true });
    expect('steps' in whole && whole.steps).toHaveLength(1);

    await rm(join(dataDir(), 'opened-traces'), { recursive: true, force: true });
    const big = Buffer.alloc(24 * 1024 * 1024).toString('base64');
    let id: string | undefined;
    let failure: unknown;
    try {
      for (let sent = 0; sent <= MAX_TRACE_BYTES; sent += 24 * 1024 * 1024) {
        const reply = await openTraceBytes({ name: 'huge.parallax-trace', dataBase64: big, ...(id ? { uploadId: id } : {}), done: false });
        id = (reply as { uploadId: string }).uploadId;
      }
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(TraceOpenError);
    expect(String((failure as Error).message)).toMatch(/larger than 512 MiB/);
    expect(await copies()).toEqual([]);
  }, 60_000);
});
