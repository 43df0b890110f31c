/**
 * Opens a trace offline: a `.parallax-trace` file, or a trace folder (one still recording, or
 * left by a crash). Reads the manifest and the events up front (streamed, within TRACE_EVENT_LIMITS:
 * events-stream.ts) and every resource on demand, so opening costs the events, not the screenshots.
 *
 * Everything that goes wrong is a TraceOpenError whose message names the part of the trace at fault
 * (the zip, manifest.json, events.jsonl and its line, a resource) and what is wrong with it.
 */
import { createHash } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseJsonLossless } from '@shared/protocol/json';
import { parseManifest, type TimelineStep } from '@shared/trace/reader';
import { isResourceRef, TRACE_FILES, type ResourceRef, type TraceEvent, type TraceManifest } from '@shared/trace/schema';
import { TraceOpenError } from './errors';
import { IN_PROGRESS_MARKER, RESOURCE_FILE } from './files';
import { referencedResources } from './pack';
import { checkEntryLimit, openZip, readZipDirectory, readZipEntry, streamZipEntry, ZipError, type EntryLimit, type ZipArchive, type ZipEntry } from './zip';
import { readFileCapped, streamFileCapped, TRACE_LIMITS } from './limits';
import { readEventsStream, type EventsSource } from './events-stream';

export { TraceOpenError, type TraceOpenErrorCode } from './errors';

/** A trace's resources, read on demand: what showing a step's screenshot or screen needs, and no event. */
export interface TraceResources {
  /** Absolute path of the file or folder. */
  path: string;
  source: 'file' | 'folder';
  /** A folder whose recording has not been stopped (still running, or left by a crash). */
  inProgress: boolean;
  manifest: TraceManifest;
  /** Whether the trace holds this resource. */
  hasResource(ref: string): boolean;
  /** A resource's bytes, checked against its content address. Throws TraceOpenError. */
  resource(ref: string): Promise<Buffer>;
  /** An observation or comparison resource, parsed (UInt64 identities kept exact). Throws TraceOpenError. */
  resourceJson(ref: string): Promise<unknown>;
}

