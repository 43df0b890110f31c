/**
 * Records a session as a trace (docs/protocol.md#p-trace), written as it happens so a crash or a kill
 * loses at most the step in flight.
 *
 * Durability order, per step: a resource's bytes are flushed and then renamed into place; the resources
 * folder is synced before the event that names them is written; each batch of event lines is written
 * in one go and flushed before its appends resolve. So an event that survived a crash always finds its
 * resources, and a line on disk is either whole or the last one (which the reader drops).
 *
 * Appends that arrive while a flush is running are written together in the next one (one flush for the
 * batch, not one per event), and always in call order: the seq is assigned when `append` is called.
 */
import { createHash } from 'node:crypto';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { encodeTraceEvent, encodeTraceManifest } from '@shared/trace/encode';
import { parseJsonLossless, stringifyJsonLossless } from '@shared/protocol/json';
import { redactForTrace } from '@shared/trace/redact';
import { resourcePath, resourceRef, TRACE_FILES, type ResourceKind, type ResourceRef, type TraceEvent, type TraceManifest } from '@shared/trace/schema';
import {
  activeTraceIds,
  currentBootTime,
  IN_PROGRESS_MARKER,
  IN_PROGRESS_SUFFIX,
  newTraceId,
  removeTraceFolder,
  syncDir,
  TRACE_FILE_EXTENSION,
  writeFileDurable,
  type InProgressMarker,
} from './files';
import { packTraceFolder, type PackReport } from './pack';
import { writeFully } from './zip';

/** The manifest as a caller gives it: format and version are the writer's, createdAt defaults to now. */
export type TraceManifestInput = Omit<TraceManifest, 'format' | 'version' | 'createdAt'> & Partial<Pick<TraceManifest, 'format' | 'version' | 'createdAt'>>;

type WithOptionalStamp<T> = T extends unknown ? Omit<T, 'seq' | 'time'> & { seq?: number; time?: number } : never;
/** An event as a caller gives it: seq defaults to the next one, time to now. */
export type TraceEventInput = WithOptionalStamp<TraceEvent>;

export interface TraceRecorderOptions {
  /** Where in-progress folders and (by default) finished traces go. */
  dir: string;
  manifest: TraceManifestInput;
  /**
   * Strings that must never reach disk (the web host's token, an AppReveal session token). Redaction
   * ignores strings shorter than 8 characters (they would blank out ordinary words), so a secret must be
   * at least that long to be caught by value; tokens under a secret-looking key are dropped whatever their length.
   */
  secrets?: readonly string[];
  /** Defaults to a new time-sortable id. */
  traceId?: string;
}

export interface TraceRecorderStats {
  events: number;
  /** Resource files written. */
  resources: number;
  /** addResource calls answered by a resource already written. */
  deduplicated: number;
  /** Bytes written into the folder (events and resources). */
  bytes: number;
  /** Event flushes; fewer than events when appends arrived together. */
  flushes: number;
}

interface Pending {
  line: Buffer;
  /** The writes of the resources the event names; the line waits for them. */
  deps: Promise<unknown>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

export class TraceRecorderError extends Error {
  override readonly name = 'TraceRecorderError';
}

export class TraceRecorder {
  readonly traceId: string;
  /** The in-progress folder, `<dir>/<traceId>.parallax-trace.d`. */
  readonly folder: string;
  readonly dir: string;

  private readonly secrets: string[];
  private readonly events: FileHandle;
  private readonly resourcesDir: string;
  /** Resource writes by path, in flight or done; a second identical resource waits for or skips the first. */
  private readonly resources = new Map<string, Promise<void>>();
  /** Every reference added, to check that an event names only resources of this trace, and to wait for their writes. */
  private readonly known = new Map<ResourceRef, Promise<void>>();
  private queue: Pending[] = [];
  private flushing: Promise<void> | undefined;
  private nextSeq = 0;
  private eventsSize = 0;
  private resourcesDirDirty = false;
  /** Set when the events file could not be repaired after a failed write; later appends would land after a broken line. */
  private broken: unknown;
  private stopping: Promise<PackReport> | undefined;
  private readonly counters: TraceRecorderStats = { events: 0, resources: 0, deduplicated: 0, bytes: 0, flushes: 0 };

