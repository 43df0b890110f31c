/**
 * The zip container of a `.parallax-trace`: yazl writes it, yauzl reads it. What is here is the part that
 * is Parallax's own: entries go in as they come so packing holds a few MiB at a time, opening reads the
 * central directory and then only the entries asked for (so a 500-step trace opens in under 2 s however
 * large its screenshots are; bench/trace.bench.ts measures it), and every failure becomes a ZipError
 * naming the part of the archive at fault, since a reader of traces sent in bug reports has to say which
 * part is damaged.
 *
 * yauzl does not check CRCs ("No CRC-32 Checking" in its README), so readZipEntry does, while the entry
 * streams. Any zip tool (fflate included, see tests/integration/trace-*.test.ts) reads what this writes.
 */
import { open as openFile, type FileHandle } from 'node:fs/promises';
import { Readable, Writable } from 'node:stream';
import { crc32 } from 'node:zlib';
import * as yauzl from 'yauzl';
import * as yazl from 'yazl';

export class ZipError extends Error {
  override readonly name = 'ZipError';
  constructor(
    readonly kind: 'not_zip' | 'damaged' | 'too_large',
    message: string,
  ) {
    super(message);
  }
}

/**
 * How much an entry may inflate: at most this many times its stored size once it is over
 * RATIO_FLOOR_BYTES (small entries compress any amount). Real traces stay far below: screenshots are
 * stored (1×), events and observations deflate about 5–30×; a zip bomb is 1,000× (docs/rules.md#r-lim-03).
 */
export const MAX_INFLATE_RATIO = 200;
const RATIO_FLOOR_BYTES = 1 << 20;

/** What a read may hold: the entry's own size cap, by what it is (manifest, events, resource). */
export interface EntryLimit {
  maxBytes: number;
  /** What the entry is, for the error: "events.jsonl", "a screenshot". */
  what?: string;
}

