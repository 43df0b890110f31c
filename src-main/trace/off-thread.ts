/**
 * Reading a trace off the host's thread (docs/rules.md#r-mem-04, #r-mem-10): jobs run one at a time in
 * the trace worker (worker.ts), a child process of its own (or, by PARALLAX_TRACE_WORKER=thread, a worker
 * thread) whose heap is bounded by TRACE_WORKER_HEAP_MB. A trace that needs more is refused as too large,
 * and the host, its devices and its other calls are untouched: the worker is what runs out of memory (or
 * crashes, or is killed: the job in flight is refused as a TraceOpenError, and the next job starts
 * another), and parsing never holds the host's event loop nor grows its heap. The worker stays for the
 * next job a few seconds (starting one loads the reader), then ends; it ends with the host (app-services.ts,
 * or the child sees its IPC channel go).
 */
import type { TraceOpened } from '@shared/api/api';
import type { ChildProcess } from 'node:child_process';
import { z } from 'zod';
import { forkEntry, inheritedExecArgv, startWorker } from '@main/entries';
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

/**
 * Where the trace worker runs (docs/rules.md#r-mem-10): a child process of its own, by default, so its
 * parse, its heap and its collector share nothing with the host's (no lock, no V8 platform pool, no RSS);
 * `PARALLAX_TRACE_WORKER=thread` runs it as a worker thread of the host's, the form before, kept so
 * bench/trace-open.bench.ts can compare the two. Read at each start of a worker.
 */
export type TraceWorkerForm = 'process' | 'thread';
export function traceWorkerForm(env: NodeJS.ProcessEnv = process.env): TraceWorkerForm {
  return env['PARALLAX_TRACE_WORKER']?.trim() === 'thread' ? 'thread' : 'process';
}

/** Why a worker is gone before it answered: out of its heap, or anything else (a crash, a kill), in words. */
interface WorkerDeath {
  outOfMemory: boolean;
  why: string;
}

/** One trace worker, in either form: the host's side of its channel. */
interface TraceWorkerHandle {
  readonly form: TraceWorkerForm;
  readonly heapMb: number;
  /** The worker's process: the child's pid, or the host's own for a thread. */
  readonly pid: number;
  post(message: ToTraceWorker): void;
  /** While a job is in flight the worker keeps the process alive (a CLI waits for its answer); idle, it does not. */
  ref(): void;
  unref(): void;
  /** Ends it; resolves once it is gone. */
  end(): Promise<void>;
  /** A job's listeners: each message, and the worker's death. Returns what takes them off. */
  listen(onMessage: (message: unknown) => void, onDeath: (death: WorkerDeath) => void): () => void;
}

/** What V8 prints as a heap over `--max-old-space-size` aborts the process. */
const OUT_OF_MEMORY = /heap out of memory|Reached heap limit|Ineffective mark-compacts near heap limit/;
/** How much of the child's stderr is kept: the end of it, where V8 says it ran out of memory. */
const STDERR_TAIL_CHARS = 4096;

/** The child's flags: the host's (inheritedExecArgv) with its own heap bound instead of theirs. */
function childExecArgv(heapMb: number): string[] {
  const inherited = inheritedExecArgv();
  const out: string[] = [];
  for (let i = 0; i < inherited.length; i++) {
    const arg = inherited[i]!;
    if (arg === '--max-old-space-size') i++;
    else if (!/^--max[-_]old[-_]space[-_]size=/.test(arg)) out.push(arg);
  }
  return [...out, `--max-old-space-size=${heapMb}`];
}