  private constructor(dir: string, traceId: string, folder: string, events: FileHandle, secrets: string[]) {
    this.dir = dir;
    this.traceId = traceId;
    this.folder = folder;
    this.events = events;
    this.secrets = secrets;
    this.resourcesDir = join(folder, TRACE_FILES.resources);
  }

  /** Creates the in-progress folder, durably, and returns a recorder writing into it. */
  static async start(options: TraceRecorderOptions): Promise<TraceRecorder> {
    const dir = resolve(options.dir);
    const traceId = options.traceId ?? newTraceId();
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(traceId)) throw new TraceRecorderError(`trace id ${JSON.stringify(traceId)} is not a safe file name`);
    const secrets = [...(options.secrets ?? [])];
    const manifestText = encodeTraceManifest({ ...options.manifest, createdAt: options.manifest.createdAt ?? new Date().toISOString() }, { secrets });
    if (activeTraceIds.has(traceId)) throw new TraceRecorderError(`trace ${traceId} is already being recorded`);
    activeTraceIds.add(traceId);
    const folder = join(dir, `${traceId}${IN_PROGRESS_SUFFIX}`);
    try {
      await mkdir(dir, { recursive: true });
      // Not recursive: an existing folder means another recording with this id, never to be shared.
      await mkdir(folder);
    } catch (error) {
      activeTraceIds.delete(traceId);
      throw error;
    }
    let events: FileHandle | undefined;
    try {
      await mkdir(join(folder, TRACE_FILES.resources));
      await writeFileDurable(join(folder, TRACE_FILES.manifest), manifestText);
      events = await open(join(folder, TRACE_FILES.events), 'a');
      await events.datasync();
      const marker: InProgressMarker = { traceId, pid: process.pid, bootTime: currentBootTime(), startedAt: new Date().toISOString() };
      // Last: a folder with the marker always has its manifest and events file.
      await writeFileDurable(join(folder, IN_PROGRESS_MARKER), `${JSON.stringify(marker)}\n`);
      await syncDir(folder);
      await syncDir(dir);
    } catch (error) {
      activeTraceIds.delete(traceId);
      await events?.close().catch(() => undefined);
      await removeTraceFolder(folder).catch(() => undefined);
      throw error;
    }
    return new TraceRecorder(dir, traceId, folder, events, secrets);
  }

  /** Adds a string that must not reach disk from now on (a session token learned mid-session). */
  addSecret(secret: string): void {
    if (!this.secrets.includes(secret)) this.secrets.push(secret);
  }

  stats(): TraceRecorderStats {
    return { ...this.counters };
  }

