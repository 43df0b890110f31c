// `npm test`: the whole suite as stages, one after the other, stopping at the first that fails (as `&&`
// would), and printing how long each took, so a slow stage shows in every run and in CI's log
// (docs/rules.md#r-suite-01). PARALLAX_STAGE_REPORT=FILE also writes the times as JSON (test:stress reads it).
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';

// Stages in one inner list run side by side: lint and types are one process each, single-threaded,
// so on two cores together they take about as long as the slower alone (their output is printed
// whole, each after the other, once both are done).
const STAGES = [
  [
    ['lint', 'npm run -s lint'],
    ['types', 'npm run -s typecheck'],
  ],
  [['unit and integration', 'npm run -s test:unit']],
  [['build', 'npm run -s build']],
  [['end to end', 'npm run -s test:e2e']],
];

const seconds = (ms) => `${(ms / 1000).toFixed(0)} s`;
const done = [];
let failed;
const started = performance.now();
// CI's `npm ci` has just built the app and the CLI (`prepare`) from these very sources: building them
// again here cost a minute or two of the run for nothing. .ci/run says so with PARALLAX_BUILT_BY_INSTALL=1.
const builtByInstall = process.env.PARALLAX_BUILT_BY_INSTALL === '1' && existsSync('out/cli/main.mjs') && existsSync('out/renderer/index.html');

/** Runs one stage; alone, its output streams; beside others, it is kept and printed when all are done. */
function run(name, command, together) {
  const at = performance.now();
  if (!together) {
    console.log(`\n== stage: ${name} (${command})`);
    const child = spawn(command, { shell: true, stdio: 'inherit' });
    return new Promise((resolve) => child.on('close', (code) => resolve({ name, command, ms: performance.now() - at, ok: code === 0, output: '' })));
  }
  const child = spawn(command, { shell: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ name, command, ms: performance.now() - at, ok: code === 0, output })));
}

for (const group of STAGES) {
  const stages = group.filter(([name]) => !(name === 'build' && builtByInstall));
  if (stages.length < group.length) console.log("\n== stage: build: skipped, npm ci's prepare built it (PARALLAX_BUILT_BY_INSTALL=1)");
  if (stages.length === 0) continue;
  const together = stages.length > 1;
  if (together) console.log(`\n== stages side by side: ${stages.map(([name, command]) => `${name} (${command})`).join(', ')}`);
  const results = await Promise.all(stages.map(([name, command]) => run(name, command, together)));
  for (const result of results) {
    if (together) {
      console.log(`\n== stage: ${result.name} (${result.command})`);
      process.stdout.write(result.output);
    }
    done.push({ name: result.name, ms: result.ms, ok: result.ok });
    console.log(`== stage: ${result.name}: ${result.ok ? 'passed' : 'FAILED'} in ${seconds(result.ms)}`);
  }
  const failure = results.find((r) => !r.ok);
  if (failure) {
    failed = failure.name;
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
