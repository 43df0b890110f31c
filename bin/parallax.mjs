#!/usr/bin/env node
// The `parallax` command. It runs the JavaScript that `npm install` builds into out/cli (`prepare`), so a
// call starts at once (docs/rules.md#r-cli-01). Where that build is missing or older than a source file (a
// checkout being edited), it compiles the TypeScript through tsx instead: slower, never stale.
// PARALLAX_CLI_FROM_SOURCE=1 asks for the sources anyway (the CLI bench measures both ways).
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const built = `${root}out/cli/main.mjs`;
// Plain JavaScript beside the sources, shared with src-main/entries.ts (which build may stand in for them).
const { isFreshBuild } = await import('../src-main/fresh-build.mjs');

/**
 * A crash's stack with the TypeScript lines, read from the build's source maps only when one happens:
 * Node's own --enable-source-maps would parse every map at start (about 70 ms of a 300 ms budget).
 */
function mappedStack(error) {
  const maps = new Map();
  return String(error?.stack ?? error).replace(/file:\/\/(\/\S+?\.mjs):(\d+):(\d+)/g, (frame, file, line, column) => {
    try {
      if (!maps.has(file)) maps.set(file, new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8'))));
      const entry = maps.get(file).findEntry(Number(line) - 1, Number(column) - 1);
      if (!entry.originalSource) return frame;
      const source = fileURLToPath(new URL(entry.originalSource, pathToFileURL(file)));
      return `${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
    } catch {
      return frame;
    }
  });
}

let main;
if (!process.env.PARALLAX_CLI_FROM_SOURCE && isFreshBuild(built, root)) {
  process.on('uncaughtException', (error) => {
    process.stderr.write(`${mappedStack(error)}\n`);
    process.exit(1);
  });
  ({ main } = await import(built));
} else {
  const { register } = await import('tsx/esm/api');
  // The tsconfig that maps the source roots' import aliases (@shared, @main, @demo), wherever this runs from.
  register({ tsconfig: `${root}tsconfig.tsx.json` });
  ({ main } = await import('../src-main/cli/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
