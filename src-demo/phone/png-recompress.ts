/**
 * The same PNG, smaller: its image data inflated and deflated again at zlib's default level, every other
 * byte (header, filters, pixels) as Chromium wrote it. A capture taken for speed (`optimizeForSpeed`,
 * zlib's fastest level) is 1.2x to 2.2x the size of this (bench `demo-device`), and a kept capture is
 * sent again for every live-mode request while the screen stays still (docs/rules.md#r-perf-05).
 * zlib runs on libuv's thread pool: the device's event loop is not held for it.
 */
import { crc32, deflate, inflate } from 'node:zlib';
import { promisify } from 'node:util';

const deflateAsync = promisify(deflate);
const inflateAsync = promisify(inflate);

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** 1206 x 2622 RGBA with a filter byte per row is 12.6 MB; anything far past that is not a capture. */
const MAX_INFLATED_BYTES = 64 * 1024 * 1024;

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'ascii');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)) >>> 0, 8 + data.length);
  return out;
}

/** The PNG recompressed, or undefined when it is not one this can rewrite (then keep the original). */
export async function recompressPng(png: Buffer): Promise<Buffer | undefined> {
  if (png.length < SIGNATURE.length || !png.subarray(0, SIGNATURE.length).equals(SIGNATURE)) return undefined;
  const before: Buffer[] = [];
  const data: Buffer[] = [];
  let offset = SIGNATURE.length;
  let ended = false;
  while (offset + 12 <= png.length && !ended) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('ascii', offset + 4, offset + 8);
    const end = offset + 12 + length;
    if (end > png.length) return undefined;
    const body = png.subarray(offset + 8, offset + 8 + length);
    if (type === 'IDAT') data.push(body);
    else if (type === 'IEND') ended = true;
    // Ancillary chunks after the image data would move before it: only a plain capture is rewritten.
    else if (data.length > 0) return undefined;
    else before.push(png.subarray(offset, end));
    offset = end;
  }
  if (!ended || data.length === 0) return undefined;
  try {
    const raw = await inflateAsync(Buffer.concat(data), { maxOutputLength: MAX_INFLATED_BYTES });
    const packed = await deflateAsync(raw, { level: 6 });
    const out = Buffer.concat([SIGNATURE, ...before, chunk('IDAT', packed), chunk('IEND', Buffer.alloc(0))]);
    return out.length < png.length ? out : undefined;
  } catch {
    return undefined;
  }
}
