/**
 * The order vitest starts the test files in: the longest first, by the durations of a whole run kept in
 * tests/support/file-durations.json, so no long file starts last and runs alone while the other worker
 * idles (issue 29.4: on a fresh clone vitest has no results cache and starts the largest files first,
 * and file size says little of how long a file waits on sockets and the demo's Chromium). Files the
 * list does not know (new ones) start first, as vitest starts files it has no result for. The figures
 * are rewritten by a whole run with PARALLAX_RECORD_DURATIONS=1 (tests/support/slowest-files.ts);
 * an out-of-date list changes only the order, never what runs.
 */
import { readFileSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export const DURATIONS_FILE = new URL('./file-durations.json', import.meta.url);

/** The recorded durations in ms, by the file's path from the repository's root ("tests/…"). */
export function recordedDurations(): Map<string, number> {
  try {
    const recorded = JSON.parse(readFileSync(DURATIONS_FILE, 'utf8')) as { files: Record<string, number> };
    return new Map(Object.entries(recorded.files));
  } catch {
    return new Map();
  }
}

/** From the repository's root, with forward slashes: the key of the durations list. */
export const fileKey = (root: string, moduleId: string) => moduleId.slice(root.length).replace(/\\/g, '/').replace(/^\//, '');

export default class LongestFirst extends BaseSequencer {
  /** The durations to order by (a test gives its own). */
  protected durations(): Map<string, number> {
    return recordedDurations();
  }

  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const durations = this.durations();
    const root = this.ctx.config.root;
    const known = (spec: TestSpecification) => durations.get(fileKey(root, spec.moduleId));
    // vitest's own order (failed, then by its cache or size) breaks ties and orders the unknown files.
    const base = await super.sort(files);
    const rank = new Map(base.map((spec, i) => [spec, i]));
    return [...base].sort((a, b) => {
      const da = known(a);
      const db = known(b);
      if (da === undefined || db === undefined)
        return da === undefined && db !== undefined ? -1 : db === undefined && da !== undefined ? 1 : rank.get(a)! - rank.get(b)!;
      return db - da || rank.get(a)! - rank.get(b)!;
    });
  }
}
