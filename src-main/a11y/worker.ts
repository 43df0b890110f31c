/**
 * The audit worker (docs/rules.md#r-a11y-24): the screenshot's PNG decoded and the audit run here, off
 * the host's event loop, which forwards the live view's frames (the decode alone held it 128 ms a frame at
 * 5k nodes). Jobs are answered in the order they come, each by its id; a job that throws is answered with
 * its message, and the thread goes on with the next. Each answer carries what the thread's FrameMemory has
 * done so far (decodes, pixels and audits used again).
 */
import { parentPort } from 'node:worker_threads';
import type { auditFrame } from './audit-frame';
import { FrameMemory } from './frame-memory';
import type { FromAuditWorker, ToAuditWorker } from './off-thread';

// A screenshot sent again is not decoded again, nor an unchanged live frame audited again (docs/rules.md#r-a11y-26).
const memory = new FrameMemory();

parentPort!.on('message', ({ id, job }: ToAuditWorker) => {
  let reply: FromAuditWorker;
  try {
    // The host sends the tree as JSON text: a string is copied across in one move, a 5k-node tree's
    // structured clone took the host's thread about three times as long as JSON.stringify.
    const stored: unknown = JSON.parse(job.json);
    const audit =
      job.kind === 'frame'
        ? memory.auditFrame({ observation: stored as Parameters<typeof auditFrame>[0]['observation'], screenshot: job.screenshot })
        : memory.auditStoredFrame(stored, job.png ? Buffer.from(job.png.buffer, job.png.byteOffset, job.png.byteLength) : undefined);
    reply = { id, ok: true, audit: audit ?? null, memory: memory.counts };
  } catch (error) {
    reply = { id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  parentPort!.postMessage(reply);
});
