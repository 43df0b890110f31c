// `npm run test:stress`: the whole `npm test` three times in a row with a CPU hog on every core beside it
// (`node -e 'for(;;){}'`), so a test that passes only on a quiet machine fails here rather than in CI on a
// busy day (docs/rules.md#r-suite-01). Prints each run's verdict and stage times; exits non-zero unless all pass.
// STRESS_RUNS=N changes the count.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';

const RUNS = Number(process.env.STRESS_RUNS ?? 3);
const hogs = Array.from({ length: availableParallelism() }, () => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
const stopHogs = () => hogs.forEach((hog) => hog.kill('SIGKILL'));
process.on('exit', stopHogs);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

const dir = mkdtempSync(join(tmpdir(), 'parallax-stress-'));
const runs = [];
for (let run = 1; run <= RUNS; run++) {
  console.log(`\n==== stress run ${run} of ${RUNS}, ${hogs.length} CPU hogs beside it`);
  const report = join(dir, `run-${run}.json`);
  const result = spawnSync('npm test', { shell: true, stdio: 'inherit', env: { ...process.env, PARALLAX_STAGE_REPORT: report } });
  let stages = [];
  try {
    stages = JSON.parse(readFileSync(report, 'utf8')).stages;
  } catch {
    // The suite died before it could write its times: its verdict still counts.
  }
  runs.push({ run, ok: result.status === 0, stages });
}
stopHogs();
console.log(`\n==== stress: ${runs.filter((r) => r.ok).length} of ${RUNS} runs passed with ${hogs.length} CPU hogs`);
for (const { run, ok, stages } of runs) {
  console.log(
    `  run ${run}: ${ok ? 'passed' : 'FAILED'}  ${stages.map((s) => `${s.name} ${(s.ms / 1000).toFixed(0)} s${s.ok ? '' : ' (failed)'}`).join(', ')}`,
  );
}
process.exitCode = runs.every((r) => r.ok) ? 0 : 1;
