/**
 * `npm run bench -- wire`: bytes on the web host's API socket (docs/rules.md#r-perf-06) for the demo
 * device's heavy screen at 1k, 5k and 50k views (WIRE_SIZES to change), through the real host and a
 * socket read as the renderer reads it:
 *
 *   per action   one tap's `device.frame` + `device.action` events and its `device.act` reply, after an
 *                observe and a live screenshot (the page's usual state), median of RUNS;
 *   per observe  one `device.observe` reply;
 *   history      a new socket's `device.history` reply (what a reloaded page reads);
 *   copies       how many whole observations those messages carry;
 *   decode       the renderer's zod decode of one action's messages, ms (before: every copy a new
 *                object from its own JSON, decoded whole; now: a reference decodes to the observation
 *                decoded before, src-shared/api/wire.ts decodedOnce).
 *
 * `before` is the same messages as the host wrote them without interning (every frame whole, which is
 * JSON.stringify of what the renderer decodes), `now` what went over the socket.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDemoDevice } from '@demo/index';
import { apiEvents, apiMethods } from '@shared/api/api';
import { DeviceManager } from '@main/devices/manager';
import { createApiService } from '@main/host/api';
import { startWebHost } from '@main/host/web-host';
import { openApiSocket, type ReceivedMessage } from '../tests/support/api-socket';

const SIZES = (process.env['WIRE_SIZES'] ?? '1000,5000,50000').split(',').map(Number);
const RUNS = Number(process.env['WIRE_RUNS'] ?? 3);
const TAP = { action: 'tap', target: { point: { x: 20, y: 20 } } };

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const kib = (n: number) => `${(n / 1024).toFixed(0).padStart(8)} KiB`;

/** The message as a host without interning wrote it: JSON.stringify of what the page decodes. */
function legacyBytes(m: ReceivedMessage): number {
  const envelope = m.what.startsWith('reply ') ? { id: Number(m.what.slice(6)), ok: true, result: m.value } : { event: m.what, payload: m.value };
  return Buffer.byteLength(JSON.stringify(envelope));
}
const copies = (ms: ReceivedMessage[]) => ms.reduce((n, m) => n + (m.text.match(/"viewHierarchy":/g)?.length ?? 0), 0);
const legacyCopies = (ms: ReceivedMessage[]) => ms.reduce((n, m) => n + (JSON.stringify(m.value).match(/"viewHierarchy":/g)?.length ?? 0), 0);
const sum = (ms: ReceivedMessage[], f: (m: ReceivedMessage) => number) => ms.reduce((n, m) => n + f(m), 0);

/** The renderer's decode of `ms`, in ms; `fresh`: each from its own JSON, as a host without interning made the page read it. */
function decodeMs(ms: ReceivedMessage[], method: 'device.act' | 'device.observe', fresh: boolean): number {
  let total = 0;
  for (const m of ms) {
    const schema = m.what.startsWith('reply ') ? apiMethods[method].output : apiEvents[m.what as keyof typeof apiEvents];
    const value: unknown = fresh ? JSON.parse(JSON.stringify(m.value)) : m.value;
    const t0 = performance.now();
    if (!schema.safeParse(value).success) throw new Error(`${m.what} does not decode`);
    total += performance.now() - t0;
  }
  return total;
}

const device = await startDemoDevice({ port: 0, appReveal: false });
const manager = new DeviceManager();
const rendererDir = await mkdtemp(join(tmpdir(), 'parallax-wire-bench-'));
await writeFile(join(rendererDir, 'index.html'), '<!doctype html>');
const deviceId = manager.connect(device.runnerUrl, { kind: 'demo', name: 'demo' }).id;
await manager.connectionOf(deviceId).waitUntilConnected(30_000);
const host = await startWebHost({ api: createApiService({ manager }, { host: 'web', version: 'bench' }), rendererDir });
const url = new URL(host.url);

console.log(`bytes on the API socket, heavy screen, median of ${RUNS} (before: every frame whole / now: each observation and screenshot once)`);
console.log('   nodes  what            before          now   now/before   observations before -> now');
try {
  for (const nodes of SIZES) {
    const set = await fetch(`${device.adminUrl}/screen`, { method: 'POST', body: JSON.stringify({ screen: 'heavy', nodes }) });
    if (!set.ok) throw new Error(`the demo would not show ${nodes} views: ${await set.text()}`);
    const { ws, call, received } = await openApiSocket(url.origin, url.search);
    const rows: Record<string, { before: number[]; now: number[]; copiesBefore: number; copiesNow: number }> = {};
    const decode = { before: [] as number[], now: [] as number[] };
    const add = (what: string, ms: ReceivedMessage[]) => {
      const row = (rows[what] ??= { before: [], now: [], copiesBefore: 0, copiesNow: 0 });
      row.before.push(sum(ms, legacyBytes));
      row.now.push(sum(ms, (m) => m.bytes));
      row.copiesBefore = legacyCopies(ms);
      row.copiesNow = copies(ms);
    };
    try {
      for (let run = 0; run < RUNS; run++) {
        let from = received.length;
        const observed = await call('device.observe', { deviceId });
        if (!observed.ok) throw new Error(`observe failed: ${observed.error?.message}`);
        const observeReply = received.slice(from).filter((m) => m.what.startsWith('reply '));
        add('per observe', observeReply);
        // As the page does: the observation it will see again is decoded once, here.
        decodeMs(observeReply, 'device.observe', false);
        await call('device.screenshot', { deviceId });
        from = received.length;
        const acted = await call('device.act', { deviceId, action: TAP });
        if (!acted.ok) throw new Error(`act failed: ${acted.error?.message}`);
        // The manager writes the after frame, the step and the reply one after the other; a frame the
        // device pushed meanwhile (another observation) is not the action's.
        const mine = received.slice(from);
        const step = mine.findIndex((m) => m.what === 'device.action');
        const action = [mine[step - 1], mine[step], mine[mine.length - 1]].filter(
          (m): m is ReceivedMessage => m !== undefined && m.what !== 'device.actionProgress',
        );
        add('per action', action);
        decode.before.push(decodeMs(action, 'device.act', true));
        decode.now.push(decodeMs(action, 'device.act', false));
      }
    } finally {
      ws.close();
    }
    const fresh = await openApiSocket(url.origin, url.search);
    try {
      await fresh.call('device.history', { deviceId });
      add(
        'history (reload)',
        fresh.received.filter((m) => m.what.startsWith('reply ')),
      );
    } finally {
      fresh.ws.close();
    }
    for (const [what, row] of Object.entries(rows)) {
      const before = median(row.before);
      const now = median(row.now);
      console.log(
        `${String(nodes).padStart(8)}  ${what.padEnd(16)}${kib(before)} ${kib(now)}   ${(now / before).toFixed(2).padStart(10)}   ${String(row.copiesBefore).padStart(6)} -> ${row.copiesNow}`,
      );
    }
    const [decodeBefore, decodeNow] = [median(decode.before), median(decode.now)];
    console.log(
      `${String(nodes).padStart(8)}  decode, action  ${decodeBefore.toFixed(1).padStart(9)} ms ${decodeNow.toFixed(1).padStart(9)} ms ${(decodeNow / decodeBefore).toFixed(2).padStart(10)}`,
    );
  }
} finally {
  await host.close();
  await manager.closeAll();
  await device.close();
  await rm(rendererDir, { recursive: true, force: true });
}
