/**
 * `npx tsx bench/recording.bench.ts`: what recording adds to an action, measured in pairs.
 *
 * The app's own path: a DeviceManager holding the demo device over its real sockets and the
 * SessionRecording the hosts run. The same bridge tap runs with the recording off and on, in
 * alternating blocks (off, on, off, on, …) so drift in the machine's load falls on both arms alike, and
 * so a start or a stop of the recording (which writes and packs) never sits next to a measured tap. Two
 * figures per arm:
 *   act      what the user waits for: manager.act, from the click to the step on the timeline;
 *   durable  until the step is in the trace and flushed (the recording writes behind the action).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDemoDevice } from '@demo/index';
import { DeviceManager } from '@main/devices/manager';
import { SessionRecording } from '@main/trace/recording';

const BLOCKS = 8;
const PER_BLOCK = 10;
const WARMUP = 3;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(0.95 * xs.length) - 1)]!;
const ms = (n: number) => `${n.toFixed(1).padStart(6)} ms`;

const dir = await mkdtemp(join(tmpdir(), 'parallax-recording-bench-'));
const device = await startDemoDevice({ port: 0 });
const manager = new DeviceManager();
const recording = new SessionRecording(manager, { dir, version: 'bench' });
try {
  await fetch(`${device.adminUrl}/reset`, { method: 'POST', body: JSON.stringify({ screen: 'login', faults: [] }) });
  const { id } = manager.connect(device.runnerUrl, { name: 'Demo iPhone (bench)' });
  await manager.connectionOf(id).waitUntilConnected();
  await manager.observe(id);

  const tap = async () => {
    const t0 = performance.now();
    const step = await manager.act(id, { action: 'tap', target: { id: 'login.submit' } });
    const act = performance.now() - t0;
    await recording.idle();
    if (!step.result.success) throw new Error(`the bench tap failed: ${step.result.failureReason}`);
    return { act, durable: performance.now() - t0 };
  };

  for (let i = 0; i < WARMUP; i++) await tap();
  const off = { act: [] as number[], durable: [] as number[] };
  const on = { act: [] as number[], durable: [] as number[] };
  for (let block = 0; block < BLOCKS; block++) {
    const recorded = block % 2 === 1;
    if (recorded) await recording.start(id);
    await tap(); // the first tap after a switch settles what the switch wrote; it is not counted
    for (let i = 0; i < PER_BLOCK; i++) {
      const run = await tap();
      (recorded ? on : off).act.push(run.act);
      (recorded ? on : off).durable.push(run.durable);
    }
    if (recorded) await recording.stop();
  }

  const runs = (BLOCKS / 2) * PER_BLOCK;
  console.log(`recording.bench: bridge tap on the demo device through the app's DeviceManager, ${runs} taps per arm in ${BLOCKS} alternating blocks`);
  console.log(`without recording   act median ${ms(median(off.act))}  p95 ${ms(p95(off.act))}`);
  console.log(
    `with recording      act median ${ms(median(on.act))}  p95 ${ms(p95(on.act))}   durable median ${ms(median(on.durable))}  p95 ${ms(p95(on.durable))}`,
  );
  console.log(
    `overhead per action (median with − median without): act ${ms(median(on.act) - median(off.act))}, until durable ${ms(median(on.durable) - median(off.act))}`,
  );
  console.log(`writing behind the action (durable − act, per tap): median ${ms(median(on.durable.map((d, i) => d - on.act[i]!)))}`);
} finally {
  await recording.close();
  await manager.closeAll();
  await device.close();
  await rm(dir, { recursive: true, force: true });
}
