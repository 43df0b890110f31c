/**
 * `npm run bench -- limits`: the time and memory to open the largest legitimate trace, and to refuse
 * the largest bombs (docs/rules.md#r-lim-03).
 *
 * Legitimate: 10,000 recorded taps (20,000 events), a 100,000-node observation and a 37 MB screenshot
 * (what a 50 MB base64 screenshot reply decodes to), opened and read as the trace view does.
 * Bombs: a 3.4 MB trace whose screenshot really inflates to 3.5 GB (the attack in issue 14), and a
 * ~1 MB events.jsonl that inflates to 1 GiB.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants, crc32, createDeflateRaw } from 'node:zlib';
import { strToU8, zipSync } from 'fflate';
import { encodeTraceEvent, encodeTraceManifest } from '@shared/trace/encode';
import { resourceRef } from '@shared/trace/schema';
import { openTraceFile } from '@main/trace/open';
import { traceResource } from '@main/trace/view';
import { baseScreenshot, variant } from './trace-fixture';

const MANIFEST = encodeTraceManifest({
  createdAt: '2026-12-01T10:00:00.000Z',
  device: { name: 'iPhone 17 (bench)', kind: 'demo', url: 'ws://127.0.0.1:8765/ws' },
});
const sha = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');
const mib = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(0)} MiB`;

/** Time and peak RSS above the start while `run` goes (sampled every 5 ms), after a GC. */
async function measure<T>(run: () => Promise<T>): Promise<{ value: T | undefined; error?: string; ms: number; peakRss: number; rss: number }> {
  globalThis.gc?.();
  const base = process.memoryUsage.rss();
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
  const started = performance.now();
  let value: T | undefined;
  let error: string | undefined;
  try {
    value = await run();
  } catch (e) {
    error = e instanceof Error ? e.message : String(e);
  }
  const ms = performance.now() - started;
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage.rss());
  return { value, ms, peakRss: peak - base, rss: peak, ...(error !== undefined ? { error } : {}) };
}

function hierarchy(nodes: number) {
  const rows = [];
  for (let g = 0; g < nodes / 100; g++) {
    const cells = [];
    for (let i = 0; i < 99; i++) {
      const top = (g * 99 + i) * 44;
      cells.push({
        className: 'UILabel',
        text: `Row ${g}.${i}`,
        'resource-id': `row.${g}.${i}`,
        bounds: { left: 16, top, right: 386, bottom: top + 44 },
        clickable: 'true',
      });
    }
    rows.push({ className: 'UITableViewCell', bounds: { left: 0, top: g * 4356, right: 402, bottom: (g + 1) * 4356 }, node: cells });
  }
  return {
    screenWidth: 402,
    screenHeight: 874,
    screenScale: 3,
    hierarchy: { className: 'UIWindow', bounds: { left: 0, top: 0, right: 402, bottom: 874 }, node: rows },
  };
}

async function legitimate(dir: string): Promise<void> {
  const big = Buffer.from(JSON.stringify(hierarchy(100_000)));
  const bigHex = sha(big);
  // A PNG signature and 37 MB that do not compress, as a real screenshot's data does not.
  const shot = Buffer.concat([baseScreenshot().subarray(0, 8), randomBytes(37_000_000)]);
  const shotHex = sha(shot);
  const small = Array.from({ length: 100 }, (_, i) => variant(baseScreenshot(), i));
  const files: Record<string, Uint8Array | [Uint8Array, { level: 0 | 1 }]> = {
    'manifest.json': strToU8(MANIFEST),
    [`resources/${bigHex}.json`]: [big, { level: 1 }],
    [`resources/${shotHex}.png`]: [shot, { level: 0 }],
  };
  const smallHex = small.map((png) => {
    const hex = sha(png);
    files[`resources/${hex}.png`] = [png, { level: 0 }];
    return hex;
  });
  const lines: string[] = [];
  for (let step = 0; step < 10_000; step++) {
    const screenshotRef = resourceRef(step === 0 ? shotHex : smallHex[step % 100]!);
    lines.push(
      encodeTraceEvent({
        type: 'action.before',
        callId: `tap_${step}`,
        seq: 2 * step,
        time: 1_000 + step,
        action: { kind: 'tap' },
        target: { point: { x: 20, y: step % 800 } },
        observationRef: resourceRef(bigHex),
        screenshotRef,
      }),
      encodeTraceEvent({
        type: 'action.after',
        callId: `tap_${step}`,
        seq: 2 * step + 1,
        time: 1_001 + step,
        result: { success: true, backend: 'sdk' },
        screenshotRef,
      }),
    );
  }
  const events = strToU8(lines.join(''));
  files['events.jsonl'] = [events, { level: 1 }];
  const path = join(dir, 'largest.parallax-trace');
  const handle = await open(path, 'w');
  await handle.writeFile(zipSync(files));
  await handle.close();
  console.log(
    `largest legitimate trace: 10,000 steps (events.jsonl ${mib(events.length)}), a 100,000-node observation (${mib(big.length)}), a ${mib(shot.length)} screenshot; file ${mib((await stat(path)).size)}`,
  );

  const opened = await measure(() => openTraceFile(path));
  console.log(
    `  open (manifest + events + timeline): ${opened.ms.toFixed(0)} ms, peak +${mib(opened.peakRss)} RSS (${mib(opened.rss)} in all)${opened.error ? `, FAILED: ${opened.error}` : ''}`,
  );
  const tree = await measure(() => traceResource(path, resourceRef(bigHex), 'hierarchy'));
  console.log(
    `  read the 100,000-node observation: ${tree.ms.toFixed(0)} ms, peak +${mib(tree.peakRss)} RSS (${mib(tree.rss)} in all)${tree.error ? `, FAILED: ${tree.error}` : ''}`,
  );
  const png = await measure(() => traceResource(path, resourceRef(shotHex), 'png'));
  console.log(
    `  read the 37 MB screenshot: ${png.ms.toFixed(0)} ms, peak +${mib(png.peakRss)} RSS (${mib(png.rss)} in all)${png.error ? `, FAILED: ${png.error}` : ''}`,
  );
}

