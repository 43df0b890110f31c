/**
 * Zip bombs and oversized parts of a trace: each is refused from the zip directory, before its bytes
 * are held, with an error that names the part, the limit and the value (docs/rules.md#r-lim-03).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { encodeTraceEvent, encodeTraceManifest } from '@shared/trace/encode';
import { resourceRef } from '@shared/trace/schema';
import { openTraceFile, type TraceOpenError } from '@main/trace/open';
import { TRACE_LIMITS } from '@main/trace/limits';
import { MAX_INFLATE_RATIO } from '@main/trace/zip';
import { traceRefusal, useTraceScratch } from '../support/trace-files';

const scratch = useTraceScratch('trace-limits');

const manifest = encodeTraceManifest({ createdAt: '2026-10-08T09:20:44.198Z', device: { name: 'Demo', kind: 'demo', url: 'ws://127.0.0.1:1/ws' } });
const HEX = 'ab'.repeat(32);
const shotRef = resourceRef(HEX);
const eventsText = encodeTraceEvent({ type: 'observation', callId: 'o', seq: 0, time: 1, observationRef: shotRef, screenshotRef: shotRef });

/** Rewrites the uncompressed size of `name` in the zip's central directory: a directory that lies. */
function declareSize(zip: Uint8Array, name: string, size: number): Uint8Array {
  const bytes = Buffer.from(zip);
  for (let i = bytes.length - 46; i >= 0; i--) {
    if (bytes.readUInt32LE(i) !== 0x02014b50) continue;
    const nameLength = bytes.readUInt16LE(i + 28);
    if (bytes.toString('utf8', i + 46, i + 46 + nameLength) === name) {
      bytes.writeUInt32LE(size, i + 24);
      return bytes;
    }
  }
  throw new Error(`${name} not in the zip`);
}

const file = (bytes: Uint8Array) => scratch.write(bytes, 'bomb');
const rejection = traceRefusal;

const heapGrowth = async (run: () => Promise<unknown>) => {
  const before = process.memoryUsage();
  await run().catch(() => undefined);
  const after = process.memoryUsage();
  return after.arrayBuffers - before.arrayBuffers + (after.heapUsed - before.heapUsed);
};

describe('R-LIM-03: a trace part over its limit, or inflating like a bomb, is refused before it is read', () => {
  it('a screenshot whose directory declares 3.5 GB is too_large, names the resource and the limit, and holds nothing', async () => {
    const zip = zipSync({ 'manifest.json': strToU8(manifest), 'events.jsonl': strToU8(eventsText), [`resources/${HEX}.png`]: new Uint8Array(64) });
    const path = await file(declareSize(zip, `resources/${HEX}.png`, 3_500_000_000));
    const trace = await openTraceFile(path);
    let error: TraceOpenError | undefined;
    const grew = await heapGrowth(async () => (error = await rejection(trace.resource(shotRef))));
    expect(error?.code).toBe('too_large');
    expect(error?.message).toMatch(new RegExp(`resources/${HEX}\\.png.*3338 MiB.*over the 128 MiB limit`));
    expect(grew).toBeLessThan(16 << 20);
  });

  it(`an events.jsonl that inflates more than ${MAX_INFLATE_RATIO}× is named a zip bomb, not "not UTF-8 text"`, async () => {
    // 64 MiB of one repeated line: ~64 KiB stored, a 1,000× bomb (the attack's was 975 KB → 4.5 GB).
    const line = `${encodeTraceEvent({ type: 'note', callId: 'n', seq: 0, time: 1, text: 'x' })}`;
    const bomb = new Uint8Array(64 << 20).fill(0x20);
    bomb.set(strToU8(line));
    const zip = zipSync({ 'manifest.json': strToU8(manifest), 'events.jsonl': [bomb, { level: 9 }] });
    let error: TraceOpenError | undefined;
    const path = await file(zip);
    const grew = await heapGrowth(async () => (error = await rejection(openTraceFile(path))));
    expect(error?.code).toBe('too_large');
    expect(error?.message).toMatch(/events\.jsonl.*zip bomb.*inflate \d+× to 64 MiB, over the 200× limit/);
    expect(grew).toBeLessThan(16 << 20);
  });

  it('an events.jsonl declared over its limit is too_large, naming it; a manifest too', async () => {
    const zip = zipSync({ 'manifest.json': strToU8(manifest), 'events.jsonl': strToU8(eventsText) });
    const events = await rejection(openTraceFile(await file(declareSize(zip, 'events.jsonl', TRACE_LIMITS.events.maxBytes + 1))));
    expect({ code: events.code, message: events.message }).toEqual({
      code: 'too_large',
      message: expect.stringMatching(/^events\.jsonl .* over the 256 MiB limit/),
    });
    const manifestBomb = await rejection(openTraceFile(await file(declareSize(zip, 'manifest.json', 5 << 20))));
    expect(manifestBomb.message).toMatch(/^manifest\.json .*5\.0 MiB inflated, over the 1\.0 MiB limit/);
  });

  it('an entry that inflates past what its directory declares is stopped there, as damage', async () => {
    const zip = zipSync({ 'manifest.json': strToU8(manifest), 'events.jsonl': strToU8(eventsText + eventsText) });
    const error = await rejection(openTraceFile(await file(declareSize(zip, 'events.jsonl', eventsText.length))));
    expect(error.code).toBe('damaged');
    expect(error.message).toMatch(/events\.jsonl/);
  });

  it('a trace folder whose events file is over the limit is too_large, read no further', async () => {
    const folder = join(scratch.dir, 'big.parallax-trace.d');
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, 'manifest.json'), manifest);
    const { open } = await import('node:fs/promises');
    const handle = await open(join(folder, 'events.jsonl'), 'w');
    await handle.truncate(TRACE_LIMITS.events.maxBytes + 1); // sparse: no disk spent
    await handle.close();
    const error = await rejection(openTraceFile(folder));
    expect({ code: error.code, message: error.message }).toEqual({
      code: 'too_large',
      message: expect.stringMatching(/events\.jsonl is 268435457 bytes, over the 268435456-byte limit/),
    });
  });
});
