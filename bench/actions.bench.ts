/**
 * Action dispatch on the demo device over its real sockets: per action kind, the device round trips
 * (the device's own admin request counts) and the wall time of the whole action (fresh read, dispatch,
 * observation after), median and p95. Run with `npx tsx bench/actions.bench.ts`; prints plain lines.
 *
 * The dispatcher runs with its defaults, as the app uses it: the observation after an action carries a
 * screenshot (one request_screenshot). The CLI turns that off.
 *
 * Critical path (docs/rules.md#r-perf-04): the longest chain of device requests the action must wait
 * for, from the same run's request times. Reads are separated by the action's commands, which wait for
 * everything before them; within a read, the hierarchy, a capability probe and a web snapshot are a chain
 * (the probe needs the app the hierarchy names, the web read the web view it shows), the screenshot and a
 * bridge read on a known discovery depend on nothing. `wall / path` is how close the loop comes to it.
 *
 * Requests (docs/rules.md#r-perf-07): the dispatcher's own per kind are printed as the device counted
 * them (each one's use is pinned in tests/integration/dispatch-demo.test.ts; none became unnecessary),
 * then the app's path, where the hierarchy pushes older than an action's after read are no longer
 * observed, now against the previous approach in the same run.
 */
import { startDemoDevice } from '@demo/index';
import { RunnerClient } from '@main/runner/client';
import { Dispatcher } from '@main/runner/dispatch/dispatcher';
import { Observer } from '@main/runner/observer';
import { RunnerConnection } from '@main/devices/runner-connection';
import { ActionRequestSchema, type ActionRequest, type ActionResult } from '@shared/protocol/action';
import type { z } from 'zod';
import { READ_COMMANDS } from '../tests/support/outcome-cases';
import { adminReply } from '../tests/support/demo-admin';

type ActionRequestInput = z.input<typeof ActionRequestSchema>;

const RUNS = Number(process.env['ACTIONS_RUNS'] ?? 25);
const WARMUP = 2;

function percentile(sorted: number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? NaN;
}

const device = await startDemoDevice({ port: 0 });
const client = new RunnerClient(device.runnerUrl);
client.start();
await client.waitUntilConnected();
const dispatcher = new Dispatcher(client, new Observer(client));

// Every request's start and end, as the dispatcher sends them.
let log: { command: string; start: number; end: number }[] = [];
const request = client.request.bind(client);
client.request = (async (command, payload, options) => {
  const entry = { command: command as string, start: performance.now(), end: 0 };
  log.push(entry);
  try {
    return await request(command, payload, options);
  } finally {
    entry.end = performance.now();
  }
}) as typeof client.request;

/** The longest chain of requests in `entries` (see the header). */
function criticalPath(entries: typeof log): number {
  let path = 0;
  let read: typeof log = [];
  const closeRead = () => {
    const d = (c: string) => Math.max(0, ...read.filter((e) => e.command === c).map((e) => e.end - e.start));
    const chain = Math.max(d('request_hierarchy'), d('request_hierarchy_if_stale')) + d('get_sdk_capabilities') + d('request_sdk_web_snapshot');
    path += Math.max(chain, d('request_screenshot'), d('request_sdk_observation'));
    read = [];
  };
  for (const e of entries) {
    if (READ_COMMANDS.has(e.command)) {
      // A second hierarchy in the same phase starts a new read (a read-back after a step).
      if ((e.command === 'request_hierarchy' || e.command === 'request_hierarchy_if_stale') && read.some((r) => r.command === e.command)) closeRead();
      read.push(e);
    } else {
      closeRead();
      path += e.end - e.start;
    }
  }
  closeRead();
  return path;
}

const admin = (path: string, body?: unknown) => adminReply(device.adminUrl, path, body).then((reply) => reply.body);
const counts = async () => (await admin('/stats')).requests as Record<string, number>;

interface Kind {
  name: string;
  screen: string;
  /** The action (an ActionRequest) for the i-th run, and its dispatch options. */
  request: (i: number) => ActionRequestInput;
  xctestOnly?: boolean;
  expect: Pick<ActionResult, 'backend' | 'fallbackReason'>;
}

const kinds: Kind[] = [
  { name: 'bridge tap', screen: 'login', request: () => ({ action: 'tap', target: { id: 'login.submit' } }), expect: { backend: 'sdk' } },
  { name: 'web click', screen: 'checkout', request: () => ({ action: 'tap', target: { text: 'Place order' } }), expect: { backend: 'sdk' } },
  {
    name: 'XCTest tap (xctestOnly)',
    screen: 'login',
    request: () => ({ action: 'tap', target: { id: 'login.submit' } }),
    xctestOnly: true,
    expect: {},
  },
  {
    name: 'sendKeys replace, native',
    screen: 'login',
    request: (i) => ({ action: 'sendKeys', target: { id: 'login.username' }, steps: [{ kind: 'replace', text: `user${i}` }] }),
    expect: { backend: 'sdk' },
  },
  {
    name: 'screen swipe',
    screen: 'feed',
    request: (i) => ({ action: 'swipe', start: { x: 200, y: i % 2 ? 300 : 600 }, end: { x: 200, y: i % 2 ? 600 : 300 } }),
    expect: { backend: 'sdk' },
  },
  {
    name: 'sendKeys replace, web',
    screen: 'checkout',
    request: (i) => ({ action: 'sendKeys', target: { text: 'Email' }, steps: [{ kind: 'replace', text: `qa${i}@parallax.test` }] }),
    expect: { backend: 'sdk' },
  },
];
// Decoded here, at the bench's own boundary, as the API and the CLI decode theirs (R-PERF-13).
const decoded = (kind: Kind, i: number): ActionRequest => ActionRequestSchema.parse(kind.request(i));
const runDirect = (kind: Kind, i: number) => dispatcher.dispatch(decoded(kind, i), kind.xctestOnly ? { xctestOnly: true } : {});

