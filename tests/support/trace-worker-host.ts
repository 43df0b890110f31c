/**
 * A host that reads a trace in its trace worker, in a process of its own for
 * tests/integration/trace-worker-process.test.ts (docs/rules.md#r-mem-10): `node --import tsx THIS TRACE MODE`.
 * It prints `worker PID` once the worker is reading. `hold`: the job stays in flight (its first part is
 * never taken) until this process is killed; `done`: the job ends and so does this process, nothing else
 * keeping it alive (the idle worker must not). At its exit it prints `ended holding worker PID|none`: the
 * worker it still held, or none when the worker's idle timer had let it go first (so that timer, not the
 * end of the work, was what the process waited for).
 */
import { inTraceWorker, traceWorkerPid } from '@main/trace/off-thread';

process.on('exit', () => process.stdout.write(`ended holding worker ${traceWorkerPid() ?? 'none'}\n`));

const [trace, mode] = process.argv.slice(2) as [string, 'hold' | 'done'];
await inTraceWorker('listing', trace, undefined, {
  onPart: () => {
    process.stdout.write(`worker ${traceWorkerPid()}\n`);
    return mode === 'hold' ? new Promise<void>(() => undefined) : undefined;
  },
});
process.stdout.write('listed\n');
