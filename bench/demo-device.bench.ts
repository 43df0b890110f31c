/**
 * Demo device latencies over its real sockets: startup, then median and p95 over 50 runs of each
 * command, then the capture itself against the previous approach, then a heavy screen's read against
 * the screenshots asked for while it runs, sliced (now) against one task (before). `npm run bench --
 * demo-device`; prints plain lines. `DEMO_HEAVY_NODES` (default 50011), `DEMO_HEAVY_ROUNDS` (default 4),
 * `DEMO_SECTIONS=read` runs only the last part.
 */
import WebSocket from 'ws';
import { startDemoDevice } from '@demo/index';
import { DemoDevice } from '@demo/device/demo-device';
import { setTimeout as sleep } from 'node:timers/promises';
import { RunnerServer } from '@demo/runner/server';

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

function summaryOf(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  return `median ${percentile(sorted, 50).toFixed(0)} ms (p95 ${percentile(sorted, 95).toFixed(0)})`;
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

const SECTIONS = process.env.DEMO_SECTIONS?.split(',') ?? ['commands', 'capture', 'read'];

if (SECTIONS.includes('commands')) {
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
}

// The capture itself, the device as it is (drawing at the phone's scale) against the previous approach
// (drawing at 1x, capturing through an emulated 3x session), in turns in one run (docs/rules.md#r-perf-05):
// a fresh capture after a change, and how many of a run of requests on a screen nobody changes had to
// capture again (the emulated capture's own redraw retired the kept one).
if (SECTIONS.includes('capture')) {
  const COMPARE_RUNS = 15;
  const now = await DemoDevice.start({ heavyNodes: 20_000 });
  const before = await DemoDevice.start({ heavyNodes: 20_000, emulatedScale: true });
  // A real change (the shown screen's outline toggles, repainting it), and the device told of it.
  const nudge = async (d: DemoDevice) => {
    await d.app.page.evaluate('(() => { const s = document.querySelector(".screen:not(.inactive)").style; s.outline = s.outline ? "" : "1px solid red"; })()');
    d.app.picture.touched();
  };
  console.log('capture: native 3x (now) against emulated 3x (before), heavy = 20,000 views');
  for (const screen of ['login', 'feed', 'edges', 'heavy'] as const) {
    const fresh: Record<'now' | 'before', number[]> = { now: [], before: [] };
    const again: Record<'now' | 'before', number> = { now: 0, before: 0 };
    for (const d of [now, before]) await d.setScreen(screen);
    for (let i = 0; i < COMPARE_RUNS; i++) {
      for (const [name, d] of [
        ['now', now],
        ['before', before],
      ] as const) {
        await nudge(d);
        const began = performance.now();
        await d.app.screenshot();
        fresh[name].push(performance.now() - began);
      }
    }
    for (const [name, d] of [
      ['now', now],
      ['before', before],
    ] as const) {
      await sleep(300);
      const captures = d.app.picture.stats.captures;
      for (let i = 0; i < 5; i++) {
        await d.app.screenshot();
        await sleep(150);
      }
      again[name] = d.app.picture.stats.captures - captures;
    }
    const med = (xs: number[]) =>
      percentile(
        [...xs].sort((a, b) => a - b),
        50,
      );
    console.log(
      `  ${screen.padEnd(6)} fresh capture: now ${summaryOf(fresh.now)}, before ${summaryOf(fresh.before)}, ratio ${(med(fresh.now) / med(fresh.before)).toFixed(2)}; of the 5 requests that follow on the unchanged screen, captured: now ${again.now}, before ${again.before}`,
    );
  }
  await now.close();
  await before.close();
}

// A heavy screen's read against the pictures asked for while it runs (docs/rules.md#r-perf-10): the
// device as it is (the read sliced, yielding to the page every 8 ms) against the previous approach (the
// read in one task), in turns in one run, over the runner socket. Each round moves the device's version
// (a key press that changes nothing: the read is made afresh), asks for the hierarchy, and asks for
// screenshots back to back until it arrives, each a fresh capture (the kept picture retired, in
// process: a change on the page would start the read again). Printed: the read's own time (request to
// reply), each screenshot's latency while the read runs, and the longest gap between two pictures
// (from the hierarchy request to its reply).
if (SECTIONS.includes('read')) {
  const NODES = Number(process.env.DEMO_HEAVY_NODES ?? 50_011);
  const ROUNDS = Number(process.env.DEMO_HEAVY_ROUNDS ?? 4);
  const variants = [
    { name: 'sliced (now)', device: await DemoDevice.start({ heavyNodes: NODES, screen: 'heavy' }) },
    { name: 'one task (before)', device: await DemoDevice.start({ heavyNodes: NODES, screen: 'heavy', readInOneTask: true }) },
  ].map((v) => ({ ...v, reads: [] as number[], shots: [] as number[], gaps: [] as number[], server: new RunnerServer(v.device) }));
  for (const v of variants) {
    const port = await v.server.listen(0);
    Object.assign(v, { client: await connect(`ws://127.0.0.1:${port}/ws`) });
  }
  const clientOf = (v: (typeof variants)[number]) => (v as unknown as { client: Awaited<ReturnType<typeof connect>> }).client;
  for (const v of variants) await clientOf(v).request('request_hierarchy'); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (const v of variants) {
      const client = clientOf(v);
      await client.request('request_press_key', { key: 'escape', modifiers: [] });
      await sleep(300);
      const began = performance.now();
      let done = false;
      const read = client.request('request_hierarchy').then(() => {
        done = true;
        return performance.now() - began;
      });
      let last = began;
      while (!done) {
        v.device.app.picture.touched();
        const asked = performance.now();
        await client.request('request_screenshot');
        const now = performance.now();
        v.shots.push(now - asked);
        v.gaps.push(now - last);
        last = now;
      }
      v.reads.push(await read);
      v.gaps.push(performance.now() - last);
    }
  }
  const med = (xs: number[]) =>
    percentile(
      [...xs].sort((a, b) => a - b),
      50,
    );
  const max = (xs: number[]) => Math.max(...xs);
  console.log(`heavy read (${NODES} views) against the screenshots asked for meanwhile, ${ROUNDS} rounds each, in turns; runner socket`);
  for (const v of variants) {
    console.log(
      `  ${v.name.padEnd(18)} read ${summaryOf(v.reads)}; screenshot while it runs ${summaryOf(v.shots)}, n=${v.shots.length}; longest gap between pictures ${max(v.gaps).toFixed(0)} ms (median of gaps ${med(v.gaps).toFixed(0)})`,
    );
  }
  const [now, before] = variants as [(typeof variants)[number], (typeof variants)[number]];
  console.log(
    `  ratio now / before: read ${(med(now.reads) / med(before.reads)).toFixed(2)}, screenshot latency (median) ${(med(now.shots) / med(before.shots)).toFixed(2)}, longest gap ${(max(now.gaps) / max(before.gaps)).toFixed(2)}`,
  );
  for (const v of variants) {
    clientOf(v).close();
    await v.server.close();
    await v.device.close();
  }
}
