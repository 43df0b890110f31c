/**
 * Recording a trace to real files and opening it again: the in-progress folder, content-addressed
 * resources written once, durable appends in call order, the packed `.parallax-trace`, and secrets that
 * never reach a byte on disk.
 */
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { PNG } from 'pngjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TraceEncodeError } from '@shared/trace/encode';
import { readTraceEvents } from '@shared/trace/reader';
import type { TraceEvent } from '@shared/trace/schema';
import { exportMaestro } from '@main/trace/export';
import { openTraceFile } from '@main/trace/open';
import { findUnfinishedTraces } from '@main/trace/recovery';
import { TraceRecorder, type TraceManifestInput } from '@main/trace/recorder';
import { filesUnder } from '../support/files-under';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parallax-trace-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const MANIFEST: TraceManifestInput = {
  createdAt: '2026-10-08T09:20:44.198Z',
  device: { name: 'Demo iPhone', kind: 'demo', url: 'ws://127.0.0.1:8765/ws' },
  app: { bundleId: 'dev.parallax.demo', name: 'Demo' },
  generator: { name: 'parallax', version: '0.1.0' },
};

/** A small real PNG: a solid colour, so two calls with the same colour give the same bytes. */
function png(r: number, g: number, b: number, width = 8, height = 16): Buffer {
  const image = new PNG({ width, height });
  for (let i = 0; i < width * height; i++) image.data.set([r, g, b, 255], i * 4);
  return PNG.sync.write(image);
}

function observation(step: number, extra: Record<string, unknown> = {}) {
  return {
    updatedAt: 1_791_506_444_198 + step,
    packageName: 'dev.parallax.demo',
    screenWidth: 402,
    screenHeight: 874,
    captureIdentity: '18446744073709551615',
    hierarchy: {
      className: 'UIWindow',
      bounds: { left: 0, top: 0, right: 402, bottom: 874 },
      node: [
        { className: 'UIButton', 'resource-id': `button-${step}`, text: `Row ${step}`, bounds: { left: 0, top: 100, right: 402, bottom: 144 } },
        { className: 'UILabel', text: 'Title', bounds: { left: 0, top: 50, right: 402, bottom: 90 } },
      ],
    },
    ...extra,
  };
}

