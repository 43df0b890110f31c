/**
 * Reopening a trace offline: the steps of a trace file for the trace view, and its resources
 * (screenshots, observations) on demand. No device is involved. The steps are listed by the trace
 * worker (off-thread.ts, docs/rules.md#r-mem-04); the host holds the resources' index only.
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { basename, join, resolve } from 'node:path';
import type { z } from 'zod';
import { MAX_TRACE_BYTES, SavedComparisonSchema, type TraceOpened, type TraceResource, type TraceViewStep } from '@shared/api/api';
import { isRecord } from '@shared/protocol/json';
import { ViewHierarchySchema } from '@shared/protocol/runner';
import { AppStateChangesSchema } from '@shared/trace/app-state';
import { dataDir } from '@main/paths';
import { openTraceResources, TraceOpenError, type TraceResources } from './open';
import { inTraceWorker, jsonArrayParts } from './off-thread';
import type { TimelineStep } from '@shared/trace/reader';
import { replayableTrace, type ReplayableTrace } from './replay-plan';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * Opens a trace file or folder and lists its action steps, parsed in the trace worker: the host's event
 * loop keeps answering, and a trace too large for the worker's heap is refused (docs/rules.md#r-mem-04).
 * Throws TraceOpenError.
 */
export async function openTraceView(path: string): Promise<TraceOpened> {
  const abs = resolve(path);
  // Opened afresh: a folder still recording has grown, a file may have been replaced.
  resourceIndexes.delete(abs);
  // The steps arrive as parts of at most TRACE_PART_CHARS of JSON, each parsed in a turn of its own
  // (docs/rules.md#r-mem-07): the whole listing's structured clone held this thread for tens of seconds.
  const steps = jsonArrayParts<TraceViewStep>();
  const opened = await inTraceWorker('view', abs, undefined, { onPart: steps.onPart });
  return { ...opened, steps: steps.items };
}

/** An export of a trace, made in the trace worker (its events are never parsed on the host's thread). */
export const exportTraceMaestro = (path: string) => inTraceWorker('maestro', resolve(path));
export const exportTraceXcuiTest = (path: string) => inTraceWorker('xcuitest', resolve(path));

/**
 * A trace to replay: its actions listed by the trace worker, its frames read from its index on demand
 * (docs/rules.md#r-mem-04), so the host holds the actions and never the events. Throws TraceOpenError.
 */
export async function openReplayableTrace(path: string): Promise<ReplayableTrace> {
  const abs = resolve(path);
  // Its actions arrive as parts, as the view's steps do (docs/rules.md#r-mem-08).
  const actions = jsonArrayParts<TimelineStep>();
  const plan = { ...(await inTraceWorker('replay', abs, undefined, { onPart: actions.onPart })), actions: actions.items };
  // A fresh index: a folder still recording has grown since the view read it.
  resourceIndexes.delete(abs);
  return replayableTrace(plan, await resourcesOf(abs));
}

/** The resource indexes of the traces on screen, newest last: a zip directory or a folder listing each. */
const resourceIndexes = new Map<string, Promise<TraceResources>>();
const RESOURCE_INDEXES_KEPT = 8;

function resourcesOf(path: string): Promise<TraceResources> {
  const abs = resolve(path);
  let index = resourceIndexes.get(abs);
  resourceIndexes.delete(abs);
  if (!index) {
    index = openTraceResources(abs);
    index.catch(() => {
      if (resourceIndexes.get(abs) === index) resourceIndexes.delete(abs);
    });
  }
  resourceIndexes.set(abs, index);
  for (const old of resourceIndexes.keys()) {
    if (resourceIndexes.size <= RESOURCE_INDEXES_KEPT) break;
    resourceIndexes.delete(old);
  }
  return index;
}

/** A step's stored screen (its JSON) and screenshot, read from the trace's index: no events are parsed on the host (R-MEM-04). */
export async function storedFrameOf(path: string, observationRef: string, screenshotRef?: string): Promise<{ json: unknown; png?: Buffer | undefined }> {
  const trace = await resourcesOf(path);
  return { json: await trace.resourceJson(observationRef), png: screenshotRef ? await trace.resource(screenshotRef) : undefined };
}

/**
 * One resource of an opened trace, decoded as the kind the caller expects it to be: a screenshot
 * (PNG bytes), a recorded screen (a ViewHierarchy; a trace of an older writer may hold a whole
 * Observation, whose tree is taken), or a saved comparison's diff. Anything else is a typed
 * TraceOpenError naming the resource, never data passed on unchecked.
 */
