/**
 * The short fuzz run inside `npm test` (docs/rules.md#r-fuzz-01): every surface, the fixed seed, a few
 * hundred cases. `npm run fuzz` (tests/fuzz/run.ts) runs the same surfaces in full.
 */
import { describe, expect, it } from 'vitest';
import { runSurface, surfaces } from './surfaces';

const SHORT_RUNS: Record<string, number> = { 'trace files': 60, 'API socket frames from a page': 60 };

describe('R-FUZZ-01: no input from a device, a file or a page ends untyped', () => {
  for (const surface of surfaces()) {
    it(`${surface.name}: every case ends in a typed result`, async () => {
      const report = await runSurface(surface, { seed: 14, numRuns: SHORT_RUNS[surface.name] ?? 300, timeLimitMs: 15_000 });
      expect(report.failure).toBeUndefined();
      expect(report.cases).toBeGreaterThan(10);
    }, 60_000);
  }
});
