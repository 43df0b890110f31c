/**
 * Folder → `.parallax-trace`: shared by a normal stop and by recovery after a crash.
 *
 * What goes in is what reads back: the manifest must parse, and events.jsonl is cut after the last line
 * that reads as an event (a crash-truncated line, or anything after a damaged one, is dropped and
 * reported), so a packed trace always opens. The archive is written under a temp name, flushed, and then
 * renamed, so a crash mid-pack never leaves a half file under the final name.
 */
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { open, readdir, rename, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { buildTimeline, parseManifest, readTraceEvents } from '@shared/trace/reader';
import { TRACE_FILES, type ResourceRef, type TraceEvent, type TraceManifest } from '@shared/trace/schema';
import { RESOURCE_FILE, syncDir, tempNameFor } from './files';
import { TraceOpenError } from './errors';
import { writeZip, type ZipInput } from './zip';
import { readFileCapped, TRACE_LIMITS } from './limits';

export interface FolderContents {
  manifest: TraceManifest;
  manifestText: string;
  /** events.jsonl cut to the lines that read back, one event per line. */
  eventsText: string;
  events: TraceEvent[];
  /** The last line was cut off mid-write and dropped. */
  truncatedTail: boolean;
  /** Non-blank lines dropped after the last good one (the truncated line counts). */
  droppedLines: number;
  /** Why lines after the last good one were dropped, when it was damage rather than a cut-off write. */
  damage?: string;
  /** Resource files by hex digest. */
  resources: Map<string, string>;
}

/** Reads what a trace folder holds and what of it can be packed. Throws TraceOpenError when there is no usable manifest. */
export async function readTraceFolder(folder: string): Promise<FolderContents> {
  let manifestText: string;
  try {
    manifestText = (await readFileCapped(join(folder, TRACE_FILES.manifest), TRACE_LIMITS.manifest)).toString('utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new TraceOpenError('not_parallax_trace', `not a Parallax trace: ${TRACE_FILES.manifest} missing in ${folder}`);
    }
    throw error;
  }
  const parsed = parseManifest(manifestText);
  if (!parsed.ok) throw TraceOpenError.fromManifest(parsed.error);

  let text = '';
  try {
    text = (await readFileCapped(join(folder, TRACE_FILES.events), TRACE_LIMITS.events)).toString('utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const read = readTraceEvents(text);
  const events = read.events;
  // Keep exactly the lines that became events; the writer puts one event on each non-blank line.
  const lines = text.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
  const nonBlank = lines.filter((line) => !/^[\s\u0000]*$/.test(line));
  const kept = nonBlank.slice(0, events.length);
  const contents: FolderContents = {
    manifest: parsed.manifest,
    manifestText,
    eventsText: kept.length === 0 ? '' : `${kept.join('\n')}\n`,
    events,
    truncatedTail: read.ok && read.truncatedTail,
    droppedLines: nonBlank.length - kept.length,
    resources: await listResources(folder),
  };
  if (!read.ok) contents.damage = read.error.message;
  return contents;
}

async function listResources(folder: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let names: string[] = [];
  try {
    names = await readdir(join(folder, TRACE_FILES.resources));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  for (const name of names.sort()) {
    const match = RESOURCE_FILE.exec(name);
    if (match) out.set(match[1]!, name);
  }
  return out;
}

/** Every resource reference an event makes (observationRef, screenshotRef, diffRef, ...). */
export function referencedResources(events: readonly TraceEvent[]): Set<ResourceRef> {
  const refs = new Set<ResourceRef>();
  for (const event of events) {
    for (const [key, value] of Object.entries(event)) {
      if (key.endsWith('Ref') && typeof value === 'string') refs.add(value);
    }
  }
  return refs;
}

export interface PackReport {
  outFile: string;
  bytes: number;
  events: number;
  /** Timeline steps (calls), as the trace view counts them. */
  steps: number;
  lastEventTime?: number;
  truncatedTail: boolean;
  droppedLines: number;
  damage?: string;
  resources: number;
  /** Referenced by an event but not in the folder: the trace opens, and those screenshots say they are missing. */
  missingResources: ResourceRef[];
  /** Present but not matching their content address (only checked with `verifyResources`); left out. */
  damagedResources: string[];
}

export interface PackOptions {
  /** Hash every resource and leave out those that do not match their name (recovery after a crash). */
  verifyResources?: boolean;
}

export async function packTraceFolder(folder: string, outFile: string, options: PackOptions = {}): Promise<PackReport> {
  const contents = await readTraceFolder(folder);
  const damagedResources: string[] = [];
  const resourcesDir = join(folder, TRACE_FILES.resources);

  async function* inputs(): AsyncGenerator<ZipInput> {
    yield { name: TRACE_FILES.manifest, data: Buffer.from(contents.manifestText, 'utf8'), compress: true };
    yield { name: TRACE_FILES.events, data: Buffer.from(contents.eventsText, 'utf8'), compress: true };
    for (const [hex, name] of contents.resources) {
      let data: Buffer;
      try {
        // Synchronous on purpose: these files were just written and sit in the page cache, where a sync
        // read takes microseconds while each promise round trip through the thread pool costs ~0.5 ms,
        // which was a third of the time to stop a 500-step recording.
        // Over its limit it could never be opened again (docs/rules.md#r-lim-03): left out as damaged.
        if (statSync(join(resourcesDir, name)).size > TRACE_LIMITS.resource.maxBytes) {
          damagedResources.push(name);
          contents.resources.delete(hex);
          continue;
        }
        data = readFileSync(join(resourcesDir, name));
      } catch (error) {
        // Vanished between listing and reading: counts as missing, like one never written.
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
          contents.resources.delete(hex);
          continue;
        }
        throw error;
      }
      if (options.verifyResources && createHash('sha256').update(data).digest('hex') !== hex) {
        damagedResources.push(name);
        contents.resources.delete(hex);
        continue;
      }
      yield { name: `${TRACE_FILES.resources}/${name}`, data, compress: !name.endsWith('.png') };
    }
  }

  const temp = tempNameFor(outFile);
  const handle = await open(temp, 'wx');
  let bytes: number;
  try {
    bytes = await writeZip(handle, inputs());
    await handle.sync();
    await handle.close();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await rename(temp, outFile);
  await syncDir(dirname(outFile));

  const present = contents.resources;
  const missingResources = [...referencedResources(contents.events)].filter((ref) => !present.has(ref.slice('sha256:'.length)));
  const report: PackReport = {
    outFile,
    bytes,
    events: contents.events.length,
    steps: buildTimeline(contents.events).length,
    truncatedTail: contents.truncatedTail,
    droppedLines: contents.droppedLines,
    resources: present.size,
    missingResources,
    damagedResources,
  };
  const last = contents.events.at(-1);
  if (last) report.lastEventTime = last.time;
  if (contents.damage !== undefined) report.damage = contents.damage;
  return report;
}