export async function traceResource(path: string, ref: string, as: TraceResource['kind']): Promise<TraceResource> {
  const trace = await resourcesOf(path);
  if (as === 'png') {
    const data = await trace.resource(ref);
    if (!data.subarray(0, 8).equals(PNG_SIGNATURE)) throw new TraceOpenError('bad_resource', `resource ${ref} is not a PNG screenshot`);
    return { kind: 'png', dataBase64: data.toString('base64') };
  }
  const json = await trace.resourceJson(ref);
  if (as === 'appState') {
    const changes = AppStateChangesSchema.safeParse(json);
    if (!changes.success) throw new TraceOpenError('bad_resource', `resource ${ref} is not an app state: ${firstIssue(changes.error)}`);
    return { kind: 'appState', appState: changes.data };
  }
  if (as === 'comparison') {
    const comparison = SavedComparisonSchema.safeParse(json);
    if (!comparison.success) throw new TraceOpenError('bad_resource', `resource ${ref} is not a saved comparison: ${firstIssue(comparison.error)}`);
    return { kind: 'comparison', comparison: comparison.data };
  }
  const whole = isRecord(json) && 'viewHierarchy' in json ? json['viewHierarchy'] : json;
  const hierarchy = ViewHierarchySchema.safeParse(whole);
  if (!hierarchy.success) throw new TraceOpenError('bad_resource', `resource ${ref} is not a recorded screen: ${firstIssue(hierarchy.error)}`);
  return { kind: 'hierarchy', hierarchy: hierarchy.data };
}

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'does not match';
}

/**
 * Dropped files are copies: the newest few stay (the trace on screen reads its resources and replays
 * from its copy), older ones go when the next drop starts, so copies never pile up under PARALLAX_HOME.
 */
export const OPENED_COPIES_KEPT = 4;

/** Copies still being written: never pruned from under their upload. */
const receiving = new Set<string>();

async function pruneOpenedCopies(keep: number): Promise<void> {
  const dir = openedCopiesDir();
  const inUse = receiving;
  const copies = await Promise.all(
    (await readdir(dir).catch(() => [] as string[])).map(async (name) => {
      const file = join(dir, name);
      return { file, mtimeMs: (await stat(file).catch(() => undefined))?.mtimeMs ?? 0 };
    }),
  );
  const old = copies
    .filter((c) => !inUse.has(c.file))
    .sort((a, b) => b.mtimeMs - a.mtimeMs)
    .slice(keep);
  await Promise.all(old.map((c) => rm(c.file, { force: true })));
}

/** Where the copies of uploaded traces are kept, under PARALLAX_HOME. */
export function openedCopiesDir(): string {
  return join(dataDir(), 'opened-traces');
}

function safeName(name: string): string {
  const base = basename(name)
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .slice(-120);
  return base === '' || base === '.' || base === '..' ? 'trace.parallax-trace' : base;
}

/**
 * A file the user picked or dropped in a browser: the page has its bytes but no path, so they arrive as
 * a stream (the web host's upload), are written to a copy under PARALLAX_HOME, and the copy is opened.
 * Throws TraceOpenError; a stream over the limit is cut off and leaves no copy behind.
 */
export async function receiveTrace(name: string, body: AsyncIterable<Uint8Array>): Promise<TraceOpened> {
  await mkdir(openedCopiesDir(), { recursive: true });
  // Room for this one among the kept copies.
  await pruneOpenedCopies(OPENED_COPIES_KEPT - 1);
  const file = join(openedCopiesDir(), `${randomUUID()}-${safeName(name)}`);
  receiving.add(file);
  try {
    let received = 0;
    const limited = async function* () {
      for await (const chunk of body) {
        received += chunk.length;
        if (received > MAX_TRACE_BYTES)
          throw new TraceOpenError('unreadable', `${name} is larger than ${MAX_TRACE_BYTES / (1024 * 1024)} MiB, more than a trace may be`);
        yield chunk;
      }
    };
    await pipeline(Readable.from(limited()), createWriteStream(file));
  } catch (error) {
    await rm(file, { force: true });
    throw error instanceof TraceOpenError
      ? error
      : new TraceOpenError('unreadable', `${name} did not arrive whole: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    receiving.delete(file);
  }
  try {
    return await openTraceView(file);
  } catch (error) {
    // A copy that does not open is no use to anyone: a failed upload leaves nothing (docs/rules.md#r-path-04).
    resourceIndexes.delete(file);
    await rm(file, { force: true });
    throw error;
  }
}

/** How many recent traces the list offers. */
export const RECENT_TRACES = 20;

/** The `.parallax-trace` files in `dir` (where recordings are packed), newest first. */
export async function recentTraces(dir: string): Promise<{ path: string; name: string; bytes: number; modifiedAt: number }[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const found = await Promise.all(
    names
      .filter((name) => name.endsWith('.parallax-trace'))
      .map(async (name) => {
        const path = join(dir, name);
        const info = await stat(path).catch(() => undefined);
        return info?.isFile() ? { path, name, bytes: info.size, modifiedAt: info.mtimeMs } : undefined;
      }),
  );
  return found
    .filter((entry) => entry !== undefined)
    .sort((a, b) => b.modifiedAt - a.modifiedAt)
    .slice(0, RECENT_TRACES);
}
