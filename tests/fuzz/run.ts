/**
 * `npm run fuzz`: the full fuzz run (docs/rules.md#r-fuzz-01). Every surface of tests/fuzz/surfaces.ts
 * with a fixed seed, at most FUZZ_RUNS cases and FUZZ_SECONDS seconds each; prints the cases per
 * surface, crashes, hangs and the peak memory, and exits 1 on any failure or on memory over the bound.
 * Then the hostile-trace corpus (tests/fuzz/hostile-corpus.ts, docs/rules.md#r-fuzz-02) at its full sizes:
 * each crafted trace through every decoder, one line per trace with each decoder's outcome. Last the
 * hostile page (tests/fuzz/hostile-page.ts): its tries against the demo device and the web host, refused of N.
 *
 *   npm run fuzz                      # seed 14, 20,000 cases or 120 s per surface
 *   FUZZ_SEED=7 FUZZ_RUNS=500 npm run fuzz
 */
import { runSurface, surfaces } from './surfaces';
import { runHostileCorpus } from './hostile-corpus';
import { runHostilePage } from './hostile-page';

const seed = Number(process.env.FUZZ_SEED ?? 14);
const numRuns = Number(process.env.FUZZ_RUNS ?? 20_000);
const timeLimitMs = Number(process.env.FUZZ_SECONDS ?? 120) * 1000;
/** The bound the suite states: the host's process never holds more than this while being fuzzed. */
export const MEMORY_BOUND_BYTES = 1.5 * 1024 ** 3;

let peak = 0;
const sample = () => (peak = Math.max(peak, process.memoryUsage.rss()));
const sampler = setInterval(sample, 50);
const failures = { crash: 0, hang: 0, untyped: 0 };
console.log(`fuzz: seed ${seed}, up to ${numRuns} cases or ${timeLimitMs / 1000} s per surface`);
for (const surface of surfaces()) {
  const report = await runSurface(surface, { seed, numRuns, timeLimitMs, onCase: sample });
  const verdict = report.failure ? `FAILED: ${report.failure}` : 'ok';
  console.log(`  ${report.name.padEnd(48)} ${String(report.cases).padStart(7)} cases  ${(report.ms / 1000).toFixed(1).padStart(6)} s  ${verdict}`);
  if (report.kind) failures[report.kind]++;
}
// The hostile-trace corpus (docs/rules.md#r-fuzz-02) at its real sizes: every decoder, typed, and what it shows held.
const corpus = await runHostileCorpus('full', sample);
for (const report of corpus) {
  console.log(
    `  hostile trace: ${report.name.slice(0, 64).padEnd(64)} ${(report.ms / 1000).toFixed(1).padStart(6)} s  ${report.failure ? `FAILED: ${report.failure}` : 'ok'}`,
  );
  console.log(`      ${report.outcomes.join(', ')}`);
  if (report.failure) failures[/threw/.test(report.failure) ? 'crash' : 'untyped']++;
}
// The hostile page (docs/rules.md#r-peer-01, issue 26): another local port's page in Chromium against the demo and the host.
const page = await runHostilePage();
sample();
const pageHeld = page.through.length === 0 && page.changed.length === 0;
console.log(
  `  hostile page: ${page.tried - page.through.length} of ${page.tried} cross-origin requests refused` +
    `${page.through.length ? `; THROUGH: ${page.through.join(', ')}` : ''}${page.changed.length ? `; the demo's ${page.changed.join(', ')} CHANGED` : ''}  ${pageHeld ? 'ok' : 'FAILED'}`,
);
if (!pageHeld) failures.untyped++;
clearInterval(sampler);
sample();
// fast-check stops a surface at its first failure (and shrinks it), so each count is of surfaces.
console.log(
  `fuzz: crashes ${failures.crash}, hangs ${failures.hang}, untyped results ${failures.untyped}; peak RSS ${(peak / 1024 ** 2).toFixed(0)} MiB (bound ${MEMORY_BOUND_BYTES / 1024 ** 2} MiB)`,
);
process.exitCode = failures.crash + failures.hang + failures.untyped > 0 || peak > MEMORY_BOUND_BYTES ? 1 : 0;