const mib = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MiB`;

/** Refuses an entry over its cap or inflating like a bomb, from the zip directory alone, before any byte is read. */
export function checkEntryLimit(entry: ZipEntry, limit: EntryLimit): void {
  const name = entry.fileName;
  const what = limit.what === undefined || limit.what === name ? name : `${limit.what} (${name})`;
  if (entry.uncompressedSize > limit.maxBytes) {
    throw new ZipError('too_large', `${what} is ${mib(entry.uncompressedSize)} inflated, over the ${mib(limit.maxBytes)} limit`);
  }
  if (entry.uncompressedSize > RATIO_FLOOR_BYTES && entry.uncompressedSize > entry.compressedSize * MAX_INFLATE_RATIO) {
    const ratio = Math.round(entry.uncompressedSize / Math.max(1, entry.compressedSize));
    throw new ZipError(
      'too_large',
      `${what} is a zip bomb: ${entry.compressedSize} stored bytes would inflate ${ratio}× to ${mib(entry.uncompressedSize)}, over the ${MAX_INFLATE_RATIO}× limit`,
    );
  }
}

export type ZipEntry = yauzl.Entry;
export type ZipArchive = yauzl.ZipFile;

const LOCAL_SIGNATURE = 0x04034b50;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** An operating-system error (ENOENT, EACCES, EIO...): the caller reports it as unreadable, not as damage. */
function isIoError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && !code.startsWith('Z_') && !code.startsWith('ERR_');
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

async function readHead(path: string): Promise<Buffer> {
  const handle = await openFile(path, 'r');
  try {
    const buffer = Buffer.alloc(64);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** yauzl's verdict on the end of the archive, as a ZipError; I/O errors pass through. */
async function openFailure(error: unknown, path: string): Promise<unknown> {
  if (isIoError(error)) return error;
  const message = messageOf(error);
  if (/end of central directory record signature not found/i.test(message)) {
    const head = await readHead(path).catch(() => Buffer.alloc(0));
    if (head.length >= 4 && head.readUInt32LE(0) === LOCAL_SIGNATURE) {
      return new ZipError('damaged', 'the file is cut short: it starts like a zip archive but its directory at the end is missing');
    }
    return new ZipError('not_zip', `not a zip archive (${sniff(head)}); a .parallax-trace file is a zip`);
  }
  if (/comment length/i.test(message)) {
    return new ZipError('damaged', "the zip archive's end record is not at the end of the file: bytes were added after it, or the record is damaged");
  }
  if (/multi-disk/i.test(message)) return new ZipError('damaged', 'a multi-part zip archive; a trace is always one file');
  if (/unexpected EOF/i.test(message)) {
    return new ZipError('damaged', 'the zip directory points past the end of the file (the file is cut short or overwritten)');
  }
  return new ZipError('damaged', `the end of the zip archive is damaged (${message})`);
}

/**
 * Opens an archive without reading its directory: one read of its end. The caller closes it; reads in
 * flight finish first. Throws ZipError, or the I/O error.
 */
export async function openZip(path: string): Promise<ZipArchive> {
  let archive: ZipArchive;
  try {
    archive = await new Promise<ZipArchive>((resolve, reject) => {
      yauzl.open(path, { lazyEntries: true, autoClose: false }, (error, zip) => (error ? reject(error) : resolve(zip)));
    });
  } catch (error) {
    throw await openFailure(error, path);
  }
  // An error closing the file would otherwise be an unhandled 'error' event; reads report their own.
  archive.on('error', () => undefined);
  return archive;
}

/** The archive's file entries by name, read from its central directory. Throws ZipError, or the I/O error. */
export async function readZipDirectory(archive: ZipArchive): Promise<Map<string, ZipEntry>> {
  const entries = new Map<string, ZipEntry>();
  try {
    for await (const entry of archive.eachEntry()) {
      if (entry.fileName.endsWith('/')) continue;
      // Two entries of one name: which one a reader takes is up to the reader, so none is taken (docs/rules.md#r-fuzz-02).
      if (entries.has(entry.fileName)) throw new ZipError('damaged', `the zip holds ${entry.fileName} twice; a trace names each part once`);
      entries.set(entry.fileName, entry);
    }
  } catch (error) {
    if (isIoError(error)) throw error;
    const at = `entry ${archive.entriesRead + 1} of ${archive.entryCount}`;
    const message = messageOf(error);
    if (/unexpected EOF/i.test(message)) {
      throw new ZipError('damaged', `the zip directory is cut short at ${at} (the file is cut short or overwritten)`);
    }
    if (/central directory file header signature/i.test(message)) throw new ZipError('damaged', `the zip directory is damaged at ${at}`);
    throw new ZipError('damaged', `the zip directory is damaged at ${at}: ${message}`);
  }
  return entries;
}

/** A failure while streaming an entry, as a ZipError naming the entry; I/O errors pass through. */
function entryFailure(error: unknown, name: string): unknown {
  if (error instanceof ZipError || isIoError(error)) return error;
  const message = messageOf(error);
  if (/local file header signature/i.test(message)) return new ZipError('damaged', `${name}: its zip header is damaged`);
  if (/overflows file bounds|unexpected EOF/i.test(message)) {
    return new ZipError('damaged', `${name} is cut short: its data runs past the end of the file`);
  }
  if (/bytes in the stream/i.test(message)) {
    return new ZipError('damaged', `${name} is damaged: its size does not match the zip directory (${message})`);
  }
  if ((error as NodeJS.ErrnoException | undefined)?.code?.startsWith('Z_')) {
    // zlib: Z_DATA_ERROR, Z_BUF_ERROR ("unexpected end of file")...
    return new ZipError('damaged', `${name} is damaged: it does not inflate (${message})`);
  }
  return new ZipError('damaged', `${name} is damaged: ${message}`);
}

/**
 * One entry's bytes as they inflate, checked against its size and CRC: the size cap and the inflate
 * ratio are checked from the directory before anything is read, and the bytes are counted again as
 * they stream, so a lying entry is stopped at its declared size. The checksum is judged at the end:
 * a caller that keeps what it reads keeps it only once the stream ends without an error.
 * Throws ZipError, or the I/O error.
 */
export async function* streamZipEntry(archive: ZipArchive, entry: ZipEntry, limit: EntryLimit): AsyncGenerator<Buffer> {
  const name = entry.fileName;
  if (entry.isEncrypted()) throw new ZipError('damaged', `${name} is encrypted; Parallax never encrypts a trace`);
  if (!entry.canDecodeFileData()) {
    throw new ZipError('damaged', `${name} uses zip compression method ${entry.compressionMethod}, which Parallax never writes`);
  }
  checkEntryLimit(entry, limit);
  let crc = 0;
  let length = 0;
  // yauzl also stops an inflating entry at its declared size (validateEntrySizes); a stored one is read
  // as a byte range of that size.
  let stream: Readable | undefined;
  try {
    stream = await archive.openReadStreamPromise(entry);
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (length + chunk.length > entry.uncompressedSize) {
        throw new ZipError('damaged', `${name} is damaged: it inflates past the ${entry.uncompressedSize} bytes its zip directory declares`);
      }
      crc = crc32(chunk, crc);
      length += chunk.length;
      yield chunk;
    }
  } catch (error) {
    throw entryFailure(error, name);
  } finally {
    // A reader that stops early (a limit, an error of its own) ends the inflating too.
    stream?.destroy();
  }
  // A stored entry's stream ends quietly where the file does.
  if (length !== entry.uncompressedSize) {
    throw new ZipError('damaged', `${name} is cut short: ${length} of its ${entry.uncompressedSize} bytes are in the file`);
  }
  if (crc !== entry.crc32) throw new ZipError('damaged', `${name} is damaged: its checksum does not match`);
}

/**
 * One entry's bytes, inflated and checked (streamZipEntry), into one buffer of the declared size (never
 * more). Throws ZipError, or the I/O error.
 */
export async function readZipEntry(archive: ZipArchive, entry: ZipEntry, limit: EntryLimit): Promise<Buffer> {
  const chunks = streamZipEntry(archive, entry, limit);
  // The first step runs the checks made from the directory, before the buffer is allocated.
  let next = await chunks.next();
  const out = Buffer.allocUnsafe(entry.uncompressedSize);
  let length = 0;
  for (; !next.done; next = await chunks.next()) {
    next.value.copy(out, length);
    length += next.value.length;
  }
  return out;
}

/** FileHandle.write may write less than asked; a short write would leave a gap. (Used by the recorder.) */
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
  data: Buffer;
  /** Already-compressed data (PNG) is stored: deflating it again costs time and saves nothing. */
  compress: boolean;
}

/** Entries not yet written may hold about this much between them; the next input is taken when there is room. */
const WRITE_WINDOW = 8 << 20;

/**
 * Writes the inputs as a zip into a new, open file as they come, so packing a long session holds a few
 * MiB at a time, never the whole archive. The file is neither flushed nor closed. Returns its size.
 */
export async function writeZip(handle: FileHandle, inputs: AsyncIterable<ZipInput> | Iterable<ZipInput>): Promise<number> {
  const zip = new yazl.ZipFile();
  // Not handle.createWriteStream: that stream takes the handle over (ending it closes the file), and the
  // caller still has to flush it before the rename.
  let bytes = 0;
  const out = new Writable({
    highWaterMark: 1 << 20,
    writev(chunks, callback) {
      const parts = chunks.map(({ chunk }) => chunk as Buffer);
      writeFully(handle, ...parts).then(() => {
        for (const part of parts) bytes += part.length;
        callback();
      }, callback);
    },
  });
  let fail!: (error: unknown) => void;
  const failed = new Promise<never>((_, reject) => (fail = reject));
  failed.catch(() => undefined);
  zip.on('error', fail);
  zip.outputStream.on('error', fail);
  out.on('error', fail);
  const written = new Promise<void>((resolve) => out.on('finish', resolve));
  zip.outputStream.pipe(out);

  // yazl asks for an entry's data when its turn comes, once the entries before it have gone into the
  // output, which passes on the file's backpressure; so a turn coming lets go of the data before it.
  const mtime = new Date();
  const pending: { bytes: number; turn: Promise<void> }[] = [];
  let held = 0;
  try {
    for await (const input of inputs) {
      let started!: () => void;
      const turn = new Promise<void>((resolve) => (started = resolve));
      // yazl keeps this function as long as the archive: it must not keep the data too.
      let data: Buffer | undefined = input.data;
      zip.addReadStreamLazy(input.name, { compress: input.compress, size: data.length, mtime, mode: 0o100644 }, (callback) => {
        const bytes = data ?? Buffer.alloc(0);
        data = undefined;
        started();
        callback(null, Readable.from([bytes], { objectMode: false }));
      });
      pending.push({ bytes: input.data.length, turn });
      held += input.data.length;
      while (held > WRITE_WINDOW && pending.length > 1) {
        await Promise.race([pending[1]!.turn, failed]);
        held -= pending.shift()!.bytes;
      }
    }
    zip.end();
    await Promise.race([written, failed]);
  } catch (error) {
    zip.outputStream.unpipe(out);
    out.destroy();
    throw error;
  }
  return bytes;
}
