/**
 * R-MEM-04: the trace view's parse runs in the trace worker, a thread with a bounded heap. While a big
 * trace is parsed the host's own thread stays idle (its event-loop utilization, a share of its time, not
 * a speed), so every other call is answered; a trace that needs more than the worker's heap is refused
 * as too_large, and the host, alive, opens the next trace.
 */
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inTraceWorker } from '@main/trace/off-thread';
import { openTraceView } from '@main/trace/view';
import { TraceOpenError } from '@main/trace/errors';

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'traces', 'demo-qa');
const EVENTS = 150_000;
const hex = (i: number) => i.toString(16).padStart(64, '0');
let dir: string;
let big: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parallax-off-thread-'));
  big = join(dir, 'big');
  await mkdir(big);
  await copyFile(join(FIXTURE, 'manifest.json'), join(big, 'manifest.json'));
  let text = '';
  for (let i = 0; i < EVENTS; i++)
    text += `{"type":"observation","callId":"observe-${i}","seq":${i},"time":${1_700_000_000_000 + i},"observationRef":"sha256:${hex(i)}","screenshotRef":"sha256:${hex(i + EVENTS)}"}\n`;
  await writeFile(join(big, 'events.jsonl'), text);
}, 120_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('R-MEM-04: a trace is parsed off the host thread, in a bounded heap', () => {
  it('R-MEM-04: while a big trace opens, the host thread is idle and answers every turn', async () => {
    // The worker started and its reader loaded first: what is measured is the parse alone.
    await openTraceView(FIXTURE);
    const turns: number[] = [];
    let open = true;
    const tick = () => {
      turns.push(performance.now());
      if (open) setTimeout(tick, 5);
    };
    const before = performance.eventLoopUtilization();
    tick();
    const opened = await openTraceView(big);
    open = false;
    const used = performance.eventLoopUtilization(before);
    expect(opened.steps).toEqual([]);
    expect(opened.warnings.join(' ')).toContain(`${EVENTS * 2} resource(s)`);
    // Parsed on this thread (even in 8 ms slices) the loop would be busy nearly all the time.
    expect(used.utilization).toBeLessThan(0.5);
    expect(turns.length).toBeGreaterThan(10);
  }, 120_000);

  it('R-MEM-04: a trace over the worker heap is refused as too_large, and the next trace opens', async () => {
    const refusal = await inTraceWorker('view', big, 16).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(TraceOpenError);
    expect((refusal as TraceOpenError).code).toBe('too_large');
    expect((refusal as TraceOpenError).message).toContain('16 MiB');
    const again = await openTraceView(FIXTURE);
    expect(again.steps.length).toBeGreaterThan(0);
  }, 120_000);
});
