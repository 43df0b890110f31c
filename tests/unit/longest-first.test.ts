/**
 * The unit and integration stage's file order (tests/support/longest-first.ts, issue 29.4): the longest
 * recorded files first, files the list does not know before them, and the list is the one committed.
 */
import { describe, expect, it } from 'vitest';
import type { TestSpecification, Vitest } from 'vitest/node';
import { format, resolveConfig } from 'prettier';
import LongestFirst, { DURATIONS_FILE, recordedDurations } from '../support/longest-first';
import { durationsText } from '../support/slowest-files';

const ROOT = '/repo';
const spec = (file: string) =>
  ({ moduleId: `${ROOT}/${file}`, project: { name: '', config: { sequence: { groupOrder: 0 }, isolate: true } } }) as unknown as TestSpecification;
// No results cache and no file sizes: what vitest knows of a fresh clone's files before its first run.
const ctx = { config: { root: ROOT }, cache: { getFileTestResults: () => undefined, getFileStats: () => undefined } } as unknown as Vitest;

class Known extends LongestFirst {
  constructor(private readonly known: Record<string, number>) {
    super(ctx);
  }
  protected override durations() {
    return new Map(Object.entries(this.known));
  }
}

describe('longest-first file order', () => {
  it('starts the longest recorded file first and a file the list does not know before any of them', async () => {
    const files = ['tests/unit/short.test.ts', 'tests/integration/long.test.ts', 'tests/new.test.ts', 'tests/integration/middle.test.ts'].map(spec);
    const order = await new Known({
      'tests/unit/short.test.ts': 800,
      'tests/integration/long.test.ts': 68_000,
      'tests/integration/middle.test.ts': 27_000,
    }).sort(files);
    expect(order.map((s) => s.moduleId.slice(ROOT.length + 1))).toEqual([
      'tests/new.test.ts',
      'tests/integration/long.test.ts',
      'tests/integration/middle.test.ts',
      'tests/unit/short.test.ts',
    ]);
  });

  it('reads the committed list: every entry a test file of the suite with a duration', () => {
    const durations = recordedDurations();
    expect(durations.size).toBeGreaterThan(100);
    for (const [file, ms] of durations) {
      expect(file).toMatch(/^tests\/.+\.test\.tsx?$/);
      expect(ms).toBeGreaterThanOrEqual(0);
    }
  });

  it('R-SUITE-01: the durations a run records are written as the lint stage checks them (prettier), so the next run does not fail at lint', async () => {
    const text = durationsText({ 'tests/integration/long.test.ts': 68_000, 'tests/unit/short.test.ts': 800 }, new Date('2026-12-07T06:00:00Z'));
    const path = DURATIONS_FILE.pathname;
    expect(await format(text, { ...(await resolveConfig(path)), filepath: path })).toBe(text);
  });
});
