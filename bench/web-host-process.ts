/**
 * What the browser benches share: `parallax serve` in a child process of its own (the host measured as
 * a user runs it, not sharing the bench's event loop), and percentiles. `HOST_PROFILE_DIR=<dir>`: each
 * host runs with Node's `--cpu-prof` into that folder (a profile per host, written when it exits), to see
 * what holds its event loop.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');

/** Starts `parallax serve ARGS` with a fresh home and no mDNS; resolves with its URL once it prints it. */
export async function serveInChild(args: string[]): Promise<{ url: string; child: ChildProcess }> {
  const profile = process.env['HOST_PROFILE_DIR'] ? ['--cpu-prof', `--cpu-prof-dir=${process.env['HOST_PROFILE_DIR']}`] : [];
  const child = spawn(process.execPath, [...profile, join(ROOT, 'bin', 'parallax.mjs'), 'serve', ...args, '--no-default-device'], {
    env: { ...process.env, PARALLAX_MDNS: 'off', PARALLAX_HOME: await mkdtemp(join(tmpdir(), 'parallax-bench-home-')) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /Parallax web host: (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}`)));
  });
  return { url, child };
}

/** The p-th percentile (nearest rank) of `xs`. */
export function percentile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? NaN;
}
