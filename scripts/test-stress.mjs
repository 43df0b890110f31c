// `npm run test:stress`: the whole `npm test` three times in a row with a CPU hog on every core beside it
// (`node -e 'for(;;){}'`), so a test that passes only on a quiet machine fails here rather than in CI on a
// busy day (docs/rules.md#r-suite-01). Prints each run's verdict and stage times as it ends and all of them at
// the end; exits 0 only when every run passed, 1 when one failed, 2 on a bad setting.
//   STRESS_RUNS=N     how many runs (a positive integer; 3 unless set)
//   STRESS_HOGS=N     how many hogs (a whole number; one per core unless set)
//   STRESS_COMMAND=C  what each run runs (`npm test` unless set)
// Ctrl-C (SIGINT) or SIGTERM stops the run in progress (its whole process group) and the hogs, prints what
// ran, and exits 130 / 143. A hog also ends by itself once this script is gone (even killed with -9), so none
// is ever left spinning.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';

/** A whole number from the environment, or a clear error and exit 2 before anything starts. */
function setting(name, fallback, min) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < min || !Number.isSafeInteger(Number(raw))) {
    console.error(`test:stress: ${name} must be ${min > 0 ? 'a positive integer' : 'a whole number'}, got "${raw}"`);
    process.exit(2);
  }
  return Number(raw);
}
const RUNS = setting('STRESS_RUNS', 3, 1);
const HOGS = setting('STRESS_HOGS', availableParallelism(), 0);
const COMMAND = process.env.STRESS_COMMAND || 'npm test';

// Each hog spins, and every few million turns checks that its parent (this script) is still there: orphaned
// (the script killed outright), it ends itself.
const HOG = `const parent = process.ppid; for (let i = 0; ; i++) if ((i & 0x3fffff) === 0) try { process.kill(parent, 0); } catch { process.exit(0); }`;
const hogs = Array.from({ length: HOGS }, () => spawn(process.execPath, ['-e', HOG], { stdio: 'ignore' }));
const stopHogs = () => {
  for (const hog of hogs) if (hog.exitCode === null && hog.signalCode === null) hog.kill('SIGKILL');
};
process.on('exit', stopHogs);

const seconds = (ms) => `${(ms / 1000).toFixed(0)} s`;
const dir = mkdtempSync(join(tmpdir(), 'parallax-stress-'));
const runs = [];
/** The run in progress: its own process group, so a stop reaches npm, vitest's workers, Playwright and its browsers. */
let suite;
let current = 0;

function stopSuite(signal) {
  if (!suite || suite.exitCode !== null || suite.signalCode !== null) return;
  try {
    process.kill(-suite.pid, signal);
  } catch {
    // Already gone.
  }
}

function runLine({ run, ok, ms, stages }) {
  const times = stages.map((s) => `${s.name} ${seconds(s.ms)}${s.ok ? '' : ' (failed)'}`).join(', ');
  return `  run ${run}: ${ok ? 'passed' : 'FAILED'} in ${seconds(ms)}${times ? `  (${times})` : ''}`;
}

function summary(stoppedBy) {
  console.log(
    `\n==== stress: ${runs.filter((r) => r.ok).length} of ${runs.length} runs passed with ${HOGS} CPU hogs${stoppedBy ? `, stopped by ${stoppedBy} (${RUNS} planned)` : ''}`,
  );
  for (const run of runs) console.log(runLine(run));
  if (stoppedBy && current > runs.length) console.log(`  run ${current}: stopped`);
}

let stopping = false;
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
]) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    console.log(`\n==== stress: ${signal}: stopping the run in progress and the hogs`);
    stopHogs();
    stopSuite('SIGTERM');
    // A suite that does not end on SIGTERM within 10 s is killed.
    const force = setTimeout(() => stopSuite('SIGKILL'), 10_000);
    const finish = () => {
      clearTimeout(force);
      summary(signal);
      rmSync(dir, { recursive: true, force: true });
      process.exit(code);
    };
    if (suite && suite.exitCode === null && suite.signalCode === null) suite.once('close', finish);
    else finish();
  });
}

for (let run = 1; run <= RUNS && !stopping; run++) {
  current = run;
  console.log(`\n==== stress run ${run} of ${RUNS}, ${HOGS} CPU hogs beside it: ${COMMAND}`);
  const report = join(dir, `run-${run}.json`);
  const started = performance.now();
  suite = spawn(COMMAND, { shell: true, stdio: 'inherit', detached: true, env: { ...process.env, PARALLAX_STAGE_REPORT: report } });
  const status = await new Promise((resolve) => {
    suite.once('error', () => resolve(-1));
    suite.once('close', (code) => resolve(code));
  });
  if (stopping) break;
  let stages = [];
  try {
    stages = JSON.parse(readFileSync(report, 'utf8')).stages;
  } catch {
    // The command wrote no stage times (it died first, or is not `npm test`): its verdict still counts.
  }
  runs.push({ run, ok: status === 0, ms: performance.now() - started, stages });
  console.log(`\n==== stress run ${run} of ${RUNS}:\n${runLine(runs.at(-1))}`);
}
if (!stopping) {
  stopHogs();
  summary();
  rmSync(dir, { recursive: true, force: true });
  process.exitCode = runs.every((r) => r.ok) ? 0 : 1;
}