describe('TraceRecorder', () => {
  it('records 10 steps, packs them into one file, and the file reopens with the same events', async () => {
    const recorder = await TraceRecorder.start({ dir, manifest: MANIFEST });
    expect(recorder.folder).toBe(join(dir, `${recorder.traceId}.parallax-trace.d`));
    const expected: TraceEvent[] = [];
    const blue = png(0, 0, 255);
    let observationBefore = await recorder.addResource('observation', observation(0));
    for (let step = 0; step < 10; step++) {
      // Screens alternate between two images: each is stored once however often it is shown.
      const screenshotRef = await recorder.addResource('screenshot', step % 2 === 0 ? blue : png(255, 0, 0));
      const before: TraceEvent = {
        type: 'action.before',
        callId: `tap_${step}`,
        seq: expected.length,
        time: 1_000 + step * 10,
        action: { kind: 'tap' },
        target: { nodeKey: '0.0', point: { x: 201, y: 122 } },
        observationRef: observationBefore,
        screenshotRef,
      };
      await recorder.append(before);
      expected.push(before);
      const observationAfter = await recorder.addResource('observation', observation(step + 1));
      const after: TraceEvent = {
        type: 'action.after',
        callId: `tap_${step}`,
        seq: expected.length,
        time: 1_005 + step * 10,
        result: {
          success: true,
          backend: step % 3 === 0 ? 'xctest' : 'sdk',
          ...(step % 3 === 0 ? { fallbackReason: 'unavailable' } : {}),
          timings: { dispatch: 3, settle: 2 },
        },
        observationRef: observationAfter,
      };
      await recorder.append(after);
      expected.push(after);
      observationBefore = observationAfter;
    }

    // While recording: the in-progress folder with its marker, and every line already on disk.
    const folderFiles = (await filesUnder(recorder.folder)).map((f) => f.slice(recorder.folder.length + 1));
    expect(folderFiles).toContain('.in-progress');
    expect(folderFiles).toContain('manifest.json');
    expect(folderFiles).toContain('events.jsonl');
    expect(folderFiles.filter((f) => f.startsWith('resources/') && f.endsWith('.png'))).toHaveLength(2);
    expect(folderFiles.filter((f) => f.startsWith('resources/') && f.endsWith('.json'))).toHaveLength(11);
    expect(folderFiles.some((f) => f.includes('.partial'))).toBe(false);
    const onDisk = readTraceEvents(await readFile(join(recorder.folder, 'events.jsonl'), 'utf8'));
    expect(onDisk.ok && onDisk.events.length).toBe(20);
    expect(recorder.stats()).toMatchObject({ events: 20, resources: 13, deduplicated: 8 });

    const out = join(dir, 'session.parallax-trace');
    expect(await recorder.stop({ outFile: out })).toBe(out);
    expect(await recorder.stop({ outFile: out })).toBe(out); // idempotent
    await expect(stat(recorder.folder)).rejects.toThrow(/ENOENT/);
    expect((await readdir(dir)).sort()).toEqual(['session.parallax-trace']);
    await expect(recorder.append({ type: 'note', callId: 'late', text: 'too late' })).rejects.toThrow(/stopped/);

    const zipped = unzipSync(await readFile(out));
    const names = Object.keys(zipped);
    expect(names.filter((n) => n.endsWith('.png'))).toHaveLength(2);
    expect(names.filter((n) => n.startsWith('resources/') && n.endsWith('.json'))).toHaveLength(11);
    expect(names).not.toContain('.in-progress');

    const trace = await openTraceFile(out);
    expect(trace.source).toBe('file');
    expect(trace.inProgress).toBe(false);
    expect(trace.events).toEqual(expected);
    expect(trace.truncatedTail).toBe(false);
    expect(trace.manifest).toMatchObject({ format: 'parallax-trace', version: 1, ...MANIFEST });
    expect(trace.timeline).toHaveLength(10);
    expect(trace.timeline[0]!.statusText).toBe('succeeded via xctest (fallback: unavailable)');
    expect(trace.missingResources).toEqual([]);
    const first = expected[0] as Extract<TraceEvent, { type: 'action.before' }>;
    expect(await trace.resource(first.screenshotRef!)).toEqual(blue);
    // UInt64 identities survive exactly.
    expect(await trace.resourceJson(first.observationRef!)).toEqual(observation(0));

    const flow = await exportMaestro(trace);
    expect(flow.yaml).toContain("appId: 'dev.parallax.demo'");
    expect(flow.yaml.match(/- tapOn:/g)).toHaveLength(10);
    expect(flow.yaml).toContain("id: 'button-0'");
    expect(flow.unreadableObservations).toEqual([]);
  });

  it('writes concurrent appends whole, in call order, and assigns seq and time', async () => {
    const recorder = await TraceRecorder.start({ dir, manifest: MANIFEST });
    const big = 'x'.repeat(200_000); // larger than one write of a pipe or a page: interleaving would show
    await Promise.all(Array.from({ length: 50 }, (_, i) => recorder.append({ type: 'note', callId: `n${i}`, text: i % 5 === 0 ? big : `note ${i}` })));
    const read = readTraceEvents(await readFile(join(recorder.folder, 'events.jsonl'), 'utf8'));
    expect(read.ok).toBe(true);
    expect(read.events.map((e) => e.callId)).toEqual(Array.from({ length: 50 }, (_, i) => `n${i}`));
    expect(read.events.map((e) => e.seq)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(read.events.every((e) => typeof e.time === 'number' && e.time > 0)).toBe(true);
    // Appends that arrived together shared flushes.
    expect(recorder.stats().flushes).toBeLessThan(50);
    await recorder.stop();
  });

  it('refuses what would not read back, without writing it', async () => {
    const recorder = await TraceRecorder.start({ dir, manifest: MANIFEST });
    const stranger = `sha256:${'c'.repeat(64)}`;
    await expect(recorder.append({ type: 'observation', callId: 'o', observationRef: stranger })).rejects.toThrow(/was not added to this trace/);
    await expect(recorder.append({ type: 'action.after', callId: 'a', result: { success: 'yes' } } as never)).rejects.toBeInstanceOf(TraceEncodeError);
    await recorder.append({ type: 'note', callId: 'n', seq: 5, text: 'a gap is fine' });
    await expect(recorder.append({ type: 'note', callId: 'n', seq: 5, text: 'a repeat is not' })).rejects.toThrow(/seq 5/);
    await expect(recorder.addResource('screenshot', { not: 'bytes' })).rejects.toThrow(/image bytes/);
    await expect(recorder.addResource('observation', Buffer.from('{not json'))).rejects.toThrow(/must be JSON/);
    const text = await readFile(join(recorder.folder, 'events.jsonl'), 'utf8');
    expect(text.trim().split('\n')).toHaveLength(1);
    await recorder.stop();
  });

  it('stores an observation given as JSON bytes under the same address as the object', async () => {
    const recorder = await TraceRecorder.start({ dir, manifest: MANIFEST });
    const a = await recorder.addResource('observation', observation(1));
    const b = await recorder.addResource('observation', Buffer.from(JSON.stringify(observation(1))));
    expect(b).toBe(a);
    const [c, d] = await Promise.all([recorder.addResource('screenshot', png(1, 2, 3)), recorder.addResource('screenshot', png(1, 2, 3))]);
    expect(c).toBe(d);
    expect((await readdir(join(recorder.folder, 'resources'))).sort()).toHaveLength(2);
    await recorder.stop();
  });

  it('opens a folder that is still recording, and is not offered for recovery meanwhile', async () => {
    const recorder = await TraceRecorder.start({ dir, manifest: MANIFEST });
    const shot = await recorder.addResource('screenshot', png(9, 9, 9));
    await recorder.append({ type: 'action.before', callId: 't', action: { kind: 'tap' }, screenshotRef: shot });
    const live = await openTraceFile(recorder.folder);
    expect(live.source).toBe('folder');
    expect(live.inProgress).toBe(true);
    expect(live.timeline[0]!.status).toBe('in_flight');
    expect(await live.resource(shot)).toEqual(png(9, 9, 9));
    // A resource added after opening is still found.
    const later = await recorder.addResource('screenshot', png(8, 8, 8));
    expect(await live.resource(later)).toEqual(png(8, 8, 8));

    expect(await findUnfinishedTraces(dir)).toEqual([]);
    const all = await findUnfinishedTraces(dir, { includeLive: true });
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ live: true, steps: 1, events: 1 });
    await recorder.stop();
    expect(await findUnfinishedTraces(dir, { includeLive: true })).toEqual([]);
  });
});

