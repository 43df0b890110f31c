/**
 * e2e writes only under its output folder (issue 23): a screenshot or file at a fixed path such as
 * `/tmp/x.png` outlives the run and collides between parallel runs; `testInfo.outputPath()` does neither.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

describe('e2e output', () => {
  it('names no fixed absolute path to write to', () => {
    const dir = join(process.cwd(), 'e2e');
    const offending = readdirSync(dir)
      .filter((f) => f.endsWith('.ts'))
      .flatMap((f) =>
        readFileSync(join(dir, f), 'utf8')
          .split('\n')
          .map((line, i) => ({ where: `e2e/${f}:${i + 1}`, line }))
          .filter(({ line }) => /['"`]\/tmp\/|path:\s*['"`]\//.test(line)),
      )
      .map(({ where, line }) => `${where}: ${line.trim()}`);
    expect(offending).toEqual([]);
  });
});
