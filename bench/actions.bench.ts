/**
 * Action dispatch on the demo device over its real sockets: per action kind, the device round trips
 * (the device's own admin request counts) and the wall time of the whole action (fresh read, dispatch,
 * observation after), median and p95. Run with `npx tsx bench/actions.bench.ts`; prints plain lines.
 *
 * The dispatcher runs with its defaults, as the app uses it: the observation after an action carries a
 * screenshot (one request_screenshot). The CLI turns that off.
 */
import { startDemoDevice } from '@demo/index';
import { RunnerClient } from '@main/runner/client';
import { Dispatcher } from '@main/runner/dispatch/dispatcher';
import { Observer } from '@main/runner/observer';
import type { ActionResult } from '@shared/protocol/action';

const RUNS = 25;
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

async function admin(path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${device.adminUrl}${path}`, body === undefined ? {} : { method: 'POST', body: JSON.stringify(body) });
  return (await res.json()) as Record<string, unknown>;
}
const counts = async () => (await admin('/stats')).requests as Record<string, number>;

interface Kind {
  name: string;
  screen: string;
  run: (i: number) => Promise<ActionResult>;
  expect: Pick<ActionResult, 'backend' | 'fallbackReason'>;
}

const kinds: Kind[] = [
  {
    name: 'bridge tap',
    screen: 'login',
    run: () => dispatcher.tap({ action: 'tap', target: { id: 'login.submit' } }),
    expect: { backend: 'sdk' },
  },
  {
    name: 'web click',
    screen: 'checkout',
    run: () => dispatcher.tap({ action: 'tap', target: { text: 'Place order' } }),
    expect: { backend: 'sdk' },
  },
  {
    name: 'XCTest tap (xctestOnly)',
    screen: 'login',
    run: () => dispatcher.tap({ action: 'tap', target: { id: 'login.submit' } }, { xctestOnly: true }),
    expect: {},
  },
  {
    name: 'sendKeys replace, native',
    screen: 'login',
    run: (i) => dispatcher.sendKeys({ action: 'sendKeys', target: { id: 'login.username' }, steps: [{ kind: 'replace', text: `user${i}` }] }),
    expect: { backend: 'sdk' },
  },
  {
    name: 'sendKeys replace, web',
    screen: 'checkout',
    run: (i) => dispatcher.sendKeys({ action: 'sendKeys', target: { text: 'Email' }, steps: [{ kind: 'replace', text: `qa${i}@parallax.test` }] }),
    expect: { backend: 'sdk' },
  },
];

console.log(`actions.bench: demo device, ${RUNS} runs per kind after ${WARMUP} warm-up runs; wall time per whole action`);
for (const kind of kinds) {
  await admin('/reset', { screen: kind.screen, faults: [] });
  for (let i = 0; i < WARMUP; i++) await kind.run(i);
  const wall: number[] = [];
  const trips: number[] = [];
  let breakdown: Record<string, number> = {};
  let mismatched = 0;
  for (let i = 0; i < RUNS; i++) {
    const before = await counts();
    const started = performance.now();
    const result = await kind.run(WARMUP + i);
    wall.push(performance.now() - started);
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
  console.log(
    `${''.padEnd(26)} ${Object.entries(breakdown)
      .map(([c, n]) => `${c}=${n}`)
      .join(' ')}`,
  );
}

await client.close();
await device.close();
