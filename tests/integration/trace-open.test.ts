/**
 * Opening damaged and foreign files: each gets a TraceOpenError whose code sorts it and whose
 * message names what is wrong, never a blank result.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strToU8, unzipSync, zipSync, type Zippable } from 'fflate';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeTraceEvent, encodeTraceManifest } from '@shared/trace/encode';
import { resourceRef, type TraceEvent } from '@shared/trace/schema';
import { openTraceFile, TraceOpenError, type TraceOpenErrorCode } from '@main/trace/open';
import { TraceRecorder } from '@main/trace/recorder';

let dir: string;
let good: string;
let shotRef: string;
let shot: Buffer;

const manifestText = encodeTraceManifest({
  createdAt: '2026-10-08T09:20:44.198Z',
  device: { name: 'Demo iPhone', kind: 'demo', url: 'ws://127.0.0.1:8765/ws' },
});

function png(): Buffer {
  const image = new PNG({ width: 4, height: 4 });
  image.data.fill(200);
  return PNG.sync.write(image);
}

const events: TraceEvent[] = [
  { type: 'action.before', callId: 'a', seq: 0, time: 1, action: { kind: 'tap' }, target: { point: { x: 1, y: 2 } } },
  { type: 'action.after', callId: 'a', seq: 1, time: 2, result: { success: true, backend: 'sdk' } },
  { type: 'note', callId: 'n', seq: 2, time: 3, text: 'hello' },
];
const eventsText = events.map((e) => encodeTraceEvent(e)).join('');

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parallax-trace-open-'));
  shot = png();
  const recorder = await TraceRecorder.start({ dir, manifest: { device: { name: 'Demo', kind: 'demo', url: 'ws://127.0.0.1:1/ws' } } });
  shotRef = await recorder.addResource('screenshot', shot);
  await recorder.append({ type: 'observation', callId: 'o', observationRef: await recorder.addResource('observation', { a: 1 }), screenshotRef: shotRef });
  good = await recorder.stop({ outFile: join(dir, 'good.parallax-trace') });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
async function file(bytes: Uint8Array): Promise<string> {
  const path = join(dir, `case-${n++}.parallax-trace`);
  await writeFile(path, bytes);
  return path;
}

function zipOf(files: Record<string, string | Uint8Array>): Uint8Array {
  const z: Zippable = {};
  for (const [name, value] of Object.entries(files)) z[name] = typeof value === 'string' ? strToU8(value) : value;
  return zipSync(z);
}

async function openError(path: string): Promise<TraceOpenError> {
  try {
    await openTraceFile(path);
  } catch (error) {
    expect(error).toBeInstanceOf(TraceOpenError);
    return error as TraceOpenError;
  }
  throw new Error(`${path} opened`);
}

async function expectOpenError(bytes: Uint8Array, code: TraceOpenErrorCode, message: RegExp): Promise<void> {
  const error = await openError(await file(bytes));
  expect({ code: error.code, message: error.message }).toEqual({ code, message: expect.stringMatching(message) });
}

describe('openTraceFile on files that are not (whole) traces', () => {
  it('random bytes: not a zip', async () => {
    await expectOpenError(randomBytes(4096), 'not_zip', /^not a zip archive \(.*\); a \.parallax-trace file is a zip$/);
  });

  it('an empty file, a PNG and a JSON file: says what they are', async () => {
    await expectOpenError(new Uint8Array(0), 'not_zip', /the file is empty/);
    await expectOpenError(shot, 'not_zip', /it is a PNG image/);
    await expectOpenError(strToU8(manifestText), 'not_zip', /it looks like JSON text/);
  });

  it('a zip without a manifest', async () => {
    await expectOpenError(
      zipOf({ 'events.jsonl': eventsText }),
      'not_parallax_trace',
      /^not a Parallax trace: manifest\.json missing \(the zip holds events\.jsonl\)$/,
    );
  });

  it("a zip of another app's files names what it holds", async () => {
    const docx = zipOf({ '[Content_Types].xml': '<Types/>', 'word/document.xml': '<w:document/>', 'docProps/app.xml': '<x/>', '_rels/.rels': '<r/>' });
    await expectOpenError(
      docx,
      'not_parallax_trace',
      /manifest\.json missing \(the zip holds \[Content_Types\]\.xml, word\/document\.xml, docProps\/app\.xml, … \(4 files\)\)/,
    );
  });

  it('a manifest of another format', async () => {
    const other = JSON.stringify({ format: 'playwright-trace', version: 1 });
    await expectOpenError(
      zipOf({ 'manifest.json': other, 'events.jsonl': eventsText }),
      'not_parallax_trace',
      /not a Parallax trace: manifest\.format is 'playwright-trace', expected 'parallax-trace'/,
    );
  });

  it('a manifest of a newer version, or a nonsense one', async () => {
    const v2 = manifestText.replace('"version": 1', '"version": 2');
    await expectOpenError(
      zipOf({ 'manifest.json': v2, 'events.jsonl': eventsText }),
      'unsupported_version',
      /version 2 was written by a newer Parallax; this one reads version 1/,
    );
    const v0 = manifestText.replace('"version": 1', '"version": "one"');
    await expectOpenError(zipOf({ 'manifest.json': v0, 'events.jsonl': eventsText }), 'unsupported_version', /manifest\.version is 'one', expected 1/);
  });

  it('a manifest with a damaged field', async () => {
    const bad = manifestText.replace('"createdAt": "2026-10-08T09:20:44.198Z"', '"createdAt": "yesterday"');
    await expectOpenError(zipOf({ 'manifest.json': bad, 'events.jsonl': eventsText }), 'damaged', /^manifest\.json, createdAt: /);
  });

  it('a corrupted events line names the line and the field', async () => {
    const lines = eventsText.split('\n');
    lines[1] = lines[1]!.replace('"success":true', '"success":"yes"');
    await expectOpenError(
      zipOf({ 'manifest.json': manifestText, 'events.jsonl': lines.join('\n') }),
      'damaged',
      /^events\.jsonl line 2, result\.success: .*expected boolean/,
    );
    const garbage = eventsText.split('\n');
    garbage[0] = '{"type":"action.before", garbage';
    await expectOpenError(zipOf({ 'manifest.json': manifestText, 'events.jsonl': garbage.join('\n') }), 'damaged', /^events\.jsonl line 1: not JSON/);
    await expectOpenError(
      zipOf({ 'manifest.json': manifestText, 'events.jsonl': new Uint8Array([0x7b, 0xff, 0xfe, 0x0a]) }),
      'damaged',
      /events\.jsonl is not UTF-8 text/,
    );
  });

  it('a zip without events', async () => {
    await expectOpenError(zipOf({ 'manifest.json': manifestText }), 'damaged', /events\.jsonl missing/);
  });

  it('a trace cut short (an interrupted download or copy)', async () => {
    const bytes = await readFile(good);
    await expectOpenError(bytes.subarray(0, Math.floor(bytes.length / 2)), 'damaged', /cut short/);
  });

  it('damage inside a compressed entry', async () => {
    const bytes = Buffer.from(await readFile(good));
    // Flip bytes in the middle of events.jsonl's deflated data: it either fails to inflate or fails its checksum.
    const at = bytes.indexOf('events.jsonl') + 'events.jsonl'.length + 4;
    for (let i = 0; i < 4; i++) bytes[at + i]! ^= 0xff;
    await expectOpenError(bytes, 'damaged', /^events\.jsonl is damaged: /);
  });

  it('a file or folder that does not exist', async () => {
    const error = await openError(join(dir, 'nope.parallax-trace'));
    expect(error.code).toBe('unreadable');
    expect(error.message).toMatch(/nope\.parallax-trace: no such file or folder/);
  });

  it('a folder without a manifest', async () => {
    const folder = join(dir, 'empty.parallax-trace.d');
    await mkdir(folder);
    const error = await openError(folder);
    expect([error.code, error.message]).toEqual(['not_parallax_trace', expect.stringMatching(/manifest\.json missing/)]);
  });
});

describe('resources of an opened trace', () => {
  it('reads a resource when asked, and names a damaged one', async () => {
    const trace = await openTraceFile(good);
    expect(await trace.resource(shotRef)).toEqual(shot);
    // PNGs are stored uncompressed: flip a byte of the image inside the archive.
    const bytes = Buffer.from(await readFile(good));
    const at = bytes.indexOf(shot.subarray(0, 16));
    expect(at).toBeGreaterThan(0);
    bytes[at + 20]! ^= 0x01;
    const flipped = await openTraceFile(await file(bytes)); // opening reads only manifest and events
    await expect(flipped.resource(shotRef)).rejects.toMatchObject({
      code: 'damaged',
      message: expect.stringMatching(/^resources\/[0-9a-f]{64}\.png is damaged: its checksum does not match$/),
    });
  });

  it('lists resources an event names but the trace lacks, and says so when one is asked for', async () => {
    const unzipped = unzipSync(await readFile(good));
    const kept: Record<string, Uint8Array> = {};
    for (const [name, data] of Object.entries(unzipped)) if (!name.endsWith('.png')) kept[name] = data;
    const trace = await openTraceFile(await file(zipOf(kept)));
    expect(trace.missingResources).toEqual([shotRef]);
    expect(trace.hasResource(shotRef)).toBe(false);
    await expect(trace.resource(shotRef)).rejects.toMatchObject({ code: 'missing_resource', message: expect.stringContaining(shotRef) });
    await expect(trace.resource('sha256:nope')).rejects.toMatchObject({ code: 'missing_resource' });
    await expect(trace.resource(resourceRef('d'.repeat(64)))).rejects.toMatchObject({ code: 'missing_resource' });
  });

  it('opens a trace that was unpacked and zipped again inside a folder', async () => {
    const unzipped = unzipSync(await readFile(good));
    const nested: Record<string, Uint8Array> = {};
    for (const [name, data] of Object.entries(unzipped)) nested[`my trace/${name}`] = data;
    const trace = await openTraceFile(await file(zipOf(nested)));
    expect(trace.events).toHaveLength(1);
    expect(await trace.resource(shotRef)).toEqual(shot);
  });

  it('names a resource cut off by the file shrinking after opening', async () => {
    const bytes = await readFile(good);
    const path = await file(bytes);
    const trace = await openTraceFile(path);
    await truncate(path, bytes.indexOf(shot.subarray(0, 16)) + 10);
    await expect(trace.resource(shotRef)).rejects.toMatchObject({
      code: 'damaged',
      message: expect.stringMatching(new RegExp(`^resources/[0-9a-f]{64}\\.png is cut short: 10 of its ${shot.length} bytes are in the file$`)),
    });
  });

  it('names bytes added after the end of the archive', async () => {
    const bytes = await readFile(good);
    await expectOpenError(Buffer.concat([bytes, Buffer.from('trailing')]), 'damaged', /end record is not at the end of the file/);
  });

  it('never returns wrong bytes when the file is overwritten after opening', async () => {
    const path = await file(await readFile(good));
    const trace = await openTraceFile(path);
    expect(await trace.resource(shotRef)).toEqual(shot);
    await writeFile(path, randomBytes((await readFile(good)).length));
    await expect(trace.resource(shotRef)).rejects.toMatchObject({ code: 'damaged' });
  });
});
