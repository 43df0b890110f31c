/**
 * `npx tsx bench/observe.bench.ts`: one merged observation of the demo device's Checkout screen, end to
 * end, the way the app makes it: one Observer over one RunnerClient in one process, warmed up first, so
 * the capability cache holds its probe as it would in a session. Prints plain lines.
 *
 * The device runs in a child process, so this process does nothing but Parallax's part. The time
 * spent inside Parallax is the event loop's busy time during an observe (eventLoopUtilization: socket
 * frames, JSON and schema decoding, the projection and merges, the layout audit, GC pauses); the rest of
 * the wall time the loop sat waiting for the device. Also shown: CPU time over every thread (an upper
 * bound, since GC and JIT threads work beside the wait), the observation's own timings (total minus the
 * I/O stages on the critical path), and decoding timed alone over the device's real reply frames.
 * Target: under 10% inside Parallax.
 */
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { RunnerClient } from '@main/runner/client';
import { Observer } from '@main/runner/observer';
import type { ObserveOptions } from '@main/connection/connection';
import { decodeRunnerInbound } from '@shared/protocol/runner';

const RUNS = 50;
const WARM_UP = 10;
const SCREEN = 'checkout';

// ---- The device, in its own process ------------------------------------------------------------------

async function serveDevice(): Promise<void> {
  const { startDemoDevice } = await import('@demo/index');
  const device = await startDemoDevice({ port: 0, screen: SCREEN });
  process.stdout.write(`${JSON.stringify({ runnerUrl: device.runnerUrl, adminUrl: device.adminUrl })}\n`);
  // The parent closes stdin when it is done (or dies).
  process.stdin.resume();
  process.stdin.on('end', () => void device.close().then(() => process.exit(0)));
}

async function startDeviceProcess(): Promise<{ runnerUrl: string; adminUrl: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--serve-device'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the device process exited (${code}) before it was ready`)));
  });
  const { runnerUrl, adminUrl } = JSON.parse(first) as { runnerUrl: string; adminUrl: string };
  return {
    runnerUrl,
    adminUrl,
    stop: () =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.stdin.end();
      }),
  };
}

// ---- Figures ---------------------------------------------------------------------------------------------

function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? NaN;
}
const ms = (n: number) => `${n.toFixed(1).padStart(6)} ms`;
const pct = (n: number) => `${(n * 100).toFixed(1).padStart(5)} %`;
const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

interface Sample {
  wallMs: number;
  cpuMs: number;
  /** The event loop's busy time: this thread running rather than waiting for a reply. */
  busyMs: number;
  /** total minus the I/O stages on the critical path, from the observation's timings. */
  pipelineMs: number;
  assembleMs: number;
  merged: boolean;
}

/** The I/O on the critical path: the hierarchy and screenshot run together, then discovery, then the two SDK reads together. */
function ioMs(t: Record<string, number>): number {
  return Math.max(t.xctest ?? 0, t.screenshot ?? 0) + (t.discovery ?? 0) + (t.rediscovery ?? 0) + Math.max(t.bridge ?? 0, t.web ?? 0);
}

async function measure(observer: Observer, options: ObserveOptions): Promise<Sample> {
  const cpu = process.cpuUsage();
  const loop = performance.eventLoopUtilization();
  const began = performance.now();
  const frame = await observer.observe(options);
  const wallMs = performance.now() - began;
  const busy = performance.eventLoopUtilization(loop);
  const used = process.cpuUsage(cpu);
  const o = frame.observation;
  if (!o) throw new Error('an observe returned no observation');
  const t = o.timings;
  return {
    wallMs,
    cpuMs: (used.user + used.system) / 1000,
    busyMs: busy.active,
    pipelineMs: Math.max(0, (t.total ?? wallMs) - ioMs(t)),
    assembleMs: t.assemble ?? 0,
    merged: o.sources.bridge?.status === 'merged' && o.sources.web?.status === 'merged',
  };
}

async function stats(adminUrl: string): Promise<Record<string, number>> {
  const body = (await (await fetch(`${adminUrl}/stats`)).json()) as { requests: Record<string, number> };
  return body.requests;
}

