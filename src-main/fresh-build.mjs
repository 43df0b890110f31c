// Whether a build's file may stand in for the sources: it is at least as new as every file under the
// source roots. One home for the two that choose: the `parallax` command (bin/parallax.mjs, before any
// TypeScript can load, hence plain JavaScript) and the host's own programs run from the sources
// (src-main/entries.ts: the trace worker, the demo process). Node alone runs it, no I/O beyond the walk.
// Types: fresh-build.d.mts.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The folders a build is made from; a change under any of them makes the build stale. */
export const SOURCE_ROOTS = ['src-main', 'src-shared', 'src-demo'];

/** Per checkout: the walk is read once per process (about 400 files, a few milliseconds). */
const newest = new Map();

/** The newest modification time under `root`'s source roots. */
export function newestSourceMs(root) {
  let ms = newest.get(root);
  if (ms !== undefined) return ms;
  ms = 0;
  for (const dir of SOURCE_ROOTS) {
    for (const entry of readdirSync(join(root, dir), { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) ms = Math.max(ms, statSync(join(entry.parentPath, entry.name)).mtimeMs);
    }
  }
  newest.set(root, ms);
  return ms;
}

/** Whether `file` exists and is at least as new as every source of the checkout at `root`. */
export function isFreshBuild(file, root) {
  return existsSync(file) && statSync(file).mtimeMs >= newestSourceMs(root);
}