  /**
   * Stores a screenshot (PNG bytes) or an observation / comparison (an object, or its JSON bytes) under
   * its content address and returns the reference. JSON is redacted before it is hashed, so the address
   * is that of the bytes on disk and two observations differing only in a secret share one file.
   */
  async addResource(kind: ResourceKind, data: Buffer | Uint8Array | object): Promise<ResourceRef> {
    this.assertOpen();
    let bytes: Buffer;
    if (kind === 'screenshot') {
      if (!(data instanceof Uint8Array)) throw new TraceRecorderError('a screenshot resource must be image bytes');
      bytes = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    } else {
      let value: unknown = data;
      if (data instanceof Uint8Array) {
        try {
          value = parseJsonLossless(Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8'));
        } catch (error) {
          throw new TraceRecorderError(`a ${kind} resource must be JSON: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      bytes = Buffer.from(stringifyJsonLossless(redactForTrace(value, { secrets: this.secrets })), 'utf8');
    }
    const ref = resourceRef(createHash('sha256').update(bytes).digest('hex'));
    const path = join(this.folder, resourcePath(ref, kind));
    let write = this.resources.get(path);
    if (write) {
      this.counters.deduplicated++;
    } else {
      write = this.writeResource(path, bytes);
      this.resources.set(path, write);
      // A failed write is forgotten, so adding the same bytes again retries it.
      write.catch(() => {
        if (this.resources.get(path) === write) this.resources.delete(path);
        if (this.known.get(ref) === write) this.known.delete(ref);
      });
    }
    if (!this.known.has(ref)) this.known.set(ref, write);
    await write;
    return ref;
  }

  private async writeResource(path: string, bytes: Buffer): Promise<void> {
    await writeFileDurable(path, bytes);
    this.resourcesDirDirty = true;
    this.counters.resources++;
    this.counters.bytes += bytes.length;
  }

  /**
   * Appends one event and resolves once its line is on disk and flushed. Redacts it and checks it
   * against the schema first (throws TraceEncodeError without writing anything when it does not fit).
   */
  async append(event: TraceEventInput): Promise<void> {
    this.assertOpen();
    const seq = event.seq ?? this.nextSeq;
    if (!Number.isInteger(seq) || seq < this.nextSeq) {
      throw new TraceRecorderError(`seq ${seq} does not follow ${this.nextSeq - 1}; seq must increase through the trace`);
    }
    const full = { ...event, seq, time: event.time ?? Date.now() } as TraceEvent;
    const deps: Promise<void>[] = [];
    for (const [key, value] of Object.entries(full)) {
      if (!key.endsWith('Ref') || typeof value !== 'string') continue;
      const write = this.known.get(value);
      if (!write) throw new TraceRecorderError(`${key} ${value} was not added to this trace with addResource`);
      deps.push(write);
    }
    const line = Buffer.from(encodeTraceEvent(full, { secrets: this.secrets }), 'utf8');
    this.nextSeq = seq + 1;
    await new Promise<void>((resolve, reject) => {
      this.queue.push({ line, deps: Promise.all(deps), resolve, reject });
      this.flushing ??= this.flush().finally(() => {
        this.flushing = undefined;
      });
    });
  }

  private async flush(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      const ready = await Promise.all(
        batch.map((item) =>
          item.deps.then(
            () => true,
            (error: unknown) => {
              item.reject(
                new TraceRecorderError(`not recorded: a resource it names could not be written (${error instanceof Error ? error.message : String(error)})`),
              );
              return false;
            },
          ),
        ),
      );
      const writable = batch.filter((_, i) => ready[i]);
      if (writable.length === 0) continue;
      if (this.broken !== undefined) {
        for (const item of writable) item.reject(this.broken);
        continue;
      }
      try {
        if (this.resourcesDirDirty) {
          this.resourcesDirDirty = false;
          await syncDir(this.resourcesDir);
        }
        const data = writable.length === 1 ? writable[0]!.line : Buffer.concat(writable.map((item) => item.line));
        await writeFully(this.events, data);
        await this.events.datasync();
        this.eventsSize += data.length;
        this.counters.events += writable.length;
        this.counters.bytes += data.length;
        this.counters.flushes++;
        for (const item of writable) item.resolve();
      } catch (error) {
        // Part of the batch may be on disk; cut it off so the next line does not start mid-line.
        try {
          await this.events.truncate(this.eventsSize);
        } catch {
          this.broken = error;
        }
        for (const item of writable) item.reject(error);
      }
    }
  }

  private assertOpen(): void {
    if (this.stopping) throw new TraceRecorderError('the recording has stopped');
  }

  /**
   * Stops recording: waits for every write in flight, packs the folder into one `.parallax-trace` file
   * (default `<dir>/<traceId>.parallax-trace`) and removes the folder. Calling it again returns the same result.
   */
  stop(options: { outFile?: string } = {}): Promise<string> {
    return this.stopWithReport(options).then((report) => report.outFile);
  }

  /** `stop`, with what was packed (events, steps, resources, bytes). */
  stopWithReport(options: { outFile?: string } = {}): Promise<PackReport> {
    this.stopping ??= (async () => {
      while (this.flushing) await this.flushing;
      await Promise.allSettled(this.resources.values());
      await this.events.close();
      const outFile = resolve(options.outFile ?? join(this.dir, `${this.traceId}${TRACE_FILE_EXTENSION}`));
      let report: PackReport;
      try {
        report = await packTraceFolder(this.folder, outFile);
      } finally {
        // Packed or not, this process is done with the folder; if packing failed it is offered for recovery.
        activeTraceIds.delete(this.traceId);
      }
      await removeTraceFolder(this.folder);
      return report;
    })();
    return this.stopping;
  }
}
