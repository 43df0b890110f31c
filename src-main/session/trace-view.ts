/**
 * Reopening a trace offline (issue 6): the steps of a trace file for the trace view, and its resources
 * (screenshots, observations) on demand. No device is involved.
 */
import { randomUUID } from 'node:crypto';
import { appendFile, mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { TraceOpened, TraceResource, TraceViewStep } from '../../src-shared/protocol/api';
import type { TraceTarget } from '../../src-shared/trace/schema';
import { dataDir } from '../paths';
import { openTraceFile, TraceOpenError, type OpenedTrace } from '../trace/index';

/** The largest file drag and drop may hand over. */
export const MAX_TRACE_BYTES = 512 * 1024 * 1024;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const cache = new Map<string, Promise<OpenedTrace>>();
const CACHE_SIZE = 4;

/** A trace file or folder, parsed, from a small cache of the last few opened. Throws TraceOpenError. */
export function openedTrace(path: string, fresh = false): Promise<OpenedTrace> {
  const abs = resolve(path);
  let trace = fresh ? undefined : cache.get(abs);
  if (!trace) {
    trace = openTraceFile(abs);
    cache.set(abs, trace);
    trace.catch(() => cache.delete(abs));
    while (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  }
  return trace;
}

function describeTarget(target: TraceTarget | undefined): string {
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

function refsOf(event: { observationRef?: string | undefined; screenshotRef?: string | undefined } | undefined) {
  if (!event || (!event.observationRef && !event.screenshotRef)) return undefined;
  return { ...(event.observationRef ? { observationRef: event.observationRef } : {}), ...(event.screenshotRef ? { screenshotRef: event.screenshotRef } : {}) };
}

/** Opens a trace file or folder and lists its action steps. Throws TraceOpenError. */
export async function openTraceView(path: string): Promise<TraceOpened> {
  const trace = await openedTrace(path, true);
  const steps: TraceViewStep[] = [];
  for (const step of trace.timeline) {
    if (step.kind !== 'action' || !step.before) continue;
    const result = step.after?.result;
    const before = refsOf(step.before);
    const after = refsOf(step.after);
    steps.push({
      callId: step.callId,
      kind: step.before.action.kind,
      target: describeTarget(step.before.target),
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
      ...(before ? { before } : {}),
      ...(after ? { after } : {}),
    });
  }
  return {
    path: trace.path,
    manifest: {
      createdAt: trace.manifest.createdAt,
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
    warnings: [
      ...(trace.truncatedTail ? ['The last line of the events was cut off mid-write and was left out.'] : []),
      ...(trace.missingResources.length > 0 ? [`${trace.missingResources.length} resource(s) the events name are missing from the trace.`] : []),
    ],
  };
}

/** One resource of an opened trace: a screenshot as PNG, anything else as JSON. Throws TraceOpenError. */
export async function traceResource(path: string, ref: string): Promise<TraceResource> {
  const trace = await openedTrace(path);
  const data = await trace.resource(ref);
  if (data.subarray(0, 8).equals(PNG_SIGNATURE)) return { kind: 'png', dataBase64: data.toString('base64') };
  return { kind: 'json', json: await trace.resourceJson(ref) };
}

const uploads = new Map<string, { file: string; received: number }>();

/**
 * Dropped files are copies: the newest few stay (the trace on screen reads its resources and replays
 * from its copy), older ones go when the next drop starts, so copies never pile up under PARALLAX_HOME.
 */
export const OPENED_COPIES_KEPT = 4;

async function pruneOpenedCopies(keep: number): Promise<void> {
  const dir = uploadDir();
  const inUse = new Set([...uploads.values()].map((u) => u.file));
  const copies = await Promise.all(
    (await readdir(dir).catch(() => [] as string[])).map(async (name) => {
      const file = join(dir, name);
      return { file, mtimeMs: (await stat(file).catch(() => undefined))?.mtimeMs ?? 0 };
    }),
  );
  const old = copies.filter((c) => !inUse.has(c.file)).sort((a, b) => b.mtimeMs - a.mtimeMs).slice(keep);
  await Promise.all(old.map((c) => rm(c.file, { force: true })));
}

function uploadDir(): string {
  return join(dataDir(), 'opened-traces');
}

function safeName(name: string): string {
  const base = basename(name).replace(/[^A-Za-z0-9._-]+/g, '_').slice(-120);
  return base === '' || base === '.' || base === '..' ? 'trace.parallax-trace' : base;
}

/**
 * Drag and drop: the renderer has the bytes but no path. They go to a file under PARALLAX_HOME, in one
 * part or several (a host's message size limit), and the last part opens it.
 */
export async function openTraceBytes(input: { name: string; dataBase64: string; uploadId?: string | undefined; done?: boolean | undefined }): Promise<TraceOpened | { uploadId: string; received: number }> {
  const bytes = Buffer.from(input.dataBase64, 'base64');
  let upload = input.uploadId ? uploads.get(input.uploadId) : undefined;
  if (input.uploadId && !upload) throw new TraceOpenError('unreadable', `upload ${input.uploadId} is unknown (it was finished, or the host restarted)`);
  const id = input.uploadId ?? randomUUID();
  if (!upload) {
    await mkdir(uploadDir(), { recursive: true });
    // Room for this one among the kept copies.
    await pruneOpenedCopies(OPENED_COPIES_KEPT - 1);
    upload = { file: join(uploadDir(), `${id}-${safeName(input.name)}`), received: 0 };
    await writeFile(upload.file, new Uint8Array(0));
    uploads.set(id, upload);
  }
  if (upload.received + bytes.length > MAX_TRACE_BYTES) {
    uploads.delete(id);
    await rm(upload.file, { force: true });
    throw new TraceOpenError('unreadable', `${input.name} is larger than ${MAX_TRACE_BYTES / (1024 * 1024)} MiB, more than a trace may be`);
  }
  await appendFile(upload.file, new Uint8Array(bytes));
  upload.received += bytes.length;
  if (input.done === false) return { uploadId: id, received: upload.received };
  uploads.delete(id);
  await stat(upload.file);
  return openTraceView(upload.file);
}

