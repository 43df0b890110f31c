/**
 * What a killed Parallax leaves in `traces/` (docs/rules.md#r-race-02): a hidden `.partial` file from a
 * durable write cut off mid-way (files.ts `tempNameFor`), and a recording folder without its
 * `.in-progress` marker (a start killed before the marker was written, or a removal killed after the
 * marker went). Neither holds anything a user could recover (a packed trace is renamed into place
 * whole; a folder without a marker has been packed or never recorded a step), so both are removed when
 * the host starts. A folder with a marker is not an orphan: it is offered for recovery.
 */
import { readdir, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { IN_PROGRESS_MARKER, IN_PROGRESS_SUFFIX, removeTraceFolder } from './files';

/** A folder younger than this may be another process's start, between its mkdir and its marker. */
export const ORPHAN_FOLDER_MIN_AGE_MS = 10 * 60_000;

const PARTIAL = /^\..+\.(\d+)-\d+-[0-9a-f]+\.partial$/;

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface OrphanReport {
  partials: string[];
  folders: string[];
}

/** Removes the orphans directly in `dir`; `now` is the clock the folders' age is read against. */
export async function removeOrphans(dir: string, now: number = Date.now()): Promise<OrphanReport> {
  const root = resolve(dir);
  const report: OrphanReport = { partials: [], folders: [] };
  let names: string[];
  try {
    names = await readdir(root);
  } catch {
    return report;
  }
  for (const name of names) {
    const path = join(root, name);
    const partial = PARTIAL.exec(name);
    if (partial) {
      // Only a writer that is gone: a live one (this process, or another Parallax) is mid-write.
      if (alive(Number(partial[1]))) continue;
      await rm(path, { force: true });
      report.partials.push(path);
      continue;
    }
    if (!name.endsWith(IN_PROGRESS_SUFFIX)) continue;
    const info = await stat(path).catch(() => undefined);
    if (!info?.isDirectory() || now - info.mtimeMs < ORPHAN_FOLDER_MIN_AGE_MS) continue;
    if (await stat(join(path, IN_PROGRESS_MARKER)).catch(() => undefined)) continue;
    await removeTraceFolder(path);
    report.folders.push(path);
  }
  return report;
}
