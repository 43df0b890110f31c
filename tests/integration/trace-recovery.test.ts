/**
 * Crashes: a recording killed mid-session keeps every step it reported durable, the next start
 * finds it, and recovery packs what is there, dropping (and reporting) a cut-off last line.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cp, mkdtemp, readdir, readFile, rm, appendFile, writeFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PNG } from 'pngjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTraceFile } from '@main/trace/open';
import { discardUnfinishedTrace, findUnfinishedTraces, recoverTrace } from '@main/trace/recovery';
import { TraceRecorder } from '@main/trace/recorder';

const ROOT = join(import.meta.dirname, '..', '..');
const MANIFEST = { device: { name: 'Demo iPhone', kind: 'demo', url: 'ws://127.0.0.1:8765/ws' } };

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parallax-trace-crash-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function png(seed: number): Buffer {
  const image = new PNG({ width: 16, height: 16 });
  for (let i = 0; i < image.data.length; i++) image.data[i] = (i * seed) & 0xff;
  return PNG.sync.write(image);
}

const CHILD = (recorderUrl: string) => `
import { readFileSync } from 'node:fs';
import { TraceRecorder } from ${JSON.stringify(recorderUrl)};
const [dir, pngPath] = process.argv.slice(2);
const png = readFileSync(pngPath);
const recorder = await TraceRecorder.start({ dir, traceId: 'killed', manifest: ${JSON.stringify(MANIFEST)} });
for (let i = 0; ; i++) {
  // Every third step shows the same screen again; the others are new bytes.
  const shot = await recorder.addResource('screenshot', i % 3 === 0 ? png : Buffer.concat([png, Buffer.from(String(i))]));
  const obs = await recorder.addResource('observation', { step: i, hierarchy: { className: 'UIWindow', node: [{ className: 'UIButton', text: 'Row ' + i }] } });
  await recorder.append({ type: 'action.before', callId: 'tap_' + i, action: { kind: 'tap' }, target: { point: { x: 10, y: i } }, observationRef: obs, screenshotRef: shot });
  await recorder.append({ type: 'action.after', callId: 'tap_' + i, result: { success: true, backend: 'sdk', timings: { dispatch: 1 } } });
  process.stdout.write('durable ' + i + '\\n');
}
`;

describe('a recording killed mid-session', () => {
  it('keeps every step reported durable, is found on the next start, and recovers into a trace that opens', async () => {
    const N = 25;
    // .mts: the temp folder has no package.json saying the script is a module.
    const script = join(dir, 'record-forever.mts');
    await writeFile(script, CHILD(pathToFileURL(join(ROOT, 'src-main/trace/recorder.ts')).href));
    const pngPath = join(dir, 'screen.png');
    await writeFile(pngPath, png(7));
    const traces = join(dir, 'traces');

    const child = spawn(process.execPath, ['--import', 'tsx', script, traces, pngPath], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    let durable = -1;
    await new Promise<void>((resolve, reject) => {
      let buffered = '';
      child.stdout.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        for (const match of buffered.matchAll(/durable (\d+)\n/g)) durable = Math.max(durable, Number(match[1]));
        buffered = buffered.slice(buffered.lastIndexOf('\n') + 1);
        if (durable + 1 >= N) {
          child.kill('SIGKILL');
          resolve();
        }
      });
      void exited.then(() => reject(new Error(`the recorder exited on its own: ${stderr}`)));
    });
    expect(await exited).toBe('SIGKILL');

    const folder = join(traces, 'killed.parallax-trace.d');
    const live = await openTraceFile(folder);
    expect(live.inProgress).toBe(true);
    const complete = live.timeline.filter((step) => step.status === 'succeeded');
    expect(complete.length).toBeGreaterThanOrEqual(N);
    // Every step reported durable is there, in order, whatever the kill cut after it.
    expect(complete.slice(0, N).map((s) => s.callId)).toEqual(Array.from({ length: N }, (_, i) => `tap_${i}`));

    const found = await findUnfinishedTraces(traces);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ folder, traceId: 'killed', live: false, manifest: { device: { name: 'Demo iPhone' } } });
    expect(found[0]!.steps).toBeGreaterThanOrEqual(N);
    // Observations are steps too, but the offer counts what the user did: the taps, the last maybe in flight.
    expect(found[0]!.actions).toBeGreaterThanOrEqual(N);
    expect(found[0]!.actions).toBe(live.timeline.filter((step) => step.kind === 'action').length);
    expect(found[0]!.lastEventTime).toBe(live.events.at(-1)!.time);

    const report = await recoverTrace(folder);
    expect(report.outFile).toBe(join(traces, 'killed.parallax-trace'));
    expect(report.steps).toBeGreaterThanOrEqual(N);
    expect(report.missingResources).toEqual([]);
    expect(report.damagedResources).toEqual([]);
    await expect(stat(folder)).rejects.toThrow(/ENOENT/);
    expect(await findUnfinishedTraces(traces)).toEqual([]);

    const trace = await openTraceFile(report.outFile);
    expect(trace.events).toEqual(live.events);
    expect(trace.missingResources).toEqual([]);
    // An event on disk always finds its resources: they are flushed before the line that names them.
    for (const step of trace.timeline) {
      await trace.resource(step.before!.screenshotRef!);
      await trace.resourceJson(step.before!.observationRef!);
    }
  }, 60_000);
});

describe('recovery', () => {
  /** A process id that no longer runs. */
  function deadPid(): number {
    const child = spawnSync(process.execPath, ['-e', '']);
    return child.pid!;
  }

  /** A recording in this process, and a copy of its folder whose recorder has died: what a crash leaves. */
  async function crashedCopy() {
    const recorder = await TraceRecorder.start({ dir, manifest: MANIFEST, traceId: 'original' });
    const shots = [await recorder.addResource('screenshot', png(1)), await recorder.addResource('screenshot', png(2))];
    for (let i = 0; i < 3; i++) {
      await recorder.append({ type: 'action.before', callId: `c${i}`, action: { kind: 'tap' }, screenshotRef: shots[i % 2]! });
      await recorder.append({ type: 'action.after', callId: `c${i}`, result: { success: true } });
    }
    const folder = join(dir, 'crashed.parallax-trace.d');
    await cp(recorder.folder, folder, { recursive: true });
    const markerPath = join(folder, '.in-progress');
    const marker = JSON.parse(await readFile(markerPath, 'utf8')) as { pid: number };
    await writeFile(markerPath, JSON.stringify({ ...marker, pid: deadPid() }));
    return { recorder, folder, shots };
  }

  it('drops a line cut off mid-write, and a resource a crash left half-written, and reports both', async () => {
    const { recorder, folder, shots } = await crashedCopy();
    await appendFile(join(folder, 'events.jsonl'), '{"type":"action.before","callId":"c3","seq":6,"ti');
    await writeFile(join(folder, 'resources', `.${'e'.repeat(64)}.png.123-1-abcdef.partial`), 'half');
    const hex = shots[1]!.slice('sha256:'.length);
    await writeFile(join(folder, 'resources', `${hex}.png`), 'not what the address says');

    const [found] = await findUnfinishedTraces(dir);
    expect(found).toMatchObject({ folder, truncatedTail: true, events: 6, steps: 3, live: false });

    const out = join(dir, 'recovered.parallax-trace');
    const report = await recoverTrace(folder, out);
    expect(report).toMatchObject({ outFile: out, events: 6, steps: 3, truncatedTail: true, droppedLines: 1, resources: 1 });
    expect(report.damagedResources).toEqual([`${hex}.png`]);
    expect(report.missingResources).toEqual([shots[1]]);

    const trace = await openTraceFile(out);
    expect(trace.truncatedTail).toBe(false); // the packed file holds only whole lines
    expect(trace.events).toHaveLength(6);
    expect(trace.missingResources).toEqual([shots[1]]);
    await expect(trace.resource(shots[1]!)).rejects.toMatchObject({ code: 'missing_resource' });
    expect(await trace.resource(shots[0]!)).toEqual(png(1));
    await recorder.stop();
  });

  it('keeps the events before a damaged line', async () => {
    const { recorder, folder } = await crashedCopy();
    const path = join(folder, 'events.jsonl');
    const lines = (await readFile(path, 'utf8')).split('\n');
    lines[3] = '{"this is": "not an event"}';
    await writeFile(path, lines.join('\n'));
    const [found] = await findUnfinishedTraces(dir);
    expect(found!.problem).toMatch(/events\.jsonl line 4/);
    const report = await recoverTrace(folder);
    expect(report).toMatchObject({ events: 3, droppedLines: 3, damage: expect.stringMatching(/^events\.jsonl line 4, type: missing event type/) });
    expect((await openTraceFile(report.outFile)).events).toHaveLength(3);
    await recorder.stop();
  });

  it('refuses a recording that is still running, and can discard an unfinished one', async () => {
    const { recorder, folder } = await crashedCopy();
    await expect(recoverTrace(recorder.folder)).rejects.toThrow(/still running/);
    await discardUnfinishedTrace(folder);
    expect(await findUnfinishedTraces(dir)).toEqual([]);
    await recorder.stop();
  });

  it('keeps the folder for recovery when packing fails', async () => {
    const recorder = await TraceRecorder.start({ dir, manifest: MANIFEST });
    await recorder.append({ type: 'note', callId: 'n', text: 'kept' });
    await expect(recorder.stop({ outFile: join(dir, 'no', 'such', 'dir', 'x.parallax-trace') })).rejects.toThrow(/ENOENT/);
    const [found] = await findUnfinishedTraces(dir);
    expect(found).toMatchObject({ folder: recorder.folder, events: 1, live: false });
    const report = await recoverTrace(recorder.folder);
    expect((await openTraceFile(report.outFile)).events[0]).toMatchObject({ type: 'note', text: 'kept' });
    expect((await readdir(dir)).filter((name) => name.endsWith('.partial'))).toEqual([]);
  });
});