describe('secrets never reach disk', () => {
  it('keeps a token passed as a secret and a ?token= URL out of every byte of the folder and of the file', async () => {
    const SECRET = 'w3b-h0st-t0ken-5f1c9e2a7b';
    const URL_TOKEN = 'abc123urltoken987';
    const recorder = await TraceRecorder.start({
      dir,
      manifest: { ...MANIFEST, device: { name: 'Device', kind: 'runner', url: `ws://127.0.0.1:8765/ws?token=${URL_TOKEN}` } },
      secrets: [SECRET],
    });
    const obs = await recorder.addResource(
      'observation',
      observation(1, {
        debugUrl: `http://127.0.0.1:9000/api?token=${URL_TOKEN}&page=2`,
        headers: { Authorization: `Bearer ${SECRET}` },
        label: `session ${SECRET}`,
      }),
    );
    const shot = await recorder.addResource('screenshot', png(0, 255, 0));
    await recorder.append({
      type: 'action.before',
      callId: 'c1',
      action: { kind: 'openLink', url: `https://example.test/cb?token=${URL_TOKEN}`, note: `typed ${SECRET}` },
      observationRef: obs,
      screenshotRef: shot,
    });
    await recorder.append({
      type: 'action.after',
      callId: 'c1',
      result: { success: false, failureReason: `server said 401 for ${SECRET} at /x?token=${URL_TOKEN}` },
    });
    await recorder.append({ type: 'note', callId: 'n1', text: `reconnecting to ws://h/ws?token=${URL_TOKEN}`, level: 'info' });

    const needles = [SECRET, URL_TOKEN].map((s) => Buffer.from(s));
    const folderBytes = await Promise.all((await filesUnder(recorder.folder)).map((f) => readFile(f)));
    expect(folderBytes).toHaveLength(5); // marker, manifest, events, observation, screenshot
    for (const bytes of folderBytes) for (const needle of needles) expect(bytes.includes(needle)).toBe(false);
    // The values were there to find: they were replaced, not silently lost with their events.
    expect(await readFile(join(recorder.folder, 'events.jsonl'), 'utf8')).toContain('typed [redacted]');

    const out = await recorder.stop();
    const zip = await readFile(out);
    for (const needle of needles) expect(zip.includes(needle)).toBe(false);
    // The raw zip is compressed; check what it unpacks to as well.
    for (const [name, bytes] of Object.entries(unzipSync(zip))) {
      for (const needle of needles) expect(Buffer.from(bytes).includes(needle), name).toBe(false);
    }
    const trace = await openTraceFile(out);
    expect(trace.manifest.device.url).toBe('ws://127.0.0.1:8765/ws');
    expect(JSON.stringify(await trace.resourceJson(obs))).toContain('page=2');
  });
});
