// `npm test`: the whole suite as stages, one after the other, stopping at the first that fails (as `&&`
// would), and printing how long each took, so a slow stage shows in every run and in CI's log
// (docs/rules.md#r-suite-01). PARALLAX_STAGE_REPORT=FILE also writes the times as JSON (test:stress reads it).
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const STAGES = [
  ['lint', 'npm run -s lint'],
  ['types', 'npm run -s typecheck'],
  ['unit and integration', 'npm run -s test:unit'],
  ['build', 'npm run -s build'],
  ['end to end', 'npm run -s test:e2e'],
];

const seconds = (ms) => `${(ms / 1000).toFixed(0)} s`;
const done = [];
let failed;
const started = performance.now();
for (const [name, command] of STAGES) {
  console.log(`\n== stage: ${name} (${command})`);
  const at = performance.now();
  const result = spawnSync(command, { shell: true, stdio: 'inherit' });
  const ms = performance.now() - at;
  done.push({ name, ms, ok: result.status === 0 });
  console.log(`== stage: ${name}: ${result.status === 0 ? 'passed' : 'FAILED'} in ${seconds(ms)}`);
  if (result.status !== 0) {
    failed = name;
    break;
  }
}
const total = performance.now() - started;
console.log('\n== stage times');
for (const stage of done) console.log(`  ${stage.name.padEnd(22)} ${seconds(stage.ms).padStart(7)}  ${stage.ok ? 'passed' : 'FAILED'}`);
console.log(`  ${'whole suite'.padEnd(22)} ${seconds(total).padStart(7)}  ${failed ? `FAILED at ${failed}` : 'passed'}`);
if (process.env.PARALLAX_STAGE_REPORT)
  writeFileSync(process.env.PARALLAX_STAGE_REPORT, JSON.stringify({ stages: done, totalMs: total, failed: failed ?? null }));
process.exitCode = failed ? 1 : 0;
