/**
 * The zip container of a `.parallax-trace`, read by its central directory so opening a trace touches
 * only manifest.json and events.jsonl, and each screenshot is read when it is shown (issue 6: a 500-step
 * trace opens in under 2 s however large its screenshots are).
 *
 * The archive structure is read and written here, and node's zlib does the (de)compression. fflate's
 * `unzipSync` needs the whole archive in memory, does not check CRCs and fails with one generic
 * message, while a reader of traces sent in bug reports has to say which part is damaged; and on the
 * write side fflate's JavaScript CRC and deflate made stopping a 500-step recording take about 2 s
 * longer than node's (see bench/trace.bench.ts), with the event loop of the main process busy meanwhile.
 * Any zip tool (fflate included, see tests/integration/trace-*.test.ts) reads what this writes.
 */
import type { FileHandle } from 'node:fs/promises';
import { crc32, deflateRawSync, inflateRawSync } from 'node:zlib';

export class ZipError extends Error {
  override readonly name = 'ZipError';
  constructor(
    readonly kind: 'not_zip' | 'damaged',
    message: string,
  ) {
    super(message);
  }
}

export interface ZipEntry {
  name: string;
  /** Bytes of the name as stored, which is what the local header holds too. */
  nameLength: number;
  method: number;
  flags: number;
  crc: number;
  compressedSize: number;
  size: number;
  localHeaderOffset: number;
}

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
const EOCD_SIZE = 22;
const MAX_COMMENT = 0xffff;

async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const { bytesRead } = await handle.read(buffer, done, length - done, position + done);
    if (bytesRead === 0) break;
    done += bytesRead;
  }
  return done === length ? buffer : buffer.subarray(0, done);
}

/** What the first bytes of a non-zip file look like, so "not a zip file" can say what it is instead. */
function sniff(head: Buffer): string {
  const starts = (...bytes: number[]) => bytes.every((b, i) => head[i] === b);
  if (head.length === 0) return 'the file is empty';
  if (starts(0x89, 0x50, 0x4e, 0x47)) return 'it is a PNG image';
  if (starts(0xff, 0xd8, 0xff)) return 'it is a JPEG image';
  if (starts(0x1f, 0x8b)) return 'it is gzip data';
  if (starts(0x25, 0x50, 0x44, 0x46)) return 'it is a PDF document';
  const text = head.toString('utf8', 0, Math.min(head.length, 64)).trimStart();
  if (text.startsWith('{') || text.startsWith('[')) return 'it looks like JSON text';
  if (/^[\x09\x0a\x0d\x20-\x7e]*$/.test(text)) return 'it looks like plain text';
  return `it starts with bytes ${[...head.subarray(0, 4)].map((b) => b.toString(16).padStart(2, '0')).join(' ')}`;
}

