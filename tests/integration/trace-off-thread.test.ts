/**
 * R-MEM-04: the trace view's parse runs in the trace worker, a process of its own (R-MEM-10) with a bounded heap. While a big
 * trace is parsed the host's own thread stays idle (its event-loop utilization, a share of its time, not
 * a speed), so every other call is answered; a trace that needs more than the worker's heap is refused
 * as too_large, and the host, alive, opens the next trace. `parallax open`, `parallax replay` and the web
 * host's Replay read their traces there too.
 */
import { spawnSync } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { IDLE_END_MS, inTraceWorker } from '@main/trace/off-thread';
import { openReplayableTrace, openTraceView } from '@main/trace/view';
import { ReplayRunner } from '@main/trace/replay-runner';
import { DeviceManager } from '@main/devices/manager';
import { runTraceCommand } from '@main/cli/traces';
import { TraceOpenError } from '@main/trace/errors';
import { hostLoad } from '../support/host-load';

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
    const { value: opened, utilization, turns } = await hostLoad(() => openTraceView(big));
    expect(opened.steps).toEqual([]);
    expect(opened.warnings.join(' ')).toContain(`${EVENTS * 2} resource(s)`);
    // Parsed on this thread (even in 8 ms slices) the loop would be busy nearly all the time.
    expect(utilization).toBeLessThan(0.5);
    expect(turns).toBeGreaterThan(10);
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

/** Runs `parallax COMMAND ...` in this process, its lines kept. */
async function cli(command: 'open' | 'replay', args: string[]) {
  const lines: string[] = [];
  const errors: string[] = [];
  const code = await runTraceCommand(command, args, { log: (l) => lines.push(l), error: (l) => errors.push(l) });
  return { code, lines, errors };
}

describe('R-MEM-04: the idle worker ends, and a job arriving as it ends gets a new one', () => {
  it('R-MEM-04: a job sent the moment the idle worker is told to end is answered, not lost with it', async () => {
    await openTraceView(FIXTURE);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      await openTraceView(FIXTURE); // its idle timer is now a fake one
      vi.advanceTimersByTime(IDLE_END_MS); // the worker is told to end; its 'exit' has not come yet
      const next = await openTraceView(FIXTURE);
      expect(next.steps.length).toBeGreaterThan(0);
    } finally {
      vi.useRealTimers();
    }
  }, 120_000);
});

describe('R-MEM-04: parallax open and replay read the trace in the trace worker too', () => {
  it('R-MEM-04: parallax open lists a big trace while the CLI thread stays idle', async () => {
    await cli('open', [FIXTURE]); // the worker started and its reader loaded: what is measured is the parse
    const { value, utilization, turns } = await hostLoad(() => cli('open', [big]));
    expect(value.code).toBe(0);
    expect(value.lines.join('\n')).toContain(`0 steps (+${EVENTS} notes and observations), ${EVENTS} events`);
    expect(utilization).toBeLessThan(0.5);
    expect(turns).toBeGreaterThan(10);
  }, 120_000);

  it('R-MEM-04: a replay holds the actions alone: the plan of a trace of observations has none, and its frames come from the index', async () => {
    const { value: plan, utilization } = await hostLoad(() => openReplayableTrace(big));
    expect(plan.timeline).toEqual([]);
    expect(plan.plan.timelineSteps).toBe(EVENTS);
    expect(utilization).toBeLessThan(0.5);
    const demo = await openReplayableTrace(FIXTURE);
    const actions = demo.timeline.filter((s) => s.kind === 'action');
    expect(actions.length).toBe(demo.timeline.length);
    expect(actions.length).toBeGreaterThan(0);
    const ref = actions.find((s) => s.before?.observationRef)?.before?.observationRef;
    expect(ref && demo.hasResource(ref)).toBe(true);
    expect(await demo.resourceJson(ref!)).toBeTypeOf('object');
  }, 120_000);

  it('R-MEM-04: over the worker heap, parallax open and replay refuse the trace naming the limit, exit 1, and replay reaches no device', async () => {
    process.env['PARALLAX_TRACE_WORKER_HEAP_MB'] = '16';
    try {
      const open = await cli('open', [big]);
      expect(open.code).toBe(1);
      expect(open.errors.join('\n')).toMatch(/^parallax open: .*needs more than the 16 MiB of memory a trace may take to read/);
      // A device URL nothing listens on: refused before it is dialled, so no connection error is ever reached.
      const replay = await cli('replay', [big, '--device', 'ws://127.0.0.1:9/ws', '--timeout', '600000']);
      expect(replay.code).toBe(1);
      expect(replay.errors.join('\n')).toMatch(/^parallax replay: .*needs more than the 16 MiB/);
      expect(replay.lines).toEqual([]);
    } finally {
      delete process.env['PARALLAX_TRACE_WORKER_HEAP_MB'];
    }
    // The process is alive and the next trace opens with the full heap.
    expect((await cli('open', [FIXTURE])).code).toBe(0);
  }, 120_000);

  it('R-MEM-04: the parallax command itself, in a process of its own, says the refusal and exits 1 (its worker died; nothing else kept it alive)', () => {
    const bin = join(import.meta.dirname, '..', '..', 'bin', 'parallax.mjs');
    const run = spawnSync(process.execPath, [bin, 'open', big], { env: { ...process.env, PARALLAX_TRACE_WORKER_HEAP_MB: '16' }, encoding: 'utf8' });
    expect(run.stderr).toMatch(/^parallax open: .*needs more than the 16 MiB of memory a trace may take to read/);
    expect(run.status).toBe(1);
  }, 120_000);

  it("R-MEM-04: the web host's Replay refuses a trace over the worker heap as too_large before it looks for the device", async () => {
    process.env['PARALLAX_TRACE_WORKER_HEAP_MB'] = '16';
    try {
      const runner = new ReplayRunner(new DeviceManager(), { onStep: () => undefined, onEnded: () => undefined });
      const refusal = await runner.run(big, 'no-such-device', false).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(TraceOpenError);
      expect((refusal as TraceOpenError).code).toBe('too_large');
      expect((refusal as TraceOpenError).message).toContain('16 MiB');
    } finally {
      delete process.env['PARALLAX_TRACE_WORKER_HEAP_MB'];
    }
  }, 120_000);
});
