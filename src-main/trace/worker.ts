/**
 * The trace worker (docs/rules.md#r-mem-04, #r-mem-10): jobs one at a time, in a heap the host bounds
 * (off-thread.ts), in a child process of its own (or a worker thread, PARALLAX_TRACE_WORKER=thread). It
 * parses the trace the job names and posts back only what the caller needs (the trace view's listing, an
 * export's text), so a hostile or huge trace costs this worker's heap and time, never the host's: over
 * the bound the worker dies out of memory and the host refuses the trace.
 * An answer that grows with the trace (`parallax open`'s lines, an audit's screens, the view's steps, a
 * replay's actions) goes as parts of at most TRACE_PART_CHARS, each sent when the host has taken the one
 * before (docs/rules.md#r-mem-05, #r-mem-07, #r-mem-08).
 */
import { readdirSync, readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { redactForTrace } from '@shared/trace/redact';
import { exportMaestro, exportNotes, exportXcuiTest } from './export';
import { openTraceFile } from './open';
import { TraceOpenError } from './errors';
import { traceViewOf } from './view-steps';
import { TRACE_PART_CHARS, type FromTraceWorker, type ToTraceWorker, type TraceJob, type TraceJobReply } from './off-thread';
import { replayPlanOf } from './replay-plan';
import { openListing } from './open-listing';
import { rewriteTrace } from './edit';
import { auditedScreens } from './audit-screens';

/**
 * The worker yields the CPU to the host (docs/rules.md#r-mem-06): a trace at the limit parses for tens of
 * seconds at full speed, and on a busy machine the host's thread, sharing the process's share of the CPU
 * with it, waited up to 580 ms for a turn. In a process of its own (the default, docs/rules.md#r-mem-10)
 * every thread of it is at TRACE_WORKER_NICE: on Linux each thread's nice value is its own, so each one
 * listed in /proc/self/task is set (the threads made later, the libuv pool's, inherit it from the thread
 * that makes them); elsewhere the process's. As a thread of the host's (PARALLAX_TRACE_WORKER=thread) only
 * this thread (its id read from /proc/thread-self). Not permitted, or no /proc: nothing changes.
 */
export const TRACE_WORKER_NICE = 19;
function yieldToHost(): void {
  try {
    if (!parentPort) {
      let tids: string[] = [];
      try {
        tids = readdirSync('/proc/self/task');
      } catch {
        setPriority(0, TRACE_WORKER_NICE); // no /proc: the whole process, where the system gives it one value
        return;
      }
      for (const tid of tids) setPriority(Number(tid), TRACE_WORKER_NICE);
      return;
    }
    const tid = Number(/\/task\/(\d+)$/.exec(readlinkSync('/proc/thread-self'))?.[1]);
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, TRACE_WORKER_NICE);
  } catch {
    // Not permitted: the worker keeps the priority it was started with.
  }
}
yieldToHost();

let taken: (() => void) | undefined;

/** The host's channel: the worker thread's port, or the child process's IPC channel (the same messages). */
function post(message: FromTraceWorker): void {
  if (parentPort) parentPort.postMessage(message);
  else process.send!(message);
}
function onHostMessage(handler: (message: ToTraceWorker) => void): void {
  if (parentPort) parentPort.on('message', handler);
  else process.on('message', handler as (message: unknown) => void);
}
// A process of its own ends with the host: its channel goes when the host closes it, exits or dies.
if (!parentPort) process.once('disconnect', () => process.exit(0));

async function sendParts(items: Iterable<unknown> | AsyncIterable<unknown>, how: 'lines' | 'json' | 'array' | 'items'): Promise<number> {
  let part: unknown[] = [];
  let chars = 0;
  let sent = 0;
  const flush = async () => {
    if (part.length === 0) return;
    const next = new Promise<void>((resolve) => (taken = resolve));
    // Joined, a JSON document's lines cost the host one write per part, not one per line; an array's
    // elements (JSON texts) are one JSON array the host parses in one short turn.
    post({ part: how === 'json' ? [part.join('\n')] : how === 'array' ? [`[${part.join(',')}]`] : part });
    part = [];
    chars = 0;
    await next;
  };
  for await (const item of items) {
    // A line over the budget goes alone (with the newline it is joined by); an item (a screen with its screenshot) always does.
    const size = typeof item === 'string' ? item.length + 1 : TRACE_PART_CHARS;
    if (chars + size > TRACE_PART_CHARS) await flush();
    part.push(item);
    chars += size;
    sent++;
  }
  await flush();
  return sent;
}

function* jsonTexts(items: readonly unknown[]): Generator<string> {
  for (const item of items) yield JSON.stringify(item);
}

async function run(job: TraceJob): Promise<unknown> {
  const trace = await openTraceFile(job.path);
  // What is shown of a trace goes through the trace writer's redaction (docs/rules.md#r-fuzz-02): a trace
  // another tool wrote, or someone edited, may hold a token Parallax would never have written; a listing
  // or an export must not show it. The replay's plan is data for the device, not display, and stays whole.
  switch (job.kind) {
    case 'replay': {
      // The actions go as parts of JSON text as the view's steps do (docs/rules.md#r-mem-08): 100,000 of them
      // as one structured clone held the host's thread for seconds (12.37 times the 500 ms other calls may take).
      const plan = replayPlanOf(trace);
      await sendParts(jsonTexts(plan.actions), 'array');
      return { ...plan, actions: [] };
    }
    case 'view': {
      // The steps go as parts of JSON text (docs/rules.md#r-mem-07): 100,000 of them are over 100 MiB of
      // JSON, one structured clone the host's thread took tens of seconds to read; the answer is the rest.
      const view = redactForTrace(traceViewOf(trace));
      await sendParts(jsonTexts(view.steps), 'array');
      return { ...view, steps: [] };
    }
    case 'listing':
      return { lines: await sendParts(openListing(trace, job.json === true), job.json === true ? 'json' : 'lines') };
    case 'edit':
      return await rewriteTrace(trace, job.edit);
    case 'audit':
      return { screens: await sendParts(auditedScreens(trace), 'items') };
    case 'maestro': {
      const flow = await exportMaestro(trace);
      return redactForTrace({ yaml: flow.yaml, notes: exportNotes(flow) });
    }
    case 'xcuitest': {
      const method = await exportXcuiTest(trace);
      return redactForTrace({ swift: method.swift, notes: exportNotes(method) });
    }
  }
}

onHostMessage(async (message: ToTraceWorker) => {
  if ('more' in message) {
    const next = taken;
    taken = undefined;
    next?.();
    return;
  }
  const { job } = message;
  let reply: TraceJobReply;
  try {
    reply = { ok: true, result: await run(job) };
  } catch (error) {
    const refusal = TraceOpenError.from(error, job.path);
    reply = { ok: false, code: refusal.code, message: refusal.message };
  }
  post(reply);
});