/** The archive's entries by name. Throws ZipError. */
export async function readZipDirectory(handle: FileHandle, fileSize: number): Promise<Map<string, ZipEntry>> {
  const tailLength = Math.min(fileSize, EOCD_SIZE + MAX_COMMENT);
  const tailStart = fileSize - tailLength;
  const tail = await readAt(handle, tailStart, tailLength);
  let eocd = -1;
  for (let i = tail.length - EOCD_SIZE; i >= 0; i--) {
    if (tail.readUInt32LE(i) === EOCD_SIGNATURE) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) {
    const head = await readAt(handle, 0, Math.min(fileSize, 64));
    if (head.length >= 4 && head.readUInt32LE(0) === LOCAL_SIGNATURE) {
      throw new ZipError('damaged', 'the file is cut short: it starts like a zip archive but its directory at the end is missing');
    }
    throw new ZipError('not_zip', `not a zip archive (${sniff(head)}); a .parallax-trace file is a zip`);
  }
  const disk = tail.readUInt16LE(eocd + 4);
  const cdDisk = tail.readUInt16LE(eocd + 6);
  const count = tail.readUInt16LE(eocd + 10);
  const cdSize = tail.readUInt32LE(eocd + 12);
  const cdOffset = tail.readUInt32LE(eocd + 16);
  if (disk !== 0 || cdDisk !== 0) throw new ZipError('damaged', 'a multi-part zip archive; a trace is always one file');
  if (count === 0xffff || cdOffset === 0xffffffff || cdSize === 0xffffffff) {
    throw new ZipError('damaged', 'a zip64 archive; Parallax never writes one, so this is not a trace it recorded');
  }
  const eocdAbsolute = tailStart + eocd;
  if (cdOffset + cdSize > eocdAbsolute) {
    throw new ZipError('damaged', 'the zip directory points past the end of the file (the file is cut short or overwritten)');
  }
  const cd = await readAt(handle, cdOffset, cdSize);
  const entries = new Map<string, ZipEntry>();
  let p = 0;
  for (let n = 0; n < count; n++) {
    if (p + 46 > cd.length || cd.readUInt32LE(p) !== CENTRAL_SIGNATURE) {
      throw new ZipError('damaged', `the zip directory is damaged at entry ${n + 1} of ${count}`);
    }
    const nameLength = cd.readUInt16LE(p + 28);
    const extraLength = cd.readUInt16LE(p + 30);
    const commentLength = cd.readUInt16LE(p + 32);
    const entry: ZipEntry = {
      flags: cd.readUInt16LE(p + 8),
      method: cd.readUInt16LE(p + 10),
      crc: cd.readUInt32LE(p + 16),
      compressedSize: cd.readUInt32LE(p + 20),
      size: cd.readUInt32LE(p + 24),
      localHeaderOffset: cd.readUInt32LE(p + 42),
      name: cd.toString('utf8', p + 46, p + 46 + nameLength),
      nameLength,
    };
    p += 46 + nameLength + extraLength + commentLength;
    if (p > cd.length) throw new ZipError('damaged', `the zip directory is damaged at entry ${n + 1} of ${count}`);
    if (entry.localHeaderOffset + 30 + entry.compressedSize > cdOffset) {
      throw new ZipError('damaged', `${entry.name}: its data lies outside the archive`);
    }
    if (!entry.name.endsWith('/')) entries.set(entry.name, entry);
  }
  return entries;
}

/** One entry's bytes, inflated and checked against its CRC. Throws ZipError. */
export async function readZipEntry(handle: FileHandle, entry: ZipEntry): Promise<Buffer> {
  if (entry.flags & 1) throw new ZipError('damaged', `${entry.name} is encrypted; Parallax never encrypts a trace`);
  // One read for header and data, guessing the header has no extra field (Parallax writes none); a
  // second read only when the guess fell short. Halves the reads when the UI pages through screenshots.
  const guess = 30 + entry.nameLength + entry.compressedSize;
  const first = await readAt(handle, entry.localHeaderOffset, guess);
  if (first.length < 30 || first.readUInt32LE(0) !== LOCAL_SIGNATURE) {
    throw new ZipError('damaged', `${entry.name}: its zip header is damaged`);
  }
  const skip = 30 + first.readUInt16LE(26) + first.readUInt16LE(28);
  const raw =
    skip + entry.compressedSize <= first.length
      ? first.subarray(skip, skip + entry.compressedSize)
      : await readAt(handle, entry.localHeaderOffset + skip, entry.compressedSize);
  if (raw.length < entry.compressedSize) throw new ZipError('damaged', `${entry.name} is cut short`);
  let data: Buffer;
  if (entry.method === 0) {
    data = raw;
  } else if (entry.method === 8) {
    try {
      // Capped at the declared size: a damaged or hostile entry cannot make us allocate more.
      data = entry.size === 0 ? Buffer.alloc(0) : inflateRawSync(raw, { maxOutputLength: entry.size });
    } catch (error) {
      throw new ZipError('damaged', `${entry.name} is damaged: it does not inflate (${error instanceof Error ? error.message : String(error)})`);
    }
  } else {
    throw new ZipError('damaged', `${entry.name} uses zip compression method ${entry.method}, which Parallax never writes`);
  }
  if (data.length !== entry.size || crc32(data) !== entry.crc) {
    throw new ZipError('damaged', `${entry.name} is damaged: its checksum does not match`);
  }
  return data;
}

