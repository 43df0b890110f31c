/**
 * R-FUZZ-02: the hostile-trace corpus (issue 26; tests/fuzz/hostile-corpus.ts), kept as tests: each trace
 * built there is handed to every decoder a user's trace reaches (the reader, the resource index, the trace
 * worker's view, `parallax open`, a replay's plan, both exports, `parallax audit`'s screens) and must end in a value or a typed
 * TraceOpenError naming what was wrong, never a crash; then what a user sees is checked (a bidi control
 * shown, a token not shown, the environment not read). Short sizes here; `npm run fuzz` runs them in full.
 */
import { describe, expect, it } from 'vitest';
import { hostileTraces, runHostileCorpus, type CorpusReport } from './hostile-corpus';

let reports: Promise<CorpusReport[]> | undefined;
const corpus = () => (reports ??= runHostileCorpus('short'));

describe('the hostile-trace corpus (R-FUZZ-02)', () => {
  for (const trace of hostileTraces()) {
    it(`R-FUZZ-02: ${trace.name}: every decoder ends typed, and what it shows holds`, async () => {
      const report = (await corpus()).find((r) => r.name === trace.name)!;
      expect(report.failure).toBeUndefined();
      expect(report.outcomes).toHaveLength(9);
    }, 300_000);
  }
});
