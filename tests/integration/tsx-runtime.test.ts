/**
 * The sources run through tsx wherever no build is used (bin/parallax.mjs in an edited checkout, the host's
 * entries from the sources, `npm run bench` and `fuzz`): with tsconfig.tsx.json, whose aliases leave the
 * `xpath` package to itself. Through tsconfig.base.json's aliases, `xpath` is its type stand-in, a file
 * with no code, and every XPath selector failed with "engine.parse is not a function".
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

describe('the sources through tsx', () => {
  it('evaluate XPath selectors with the tsconfig tsx runs them with', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'tests', 'support', 'xpath-probe.ts')], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, TSX_TSCONFIG_PATH: join(ROOT, 'tsconfig.tsx.json') },
      timeout: 120_000,
    });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('parsed object');
  }, 130_000);
});
