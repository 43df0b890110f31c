/**
 * Where the demo app's pages are: `resources/demo-app` of the checkout this code runs from, whether that
 * is the sources (tsx, tests) or the Electron bundle in out/main, so the nearest folder up that holds it.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function demoAppDir(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const candidate = join(dir, 'resources', 'demo-app');
    if (existsSync(join(candidate, 'index.html'))) return candidate;
    if (dirname(dir) === dir) throw new Error('cannot find the demo app (resources/demo-app) above this file');
  }
}
