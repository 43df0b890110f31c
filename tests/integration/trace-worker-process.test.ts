/**
 * R-MEM-10: the trace worker is a process of its own, so its parse, its heap and its collector never stall
 * or grow the host's. It is another pid; killed mid-job, the call it held is refused with a typed error
 * (TraceOpenError) and the next call gets a new worker; it ends with the host (closed, exited or killed).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { endTraceWorker, inTraceWorker, traceWorkerPid } from '@main/trace/off-thread';
import { openTraceView } from '@main/trace/view';
import { TraceOpenError } from '@main/trace/errors';
import { alive, gone } from '../support/processes';

const ROOT = join(import.meta.dirname, '..', '..');
const FIXTURE = join(ROOT, 'tests', 'fixtures', 'traces', 'demo-qa');

/** The worker's pid, read while its job is in flight (the worker waits for the host to take the part). */
async function workerPidDuringJob(): Promise<number> {
  let pid: number | undefined;
  await inTraceWorker('listing', FIXTURE, undefined, { onPart: () => void (pid ??= traceWorkerPid()) });
  return pid!;
}

describe.runIf(process.platform === 'linux')('R-MEM-10: the trace worker runs in a process of its own', () => {
  it("R-MEM-10: the worker is another process: its pid is not the host's, and it runs the trace worker", async () => {
    const pid = await workerPidDuringJob();
    expect(pid).toBeGreaterThan(0);
    expect(pid).not.toBe(process.pid);
    // The built entry (out/…/trace-worker.mjs), or from the sources when no fresh build is there (entries.ts).
    expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8')).toMatch(/(trace-worker|trace\/worker)\.(ts|m?js)/);
    // Its parent is this process, the host.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    expect(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])).toBe(process.pid);
  }, 120_000);

  it('R-MEM-10: killed mid-job, the worker fails the pending call with a typed error; the call queued behind it and the next one get a new worker', async () => {
    await openTraceView(FIXTURE); // the worker started and its reader loaded
    let killed: number | undefined;
    const pending = inTraceWorker('listing', FIXTURE, undefined, {
      onPart: () => {
        killed ??= traceWorkerPid();
        process.kill(killed!, 'SIGKILL');
      },
    }).catch((error: unknown) => error);
    const queued = openTraceView(FIXTURE);
    const refusal = await pending;
    expect(refusal).toBeInstanceOf(TraceOpenError);
    expect((refusal as TraceOpenError).code).toBe('unreadable');
    expect((refusal as TraceOpenError).message).toMatch(/the trace worker \(process \d+\) ended \(SIGKILL\) without an answer/);
    // The host is alive and reads on: the job queued behind it, and the next, in a new worker.
    expect((await queued).steps.length).toBeGreaterThan(0);
    const next = await workerPidDuringJob();
    expect(next).not.toBe(killed);
    expect(next).not.toBe(process.pid);
  }, 120_000);

  it('R-MEM-10: the host closing ends the worker (endTraceWorker, as app-services.ts closes)', async () => {
    const pid = await workerPidDuringJob();
    expect(alive(pid)).toBe(true); // idle, kept for the next job
    await endTraceWorker();
    expect(await gone(pid)).toBe(true);
    expect(traceWorkerPid()).toBeUndefined();
    // The next call starts another.
    expect((await openTraceView(FIXTURE)).steps.length).toBeGreaterThan(0);
  }, 120_000);

  /** Starts tests/support/trace-worker-host.ts and resolves with it and its worker's pid once the worker reads. */
  async function hostProcess(mode: 'hold' | 'done') {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'tests', 'support', 'trace-worker-host.ts'), FIXTURE, mode], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, TSX_TSCONFIG_PATH: join(ROOT, 'tsconfig.tsx.json') },
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const worker = await new Promise<number>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /worker (\d+)\n/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      void exited.then((code) => reject(new Error(`the host ended (${code}) before its worker read: ${err.slice(0, 500)}`)));
    });
    return { child, worker, exited, out: () => out };
  }

  it('R-MEM-10: a host killed mid-job takes its worker with it (the worker sees its channel go)', async () => {
    const host = await hostProcess('hold');
    expect(host.worker).not.toBe(host.child.pid);
    expect(alive(host.worker)).toBe(true);
    host.child.kill('SIGKILL');
    await host.exited;
    expect(await gone(host.worker)).toBe(true);
  }, 120_000);

  it('R-MEM-10: a host that is done ends without waiting for its idle worker, and the worker ends with it', async () => {
    const host = await hostProcess('done');
    expect(await host.exited).toBe(0);
    expect(host.out()).toContain('listed');
    // It ended still holding its idle worker: had the worker kept it alive, the process would have lasted
    // until the worker's idle timer (IDLE_END_MS) let the worker go, and would say "none" here.
    expect(host.out()).toContain(`ended holding worker ${host.worker}\n`);
    expect(await gone(host.worker)).toBe(true);
  }, 120_000);
});