/** A worker's death, said once, to the listeners of the job in flight (and of its own slot) or to the next to listen. */
function deathWatch(messages: { on(event: 'message', f: (message: unknown) => void): unknown; off(event: 'message', f: (message: unknown) => void): unknown }) {
  let died: WorkerDeath | undefined;
  const deaths = new Set<(death: WorkerDeath) => void>();
  return {
    died: () => died,
    die: (death: WorkerDeath) => {
      if (died) return;
      died = death;
      for (const onDeath of deaths) onDeath(death);
    },
    listen: (onMessage: (message: unknown) => void, onDeath: (death: WorkerDeath) => void): (() => void) => {
      if (died) {
        const death = died;
        queueMicrotask(() => onDeath(death));
        return () => undefined;
      }
      messages.on('message', onMessage);
      deaths.add(onDeath);
      return () => {
        messages.off('message', onMessage);
        deaths.delete(onDeath);
      };
    },
  };
}

function startProcess(heapMb: number): TraceWorkerHandle {
  const child: ChildProcess = forkEntry('trace-worker', [], {
    execArgv: childExecArgv(heapMb),
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    // From Electron's main process a fork runs Electron itself: as Node, not as another app.
    ...(process.versions.electron ? { env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } } : {}),
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (text: string) => (stderr = (stderr + text).slice(-STDERR_TAIL_CHARS)));
  const watch = deathWatch(child);
  // A send to a child that just died is answered by its 'close' below, never thrown; a start that failed
  // (no pid) refuses the job in flight now, its 'close' may never come.
  child.on('error', (error) => {
    if (child.pid === undefined) watch.die({ outOfMemory: false, why: `the trace worker could not start: ${error.message}` });
  });
  const gone = new Promise<void>((resolve) =>
    // 'close', not 'exit': the child's stderr is read to its end, so V8's last words are in `stderr`.
    child.once('close', (code, signal) => {
      watch.die({ outOfMemory: OUT_OF_MEMORY.test(stderr), why: `the trace worker (process ${child.pid ?? '?'}) ended (${signal ?? code}) without an answer` });
      resolve();
    }),
  );
  const streams = () => [
    child.stderr as (NodeJS.ReadableStream & { ref?(): void; unref?(): void }) | null,
    child.channel as { ref?(): void; unref?(): void } | null | undefined,
  ];
  return {
    form: 'process',
    heapMb,
    pid: child.pid ?? 0,
    post: (message) => {
      if (child.connected) child.send(message, (error) => void error);
    },
    ref: () => {
      child.ref();
      for (const s of streams()) s?.ref?.();
    },
    unref: () => {
      child.unref();
      for (const s of streams()) s?.unref?.();
    },
    end: async () => {
      if (!watch.died()) child.kill('SIGKILL');
      // A child that never started has nothing to wait for.
      if (child.pid !== undefined) await gone;
    },
    listen: watch.listen,
  };
}

function startThread(heapMb: number): TraceWorkerHandle {
  const worker = startWorker('trace-worker', { resourceLimits: { maxOldGenerationSizeMb: heapMb }, stdout: false, stderr: false });
  const watch = deathWatch(worker);
  worker.on('error', (error: Error & { code?: string }) => watch.die({ outOfMemory: error.code === 'ERR_WORKER_OUT_OF_MEMORY', why: error.message }));
  const gone = new Promise<void>((resolve) =>
    worker.once('exit', (code) => {
      watch.die({ outOfMemory: false, why: `the trace worker ended (${code}) without an answer` });
      resolve();
    }),
  );
  return {
    form: 'thread',
    heapMb,
    pid: process.pid,
    post: (message) => worker.postMessage(message),
    ref: () => worker.ref(),
    unref: () => worker.unref(),
    end: async () => {
      void worker.terminate();
      await gone;
    },
    listen: watch.listen,
  };
}

let current: { worker: TraceWorkerHandle; idle?: NodeJS.Timeout } | undefined;

function workerFor(heapMb: number): TraceWorkerHandle {
  const form = traceWorkerForm();
  if (current && current.worker.heapMb === heapMb && current.worker.form === form) {
    clearTimeout(current.idle);
    return current.worker;
  }
  if (current) void current.worker.end();
  const worker = form === 'thread' ? startThread(heapMb) : startProcess(heapMb);
  worker.unref();
  const mine = { worker };
  current = mine;
  // Gone (out of memory, a crash, killed): the next job starts another.
  worker.listen(
    () => undefined,
    () => {
      if (current === mine) current = undefined;
    },
  );
  return worker;
}

