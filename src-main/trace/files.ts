/**
 * Names and small durable-write helpers shared by the trace recorder, packer, recovery and opener.
 *
 * A trace in progress is a folder `<traceId>.parallax-trace.d/` holding the files of the trace format
 * (src-shared/trace/schema.ts) plus an `.in-progress` marker. The marker is written last when a recording
 * starts and removed first when it has been packed, so "folder with a marker" means exactly "a recording
 * that never finished", which is what the next start offers to recover.
 */
import { randomBytes } from 'node:crypto';
import { open, rename, rm, unlink } from 'node:fs/promises';
import os from 'node:os';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';

export const TRACE_FILE_EXTENSION = '.parallax-trace';
export const IN_PROGRESS_SUFFIX = '.parallax-trace.d';
export const IN_PROGRESS_MARKER = '.in-progress';

/** Resource files as the recorder names them; anything else in resources/ (a temp file a crash left) is not part of the trace. */
export const RESOURCE_FILE = /^([0-9a-f]{64})\.(png|json)$/;

/** Who was recording, so another instance does not offer to recover a trace that is still being written. */
export const InProgressMarkerSchema = z.object({
  traceId: z.string(),
  pid: z.number().int(),
  /** Epoch ms when the machine booted, rounded; a pid from an earlier boot says nothing about today's processes. */
  bootTime: z.number(),
  startedAt: z.string(),
});
export type InProgressMarker = z.infer<typeof InProgressMarkerSchema>;

/**
 * Trace ids this process is recording right now; never offered for recovery. Keyed by id rather than
 * folder path, which a symlinked temp or home folder can spell two ways.
 */
export const activeTraceIds = new Set<string>();

export function currentBootTime(): number {
  return Math.round((Date.now() - os.uptime() * 1000) / 1000) * 1000;
}

/** Whether the process that wrote the marker may still be recording. */
export function markerOwnerAlive(marker: InProgressMarker): boolean {
  // Our own pid without an active recorder is a previous run that happened to get the same pid.
  if (marker.pid === process.pid) return activeTraceIds.has(marker.traceId);
  // uptime drifts a little against the wall clock; a different boot is minutes or days away.
  if (Math.abs(marker.bootTime - currentBootTime()) > 120_000) return false;
  try {
    process.kill(marker.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Writes and flushes a whole file; a crash leaves either no file or an older one, never a half one. */
export async function writeFileDurable(path: string, data: Uint8Array | string): Promise<void> {
  const temp = tempNameFor(path);
  const handle = await open(temp, 'wx');
  try {
    await handle.writeFile(data);
    await handle.datasync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await handle.close();
  await rename(temp, path);
}

/**
 * Makes renames and creations inside `dir` durable. Best effort: some platforms (Windows) cannot open
 * a folder for syncing, and there the rename is as durable as the platform makes it.
 */
export async function syncDir(dir: string): Promise<void> {
  let handle;
  try {
    handle = await open(dir, 'r');
    await handle.sync();
  } catch {
    // see above
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

let tempCounter = 0;

/** A hidden sibling name no other writer uses, so a half-written file never sits under the final name. */
export function tempNameFor(path: string): string {
  tempCounter = (tempCounter + 1) % 1_000_000;
  return join(dirname(path), `.${basename(path)}.${process.pid}-${tempCounter}-${randomBytes(3).toString('hex')}.partial`);
}

/** Removes a trace folder: the marker first, so a crash halfway leaves a folder no one offers to recover. */
export async function removeTraceFolder(folder: string): Promise<void> {
  await rm(join(folder, IN_PROGRESS_MARKER), { force: true });
  await rm(folder, { recursive: true, force: true });
}

/** `20261008-092044-3fa9c1`: sorts by start time, unique enough for two recordings in the same second. */
export function newTraceId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}