/** The device's real reply frames, one per command an observe sends, and what decoding each costs here. */
async function decodeCosts(runnerUrl: string): Promise<{ command: string; bytes: number; medianMs: number }[]> {
  const ws = new WebSocket(runnerUrl, { maxPayload: 64 * 1024 * 1024 });
  const waiting = new Map<string, (raw: string) => void>();
  ws.on('message', (data) => {
    const raw = data.toString();
    const id = (JSON.parse(raw) as { requestId?: string }).requestId;
    if (id) waiting.get(id)?.(raw);
  });
  await new Promise<void>((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const out: { command: string; bytes: number; medianMs: number }[] = [];
  for (const command of ['request_hierarchy', 'request_screenshot', 'get_sdk_capabilities', 'request_sdk_observation', 'request_sdk_web_snapshot']) {
    const requestId = `bench_${command}`;
    const raw = await new Promise<string>((resolve) => {
      waiting.set(requestId, resolve);
      ws.send(JSON.stringify({ type: command, requestId }));
    });
    const samples: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const began = performance.now();
      const decoded = decodeRunnerInbound(raw);
      samples.push(performance.now() - began);
      if (!decoded.ok) throw new Error(`${command}: ${decoded.error.message}`);
    }
    out.push({ command, bytes: Buffer.byteLength(raw), medianMs: percentile(samples, 50) });
  }
  ws.close();
  return out;
}

async function main(): Promise<void> {
  const device = await startDeviceProcess();
  const client = new RunnerClient(device.runnerUrl, { requestTimeoutMs: 10_000 });
  client.start();
  try {
    await client.waitUntilConnected(10_000);
    const observer = new Observer(client);
    console.log(`observe of the demo device's ${SCREEN} screen, end to end: ${RUNS} runs after ${WARM_UP} warm-up, one process, capability cache warm`);

    for (const [name, options] of [
      ['without screenshot (CLI)', { screenshot: false }],
      ['with screenshot (app)', {}],
    ] as const) {
      for (let i = 0; i < WARM_UP; i++) await observer.observe(options);
      const before = await stats(device.adminUrl);
      const samples: Sample[] = [];
      for (let i = 0; i < RUNS; i++) samples.push(await measure(observer, options));
      const after = await stats(device.adminUrl);

      const wall = samples.map((s) => s.wallMs);
      const shares = samples.map((s) => s.cpuMs / s.wallMs);
      const busyShares = samples.map((s) => s.busyMs / s.wallMs);
      const pipelineShares = samples.map((s) => s.pipelineMs / s.wallMs);
      const perObserve = Object.entries(after)
        .map(([command, count]) => [command, (count - (before[command] ?? 0)) / RUNS] as const)
        .filter(([, count]) => count > 0)
        .sort(([a], [b]) => a.localeCompare(b));
      console.log(`\n${name}`);
      console.log(`  end to end                      median ${ms(percentile(wall, 50))}   p95 ${ms(percentile(wall, 95))}`);
      console.log(
        `  inside Parallax (loop busy)     median ${ms(
          percentile(
            samples.map((s) => s.busyMs),
            50,
          ),
        )}   p95 ${ms(
          percentile(
            samples.map((s) => s.busyMs),
            95,
          ),
        )}`,
      );
      console.log(
        `  share inside Parallax (loop)    median ${pct(percentile(busyShares, 50))}   p95 ${pct(percentile(busyShares, 95))}   overall ${pct(sum(samples.map((s) => s.busyMs)) / sum(wall))}   (target < 10 %)`,
      );
      console.log(
        `  CPU time, every thread          median ${ms(
          percentile(
            samples.map((s) => s.cpuMs),
            50,
          ),
        )}   p95 ${ms(
          percentile(
            samples.map((s) => s.cpuMs),
            95,
          ),
        )}`,
      );
      console.log(
        `  share as CPU, every thread      median ${pct(percentile(shares, 50))}   p95 ${pct(percentile(shares, 95))}   overall ${pct(sum(samples.map((s) => s.cpuMs)) / sum(wall))}   (upper bound: GC and JIT threads run beside the wait)`,
      );
      console.log(
        `  share outside the I/O stages    median ${pct(percentile(pipelineShares, 50))}   p95 ${pct(percentile(pipelineShares, 95))}   (timings: total minus hierarchy/screenshot, discovery, bridge/web)`,
      );
      console.log(
        `  assemble (pure pipeline)        median ${ms(
          percentile(
            samples.map((s) => s.assembleMs),
            50,
          ),
        )}   p95 ${ms(
          percentile(
            samples.map((s) => s.assembleMs),
            95,
          ),
        )}`,
      );
      console.log(`  merged bridge and web           ${samples.filter((s) => s.merged).length}/${RUNS}`);
      console.log(
        `  runner requests per observe     ${sum(perObserve.map(([, count]) => count)).toFixed(2)}  (${perObserve.map(([command, count]) => `${command} ${count.toFixed(2)}`).join(', ')})`,
      );
    }

    console.log('\ndecoding one reply of each command an observe sends (median, this process)');
    for (const { command, bytes, medianMs } of await decodeCosts(device.runnerUrl)) {
      console.log(`  ${command.padEnd(28)} ${String(bytes).padStart(9)} bytes   ${ms(medianMs)}`);
    }
  } finally {
    await client.close();
    await device.stop();
  }
}

// Last, so every declaration above is initialised before it runs.
if (process.argv.includes('--serve-device')) await serveDevice();
else await main();
