#!/usr/bin/env node
// The `parallax` command. The CLI is TypeScript run through tsx, so `npx parallax` works straight after
// `npm install`, with no build step between the sources and the command.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src-main/cli.ts');
process.exitCode = await main(process.argv.slice(2));
