/**
 * Where the project's files are, whether this code runs from the sources (tsx, tests) or from the
 * Electron bundle in out/main: walk up to the folder whose package.json names this app.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

export function projectRoot(): string {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'parallax') {
      cached = dir;
      return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the Parallax folder (package.json named "parallax")');
    dir = parent;
  }
}

export const rendererDir = (): string => join(projectRoot(), 'out', 'renderer');
export const bundledRecording = (): string => join(projectRoot(), 'resources', 'recordings', 'settings-tap-general');

export function appVersion(): string {
  return (JSON.parse(readFileSync(join(projectRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}

/** Where Parallax keeps its settings and traces: $PARALLAX_HOME, else ~/.parallax. */
export function dataDir(): string {
  return process.env.PARALLAX_HOME ?? join(homedir(), '.parallax');
}

export const settingsFile = (): string => join(dataDir(), 'settings.json');
export const tracesDir = (): string => join(dataDir(), 'traces');

/**
 * Bonjour browsing and advertising send multicast on the machine's network; PARALLAX_MDNS=off keeps
 * Parallax to loopback (tests and CI set it; discovery then probes runner ports and manual entries only).
 */
export function mdnsEnabled(): boolean {
  return process.env.PARALLAX_MDNS !== 'off';
}
