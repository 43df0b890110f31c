/**
 * `npm run test:stress` (docs/rules.md#r-suite-01), driven with a stand-in command so it runs in a second:
 * a bad STRESS_RUNS is refused before anything starts, each run's verdict is printed, and a stop (SIGINT)
 * ends the run in progress and every hog.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { alive } from '../support/processes';

const SCRIPT = 'scripts/test-stress.mjs';
const run = (env: Record<string, string>) => spawnSync(process.execPath, [SCRIPT], { encoding: 'utf8', env: { ...process.env, STRESS_HOGS: '0', ...env } });
/** The processes whose parent is `pid` (Linux's /proc). */
const childrenOf = (pid: number): number[] => readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);

describe('test:stress', () => {
  it('R-SUITE-01: refuses a STRESS_RUNS that is not a positive integer, naming it, before any run', () => {
    for (const bad of ['0', '-1', '1.5', 'three']) {
      const result = run({ STRESS_RUNS: bad, STRESS_COMMAND: 'echo ran' });
      expect(result.status, bad).toBe(2);
      expect(result.stderr).toContain(`STRESS_RUNS must be a positive integer, got "${bad}"`);
      expect(result.stdout).not.toContain('ran');
    }
  });

  it('R-SUITE-01: prints each run’s verdict, and fails when one run failed', () => {
    const result = run({ STRESS_RUNS: '2', STRESS_COMMAND: `node -e "process.exit(process.env.PARALLAX_STAGE_REPORT.endsWith('run-2.json') ? 1 : 0)"` });
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/run 1: passed in \d+ s/);
    expect(result.stdout).toMatch(/run 2: FAILED in \d+ s/);
    expect(result.stdout).toContain('1 of 2 runs passed');
  });

  it.runIf(process.platform === 'linux')(
    'R-SUITE-01: SIGINT stops the run in progress and the hogs, and says so',
    async () => {
      const child = spawn(process.execPath, [SCRIPT], {
        env: { ...process.env, STRESS_HOGS: '1', STRESS_RUNS: '3', STRESS_COMMAND: `node -e "setInterval(() => {}, 1000)"` },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      // Until the hog and the run are both started: the script's own children.
      await vi.waitFor(() => expect(childrenOf(child.pid!).length).toBe(2), { timeout: 30_000, interval: 20 });
      const started = childrenOf(child.pid!).flatMap((pid) => [pid, ...childrenOf(pid)]);
      child.kill('SIGINT');
      expect(await closed).toBe(130);
      expect(out).toContain('stopped by SIGINT');
      expect(out).toContain('run 1: stopped');
      await vi.waitFor(() => expect(started.filter(alive)).toEqual([]), { timeout: 30_000, interval: 20 });
    },
    60_000,
  );
});