/** Deflates `size` bytes of `fill` as a stream: the bomb is built without holding what it inflates to. */
async function deflatedRun(size: number, fill: number): Promise<{ data: Buffer; crc: number }> {
  const chunk = Buffer.alloc(1 << 20, fill);
  const deflate = createDeflateRaw({ level: constants.Z_BEST_COMPRESSION, memLevel: 9 });
  const out: Buffer[] = [];
  deflate.on('data', (part: Buffer) => out.push(part));
  let crc = 0;
  for (let left = size; left > 0; left -= chunk.length) {
    const part = left >= chunk.length ? chunk : chunk.subarray(0, left);
    crc = crc32(part, crc);
    if (!deflate.write(part)) await new Promise((resolve) => deflate.once('drain', resolve));
  }
  await new Promise((resolve) => deflate.end(resolve));
  return { data: Buffer.concat(out), crc };
}

/** A zip of entries whose data is given already deflated (method 8) or stored (method 0). */
function zipOf(entries: Array<{ name: string; data: Buffer; crc: number; size: number; method: 0 | 8 }>): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name);
    // The fields a local header and a directory header share, from `at` (4 and 6: the directory's
    // header also says which version made it).
    const common = (header: Buffer, at: number) => {
      header.writeUInt16LE(20, at);
      header.writeUInt16LE(entry.method, at + 4);
      header.writeUInt32LE(entry.crc >>> 0, at + 10);
      header.writeUInt32LE(entry.data.length, at + 14);
      header.writeUInt32LE(entry.size, at + 18);
      header.writeUInt16LE(name.length, at + 22);
      return header;
    };
    const local = common(Buffer.alloc(30), 4);
    local.writeUInt32LE(0x04034b50, 0);
    const header = common(Buffer.alloc(46), 6);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt32LE(offset, 42);
    central.push(header, name);
    parts.push(local, name, entry.data);
    offset += local.length + name.length + entry.data.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, directory, end]);
}

const stored = (name: string, text: string) => {
  const data = Buffer.from(text);
  return { name, data, crc: crc32(data), size: data.length, method: 0 as const };
};

async function bombs(dir: string): Promise<void> {
  const hex = 'b'.repeat(64);
  const event = encodeTraceEvent({ type: 'observation', callId: 'o', seq: 0, time: 1, observationRef: resourceRef(hex), screenshotRef: resourceRef(hex) });

  const shotSize = 3_500_000_000;
  const shot = await deflatedRun(shotSize, 0);
  const screenshotBomb = join(dir, 'screenshot-bomb.parallax-trace');
  const file = await open(screenshotBomb, 'w');
  await file.writeFile(
    zipOf([
      stored('manifest.json', MANIFEST),
      stored('events.jsonl', event),
      { name: `resources/${hex}.png`, data: shot.data, crc: shot.crc, size: shotSize, method: 8 },
    ]),
  );
  await file.close();
  console.log(`screenshot bomb: ${mib((await stat(screenshotBomb)).size)} file, a screenshot that inflates to ${mib(shotSize)}`);
  const opened = await measure(async () => {
    const trace = await openTraceFile(screenshotBomb);
    return trace.resource(resourceRef(hex));
  });
  console.log(
    `  open and read the screenshot: refused in ${opened.ms.toFixed(0)} ms, peak +${mib(opened.peakRss)} RSS (${mib(opened.rss)} in all): ${opened.error ?? 'NOT REFUSED'}`,
  );

  const eventsSize = 1 << 30;
  const events = await deflatedRun(eventsSize, 0x20);
  const eventsBomb = join(dir, 'events-bomb.parallax-trace');
  const handle = await open(eventsBomb, 'w');
  await handle.writeFile(zipOf([stored('manifest.json', MANIFEST), { name: 'events.jsonl', data: events.data, crc: events.crc, size: eventsSize, method: 8 }]));
  await handle.close();
  console.log(
    `events.jsonl bomb: ${mib((await stat(eventsBomb)).size)} file (${(events.data.length / 1024).toFixed(0)} KiB stored), inflating to ${mib(eventsSize)}`,
  );
  const refused = await measure(() => openTraceFile(eventsBomb));
  console.log(
    `  open: refused in ${refused.ms.toFixed(0)} ms, peak +${mib(refused.peakRss)} RSS (${mib(refused.rss)} in all): ${refused.error ?? 'NOT REFUSED'}`,
  );
}

const dir = await mkdtemp(join(tmpdir(), 'parallax-limits-bench-'));
try {
  await legitimate(dir);
  await bombs(dir);
} finally {
  await rm(dir, { recursive: true, force: true });
}