export interface OpenedTrace extends TraceResources {
  events: TraceEvent[];
  timeline: TimelineStep[];
  /** The last events line was cut off mid-write (only a folder can have one) and was left out. */
  truncatedTail: boolean;
  /** The size of events.jsonl, inflated. */
  eventsBytes: number;
  /** References events make to resources the trace does not hold; `resource()` throws missing_resource for them. */
  missingResources: ResourceRef[];
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function decodeText(data: Uint8Array, file: string): string {
  try {
    return utf8.decode(data);
  } catch {
    throw new TraceOpenError('damaged', `${file} is not UTF-8 text (damaged, or not written by Parallax)`);
  }
}

function hexOf(ref: string): string {
  if (!isResourceRef(ref))
    throw new TraceOpenError('missing_resource', `${JSON.stringify(String(ref).slice(0, 80))} is not a resource reference (sha256:<64 hex>)`);
  return ref.slice('sha256:'.length);
}

function checkAddress(data: Buffer, hex: string, file: string): Buffer {
  if (createHash('sha256').update(data).digest('hex') !== hex) {
    throw new TraceOpenError('damaged', `${file} is damaged: its content does not match its address`);
  }
  return data;
}

function readManifest(text: string): TraceManifest {
  const manifest = parseManifest(text);
  if (!manifest.ok) throw TraceOpenError.fromManifest(manifest.error);
  return manifest.manifest;
}

/** The events, streamed, into the opened-trace fields; shared by files and folders. */
async function readParts(
  manifest: TraceManifest,
  events: EventsSource,
  eventsBytes: number,
): Promise<Pick<OpenedTrace, 'manifest' | 'events' | 'timeline' | 'truncatedTail' | 'eventsBytes'>> {
  const read = await readEventsStream(events);
  return { manifest, events: read.events, timeline: read.timeline, truncatedTail: read.truncatedTail, eventsBytes };
}

/** Opens a `.parallax-trace` file or a trace folder. Throws TraceOpenError. */
export async function openTraceFile(path: string): Promise<OpenedTrace> {
  return (await openTrace(path, true)) as OpenedTrace;
}

/**
 * A trace's manifest and resources without its events: the zip's directory (or the folder's listing) and
 * nothing parsed, so the host serves a step's screenshot without holding the trace (docs/rules.md#r-mem-04).
 */
export function openTraceResources(path: string): Promise<TraceResources> {
  return openTrace(path, false);
}

async function openTrace(path: string, withEvents: boolean): Promise<TraceResources | OpenedTrace> {
  const abs = resolve(path);
  let info;
  try {
    info = await stat(abs);
  } catch (error) {
    throw TraceOpenError.fromIo(error, abs);
  }
  return info.isDirectory() ? openFolder(abs, withEvents) : openZipTrace(abs, info.mtimeMs, withEvents);
}

async function openZipTrace(path: string, mtimeMs: number, withEvents: boolean): Promise<TraceResources | OpenedTrace> {
  let archive: ZipArchive;
  try {
    archive = await openZip(path);
  } catch (error) {
    throw TraceOpenError.from(error, path);
  }
  let handedOver = false;
  try {
    let entries: Map<string, ZipEntry>;
    try {
      entries = await readZipDirectory(archive);
    } catch (error) {
      throw TraceOpenError.from(error, path);
    }

    // A trace someone unpacked and zipped again has its files one folder down; accept that one level.
    let prefix = '';
    if (!entries.has(TRACE_FILES.manifest)) {
      const nested = [...entries.keys()].filter((name) => /^[^/]+\/manifest\.json$/.test(name));
      if (nested.length === 1) prefix = nested[0]!.slice(0, -TRACE_FILES.manifest.length);
    }
    const manifestEntry = entries.get(prefix + TRACE_FILES.manifest);
    if (!manifestEntry) {
      const names = [...entries.keys()];
      const shown = names.slice(0, 3).join(', ') + (names.length > 3 ? `, … (${names.length} files)` : '');
      throw new TraceOpenError(
        'not_parallax_trace',
        `not a Parallax trace: ${TRACE_FILES.manifest} missing (the zip holds ${names.length === 0 ? 'no files' : shown})`,
      );
    }
    const readEntry = async (entry: ZipEntry, limit: EntryLimit): Promise<Buffer> => {
      try {
        return await readZipEntry(archive, entry, limit);
      } catch (error) {
        throw TraceOpenError.from(error, path);
      }
    };
    const manifestText = decodeText(await readEntry(manifestEntry, TRACE_LIMITS.manifest), TRACE_FILES.manifest);
    // The manifest first: a foreign or newer file says so before its events are judged.
    const manifest = readManifest(manifestText);
    const eventsEntry = entries.get(prefix + TRACE_FILES.events);
    if (!eventsEntry) throw new TraceOpenError('damaged', `${TRACE_FILES.events} missing from the trace`);
    // Over its limit or inflating like a bomb, the events are refused as such before they are read.
    checkEntryLimit(eventsEntry, TRACE_LIMITS.events);
    const parts = withEvents
      ? await readParts(manifest, () => streamZipEntry(archive, eventsEntry, TRACE_LIMITS.events), eventsEntry.uncompressedSize)
      : undefined;

    const byHex = new Map<string, ZipEntry>();
    const resourcePrefix = `${prefix}${TRACE_FILES.resources}/`;
    for (const [name, entry] of entries) {
      if (!name.startsWith(resourcePrefix)) continue;
      const match = RESOURCE_FILE.exec(name.slice(resourcePrefix.length));
      if (match) byHex.set(match[1]!, entry);
    }
    const reader = new IdleArchive(path, archive.fileSize, mtimeMs, archive);
    handedOver = true;
    const resource = async (ref: string): Promise<Buffer> => {
      const hex = hexOf(ref);
      const entry = byHex.get(hex);
      if (!entry) throw missing(ref);
      const data = await reader.use(async (open) => {
        try {
          return await readZipEntry(open, entry, TRACE_LIMITS.resource);
        } catch (error) {
          throw TraceOpenError.from(error, path);
        }
      });
      return checkAddress(data, hex, entry.fileName);
    };
    return finish({ path, source: 'file', inProgress: false, manifest }, parts, (hex) => byHex.has(hex), resource);
  } catch (error) {
    throw TraceOpenError.from(error, path);
  } finally {
    if (!handedOver) archive.close();
  }
}

/** How long resource reads keep the file open after the last one. */
const IDLE_CLOSE_MS = 2_000;

/**
 * The open archive resource reads share: kept open while screenshots are being browsed or exported and
 * closed after a moment without reads, so an opened trace left in the UI holds no file open. Reopening
 * reads only the end of the archive (the entries found at open are reused) and checks the file is the
 * one that was opened; while open, it keeps reading that file even if it is replaced, and every read is
 * checked against its CRC and content address anyway.
 */
class IdleArchive {
  private archive: Promise<ZipArchive> | undefined;
  private users = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly path: string,
    private readonly size: number,
    private readonly mtimeMs: number,
    initial: ZipArchive,
  ) {
    this.archive = Promise.resolve(initial);
    this.scheduleClose();
  }

  async use<T>(read: (archive: ZipArchive) => Promise<T>): Promise<T> {
    this.users++;
    clearTimeout(this.timer);
    try {
      if (!this.archive) {
        const opening = this.reopen();
        this.archive = opening;
        opening.catch(() => {
          if (this.archive === opening) this.archive = undefined;
        });
      }
      return await read(await this.archive);
    } finally {
      if (--this.users === 0) this.scheduleClose();
    }
  }

