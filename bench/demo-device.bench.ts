/**
 * Demo device latencies over its real sockets: startup, then median and p95 over 50 runs of each
 * command. Run with `npx tsx bench/demo-device.bench.ts`; prints plain lines.
 */
import WebSocket from 'ws';
import { startDemoDevice } from '@demo/index';

const RUNS = 50;
const STARTUPS = 3;

function percentile(sorted: number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? NaN;
}

function summary(name: string, samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  return `${name.padEnd(30)} median ${percentile(sorted, 50).toFixed(1).padStart(7)} ms   p95 ${percentile(sorted, 95).toFixed(1).padStart(7)} ms   (n=${samples.length})`;
}

async function connect(url: string) {
  const ws = new WebSocket(url);
  const waiting = new Map<string, (msg: Record<string, unknown>) => void>();
  ws.on('message', (data) => {
    const msg = JSON.parse(data.toString()) as Record<string, unknown>;
    const id = msg.requestId;
    if (typeof id === 'string') {
      waiting.get(id)?.(msg);
      waiting.delete(id);
    }
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  let seq = 0;
  return {
    request(type: string, extra: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
      const requestId = `${type}_${++seq}`;
      return new Promise((resolve) => {
        waiting.set(requestId, resolve);
        ws.send(JSON.stringify({ type, requestId, ...extra }));
      });
    },
    close: () => ws.close(),
  };
}

async function time(run: () => Promise<Record<string, unknown>>): Promise<number[]> {
  await run(); // warm-up, not counted
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const began = performance.now();
    const reply = await run();
    samples.push(performance.now() - began);
    if (reply.success === false) throw new Error(`failed: ${JSON.stringify(reply).slice(0, 300)}`);
  }
  return samples;
}

const startups: number[] = [];
let device: Awaited<ReturnType<typeof startDemoDevice>> | undefined;
for (let i = 0; i < STARTUPS; i++) {
  const began = performance.now();
  const started = await startDemoDevice({ port: 0 });
  startups.push(performance.now() - began);
  if (i < STARTUPS - 1) await started.close();
  else device = started;
}
if (!device) throw new Error('no device');
const client = await connect(device.runnerUrl);
const setScreen = (screen: string) => fetch(`${device.adminUrl}/screen`, { method: 'POST', body: JSON.stringify({ screen }) });

console.log(summary('startup (to ready)', startups));
await setScreen('login');
console.log(summary('request_hierarchy', await time(() => client.request('request_hierarchy'))));
console.log(summary('request_screenshot', await time(() => client.request('request_screenshot'))));
// A real capture each time (docs/rules.md#r-perf-05): the screen changes before every request, so the
// kept picture never answers. The switch itself is not timed.
{
  const fresh: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    await setScreen(i % 2 === 0 ? 'feed' : 'login');
    const began = performance.now();
    await client.request('request_screenshot');
    fresh.push(performance.now() - began);
  }
  console.log(summary('request_screenshot (changed)', fresh));
  await setScreen('edges');
  console.log(summary('request_screenshot (edges)', await time(() => client.request('request_screenshot'))));
  await setScreen('login');
}
console.log(summary('request_sdk_observation', await time(() => client.request('request_sdk_observation'))));
console.log(summary('tap (request_tap_coordinates)', await time(() => client.request('request_tap_coordinates', { x: 201, y: 355, duration: 0 }))));
await setScreen('checkout');
console.log(summary('request_sdk_web_snapshot', await time(() => client.request('request_sdk_web_snapshot'))));
console.log(summary('request_hierarchy (checkout)', await time(() => client.request('request_hierarchy'))));

client.close();
await device.close();
