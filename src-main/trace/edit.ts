/**
 * Saving an edited trace (docs/rules.md#r-edit-06): the edits applied to the opened trace's events
 * (src-shared/trace/trace-edit.ts) and written as a new `<name>-edited.parallax-trace` beside the
 * original, never over it nor over an earlier edited copy (`-edited-2`, `-edited-3`, …). The new file
 * holds the resources its events still name, copied byte for byte, and its manifest says what it was
 * made from. The trace is read and rewritten in the trace worker (docs/rules.md#r-mem-04): a huge or
 * hostile trace costs that thread's bounded heap, is refused as too_large, and the host goes on answering.
 */
import { randomUUID } from 'node:crypto';
import { link, open, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { applyTraceEdits, type TraceEdit } from '@shared/trace/trace-edit';
import { toScreen } from '@shared/trace/export-plan';
import { resourcePath, TRACE_FILES, type ResourceKind, type TraceManifest } from '@shared/trace/schema';
import { TRACE_FILE_EXTENSION, syncDir, tempNameFor } from './files';
import { referencedResources } from './pack';
import { writeZip, type ZipInput } from './zip';
import { inTraceWorker, type EditJob } from './off-thread';
import { TraceOpenError, type OpenedTrace } from './open';

/** How many names are tried before giving up (a folder holding this many edited copies is not a person's). */
const MAX_EDITED_NAMES = 1_000;

/** `login.parallax-trace` → `login-edited`; an edited copy's name is not stacked (`login-edited-2`, not `login-edited-edited`). */
export function editedBaseName(path: string): string {
  const name = basename(path).replace(/\.parallax-trace(\.d)?$/, '');
  return `${name.replace(/-edited(-\d+)?$/, '')}-edited`;
}

export async function saveEditedTrace(path: string, edits: readonly TraceEdit[], options: { dir?: string; name?: string } = {}): Promise<string> {
  const abs = resolve(path);
  const dir = options.dir ?? dirname(abs);
  // Named here, so a worker that dies out of memory halfway leaves no half-written file behind it.
  const temp = tempNameFor(join(dir, 'edited.parallax-trace'));
  try {
    await inTraceWorker('edit', abs, undefined, { edit: { edits, temp } });
    const base = options.name ?? editedBaseName(abs);
    for (let i = 1; i <= MAX_EDITED_NAMES; i++) {
      const out = join(dir, `${base}${i === 1 ? '' : `-${i}`}${TRACE_FILE_EXTENSION}`);
      try {
        // A link fails where the name is taken, so no file is ever replaced, even by a save racing this one.
        await link(temp, out);
        await syncDir(dir);
        return out;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
    throw new Error(`${dir} holds ${MAX_EDITED_NAMES} edited copies of ${basename(abs)} already`);
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/** In the trace worker: `trace` with the edits applied, written to `job.temp` (created, never replaced). */
export async function rewriteTrace(trace: OpenedTrace, job: EditJob): Promise<void> {
  const events = await applyTraceEdits(trace.events, job.edits, {
    readScreen: async (ref) => (trace.hasResource(ref) ? toScreen(await trace.resourceJson(ref))?.root : undefined),
    newCallId: () => `edit-${randomUUID()}`,
  });
  const manifest: TraceManifest = {
    ...trace.manifest,
    edited: { from: basename(trace.path), at: new Date().toISOString(), edits: job.edits.length },
  };
  const kinds = new Map<string, ResourceKind>();
  for (const event of events) {
    for (const [key, value] of Object.entries(event)) {
      if (!key.endsWith('Ref') || typeof value !== 'string') continue;
      kinds.set(value, key === 'screenshotRef' ? 'screenshot' : key === 'appStateRef' ? 'appState' : 'observation');
    }
  }
  async function* inputs(): AsyncGenerator<ZipInput> {
    yield { name: TRACE_FILES.manifest, data: Buffer.from(JSON.stringify(manifest, null, 2), 'utf8'), compress: true };
    yield { name: TRACE_FILES.events, data: Buffer.from(events.map((e) => JSON.stringify(e)).join('\n') + '\n', 'utf8'), compress: true };
    // A resource the original was missing stays missing: the copy opens as the original did.
    for (const ref of referencedResources(events)) {
      if (!trace.hasResource(ref)) continue;
      const kind = kinds.get(ref) ?? 'observation';
      yield { name: resourcePath(ref, kind), data: await trace.resource(ref), compress: kind !== 'screenshot' };
    }
  }
  try {
    const handle = await open(job.temp, 'wx');
    try {
      await writeZip(handle, inputs());
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    // A failed write named as one: TraceOpenError.from would call any I/O error the trace's being unreadable.
    if (error instanceof TraceOpenError) throw error;
    throw new TraceOpenError('unreadable', `cannot write the edited copy ${job.temp}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
