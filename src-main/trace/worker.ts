/**
 * The trace worker (docs/rules.md#r-mem-04): jobs one at a time, in a heap the host bounds
 * (off-thread.ts). It parses the trace the job names and posts back only what the caller needs (the
 * trace view's listing, an export's text), so a hostile or huge trace costs this thread's heap and
 * time, never the host's: over the bound the thread dies out of memory and the host refuses the trace.
 */
import { parentPort } from 'node:worker_threads';
import { redactForTrace } from '@shared/trace/redact';
import { exportMaestro, exportNotes, exportXcuiTest } from './export';
import { openTraceFile } from './open';
import { TraceOpenError } from './errors';
import { traceViewOf } from './view-steps';
import type { TraceJob, TraceJobReply } from './off-thread';
import { replayPlanOf } from './replay-plan';
import { openListing } from './open-listing';

async function run(job: TraceJob): Promise<unknown> {
  const trace = await openTraceFile(job.path);
  // What is shown of a trace goes through the trace writer's redaction (docs/rules.md#r-fuzz-02): a trace
  // another tool wrote, or someone edited, may hold a token Parallax would never have written; a listing
  // or an export must not show it. The replay's plan is data for the device, not display, and stays whole.
  if (job.kind === 'replay') return replayPlanOf(trace);
  if (job.kind === 'view') return redactForTrace(traceViewOf(trace));
  if (job.kind === 'listing') return openListing(trace, job.json === true);
  if (job.kind === 'maestro') {
    const flow = await exportMaestro(trace);
    return redactForTrace({ yaml: flow.yaml, notes: exportNotes(flow) });
  }
  const method = await exportXcuiTest(trace);
  return redactForTrace({ swift: method.swift, notes: exportNotes(method) });
}

parentPort!.on('message', async (job: TraceJob) => {
  let reply: TraceJobReply;
  try {
    reply = { ok: true, result: await run(job) };
  } catch (error) {
    const refusal = TraceOpenError.from(error, job.path);
    reply = { ok: false, code: refusal.code, message: refusal.message };
  }
  parentPort!.postMessage(reply);
});
