/**
 * `npx tsx bench/trace.bench.ts`: what recording costs per action, how big a trace gets, and how fast a
 * 500-step trace opens (target: under 2 s).
 *
 * Each step is what a recorded tap writes: a new screenshot (a full-size iPhone PNG), a new observation
 * (a ~300-node hierarchy), the action's before event and its after event, each append flushed to disk
 * before the next. The 500-step trace is built with the recorder itself, then packed and opened.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { exportMaestro } from '@main/trace/export';
import { openTraceFile } from '@main/trace/open';
import { TraceRecorder } from '@main/trace/recorder';
import { baseScreenshot, H, observation, variant, W } from './trace-fixture';

const STEPS = 500;
function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}
const ms = (n: number) => `${n.toFixed(2)} ms`;

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'parallax-trace-bench-'));
  try {
    const base = baseScreenshot();
    const sampleObservation = Buffer.from(JSON.stringify(observation(0)));
    console.log(
      `inputs: screenshot ${W}x${H} PNG ${(base.length / 1024).toFixed(0)} KiB, observation ${(sampleObservation.length / 1024).toFixed(0)} KiB JSON (301 nodes)`,
    );

    // The level JSON is deflated at in the archive (zip.ts).
    for (let i = 0; i < 20; i++) deflateRawSync(sampleObservation, { level: i % 2 === 0 ? 1 : 6 });
    for (const level of [1, 6] as const) {
      const t = performance.now();
      let size = 0;
      for (let i = 0; i < 20; i++) size = deflateRawSync(sampleObservation, { level }).length;
      console.log(`deflate level ${level}: observation → ${(size / 1024).toFixed(1)} KiB, ${ms((performance.now() - t) / 20)} each`);
    }

    const recorder = await TraceRecorder.start({
      dir,
      manifest: { device: { name: 'iPhone 17 (bench)', kind: 'demo', url: 'ws://127.0.0.1:8765/ws' }, app: { bundleId: 'com.apple.Preferences' } },
      secrets: ['bench-secret-token-0123456789'],
    });
    const perStep: number[] = [];
    const resourcesPart: number[] = [];
    const appendsPart: number[] = [];
    let before = await recorder.addResource('observation', observation(0));
    for (let step = 0; step < STEPS; step++) {
      const shot = variant(base, step);
      const next = observation(step + 1);
      const t0 = performance.now();
      const screenshotRef = await recorder.addResource('screenshot', shot);
      const after = await recorder.addResource('observation', next);
      const t1 = performance.now();
      await recorder.append({
        type: 'action.before',
        callId: `tap_${step}`,
        action: { kind: 'tap' },
        target: { nodeKey: `0.${step % 100}.1` },
        observationRef: before,
        screenshotRef,
      });
      await recorder.append({
        type: 'action.after',
        callId: `tap_${step}`,
        result: { success: true, backend: 'sdk', timings: { dispatch: 40, settle: 120 } },
        observationRef: after,
      });
      const t2 = performance.now();
      perStep.push(t2 - t0);
      resourcesPart.push(t1 - t0);
      appendsPart.push(t2 - t1);
      before = after;
    }
    const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
    const all = sorted(perStep);
    console.log(
      `record, per step (screenshot + observation + before + after, each flushed): median ${ms(quantile(all, 0.5))}, p95 ${ms(quantile(all, 0.95))}, max ${ms(all.at(-1)!)}`,
    );
    console.log(
      `  of which resources: median ${ms(quantile(sorted(resourcesPart), 0.5))}, p95 ${ms(quantile(sorted(resourcesPart), 0.95))}; two appends: median ${ms(quantile(sorted(appendsPart), 0.5))}, p95 ${ms(quantile(sorted(appendsPart), 0.95))}`,
    );
    const stats = recorder.stats();
    console.log(
      `folder while recording: ${(stats.bytes / STEPS / 1024).toFixed(1)} KiB per step (${stats.resources} resources, ${stats.events} events, ${stats.flushes} flushes)`,
    );

    // The same step with the two resources stored side by side (what a session can do, since each is a
    // separate file), in a second recording of 100 steps.
    const side = await TraceRecorder.start({ dir, manifest: { device: { name: 'bench', kind: 'demo', url: 'ws://127.0.0.1:1/ws' } } });
    const sideSteps: number[] = [];
    let sideBefore = await side.addResource('observation', observation(0));
    for (let step = 0; step < 100; step++) {
      const shot = variant(base, 10_000 + step);
      const next = observation(10_000 + step);
      const t0 = performance.now();
      const [screenshotRef, after] = await Promise.all([side.addResource('screenshot', shot), side.addResource('observation', next)]);
      await side.append({ type: 'action.before', callId: `tap_${step}`, action: { kind: 'tap' }, observationRef: sideBefore, screenshotRef });
      await side.append({ type: 'action.after', callId: `tap_${step}`, result: { success: true, backend: 'sdk' }, observationRef: after });
      sideSteps.push(performance.now() - t0);
      sideBefore = after;
    }
    const sideSorted = sorted(sideSteps);
    console.log(`record, per step, resources stored side by side: median ${ms(quantile(sideSorted, 0.5))}, p95 ${ms(quantile(sideSorted, 0.95))}`);
    await side.stop();

    const outFile = join(dir, 'bench.parallax-trace');
    let t = performance.now();
    const report = await recorder.stopWithReport({ outFile });
    const stopMs = performance.now() - t;
    const size = (await stat(outFile)).size;
    console.log(`stop (pack ${STEPS} steps into one zip): ${ms(stopMs)}`);
    console.log(`trace size: ${(size / 1024 / 1024).toFixed(1)} MiB, ${(size / STEPS / 1024).toFixed(1)} KiB per step (${report.resources} resources)`);

    const opens: number[] = [];
    let trace = await openTraceFile(outFile);
    for (let i = 0; i < 5; i++) {
      t = performance.now();
      trace = await openTraceFile(outFile);
      opens.push(performance.now() - t);
    }
    const sortedOpens = sorted(opens);
    console.log(
      `open ${STEPS}-step trace (${trace.events.length} events, ${trace.timeline.length} steps): median ${ms(quantile(sortedOpens, 0.5))}, max ${ms(sortedOpens.at(-1)!)} (target < 2000 ms)`,
    );

    const firstShot = trace.timeline[0]!.before!.screenshotRef!;
    const reads: number[] = [];
    for (let i = 0; i < 20; i++) {
      t = performance.now();
      await trace.resource(trace.timeline[i * 20]!.before!.screenshotRef ?? firstShot);
      reads.push(performance.now() - t);
    }
    console.log(`read one screenshot from the trace (checked): median ${ms(quantile(sorted(reads), 0.5))}`);
    t = performance.now();
    await trace.resourceJson(trace.timeline[10]!.before!.observationRef!);
    console.log(`read one observation from the trace (inflated, checked, parsed): ${ms(performance.now() - t)}`);

    t = performance.now();
    const flow = await exportMaestro(trace);
    console.log(`export to Maestro (${flow.yaml.split('\n').length} lines): ${ms(performance.now() - t)}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
