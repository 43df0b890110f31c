/**
 * Reopening a trace offline: the steps of a trace file for the trace view, and its resources
 * (screenshots, observations) on demand. No device is involved.
 */
import { visibleText } from '@shared/model/visible-text';
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
import { filmstripNumbers, isFilmstripStep } from '@shared/trace/reader';
import { ActionResultSchema } from '@shared/protocol/action';
import { recordedActionText } from '@shared/trace/action-record';
import { stepVariable, traceVariables } from '@shared/trace/variables';
import type { TraceAction, TraceTarget } from '@shared/trace/schema';
import { AppStateChangesSchema } from '@shared/trace/app-state';
import { dataDir } from '@main/paths';
import { TRACE_LIMITS } from './limits';
import { openTraceFile, TraceOpenError, type OpenedTrace } from './index';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * The opened traces kept for their resources and exports, by path, oldest first. Counted by the size
 * of their events (what their object graphs grow with), at most OPENED_TRACES_BYTES between them
 * beside the newest (docs/rules.md#r-mem-02): a trace about to be parsed first lets go of older ones,
 * so the host holds one trace at the limit, never several.
 */
const cache = new Map<string, { trace: Promise<OpenedTrace>; bytes: number }>();
export const OPENED_TRACES_BYTES = TRACE_LIMITS.events.maxBytes;

function makeRoom(keep: string, bytes: number): void {
  const entry = cache.get(keep);
  if (entry) entry.bytes = bytes;
  let total = 0;
  for (const e of cache.values()) total += e.bytes;
  for (const [path, e] of cache) {
    if (total <= OPENED_TRACES_BYTES) break;
    if (path === keep) continue;
    cache.delete(path);
    total -= e.bytes;
  }
}

/** A trace file or folder, parsed, from the cache of the last few opened. Throws TraceOpenError. */
export function openedTrace(path: string, fresh = false): Promise<OpenedTrace> {
  const abs = resolve(path);
  const cached = fresh ? undefined : cache.get(abs);
  if (cached) {
    // Used again: the newest, the last to go.
    cache.delete(abs);
    cache.set(abs, cached);
    return cached.trace;
  }
  const trace = openTraceFile(abs, { makeRoom: (bytes) => makeRoom(abs, bytes) });
  const entry = { trace, bytes: 0 };
  cache.delete(abs);
  cache.set(abs, entry);
  trace.catch(() => {
    if (cache.get(abs) === entry) cache.delete(abs);
  });
  return trace;
}

/** The step's target in one line ("#login.submit \"Sign In\""), as the trace view and `parallax audit TRACE` name it. */
export function describeTarget(target: TraceTarget | undefined): string {
  if (!target) return '';
  const selector = target.selector ?? {};
  const node = target.node ?? {};
  const pick = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const id = pick(selector['id']) ?? pick(node['resource-id']) ?? pick(node['identifier']);
  const text = pick(selector['text']) ?? pick(node['text']) ?? pick(node['content-desc']) ?? pick(node['label']);
  const parts: string[] = [];
  if (id) parts.push(`#${id}`);
  if (text) parts.push(`"${text.length > 40 ? `${text.slice(0, 40)}…` : text}"`);
  if (target.point) parts.push(`at ${Math.round(target.point.x)},${Math.round(target.point.y)}`);
  return parts.join(' ');
}

function refsOf(event: { observationRef?: string | undefined; screenshotRef?: string | undefined; time?: number } | undefined) {
  if (!event || (!event.observationRef && !event.screenshotRef)) return undefined;
  return {
    ...(event.observationRef ? { observationRef: event.observationRef } : {}),
    ...(event.screenshotRef ? { screenshotRef: event.screenshotRef } : {}),
    ...(event.time !== undefined ? { time: event.time } : {}),
  };
}

/** The one text a sendKeys types, when the trace holds it (the editor's text field). */
function textOf(action: TraceAction): { text?: string } {
  return action.kind === 'sendKeys' && typeof action['text'] === 'string' ? { text: action['text'] } : {};
}

/** Where the finger went (docs/rules.md#r-edit-08): a touch's point, a swipe's stroke; nothing for the rest. */
function gestureOf(action: TraceAction, target: TraceTarget | undefined): { gesture?: NonNullable<TraceViewStep['gesture']> } {
  const point = (value: unknown) => {
    if (!isRecord(value)) return undefined;
    const { x, y } = value;
    return typeof x === 'number' && typeof y === 'number' ? { x, y } : undefined;
  };
  if (action.kind === 'tap' || action.kind === 'doubleTap' || action.kind === 'longPress') {
    const at = point(target?.point);
    return at ? { gesture: { kind: action.kind, at } } : {};
  }
  if (action.kind === 'swipe') {
    const from = point(action['start']);
    const to = point(action['end']);
    return from && to ? { gesture: { kind: 'swipe', from, to } } : {};
  }
  return {};
}

/** Opens a trace file or folder and lists its action steps. Throws TraceOpenError. */
export async function openTraceView(path: string): Promise<TraceOpened> {
  const trace = await openedTrace(path, true);
  const steps: TraceViewStep[] = [];
  const numbers = filmstripNumbers(trace.timeline);
  for (const step of trace.timeline) {
    if (!isFilmstripStep(step) || !step.before) continue;
    const result = step.after?.result;
    const before = refsOf(step.before);
    const after = refsOf(step.after);
    // The whole result as the live timeline shows it; a result an older writer kept otherwise is left to the summary.
    const whole = result ? ActionResultSchema.safeParse(result) : undefined;
    const number = numbers.get(step.callId);
    const variable = number === undefined ? undefined : stepVariable(step, number);
    steps.push({
      callId: step.callId,
      kind: step.before.action.kind,
      // Display text: a bidirectional control shows as <U+202E>, it does not reorder the label (docs/rules.md#r-show-01).
      action: visibleText(recordedActionText(step.before.action)),
      target: visibleText(describeTarget(step.before.target)),
      ...(step.before.label !== undefined ? { label: visibleText(step.before.label) } : {}),
      ...textOf(step.before.action),
      ...gestureOf(step.before.action, step.before.target),
      ...(variable !== undefined ? { variable } : {}),
      status: step.status,
      statusText: step.statusText,
      startTime: step.startTime,
      ...(step.durationMs !== undefined ? { durationMs: step.durationMs } : {}),
      result: result
        ? {
            success: result.success,
            ...(result.backend !== undefined ? { backend: result.backend } : {}),
            ...(result.fallbackReason !== undefined ? { fallbackReason: result.fallbackReason } : {}),
            ...(result.failureReason !== undefined ? { failureReason: result.failureReason } : {}),
          }
        : null,
      ...(whole?.success ? { actionResult: whole.data } : {}),
      ...(before ? { before } : {}),
      ...(after ? { after } : {}),
      ...(step.after?.appStateRef ? { appStateRef: step.after.appStateRef } : {}),
      ...(step.perf ? { perf: step.perf } : {}),
    });
  }
  return {
    path: trace.path,
    manifest: {
      createdAt: trace.manifest.createdAt,
      ...(trace.manifest.edited ? { edited: { ...trace.manifest.edited } } : {}),
      device: { name: trace.manifest.device.name, kind: trace.manifest.device.kind, url: trace.manifest.device.url },
      ...(trace.manifest.app ? { app: { ...trace.manifest.app } } : {}),
    },
    steps,
    comparisons: trace.timeline.flatMap((step) =>
      step.comparisons.map((c) => ({
        callId: c.callId,
        time: c.time,
        summary: c.summary,
        xctestObservationRef: c.xctestObservationRef,
        sdkObservationRef: c.sdkObservationRef,
        ...(c.diffRef ? { diffRef: c.diffRef } : {}),
        ...(c.screenshotRef ? { screenshotRef: c.screenshotRef } : {}),
      })),
    ),
    variables: traceVariables(trace.timeline),
    warnings: [
      ...(trace.truncatedTail ? ['The last line of the events was cut off mid-write and was left out.'] : []),
      ...(trace.missingResources.length > 0 ? [`${trace.missingResources.length} resource(s) the events name are missing from the trace.`] : []),
    ],
  };
}

/**
 * One resource of an opened trace, decoded as the kind the caller expects it to be: a screenshot
 * (PNG bytes), a recorded screen (a ViewHierarchy; a trace of an older writer may hold a whole
 * Observation, whose tree is taken), or a saved comparison's diff. Anything else is a typed
 * TraceOpenError naming the resource, never data passed on unchecked.
 */
export async function traceResource(path: string, ref: string, as: TraceResource['kind']): Promise<TraceResource> {
  const trace = await openedTrace(path);
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
    cache.delete(file);
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
