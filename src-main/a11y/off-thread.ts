/**
 * The accessibility audit off the host's thread (docs/rules.md#r-a11y-24): the live panel's audit of a
 * device's frame and the trace view's of a stored one run in the audit worker (worker.ts), so the PNG's
 * decode and the walk of a 5k-node tree never hold the event loop that forwards the live view's frames.
 * The host's part is the tree's JSON text (a string crosses in one copy) and, for a stored frame, the PNG's
 * bytes, moved, not copied. One thread for the host, started on the first audit and ended after
 * IDLE_END_MS without one; a thread that dies (out of memory, a crash) fails the audits it held, and the
 * next audit starts another.
 */
import type { Worker } from 'node:worker_threads';
import { startWorker } from '@main/entries';
import { stepFindings, type StepFindings } from '@shared/a11y';
import type { AccessibilityAudit } from '@shared/protocol/accessibility';
import type { ObservedFrame, Screenshot } from '@shared/protocol/device';
import type { FrameMemoryCounts } from './frame-memory';

export type AuditJob = { kind: 'frame'; json: string; screenshot: Screenshot | null } | { kind: 'stored'; json: string; png?: Uint8Array | undefined };
export interface ToAuditWorker {
  id: number;
  job: AuditJob;
}
export type FromAuditWorker =
  { id: number; ok: true; audit: AccessibilityAudit | null; memory: FrameMemoryCounts } | { id: number; ok: false; message: string };

/** An audit the worker could not give: it threw (its message), or the thread ended before answering. */
export class AuditWorkerError extends Error {
  override name = 'AuditWorkerError';
}

/**
 * The worker's heap: a 50,000-node tree's JSON text, parsed, is well under 200 MiB; a screenshot's pixels
 * (64 MiB at MAX_SCREENSHOT_PIXELS) are a Buffer outside it.
 */
export const AUDIT_WORKER_HEAP_MB = 512;
export const IDLE_END_MS = 30_000;

interface AuditThread {
  worker: Worker;
  pending: Map<number, { resolve: (audit: AccessibilityAudit | undefined) => void; reject: (error: Error) => void }>;
  idle?: NodeJS.Timeout;
  /** What the thread's FrameMemory had done at its last answer (frame-memory.ts). */
  memory: FrameMemoryCounts;
}
let current: AuditThread | undefined;
let nextId = 1;
/** Jobs sent to an audit worker since this module loaded (tests: the recorder's audit went there). */
let sent = 0;

function thread(): AuditThread {
  if (current) {
    clearTimeout(current.idle);
    return current;
  }
  // Not niced as the trace worker is (R-MEM-06): an audit is a fifth of a second, not tens of seconds,
  // and on a busy machine a thread at nice 19 waited seconds for its turn; its own thread is what keeps
  // the host's loop free.
  const worker = startWorker('a11y-worker', { resourceLimits: { maxOldGenerationSizeMb: AUDIT_WORKER_HEAP_MB }, stdout: false, stderr: false });
  const mine: AuditThread = { worker, pending: new Map(), memory: { decoded: 0, pixelsReused: 0, auditsReused: 0 } };
  current = mine;
  const fail = (why: string) => {
    if (current === mine) current = undefined;
    for (const { reject } of mine.pending.values()) reject(new AuditWorkerError(why));
    mine.pending.clear();
  };
  worker.on('message', (reply: FromAuditWorker) => {
    const waiting = mine.pending.get(reply.id);
    if (!waiting) return;
    mine.pending.delete(reply.id);
    if (reply.ok) {
      mine.memory = reply.memory;
      waiting.resolve(reply.audit ?? undefined);
    } else waiting.reject(new AuditWorkerError(reply.message));
    if (mine.pending.size === 0) idle(mine);
  });
  worker.on('error', (error: Error & { code?: string }) =>
    fail(
      error.code === 'ERR_WORKER_OUT_OF_MEMORY'
        ? `the audit needed more than the audit worker's ${AUDIT_WORKER_HEAP_MB} MiB`
        : `the audit worker failed: ${error.message}`,
    ),
  );
  worker.on('exit', (code) => fail(`the audit worker ended (${code}) without an answer`));
  return mine;
}

