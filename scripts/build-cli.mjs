// Builds the `parallax` command into out/cli at install time (npm's `prepare`, beside the Electron build), so
// each call starts from JavaScript instead of compiling TypeScript through tsx (2.2 s per call on the 2-core
// machine: docs/rules.md#r-cli-01). Packages stay external: they load from node_modules as they are.
// Source maps are kept so an error's stack names the TypeScript line.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
// A test builds into a folder of its own (inside the checkout, so the external packages resolve).
const outdir = process.argv[2] ?? 'out/cli';

rmSync(`${root}${outdir}`, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  // The trace worker, the audit worker and the demo process are files of their own beside main.mjs (src-main/entries.ts finds them by these names).
  entryPoints: {
    main: 'src-main/cli/main.ts',
    'trace-worker': 'src-main/trace/worker.ts',
    'a11y-worker': 'src-main/a11y/worker.ts',
    'demo-process': 'src-demo/process.ts',
  },
  outdir,
  bundle: true,
  // The demo devices load with a dynamic import() (so a machine without Chromium still starts): keep them
  // their own chunk, loaded only by the commands that start one.
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Bundled with the packages it uses, so a call reads a few files rather than resolving hundreds of
  // modules (most of a cold start here). Playwright stays outside: it reads its own files at run time, and
  // only the demo device needs it. ws's native helpers are optional and absent.
  external: ['playwright-core', 'electron', 'bufferutil', 'utf-8-validate'],
  // The bundled CommonJS packages require Node's modules; an ES module has no `require` of its own.
  banner: { js: "import { createRequire as __parallaxRequire } from 'node:module'; const require = __parallaxRequire(import.meta.url);" },
  sourcemap: 'linked',
  // tsconfig.json's `paths` map the source roots' aliases (@shared, @main, @demo), as for tsc and tsx.
  tsconfig: 'tsconfig.json',
  outExtension: { '.js': '.mjs' },
  logLevel: 'warning',
  metafile: true,
});
