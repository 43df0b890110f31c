/**
 * After a crash: find the recordings that never stopped, and pack what they hold, so the next start can
 * offer to recover each unfinished trace (docs/protocol.md#p-trace).
 *
 * A recording's folder carries an `.in-progress` marker from its start until it has been packed, and the
 * marker names the process writing it, so a second running Parallax is not offered a trace that the
 * first is still recording.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { buildTimeline } from '@shared/trace/reader';
import type { TraceManifest } from '@shared/trace/schema';
import {
  IN_PROGRESS_MARKER,
  IN_PROGRESS_SUFFIX,
  InProgressMarkerSchema,
  markerOwnerAlive,
  removeTraceFolder,
  TRACE_FILE_EXTENSION,
  type InProgressMarker,
} from './files';
import { packTraceFolder, readTraceFolder, type PackReport } from './pack';
import { TraceOpenError } from './errors';

export interface UnfinishedTrace {
  folder: string;
  traceId: string;
  manifest?: TraceManifest;
  /** Timeline steps (calls) recorded whole or in part. */
  steps: number;
  /** Of those, the actions: what a user counts as what they did (observations are not). */
  actions: number;
  events: number;
  /** Epoch ms of the last event that reads back; undefined when none does. */
  lastEventTime?: number;
  startedAt?: string;
  /** The last line was cut off by the crash and will be dropped. */
  truncatedTail: boolean;
  /** Why the folder cannot be recovered (no readable manifest), or what recovery will drop. */
  problem?: string;
  /** The recording process still seems to run (only listed with `includeLive`). */
  live: boolean;
}

async function readMarker(folder: string): Promise<InProgressMarker | 'absent' | 'unreadable'> {
  let text: string;
  try {
    text = await readFile(join(folder, IN_PROGRESS_MARKER), 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'absent' : 'unreadable';
  }
  try {
    const parsed = InProgressMarkerSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : 'unreadable';
  } catch {
    // A marker cut short by a crash still marks the folder as unfinished.
    return 'unreadable';
  }
}

/**
 * The unfinished recordings in `dir`, newest first. Recordings whose process is still running (in this
 * process or another) are left out unless `includeLive`.
 */
export async function findUnfinishedTraces(dir: string, options: { includeLive?: boolean } = {}): Promise<UnfinishedTrace[]> {
  const root = resolve(dir);
  let names: string[];
  try {
    names = await readdir(root);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const found: UnfinishedTrace[] = [];
  for (const name of names) {
    if (!name.endsWith(IN_PROGRESS_SUFFIX)) continue;
    const folder = join(root, name);
    if (!(await stat(folder).catch(() => undefined))?.isDirectory()) continue;
    const marker = await readMarker(folder);
    if (marker === 'absent') continue;
    const live = marker !== 'unreadable' && markerOwnerAlive(marker);
    if (live && !options.includeLive) continue;
    const entry: UnfinishedTrace = {
      folder,
      traceId: marker === 'unreadable' ? name.slice(0, -IN_PROGRESS_SUFFIX.length) : marker.traceId,
      steps: 0,
      actions: 0,
      events: 0,
      truncatedTail: false,
      live,
    };
    if (marker !== 'unreadable') entry.startedAt = marker.startedAt;
    try {
      const contents = await readTraceFolder(folder);
      entry.manifest = contents.manifest;
      entry.events = contents.events.length;
      const timeline = buildTimeline(contents.events);
      entry.steps = timeline.length;
      entry.actions = timeline.filter((step) => step.kind === 'action').length;
      entry.truncatedTail = contents.truncatedTail;
      const last = contents.events.at(-1);
      if (last) entry.lastEventTime = last.time;
      if (contents.damage !== undefined) entry.problem = `recovery keeps the events before the damage: ${contents.damage}`;
    } catch (error) {
      entry.problem = error instanceof Error ? error.message : String(error);
    }
    found.push(entry);
  }
  const when = (t: UnfinishedTrace) => t.lastEventTime ?? (t.startedAt ? Date.parse(t.startedAt) : 0);
  return found.sort((a, b) => when(b) - when(a));
}

export interface RecoveryReport extends PackReport {
  folder: string;
}

/**
 * Packs an unfinished recording into a `.parallax-trace` (default: next to the folder, named by its
 * trace id) and removes the folder. A cut-off last line, lines after a damaged one, and resources that do
 * not match their address are left out and reported. Refuses a folder whose recording process still runs.
 */
export async function recoverTrace(folder: string, outFile?: string, options: { force?: boolean } = {}): Promise<RecoveryReport> {
  const abs = resolve(folder);
  // Recovery removes the folder: only ever an unfinished recording's (docs/rules.md#r-path-03).
  if (!basename(abs).endsWith(IN_PROGRESS_SUFFIX)) {
    throw new TraceOpenError('forbidden', `${abs} is not an unfinished trace folder (*${IN_PROGRESS_SUFFIX})`);
  }
  const marker = await readMarker(abs);
  if (marker === 'absent') throw new TraceOpenError('forbidden', `${abs} has no ${IN_PROGRESS_MARKER} marker: it is not a recording left unfinished`);
  if (marker !== 'unreadable' && markerOwnerAlive(marker) && !options.force) {
    throw new Error(`the recording in ${abs} is still running (process ${marker.pid}); stop it there`);
  }
  const name = basename(abs);
  const traceId = name.slice(0, -IN_PROGRESS_SUFFIX.length);
  const target = resolve(outFile ?? join(dirname(abs), `${traceId}${TRACE_FILE_EXTENSION}`));
  const report = await packTraceFolder(abs, target, { verifyResources: true });
  await removeTraceFolder(abs);
  return { ...report, folder: abs };
}

/** Throws away an unfinished recording the user chose not to recover. */
export async function discardUnfinishedTrace(folder: string): Promise<void> {
  const abs = resolve(folder);
  if (!basename(abs).endsWith(IN_PROGRESS_SUFFIX)) {
    throw new TraceOpenError('forbidden', `${abs} is not an unfinished trace folder (*${IN_PROGRESS_SUFFIX})`);
  }
  if ((await readMarker(abs)) === 'absent')
    throw new TraceOpenError('forbidden', `${abs} has no ${IN_PROGRESS_MARKER} marker: it is not a recording left unfinished`);
  await removeTraceFolder(abs);
}
