/**
 * `npm run bench -- cli`: what a call of the `parallax` command costs before it does anything
 * (docs/rules.md#r-cli-01). Each round runs, one after the other, `node -e 0` (Node's own start, the
 * floor), `parallax --help`, and `parallax tap --json` against a demo device started here, from the build
 * (out/cli) and from the sources through tsx (the previous way), so all are measured on the same machine
 * state. An action's own overhead is its wall time less the stages its result reports.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { startDemoDevice } from '@demo/index';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'parallax.mjs');
const ROUNDS = Number(process.env.CLI_ROUNDS ?? 9);
const HELP_LIMIT_MS = 300;
const ACTION_LIMIT_MS = 400;

function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ ms: number; stdout: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { env: { ...process.env, PARALLAX_MDNS: 'off', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ ms: performance.now() - started, stdout, code }));
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const fmt = (ms: number) => `${ms.toFixed(0)} ms`;

const demo = await startDemoDevice();
try {
  const samples: Record<string, number[]> = { node: [], help: [], helpSource: [], action: [], actionOwn: [], actionSource: [] };
  for (let round = 0; round < ROUNDS; round++) {
    samples.node!.push((await run(['-e', '0'])).ms);
    samples.help!.push((await run([BIN, '--help'])).ms);
    samples.helpSource!.push((await run([BIN, '--help'], { PARALLAX_CLI_FROM_SOURCE: '1' })).ms);
    for (const [key, env] of [
      ['action', {}],
      ['actionSource', { PARALLAX_CLI_FROM_SOURCE: '1' }],
    ] as const) {
      const tap = await run([BIN, 'tap', '--device', demo.runnerUrl, '--point', '5,5', '--json'], env);
      if (tap.code !== 0) throw new Error(`the tap failed: ${tap.stdout.slice(0, 300)}`);
      // `total` is the action's own time, from its first request to its result.
      const stages = (JSON.parse(tap.stdout) as { timings: { total?: number } }).timings.total ?? 0;
      samples[key]!.push(tap.ms);
      if (key === 'action') samples.actionOwn!.push(tap.ms - stages);
    }
  }
  const node = median(samples.node!);
  console.log(`${ROUNDS} rounds, medians; Node's own start (node -e 0): ${fmt(node)}`);
  console.log('| call | built (out/cli) | from source (tsx) | built / limit |');
  console.log('| --- | --- | --- | --- |');
  console.log(
    `| parallax --help | ${fmt(median(samples.help!))} | ${fmt(median(samples.helpSource!))} | ${(median(samples.help!) / HELP_LIMIT_MS).toFixed(2)} of ${HELP_LIMIT_MS} ms |`,
  );
  console.log(`| parallax tap --json, whole | ${fmt(median(samples.action!))} | ${fmt(median(samples.actionSource!))} | |`);
  console.log(
    `| the tap's own overhead (start, connect, print) | ${fmt(median(samples.actionOwn!))} | | ${(median(samples.actionOwn!) / ACTION_LIMIT_MS).toFixed(2)} of ${ACTION_LIMIT_MS} ms |`,
  );
  console.log(`over Node's own start: --help +${fmt(median(samples.help!) - node)}, the tap's overhead +${fmt(median(samples.actionOwn!) - node)}`);
} finally {
  await demo.close();
}