console.log(`actions.bench: demo device, ${RUNS} runs per kind after ${WARMUP} warm-up runs; wall time per whole action`);
for (const kind of kinds) {
  await admin('/reset', { screen: kind.screen, faults: [] });
  for (let i = 0; i < WARMUP; i++) await runDirect(kind, i);
  const wall: number[] = [];
  const trips: number[] = [];
  let breakdown: Record<string, number> = {};
  const paths: number[] = [];
  const ratios: number[] = [];
  let mismatched = 0;
  for (let i = 0; i < RUNS; i++) {
    const before = await counts();
    log = [];
    const started = performance.now();
    const result = await runDirect(kind, WARMUP + i);
    const took = performance.now() - started;
    wall.push(took);
    const path = criticalPath(log);
    paths.push(path);
    ratios.push(took / path);
    const after = await counts();
    const delta: Record<string, number> = {};
    for (const [command, n] of Object.entries(after)) if (n - (before[command] ?? 0) > 0) delta[command] = n - (before[command] ?? 0);
    const sent = Object.values(delta).reduce((a, b) => a + b, 0);
    trips.push(sent);
    breakdown = delta;
    if (!result.success || result.backend !== kind.expect.backend || result.fallbackReason !== kind.expect.fallbackReason || result.requestsSent !== sent) {
      mismatched++;
    }
  }
  const w = [...wall].sort((a, b) => a - b);
  const t = [...trips].sort((a, b) => a - b);
  console.log(
    `${kind.name.padEnd(26)} round trips median ${percentile(t, 50)} p95 ${percentile(t, 95)}   wall median ${percentile(w, 50).toFixed(1).padStart(6)} ms  p95 ${percentile(w, 95).toFixed(1).padStart(6)} ms  (n=${RUNS}${mismatched ? `, ${mismatched} unexpected results` : ''})`,
  );
  const p = [...paths].sort((a, b) => a - b);
  const r = [...ratios].sort((a, b) => a - b);
  console.log(
    `${''.padEnd(26)} critical path median ${percentile(p, 50).toFixed(1)} ms p95 ${percentile(p, 95).toFixed(1)} ms   wall / path median ${percentile(r, 50).toFixed(2)} p95 ${percentile(r, 95).toFixed(2)}`,
  );
  console.log(
    `${''.padEnd(26)} ${Object.entries(breakdown)
      .map(([c, n]) => `${c}=${n}`)
      .join(' ')}`,
  );
}

// The app's path: the same actions through a RunnerConnection, which also observes the device's
// hierarchy pushes (live frames). Every request the device saw from the action's start to APP_SETTLE_MS
// after it, by the device's own counts. `previous` adds back what the push passes dropped as older than
// the action's after read would have cost (docs/rules.md#r-perf-07): each such pass read what an observed
// pass reads (the bridge, a screenshot, the web view when there is one), measured in the same run.
const APP_RUNS = Number(process.env['ACTIONS_APP_RUNS'] ?? 6);
const APP_SETTLE_MS = 1_000;
const conn = new RunnerConnection('demo', device.runnerUrl);
conn.start();
await conn.waitUntilConnected();
const appKinds = kinds.map((kind) => ({
  ...kind,
  run: (i: number) => conn.act(decoded(kind, i), kind.xctestOnly ? { xctestOnly: true } : {}).then((step) => step.result),
}));
console.log(
  `\nthe app's path (RunnerConnection, pushes observed), ${APP_RUNS} runs per kind: requests per action, its own + push passes within ${APP_SETTLE_MS} ms`,
);
for (const kind of appKinds) {
  await admin('/reset', { screen: kind.screen, faults: [] });
  await kind.run(0);
  await new Promise((resolve) => setTimeout(resolve, APP_SETTLE_MS));
  const own: number[] = [];
  const seen: number[] = [];
  const passes = { ...conn.pushPasses };
  for (let i = 0; i < APP_RUNS; i++) {
    const before = await counts();
    const result = await kind.run(1 + i);
    own.push(result.requestsSent);
    await new Promise((resolve) => setTimeout(resolve, APP_SETTLE_MS));
    const after = await counts();
    seen.push(Object.entries(after).reduce((n, [command, count]) => n + count - (before[command] ?? 0), 0));
  }
  const observed = conn.pushPasses.observed - passes.observed;
  const superseded = conn.pushPasses.superseded - passes.superseded;
  const perPass = observed > 0 ? (seen.reduce((a, b) => a + b, 0) - own.reduce((a, b) => a + b, 0)) / observed : 0;
  const now = seen.reduce((a, b) => a + b, 0) / APP_RUNS;
  const previous = now + (superseded * perPass) / APP_RUNS;
  console.log(
    `${kind.name.padEnd(26)} requests per action now ${now.toFixed(1).padStart(5)}   previous ${previous.toFixed(1).padStart(5)}   (the action's own ${own[0]}; push passes observed ${observed}, dropped as older than the after read ${superseded}, ${perPass.toFixed(1)} requests a pass)`,
  );
}
await conn.close();

await client.close();
await device.close();
