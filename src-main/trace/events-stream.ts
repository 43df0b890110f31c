/**
 * events.jsonl read as a stream (docs/rules.md#r-mem-02): the inflated bytes go through a line at a
 * time, so opening a trace holds its events, never the file's bytes nor its text. Before one event is
 * parsed, a first pass counts the lines, so a trace of more events than TRACE_EVENT_LIMITS allows is
 * refused having held nothing; a line over its limit is refused while it streams, before it is whole.
 * Parsing gives the event loop back every few milliseconds, so the host answers other calls while a
 * big trace opens (R-MEM-03).
 */
import { TimelineBuilder, TraceEventsParser, type TimelineStep, type TraceReadResult } from '@shared/trace/reader';
import { TRACE_FILES } from '@shared/trace/schema';
import { TraceOpenError } from './errors';

/** Limits on what is in events.jsonl, over its byte size (TRACE_LIMITS.events). */
export const TRACE_EVENT_LIMITS = {
  /** Lines, blank ones aside: an eight-hour session observed 30 times a second is about 860,000. */
  events: 1_000_000,
  /** One event: an action with its target node is a few KiB; a note is typed text. */
  lineBytes: 8 << 20,
  /** Actions (action.before events): what a replay would send, and the trace view lists. */
  steps: 100_000,
} as const;

/** How long parsing runs before it lets other work in. */
export const SLICE_MS = 8;

const NEWLINE = 0x0a;
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export type EventsSource = () => AsyncIterable<Buffer>;

function tooLarge(what: string): TraceOpenError {
  return new TraceOpenError('too_large', `${TRACE_FILES.events} ${what}`);
}

const count = (n: number) => n.toLocaleString('en-US');

const tooMany = (limit: number) => tooLarge(`holds more than ${count(limit)} events, the limit a trace may hold`);

/** Gives the event loop back once the current slice is used up. */
function slicer(sliceMs: number): () => Promise<void> {
  let started = performance.now();
  return async () => {
    if (performance.now() - started < sliceMs) return;
    await new Promise((resolve) => setImmediate(resolve));
    started = performance.now();
  };
}

/** Counts the lines (newlines, and a last line without one) without keeping a byte. */
async function countLines(source: EventsSource, limit: number, sliceMs: number): Promise<void> {
  let lines = 0;
  let open = false;
  const pause = slicer(sliceMs);
  for await (const chunk of source()) {
    for (let at = chunk.indexOf(NEWLINE); at >= 0; at = chunk.indexOf(NEWLINE, at + 1)) lines++;
    open = chunk.length > 0 ? chunk[chunk.length - 1] !== NEWLINE : open;
    if (lines + (open ? 1 : 0) > limit) {
      throw tooMany(limit);
    }
    await pause();
  }
}

export interface EventsStreamOptions {
  limits?: { events: number; lineBytes: number; steps: number };
  /** Parsing time between turns of the event loop (SLICE_MS). */
  sliceMs?: number;
}

/** The events of events.jsonl from `source` (called once per pass). Throws TraceOpenError. */
export async function readEventsStream(
  source: EventsSource,
  options: EventsStreamOptions = {},
): Promise<Extract<TraceReadResult, { ok: true }> & { timeline: TimelineStep[] }> {
  const { limits = TRACE_EVENT_LIMITS, sliceMs = SLICE_MS } = options;
  await countLines(source, limits.events, sliceMs);
  const parser = new TraceEventsParser();
  // Built as the events come, inside the same slices: in one go it would hold the loop for seconds.
  const timeline = new TimelineBuilder();
  const pause = slicer(sliceMs);
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let steps = 0;
  const take = (bytes: Buffer, ended: boolean) => {
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      throw new TraceOpenError('damaged', `${TRACE_FILES.events} is not UTF-8 text at line ${parser.lines + 1} (damaged, or not written by Parallax)`);
    }
    const before = parser.events.length;
    const failed = parser.line(text, ended);
    if (failed) throw new TraceOpenError('damaged', failed.error.message);
    // Counted again: a folder still recording grows between the passes.
    if (parser.events.length > limits.events) throw tooMany(limits.events);
    if (parser.events.length === before) return;
    const event = parser.events[before]!;
    timeline.add(event);
    if (event.type === 'action.before' && ++steps > limits.steps) {
      throw tooLarge(`holds more than ${count(limits.steps)} actions (line ${parser.lines}), over the limit of ${count(limits.steps)} steps a trace may hold`);
    }
  };
  const overLine = () => tooLarge(`line ${parser.lines + 1} is over ${limits.lineBytes / (1 << 20)} MiB, the limit for one event`);
  for await (const chunk of source()) {
    let from = 0;
    for (let at = chunk.indexOf(NEWLINE); at >= 0; at = chunk.indexOf(NEWLINE, from)) {
      if (pendingBytes + (at - from) > limits.lineBytes) throw overLine();
      const piece = chunk.subarray(from, at);
      take(pending.length === 0 ? piece : Buffer.concat([...pending, piece]), true);
      pending = [];
      pendingBytes = 0;
      from = at + 1;
      await pause();
    }
    if (from < chunk.length) {
      pendingBytes += chunk.length - from;
      if (pendingBytes > limits.lineBytes) throw overLine();
      // A copy: the chunk's buffer may be reused or be much larger than what is kept of it.
      pending.push(Buffer.from(chunk.subarray(from)));
    }
  }
  if (pendingBytes > 0) take(Buffer.concat(pending), false);
  const read = parser.finish();
  if (!read.ok) throw new TraceOpenError('damaged', read.error.message);
  return { ...read, timeline: timeline.finish() };
}