/** Nothing in flight: the thread keeps no process alive (a CLI ends), and ends itself when left idle. */
function idle(mine: AuditThread): void {
  mine.worker.unref();
  clearTimeout(mine.idle);
  mine.idle = setTimeout(() => {
    if (current === mine) current = undefined;
    void mine.worker.terminate();
  }, IDLE_END_MS).unref();
}

/**
 * The audit worker started ahead of its first job (a recording that is about to audit each step's frames:
 * the thread's start, its bundle loaded on a busy machine, is not the first step's to wait for); it ends
 * when left idle, as after a job.
 */
export function warmAuditWorker(): void {
  const mine = thread();
  if (mine.pending.size === 0) idle(mine);
}

function run(job: AuditJob, transfer: ArrayBuffer[] = []): Promise<AccessibilityAudit | undefined> {
  const { worker, pending } = thread();
  const id = nextId++;
  sent++;
  worker.ref();
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    worker.postMessage({ id, job } satisfies ToAuditWorker, transfer);
  });
}

/** `auditFrame` (audit-frame.ts) in the audit worker: the frame's audit, or undefined without an observation. Throws AuditWorkerError. */
export function auditFrameOffThread(frame: Pick<ObservedFrame, 'observation' | 'screenshot'>): Promise<AccessibilityAudit | undefined> {
  if (!frame.observation) return Promise.resolve(undefined);
  return run({ kind: 'frame', json: JSON.stringify(frame.observation), screenshot: frame.screenshot });
}

/** `auditStoredFrame` (audit-frame.ts) in the audit worker. The PNG's bytes are copied once here and that copy moved across. Throws AuditWorkerError. */
export function auditStoredFrameOffThread(stored: unknown, png: Buffer | undefined): Promise<AccessibilityAudit | undefined> {
  const json = JSON.stringify(stored);
  if (json === undefined) return Promise.resolve(undefined);
  const bytes = png ? new Uint8Array(png) : undefined;
  return run({ kind: 'stored', json, png: bytes }, bytes ? [bytes.buffer as ArrayBuffer] : []);
}

/**
 * What a recording keeps of a frame's audit (docs/rules.md#r-a11y-19), audited in the audit worker: the
 * recorder and replay run on the host's thread, so a 5k-node frame's decode and walk are not theirs to hold.
 * An audit that fails leaves the step without findings, never without its event.
 */
export async function frameFindingsOffThread(frame: Pick<ObservedFrame, 'observation' | 'screenshot'> | null | undefined): Promise<StepFindings | undefined> {
  if (!frame) return undefined;
  try {
    const audit = await auditFrameOffThread(frame);
    return audit ? stepFindings(audit) : undefined;
  } catch {
    return undefined;
  }
}

/** A stored frame's findings (docs/rules.md#r-a11y-20), audited in the audit worker; undefined when it is no screen or the audit failed. */
export async function storedFindingsOffThread(stored: unknown, png: Buffer | undefined): Promise<StepFindings | undefined> {
  try {
    const audit = await auditStoredFrameOffThread(stored, png);
    return audit ? stepFindings(audit) : undefined;
  } catch {
    return undefined;
  }
}

/** How many audits were sent to an audit worker in this process. */
export function auditWorkerJobs(): number {
  return sent;
}

/**
 * What the audit worker running now has decoded and used again, as of its last answer (tests: a screenshot
 * sent again was not decoded again); undefined while none runs. A new thread starts from nothing.
 */
export function auditWorkerMemory(): (FrameMemoryCounts & { threadId: number }) | undefined {
  return current ? { ...current.memory, threadId: current.worker.threadId } : undefined;
}

/** The audit worker's thread id while one runs (tests: the audit ran there, not on the caller's thread). */
export function auditWorkerThreadId(): number | undefined {
  return current?.worker.threadId;
}
