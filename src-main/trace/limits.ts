/**
 * The size of each part of a trace (docs/rules.md#r-lim-03), checked before a byte of it is held:
 * from the zip directory for a trace file, from the open file for a trace folder. Real traces fit with
 * room to spare: a 10,000-step session's events are tens of MiB, a 50 MB screenshot reply is a ~37 MB
 * PNG, and a 100,000-node observation is ~40 MB of JSON (bench/limits.bench.ts measures the largest).
 */
import { open } from 'node:fs/promises';
import { TraceOpenError } from './errors';
import type { EntryLimit } from './zip';

export const TRACE_LIMITS = {
  /** Larger than any manifest; a bigger one is damage or a zip bomb, not something to allocate. */
  manifest: { maxBytes: 1 << 20, what: 'manifest.json' },
  events: { maxBytes: 256 << 20, what: 'events.jsonl' },
  /** A screenshot or an observation. */
  resource: { maxBytes: 128 << 20, what: 'a resource' },
} as const satisfies Record<string, EntryLimit>;

function checkSize(size: number, limit: EntryLimit, path: string): void {
  if (size > limit.maxBytes) throw new TraceOpenError('too_large', `${limit.what ?? path} is ${size} bytes, over the ${limit.maxBytes}-byte limit`);
}

/**
 * A trace folder's file, read only if it is within its limit (and at most that many bytes however it
 * grows meanwhile). Throws TraceOpenError('too_large'), or the I/O error.
 */
export async function readFileCapped(path: string, limit: EntryLimit): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    checkSize(size, limit, path);
    const buffer = Buffer.allocUnsafe(size);
    let filled = 0;
    while (filled < size) {
      const { bytesRead } = await handle.read(buffer, filled, size - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

/**
 * A trace folder's file as a stream of chunks, refused before the first read if it is over its limit,
 * and never more than the size it had when opened however it grows meanwhile. Throws
 * TraceOpenError('too_large'), or the I/O error (ENOENT for a missing file).
 */
export async function* streamFileCapped(path: string, limit: EntryLimit): AsyncGenerator<Buffer> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    checkSize(size, limit, path);
    let at = 0;
    while (at < size) {
      const buffer = Buffer.allocUnsafe(Math.min(1 << 20, size - at));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, at);
      if (bytesRead === 0) break;
      at += bytesRead;
      yield buffer.subarray(0, bytesRead);
    }
  } finally {
    await handle.close();
  }
}
