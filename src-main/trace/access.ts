/**
 * Which paths a page may name (docs/rules.md#r-path-01). A renderer is not trusted with the file
 * system: every path it sends is a trace file the user opened (picked in a dialog, dropped, named on the
 * command line), or lies under the folders Parallax keeps (PARALLAX_HOME/traces, the copies of uploads).
 * Paths are compared after symlinks are resolved, so a link under traces/ cannot point outside (R-PATH-02).
 * Recovery packs and removes a folder, so it takes only an unfinished recording directly under the
 * recordings folder (R-PATH-03).
 *
 * The checks are synchronous on purpose: a call checked here reaches its handler in the order it came,
 * as every other API call does (a replay asked for on hearing the last one ended must find the host free).
 */
import { lstatSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { TraceOpenError } from './errors';
import { IN_PROGRESS_MARKER, IN_PROGRESS_SUFFIX } from './files';

export interface TraceAccessRoots {
  /** Folders whose traces a page may open (recordings, upload copies). */
  read: () => readonly string[];
  /** Folders whose unfinished recordings a page may recover or discard. */
  recover: () => readonly string[];
}

function real(path: string): string | undefined {
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
}

function lstatOf(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

function inside(path: string, root: string): boolean {
  return path.startsWith(root.endsWith(sep) ? root : root + sep);
}

export class TraceAccess {
  private readonly chosen = new Set<string>();

  constructor(private readonly roots: TraceAccessRoots) {}

  /** A file the user chose in the host's own UI (a dialog, a drop, the command line): a page may open it. */
  choose(path: string): void {
    this.chosen.add(resolve(path));
  }

  /** The path to read for a trace a page named; throws TraceOpenError('forbidden') for any other file. */
  readable(path: string): string {
    const abs = resolve(path);
    const resolved = real(abs);
    if (this.chosen.has(abs) || (resolved !== undefined && this.chosen.has(resolved))) return resolved ?? abs;
    for (const root of this.roots.read()) {
      const rootReal = real(root) ?? resolve(root);
      // A missing file under a root is let through, so opening it says "no such file", not "forbidden".
      if (resolved === undefined ? inside(abs, resolve(root)) : inside(resolved, rootReal)) return resolved ?? abs;
    }
    throw new TraceOpenError('forbidden', `${abs} is not a trace you opened, nor one under Parallax's traces folder; open it with Open trace… first`);
  }

  /** The folder of an unfinished recording a page may recover or discard; throws TraceOpenError('forbidden'). */
  unfinished(folder: string): string {
    const abs = resolve(folder);
    const refuse = (why: string) => new TraceOpenError('forbidden', `${abs} cannot be recovered: ${why}`);
    if (!basename(abs).endsWith(IN_PROGRESS_SUFFIX)) throw refuse(`it is not an unfinished trace folder (*${IN_PROGRESS_SUFFIX})`);
    const info = lstatOf(abs);
    if (!info?.isDirectory()) throw refuse('it is not a folder (a link is not followed)');
    const parent = real(dirname(abs));
    const roots = this.roots.recover().map((root) => real(root) ?? resolve(root));
    if (parent === undefined || !roots.includes(parent)) throw refuse("it is not in Parallax's traces folder");
    const marker = lstatOf(join(abs, IN_PROGRESS_MARKER));
    if (!marker?.isFile()) throw refuse(`it has no ${IN_PROGRESS_MARKER} marker, so it is not a recording left unfinished`);
    return abs;
  }
}
