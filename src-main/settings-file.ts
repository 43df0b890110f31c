/**
 * The settings file (paths.ts `settingsFile`) that several owners share, each under its own top-level key
 * (discovery/manual.ts `manualDevices`, a11y/profiles.ts `deviceProfiles`). Every write goes through one
 * queue per file and rewrites only its owner's key, reading the file as the last write left it, so two
 * owners saving at once never drop each other's settings; the text goes to a temporary file renamed over
 * the old one, so a crash mid-write leaves the old file whole.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

const queues = new Map<string, Promise<void>>();

/** JSON, or undefined for text that is not. */
export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Rewrites the file with `next(current)`: `current` is the file's object as it is now ({} when there is
 * none or it does not parse as one), `next` answers the whole text to write (and may throw to refuse).
 */
export function updateSettingsFile(path: string, next: (current: Record<string, unknown>) => string): Promise<void> {
  const run = (queues.get(path) ?? Promise.resolve()).then(async () => {
    let current: Record<string, unknown> = {};
    try {
      const parsed = safeJson(await readFile(path, 'utf8'));
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) current = parsed as Record<string, unknown>;
    } catch {
      // no file yet
    }
    const text = next(current);
    await mkdir(dirname(path), { recursive: true });
    const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await writeFile(temp, text, { mode: 0o600 });
      await rename(temp, path);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  });
  queues.set(
    path,
    run.catch(() => undefined),
  );
  return run;
}