/** The process the trace worker runs in while one is running (docs/rules.md#r-mem-10; tests, the bench): its own, or the host's for a thread. */
export function traceWorkerPid(): number | undefined {
  return current?.worker.pid;
}

/** Ends the trace worker, if one is running (the host closing: app-services.ts); a job in flight is refused as its death. */
export async function endTraceWorker(): Promise<void> {
  const worker = current?.worker;
  current = undefined;
  await worker?.end();
}

/**
 * What the worker may tell the host (FromTraceWorker), decoded before it is believed: a part is at most
 * TRACE_PART_CHARS items, each text at most TRACE_MESSAGE_CHARS (one line or step goes alone when over
 * TRACE_PART_CHARS, and no event is over 8 MiB), so the host parses no text (jsonArrayParts) over that.
 */
export const TRACE_MESSAGE_CHARS = 64 << 20;
const TRACE_OPEN_ERROR_CODES = [
  'not_zip',
  'not_parallax_trace',
  'damaged',
  'missing_resource',
  'bad_resource',
  'unsupported_version',
  'unreadable',
  'too_large',
  'forbidden',
] as const satisfies readonly TraceOpenErrorCode[];
const FromTraceWorkerSchema = z.union([
  z.object({ part: z.array(z.union([z.string().max(TRACE_MESSAGE_CHARS), z.record(z.string(), z.unknown())])).max(TRACE_PART_CHARS) }).strict(),
  z.object({ ok: z.literal(true), result: z.unknown().optional() }).strict(),
  z.object({ ok: z.literal(false), code: z.enum(TRACE_OPEN_ERROR_CODES), message: z.string().max(64 * 1024) }).strict(),
]);

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
      stop();
      worker.unref();
      done();
      // Let go of it before it ends: a job that came in between terminate() and the 'exit' event was
      // posted to the dying thread and answered "ended (1) without an answer" (npm run fuzz found it).
      const retire = () => {
        if (current?.worker === worker) current = undefined;
        void worker.end();
      };
      if (current?.worker === worker) current.idle = setTimeout(retire, IDLE_END_MS).unref();
    };
    /** The worker is mid-job and will not be asked for its next part: it is let go of, the job refused. */
    const abandon = (error: unknown) =>
      settle(() => {
        if (current?.worker === worker) current = undefined;
        void worker.end();
        reject(error);
      });
    const onMessage = (raw: unknown) => {
      const decoded = FromTraceWorkerSchema.safeParse(raw);
      if (!decoded.success) {
        abandon(
          new TraceOpenError(
            'unreadable',
            `${job.path} could not be read: the trace worker sent what it may not (${decoded.error.issues[0]?.message ?? 'not a message'})`,
          ),
        );
        return;
      }
      const message = decoded.data as FromTraceWorker;
      if (!('part' in message)) {
        settle(() => (message.ok ? resolve(message.result) : reject(new TraceOpenError(message.code, message.message))));
        return;
      }
      // A part: handed on, then the next asked for (the worker waits for it: one part in flight).
      void (async () => (onPart ? onPart(message.part) : undefined))().then(() => {
        if (!settled) worker.post({ more: true } satisfies ToTraceWorker);
      }, abandon);
    };
    const onDeath = (death: WorkerDeath) =>
      settle(() =>
        reject(
          death.outOfMemory
            ? new TraceOpenError(
                'too_large',
                `${job.path} needs more than the ${heapMb} MiB of memory a trace may take to read (the trace worker's heap, PARALLAX_TRACE_WORKER_HEAP_MB); it was not opened`,
              )
            : new TraceOpenError('unreadable', `${job.path} could not be read: ${death.why}`),
        ),
      );
    const stop = worker.listen(onMessage, onDeath);
    worker.post({ job } satisfies ToTraceWorker);
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
