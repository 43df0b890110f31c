/**
 * The host's own programs that run beside it, not on its event loop: the trace reader (a child process
 * with a bounded heap, docs/rules.md#r-mem-04, #r-mem-10; a worker thread by PARALLAX_TRACE_WORKER=thread), the accessibility audit (a worker thread, #r-a11y-24) and
 * the demo devices (a child process, #r-peer-03).
 *
 * From a build each is a file of its own beside the bundle, under the name given here:
 * scripts/build-cli.mjs (out/cli/NAME.mjs) and electron.vite.config.ts (out/main/NAME.js) build them.
 * From the sources (tsx, the tests) the CLI build's file is used when it is newer than every source, as
 * bin/parallax.mjs chooses for the CLI itself (one rule for both: src-main/fresh-build.mjs): loading the entry's imports through tsx takes seconds on a
 * busy machine, the built file a fraction of one. Otherwise, never stale, its TypeScript through tsx.
 */
import { fork, type ChildProcess, type ForkOptions } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { projectRoot } from '@main/paths';
import { isFreshBuild } from '@main/fresh-build.mjs';

export const HOST_ENTRIES = {
  'trace-worker': 'src-main/trace/worker.ts',
  'a11y-worker': 'src-main/a11y/worker.ts',
  'demo-process': 'src-demo/process.ts',
} as const;
export type HostEntry = keyof typeof HOST_ENTRIES;

const here = fileURLToPath(import.meta.url);
const fromSources = here.endsWith('.ts');

/** The built entry: beside the bundle, or one folder up from the chunk this code was bundled into. */
function builtEntry(name: HostEntry): string {
  for (const dir of [dirname(here), dirname(dirname(here))]) {
    for (const ext of ['.mjs', '.js']) {
      const file = join(dir, `${name}${ext}`);
      if (existsSync(file)) return file;
    }
  }
  throw new Error(`the build has no ${name} beside ${here}: build again (npm run build)`);
}

/** The CLI build's file of `name` when it is at least as new as every source (src-main/fresh-build.mjs decides, for bin/parallax.mjs too). */
function freshBuild(name: HostEntry): string | undefined {
  const file = join(projectRoot(), 'out', 'cli', `${name}.mjs`);
  return isFreshBuild(file, projectRoot()) ? file : undefined;
}

const sourceEntry = (name: HostEntry) => join(projectRoot(), HOST_ENTRIES[name]);
const tsconfig = () => join(projectRoot(), 'tsconfig.tsx.json');
/** tsx's files, resolved from the project (the tsx the CLI itself is loaded with). */
const tsx = (subpath: string) => createRequire(join(projectRoot(), 'package.json')).resolve(subpath);

/**
 * The parent's Node flags, which a worker and a fork inherit, less those that say what the parent itself
 * runs: `--input-type` (Node refuses it beside a file: "--input-type can only be used with string input")
 * and `-e` / `--eval` / `-p` / `--print` with their script, which a fork would run in place of its entry
 * (a command started as `node --input-type=module -e "… main([...])"`, as tests/integration/cli-build
 * .test.ts starts the built CLI, forked its trace worker as another copy of that command, which forked the
 * next, and never answered). Exported for a fork that adds flags of its own to them (the trace worker's
 * heap bound, docs/rules.md#r-mem-10); forkEntry adds tsx's `--import` after them when run from the sources.
 */
export function inheritedExecArgv(execArgv: readonly string[] = process.execArgv): string[] {
  const out: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i]!;
    if (PARENT_ONLY_WITH_VALUE.has(arg)) i++;
    else if (!PARENT_ONLY_WITH_VALUE_INLINE.some((flag) => arg.startsWith(`${flag}=`))) out.push(arg);
  }
  return out;
}

/** Flags whose value (the next argument) is the parent's own program or its kind. */
const PARENT_ONLY_WITH_VALUE: ReadonlySet<string> = new Set(['--input-type', '-e', '--eval', '-p', '--print']);
/** The same flags written `--flag=value`. */
const PARENT_ONLY_WITH_VALUE_INLINE = ['--input-type', '--eval', '--print'];

/** Starts `name` in a worker thread; from the sources, through tsx (a worker ignores `--import`). */
export function startWorker(name: HostEntry, given: WorkerOptions): Worker {
  const options: WorkerOptions = { ...given, execArgv: given.execArgv ?? inheritedExecArgv() };
  if (!fromSources) return new Worker(builtEntry(name), options);
  const built = freshBuild(name);
  if (built) return new Worker(built, options);
  const api = pathToFileURL(tsx('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
  const entry = pathToFileURL(sourceEntry(name)).href;
  const boot = `import(${JSON.stringify(api)}).then((tsx) => { tsx.register({ tsconfig: ${JSON.stringify(tsconfig())} }); return import(${JSON.stringify(entry)}); })`;
  return new Worker(boot, { ...options, eval: true });
}

/** Starts `name` in a child process with an IPC channel; from the sources, through tsx. */
export function forkEntry(name: HostEntry, args: string[], given: ForkOptions = {}): ChildProcess {
  const options: ForkOptions = { ...given, execArgv: given.execArgv ?? inheritedExecArgv() };
  if (!fromSources) return fork(builtEntry(name), args, options);
  const built = freshBuild(name);
  if (built) return fork(built, args, options);
  return fork(sourceEntry(name), args, {
    ...options,
    execArgv: [...(options.execArgv ?? []), '--import', pathToFileURL(tsx('tsx')).href],
    env: { ...(options.env ?? process.env), TSX_TSCONFIG_PATH: tsconfig() },
  });
}
