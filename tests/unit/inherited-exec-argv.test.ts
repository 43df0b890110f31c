/**
 * What a fork or a worker inherits of the parent's Node flags (src-main/entries.ts `inheritedExecArgv`,
 * docs/rules.md#r-mem-10): never what says what the parent itself runs, or the child runs that instead of
 * its entry (the built CLI started with `node --input-type=module -e …` forked copies of itself).
 */
import { describe, expect, it } from 'vitest';
import { inheritedExecArgv } from '@main/entries';

describe('R-MEM-10: a child inherits the parent flags, never the parent program', () => {
  it('drops -e / --eval / -p / --print with their script, and --input-type in both spellings', () => {
    expect(inheritedExecArgv(['--input-type=module', '-e', 'await main(["open"])'])).toEqual([]);
    expect(inheritedExecArgv(['--input-type', 'module', '--eval', 'x()', '--enable-source-maps'])).toEqual(['--enable-source-maps']);
    expect(inheritedExecArgv(['-p', '1 + 1', '--max-old-space-size=512'])).toEqual(['--max-old-space-size=512']);
    expect(inheritedExecArgv(['--print=1', '--eval=x()', '--no-warnings'])).toEqual(['--no-warnings']);
  });

  it('keeps every other flag in its order, with its value', () => {
    expect(inheritedExecArgv(['--enable-source-maps', '--import', 'file:///tsx.mjs', '--conditions=dev'])).toEqual([
      '--enable-source-maps',
      '--import',
      'file:///tsx.mjs',
      '--conditions=dev',
    ]);
  });
});
