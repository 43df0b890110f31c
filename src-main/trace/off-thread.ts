/**
 * Reading a trace off the host's thread (docs/rules.md#r-mem-04): jobs run one at a time in a worker
 * thread (worker.ts) whose heap is bounded by TRACE_WORKER_HEAP_MB. A trace that needs more is refused
 * as too large, and the host, its devices and its other calls are untouched: the thread is what runs
 * out of memory (it is started again for the next job), and parsing never holds the host's event loop.
 * The thread stays for the next job a few seconds (starting one loads the reader), then ends.
 */
import type { TraceOpened } from '@shared/api/api';
import type { Worker } from 'node:worker_threads';
import { startWorker } from '@main/entries';
import { TraceOpenError, type TraceOpenErrorCode } from './errors';
import type { ReplayPlan } from './replay-plan';
import type { TraceEdit } from '@shared/trace/trace-edit';
import type { AuditedScreen } from './audit-screens';

/**
 * The old generation of the worker's heap. A trace at TRACE_EVENT_LIMITS (1,000,000 observation events)
 * needs more than 768 MiB (refused there: bench/trace-open.bench.ts) and opens within 1024 MiB, the web
 * host's peak RSS 1,161 MiB of the 1.5 GiB it may take (issue 26), measured by that bench.
 */
/** The editor's rewrite, as the trace worker is given it: the edits, and the file it writes them to. */
export interface EditJob {
  edits: readonly TraceEdit[];
  /** A name no file has (tempNameFor): the worker creates it, the host names it and removes it. */
  temp: string;
}

export const TRACE_WORKER_HEAP_MB = 1024;

/**
 * The heap a job gets: TRACE_WORKER_HEAP_MB, or PARALLAX_TRACE_WORKER_HEAP_MB (whole MiB, 16 to 8192)
 * on a machine with less memory to give, or more. Anything else there is ignored for the default.
 */
export function traceWorkerHeapMb(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env['PARALLAX_TRACE_WORKER_HEAP_MB'];
  const mb = raw !== undefined && /^\d{2,4}$/.test(raw.trim()) ? Number(raw) : NaN;
  return mb >= 16 && mb <= 8192 ? mb : TRACE_WORKER_HEAP_MB;
}

/**
 * A job for the worker: the trace view's listing, an export, `parallax open`'s lines (`json`: its JSON),
 * a replay's plan (replay-plan.ts), the editor's rewrite (`edit`: edit.ts) or `parallax audit TRACE`'s
 * screens. Every parse of a trace's events on behalf of a host or the CLI is one of these (the
 * recorder's recovery reads its own folder, written by this process).
 */
export type TraceJob =
  | { kind: 'view' | 'maestro' | 'xcuitest' | 'replay' | 'audit'; path: string }
  | { kind: 'listing'; path: string; json?: boolean }
  | { kind: 'edit'; path: string; edit: EditJob };

/** What the host tells the worker: a job, or that the last part was taken and the next may come. */
export type ToTraceWorker = { job: TraceJob } | { more: true };
/**
 * What the worker tells the host: a part of the answer (docs/rules.md#r-mem-05): lines of text, at most
 * TRACE_PART_CHARS of them, or one item (an audited screen); or the answer (the result, or its refusal).
 */
export type FromTraceWorker = { part: unknown[] } | TraceJobReply;
export type TraceJobReply = { ok: true; result: unknown } | { ok: false; code: TraceOpenErrorCode; message: string };

/**
 * The most text one part carries. A structured clone is made, and read, in one turn of each thread's
 * event loop: a whole answer at the limit (hundreds of MiB of JSON) would hold the host's loop for as long
 * as it takes to copy, and be held twice; a MiB is copied in about a millisecond.
 */
export const TRACE_PART_CHARS = 1 << 20;

interface JobResults {
  /** The steps come as parts (`onPart`: each one JSON array's text); the result holds none. */
  view: TraceOpened;
  maestro: { yaml: string; notes: string[] };
  xcuitest: { swift: string; notes: string[] };
  /** The lines come as parts (`onPart`); the result is how many there were. */
  listing: { lines: number };
  /** The actions come as parts (`onPart`: each one JSON array's text); the result holds none. */
  replay: ReplayPlan;
  /** The screens come as parts, one each (AuditedScreen, audit-screens.ts); the result is how many. */
  audit: { screens: number };
  /** The edited copy is written to the job's `temp`. */
  edit: undefined;
}

/** What a job's parts hold: `parallax open`'s lines, the trace view's steps or a replay's actions (a JSON array's text), or the audited screens of a trace. */
type PartOf<K extends TraceJob['kind']> = K extends 'audit' ? AuditedScreen : string;