/** FileHandle.write may write less than asked; a short write here would leave a gap in the archive. */
export async function writeFully(handle: FileHandle, ...parts: Uint8Array[]): Promise<void> {
  let pending = parts.filter((part) => part.length > 0);
  while (pending.length > 0) {
    let { bytesWritten } = await handle.writev(pending);
    const rest: Uint8Array[] = [];
    for (const part of pending) {
      if (bytesWritten >= part.length) bytesWritten -= part.length;
      else {
        rest.push(part.subarray(bytesWritten));
        bytesWritten = 0;
      }
    }
    pending = rest;
  }
}

export interface ZipInput {
  name: string;
  data: Uint8Array;
  /** Already-compressed data (PNG) is stored: deflating it again costs time and saves nothing. */
  compress: boolean;
}

const MAX_ENTRIES = 0xffff;
const MAX_OFFSET = 0xffffffff;

function dosDateTime(date: Date): { time: number; date: number } {
  return {
    time: (date.getHours() << 11) | (date.getMinutes() << 5) | (date.getSeconds() >> 1),
    date: ((Math.max(date.getFullYear(), 1980) - 1980) << 9) | ((date.getMonth() + 1) << 5) | date.getDate(),
  };
}

/** Entries are written in batches of about this size: one write per entry cost more in round trips than in bytes. */
const WRITE_BATCH = 4 << 20;

/**
 * Writes entries into an open file as they come, so packing a long session holds a few MiB at a time,
 * never the whole archive. Sizes go in the local headers (no data descriptors), which every unzip reads.
 */
export async function writeZip(handle: FileHandle, inputs: AsyncIterable<ZipInput> | Iterable<ZipInput>): Promise<number> {
  const { time, date } = dosDateTime(new Date());
  const central: Buffer[] = [];
  let offset = 0;
  let batch: Uint8Array[] = [];
  let batchBytes = 0;
  for await (const input of inputs) {
    if (central.length === MAX_ENTRIES) throw new Error(`a trace holds at most ${MAX_ENTRIES} files (zip64 is not written)`);
    const name = Buffer.from(input.name, 'utf8');
    const crc = crc32(input.data);
    let data = input.data;
    let method = 0;
    if (input.compress) {
      // Synchronous: a few hundred microseconds per observation, less than a thread-pool round trip.
      const deflated = deflateRawSync(input.data, { level: 6 });
      if (deflated.length < input.data.length) {
        data = deflated;
        method = 8;
      }
    }
    const local = Buffer.alloc(30 + name.length);
    local.writeUInt32LE(LOCAL_SIGNATURE, 0);
    local.writeUInt16LE(20, 4); // version needed: 2.0 (deflate)
    local.writeUInt16LE(0x0800, 6); // names are UTF-8
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(time, 10);
    local.writeUInt16LE(date, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(input.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    name.copy(local, 30);
    if (offset + local.length + data.length > MAX_OFFSET) throw new Error('a trace file is at most 4 GiB (zip64 is not written)');

    const entry = Buffer.alloc(46 + name.length);
    entry.writeUInt32LE(CENTRAL_SIGNATURE, 0);
    entry.writeUInt16LE((3 << 8) | 20, 4); // made by: Unix, 2.0, so unzip applies the permissions below
    entry.writeUInt16LE(20, 6);
    entry.writeUInt16LE(0x0800, 8);
    entry.writeUInt16LE(method, 10);
    entry.writeUInt16LE(time, 12);
    entry.writeUInt16LE(date, 14);
    entry.writeUInt32LE(crc, 16);
    entry.writeUInt32LE(data.length, 20);
    entry.writeUInt32LE(input.data.length, 24);
    entry.writeUInt16LE(name.length, 28);
    entry.writeUInt32LE((0o100644 << 16) >>> 0, 38);
    entry.writeUInt32LE(offset, 42);
    name.copy(entry, 46);
    central.push(entry);

    batch.push(local, data);
    batchBytes += local.length + data.length;
    offset += local.length + data.length;
    if (batchBytes >= WRITE_BATCH) {
      await writeFully(handle, ...batch);
      batch = [];
      batchBytes = 0;
    }
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(EOCD_SIZE);
  end.writeUInt32LE(EOCD_SIGNATURE, 0);
  end.writeUInt16LE(central.length, 8);
  end.writeUInt16LE(central.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  await writeFully(handle, ...batch, directory, end);
  return offset + directory.length + end.length;
}
