/**
 * The streaming trace reader (docs/rules.md#r-mem-02, #r-mem-03): hostile traces refused by the limit
 * they break, named, before the memory is spent; the events read a line at a time, the event loop given
 * back while they are parsed.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { encodeTraceEvent, encodeTraceManifest } from '@shared/trace/encode';
import { buildTimeline } from '@shared/trace/reader';
import { openTraceFile } from '@main/trace/open';
import { readEventsStream, TRACE_EVENT_LIMITS } from '@main/trace/events-stream';
import { traceRefusal, useTraceScratch } from '../support/trace-files';

const scratch = useTraceScratch('trace-stream');

const manifest = strToU8(encodeTraceManifest({ createdAt: '2026-10-08T09:20:44.198Z', device: { name: 'Demo', kind: 'demo', url: 'ws://127.0.0.1:1/ws' } }));
const note = (seq: number, text = '.') => encodeTraceEvent({ type: 'note', callId: `n${seq}`, seq, time: seq, text });
const tap = (seq: number) =>
  encodeTraceEvent({ type: 'action.before', callId: `c${seq}`, seq, time: seq, action: { kind: 'tap', selector: { id: 'go' } } } as never);

/** A trace file whose events are stored as they are (no deflate, so no inflate-ratio limit comes first). */
const traceFile = (events: Uint8Array) => scratch.write(zipSync({ 'manifest.json': manifest, 'events.jsonl': [events, { level: 0 }] }));
const refusal = traceRefusal;

/** `text` as a stream of chunks of `size` bytes: lines cut anywhere, as an inflating entry cuts them. */
const chunked = (text: string, size: number) =>
  async function* () {
    const bytes = Buffer.from(text);
    for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
  };

describe('the streaming trace reader (R-MEM-02)', () => {
  it(`R-MEM-02: more than ${TRACE_EVENT_LIMITS.events.toLocaleString('en-US')} lines are refused by their count, before one is parsed`, async () => {
    // Lines that are not events: a parse would name line 1; the count comes first and names the limit.
    const error = await refusal(openTraceFile(await traceFile(Buffer.from('{}\n'.repeat(TRACE_EVENT_LIMITS.events + 1)))));
    expect(error.code).toBe('too_large');
    expect(error.message).toBe('events.jsonl holds more than 1,000,000 events, the limit a trace may hold');
  });

  it('R-MEM-02: a line over the limit for one event is refused as it streams, naming its line', async () => {
    const huge = note(2, 'A'.repeat(TRACE_EVENT_LIMITS.lineBytes));
    const error = await refusal(openTraceFile(await traceFile(strToU8(note(1) + huge))));
    expect(error.code).toBe('too_large');
    expect(error.message).toBe('events.jsonl line 2 is over 8 MiB, the limit for one event');
  });

  it('R-MEM-02: a last line over the limit without a newline is refused too, not taken for a cut-off tail', async () => {
    const error = await refusal(openTraceFile(await traceFile(strToU8(note(1) + 'x'.repeat(TRACE_EVENT_LIMITS.lineBytes + 1)))));
    expect(error.message).toBe('events.jsonl line 2 is over 8 MiB, the limit for one event');
  });

  it('R-MEM-02: more actions than the step limit are refused, naming the limit and the line', async () => {
    const text = [1, 2, 3].map(tap).join('');
    const limits = { events: 10, lineBytes: 1 << 10, steps: 2 };
    const error = await refusal(readEventsStream(chunked(text, 7), { limits }));
    expect(error.message).toBe('events.jsonl holds more than 2 actions (line 3), over the limit of 2 steps a trace may hold');
  });

  it('R-MEM-02: lines cut across chunks anywhere read as the same events, the cut-off tail of a crash still dropped', async () => {
    const text = `${note(1)}${note(2, 'é ✓ 𝄞')}${note(3)}{"type":"no`;
    for (const size of [1, 2, 3, 5, 64, 1 << 16]) {
      const read = await readEventsStream(chunked(text, size));
      expect(read.events.map((e) => (e as { text: string }).text)).toEqual(['.', 'é ✓ 𝄞', '.']);
      expect(read.truncatedTail).toBe(true);
      // The timeline built as the events came is the one built from them all.
      expect(read.timeline).toEqual(buildTimeline(read.events));
    }
  });

  it('R-MEM-02: a trace folder is streamed under the same limits', async () => {
    const folder = join(scratch.dir, 'folder.parallax-trace.d');
    await mkdir(folder);
    await writeFile(join(folder, 'manifest.json'), manifest);
    await writeFile(join(folder, 'events.jsonl'), note(1) + note(2, 'A'.repeat(TRACE_EVENT_LIMITS.lineBytes)));
    const error = await refusal(openTraceFile(folder));
    expect(error.message).toBe('events.jsonl line 2 is over 8 MiB, the limit for one event');
  });
});

describe('parsing gives the event loop back (R-MEM-03)', () => {
  it('R-MEM-03: while events are parsed, other work gets turns between slices', async () => {
    let text = '';
    for (let i = 1; i <= 2_000; i++) text += note(i);
    let turns = 0;
    let reading = true;
    const spin = () => {
      if (!reading) return;
      turns++;
      setImmediate(spin);
    };
    setImmediate(spin);
    // A zero slice: every line lets other work in, so the count says how often it did (not how fast).
    const read = await readEventsStream(chunked(text, 1 << 20), { sliceMs: 0 });
    reading = false;
    expect(read.events).toHaveLength(2_000);
    expect(turns).toBeGreaterThanOrEqual(2_000);
  });
});