  private async reopen(): Promise<ZipArchive> {
    const changed = () => new TraceOpenError('damaged', `${this.path} changed on disk after it was opened; open it again`);
    let archive: ZipArchive;
    try {
      archive = await openZip(this.path);
    } catch (error) {
      if (error instanceof ZipError) throw changed();
      throw TraceOpenError.from(error, this.path);
    }
    // Checked after opening: a file replaced in between shows here, and is refused.
    const now = await stat(this.path).catch((error: unknown) => {
      archive.close();
      throw TraceOpenError.fromIo(error, this.path);
    });
    if (archive.fileSize !== this.size || now.size !== this.size || now.mtimeMs !== this.mtimeMs) {
      archive.close();
      throw changed();
    }
    return archive;
  }

  private scheduleClose(): void {
    this.timer = setTimeout(() => {
      const archive = this.archive;
      this.archive = undefined;
      void archive?.then((a) => a.close()).catch(() => undefined);
    }, IDLE_CLOSE_MS);
    this.timer.unref();
  }
}

async function openFolder(path: string, withEvents: boolean): Promise<TraceResources | OpenedTrace> {
  const read = async (name: string, limit: EntryLimit): Promise<string | undefined> => {
    try {
      return decodeText(await readFileCapped(join(path, name), limit), name);
    } catch (error) {
      if (error instanceof TraceOpenError) throw error;
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw TraceOpenError.fromIo(error, join(path, name));
    }
  };
  const manifestText = await read(TRACE_FILES.manifest, TRACE_LIMITS.manifest);
  if (manifestText === undefined) throw new TraceOpenError('not_parallax_trace', `not a Parallax trace: ${TRACE_FILES.manifest} missing in ${path}`);
  const manifest = readManifest(manifestText);
  const eventsFile = join(path, TRACE_FILES.events);
  const ioError = (error: unknown) => {
    if (error instanceof TraceOpenError) return error;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new TraceOpenError('damaged', `${TRACE_FILES.events} missing in ${path}`);
    return TraceOpenError.fromIo(error, eventsFile);
  };
  const eventsChunks = async function* () {
    try {
      yield* streamFileCapped(eventsFile, TRACE_LIMITS.events);
    } catch (error) {
      throw ioError(error);
    }
  };
  const eventsBytes = await stat(eventsFile).then(
    (s) => s.size,
    (error: unknown) => Promise.reject(ioError(error)),
  );
  const parts = withEvents ? await readParts(manifest, eventsChunks, Math.min(eventsBytes, TRACE_LIMITS.events.maxBytes)) : undefined;
  const inProgress = (await stat(join(path, IN_PROGRESS_MARKER)).catch(() => undefined)) !== undefined;

  const resourcesDir = join(path, TRACE_FILES.resources);
  const byHex = new Map<string, string>();
  const index = async () => {
    byHex.clear();
    const names = await readdir(resourcesDir).catch(() => [] as string[]);
    for (const name of names) {
      const match = RESOURCE_FILE.exec(name);
      if (match) byHex.set(match[1]!, name);
    }
  };
  await index();
  const resource = async (ref: string): Promise<Buffer> => {
    const hex = hexOf(ref);
    // A folder still recording gains resources after it was opened.
    if (!byHex.has(hex) && inProgress) await index();
    const name = byHex.get(hex);
    if (name === undefined) throw missing(ref);
    let data: Buffer;
    try {
      data = await readFileCapped(join(resourcesDir, name), { ...TRACE_LIMITS.resource, what: `${TRACE_FILES.resources}/${name}` });
    } catch (error) {
      if (error instanceof TraceOpenError) throw error;
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw missing(ref);
      throw TraceOpenError.fromIo(error, join(resourcesDir, name));
    }
    return checkAddress(data, hex, `${TRACE_FILES.resources}/${name}`);
  };
  return finish({ path, source: 'folder', inProgress, manifest }, parts, (hex) => byHex.has(hex), resource);
}

function missing(ref: string): TraceOpenError {
  return new TraceOpenError(
    'missing_resource',
    `the trace does not hold the resource ${ref} (${TRACE_FILES.resources}/${ref.slice('sha256:'.length)}.* missing)`,
  );
}

function finish(
  where: Pick<TraceResources, 'path' | 'source' | 'inProgress' | 'manifest'>,
  parts: Awaited<ReturnType<typeof readParts>> | undefined,
  has: (hex: string) => boolean,
  resource: (ref: string) => Promise<Buffer>,
): TraceResources | OpenedTrace {
  const resources: TraceResources = {
    ...where,
    hasResource: (ref) => isResourceRef(ref) && has(ref.slice('sha256:'.length)),
    resource,
    resourceJson: async (ref) => {
      const data = await resource(ref);
      try {
        return parseJsonLossless(decodeText(data, ref));
      } catch (error) {
        if (error instanceof TraceOpenError) throw error;
        throw new TraceOpenError('damaged', `resource ${ref} is not JSON (${error instanceof Error ? error.message : String(error)})`);
      }
    },
  };
  if (!parts) return resources;
  const missingResources = [...referencedResources(parts.events)].filter((ref) => !has(ref.slice('sha256:'.length)));
  return { ...resources, ...parts, missingResources };
}
