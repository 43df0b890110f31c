/**
 * R-CLI-01: the `parallax` command runs from JavaScript built at install time. The build (scripts/build-cli.mjs,
 * run by `prepare` and `build`) must answer every command line as the TypeScript sources do; this builds it
 * into a folder of its own and holds the two to each other on what a user sees: output, errors, exit codes.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const OUT = `out/cli-test-${process.pid}`;

function run(args: string[], entry: 'built' | 'source'): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const script =
    entry === 'built'
      ? [
          '--input-type=module',
          '-e',
          `const { main } = await import(${JSON.stringify(join(ROOT, OUT, 'main.mjs'))}); process.exitCode = await main(${JSON.stringify(args)});`,
        ]
      : [join(ROOT, 'bin', 'parallax.mjs'), ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, script, {
      cwd: ROOT,
      env: { ...process.env, PARALLAX_CLI_FROM_SOURCE: '1', PARALLAX_MDNS: 'off' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(() => {
  const build = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-cli.mjs'), OUT], { cwd: ROOT, encoding: 'utf8' });
  expect(build.status, build.stderr).toBe(0);
}, 60_000);
afterAll(() => rmSync(join(ROOT, OUT), { recursive: true, force: true }));

describe('R-CLI-01: the built command answers as the sources do', () => {
  it('keeps the demo devices and each command in chunks of their own, with source maps beside them', () => {
    expect(existsSync(join(ROOT, OUT, 'main.mjs'))).toBe(true);
    expect(existsSync(join(ROOT, OUT, 'main.mjs.map'))).toBe(true);
  });

  const lines: string[][] = [
    ['--help'],
    [],
    ['tap', '--help'],
    ['doctor', '--help'],
    ['bogus'],
    ['tap'],
    ['tap', '--device', 'ftp://nowhere', '--id', 'x'],
    ['observe', '--device', 'ws://127.0.0.1:1/ws', '--strategy', 'sideways'],
    ['demo-device', '--count', 'zero'],
    ['open', join(ROOT, 'package.json')],
  ];
  for (const args of lines) {
    it(`parallax ${args.join(' ') || '(nothing)'}`, async () => {
      const [built, source] = await Promise.all([run(args, 'built'), run(args, 'source')]);
      expect(built).toEqual(source);
    }, 60_000);
  }
});