type JobOptions<K extends TraceJob['kind']> = (K extends 'listing' ? { json?: boolean } : K extends 'edit' ? { edit: EditJob } : unknown) & {
  /**
   * Takes each part of the answer, in order; the next is sent once it returns (or its promise settles), so
   * a slow reader holds one part at a time, never the whole answer. A throw refuses the job.
   */
  onPart?: (part: PartOf<K>[]) => void | Promise<void>;
};

let turn: Promise<unknown> = Promise.resolve();

/** Runs `job` in a trace worker once the one before it has ended. Throws TraceOpenError. */
export function inTraceWorker<K extends TraceJob['kind']>(
  kind: K,
  path: string,
  heapMb = traceWorkerHeapMb(),
  options = {} as JobOptions<K>,
): Promise<JobResults[K]> {
  const { onPart, ...rest } = options;
  const job = { kind, path, ...rest } as TraceJob;
  const run = turn.then(() => runJob(job, heapMb, onPart as ((part: unknown[]) => void | Promise<void>) | undefined));
  turn = run.catch(() => undefined);
  return run as Promise<JobResults[K]>;
}

export const IDLE_END_MS = 10_000;
let current: { worker: Worker; heapMb: number; idle?: NodeJS.Timeout } | undefined;

function workerFor(heapMb: number): Worker {
  if (current && current.heapMb === heapMb) {
    clearTimeout(current.idle);
    return current.worker;
  }
  if (current) void current.worker.terminate();
  const worker = startWorker('trace-worker', { resourceLimits: { maxOldGenerationSizeMb: heapMb }, stdout: false, stderr: false });
  worker.unref();
  const mine = { worker, heapMb };
  current = mine;
  worker.once('exit', () => {
    if (current === mine) current = undefined;
  });
  return worker;
}

function runJob(job: TraceJob, heapMb: number, onPart: ((part: unknown[]) => void | Promise<void>) | undefined): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const worker = workerFor(heapMb);
    // A job in flight keeps the process alive until its answer (or the worker's death) arrives: unref'd,
    // a CLI whose worker died out of memory ended with exit code 13 and no word, the refusal undelivered.
    worker.ref();
    let settled = false;
    const settle = (done: () => void) => {
      if (settled) return;
      settled = true;
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      worker.unref();
      done();
      // Let go of it before it ends: a job that came in between terminate() and the 'exit' event was
      // posted to the dying thread and answered "ended (1) without an answer" (npm run fuzz found it).
      const retire = () => {
        if (current?.worker === worker) current = undefined;
        void worker.terminate();
      };
      if (current?.worker === worker) current.idle = setTimeout(retire, IDLE_END_MS).unref();
    };
    const onMessage = (message: FromTraceWorker) => {
      if (!('part' in message)) {
        settle(() => (message.ok ? resolve(message.result) : reject(new TraceOpenError(message.code, message.message))));
        return;
      }
      // A part: handed on, then the next asked for (the worker waits for it: one part in flight).
      void (async () => (onPart ? onPart(message.part) : undefined))().then(
        () => {
          if (!settled) worker.postMessage({ more: true } satisfies ToTraceWorker);
        },
        (error: unknown) =>
          settle(() => {
            // The worker is mid-job, waiting for a "more" that will not come: it is let go of.
            if (current?.worker === worker) current = undefined;
            void worker.terminate();
            reject(error);
          }),
      );
    };
    const onError = (error: Error & { code?: string }) =>
      settle(() =>
        reject(
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new TraceOpenError(
                'too_large',
                `${job.path} needs more than the ${heapMb} MiB of memory a trace may take to read (the trace worker's heap, PARALLAX_TRACE_WORKER_HEAP_MB); it was not opened`,
              )
            : new TraceOpenError('unreadable', `${job.path} could not be read: ${error.message}`),
        ),
      );
    const onExit = (code: number) =>
      settle(() => reject(new TraceOpenError('unreadable', `${job.path} could not be read: the trace worker ended (${code}) without an answer`)));
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    worker.postMessage({ job } satisfies ToTraceWorker);
  });
}

/**
 * An `onPart` that parses each part (one JSON array's text) in a turn of its own and keeps its elements in
 * order (docs/rules.md#r-mem-07, #r-mem-08): a string crosses from the worker as one copy, and a MiB of
 * JSON parses in milliseconds, where the whole array's structured clone held this thread for seconds.
 */
export function jsonArrayParts<T>(): { items: T[]; onPart: (texts: string[]) => void } {
  const items: T[] = [];
  return {
    items,
    onPart: (texts) => {
      for (const text of texts) for (const item of JSON.parse(text) as T[]) items.push(item);
    },
  };
}
