#!/usr/bin/env node
// The `parallax` command. The CLI is TypeScript run through tsx, so `npx parallax` works straight after
// `npm install`, with no build step between the sources and the command.
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

// The tsconfig that maps the source roots' import aliases (@shared, @main, @demo), wherever this runs from.
register({ tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)) });
const { main } = await import('../src-main/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
