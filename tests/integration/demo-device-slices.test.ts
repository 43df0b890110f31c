/**
 * A heavy screen read in slices (docs/rules.md#r-perf-10), over the demo device's real ports: the page
 * takes a change while its views are being read (it is not held for the whole read), and the read
 * that saw the change answers one state of the screen, never a mix of the two.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { setTimeout as sleep } from 'node:timers/promises';
import type { UiNode } from '@shared/protocol/runner';
import { startDemoDevice } from '@demo/index';
import { admin as demoAdmin, untilQuiet } from '../support/demo-admin';

type Msg = Record<string, any>;

/** The heavy board: 11 fixed views, then tiles of 50 views each (resources/demo-app/app.js). */
const FIXED_NODES = 11;
const TILE_NODES = 50;
const BIG = 600;
const SMALL = 200;
const nodesFor = (tiles: number) => FIXED_NODES + tiles * TILE_NODES;

let device: Awaited<ReturnType<typeof startDemoDevice>>;
let ws: WebSocket;
const waiting = new Map<string, (msg: Msg) => void>();
let seq = 0;

function request(type: string, extra: Record<string, unknown> = {}, timeoutMs = 30_000): Promise<Msg> {
  const requestId = `${type}_${++seq}`;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${type} timed out`)), timeoutMs);
    waiting.set(requestId, (msg) => {
      clearTimeout(timer);
      resolve(msg);
    });
    ws.send(JSON.stringify({ type, requestId, ...extra }));
  });
}

async function admin(path: string, body: unknown): Promise<void> {
  await demoAdmin(device.adminUrl, path, body);
}

const all = (root: UiNode | undefined): UiNode[] => (root ? [root, ...(root.node ?? []).flatMap(all)] : []);

/**
 * Which state of the screen a hierarchy shows: the board at one of its sizes, every tile whole, or the
 * login screen with no tile. Anything else (tiles without their views, a board of another size, tiles
 * beside the login form) is a mix of two states, and is spelled out.
 */
function stateOf(root: UiNode | undefined): string {
  const views = all(root);
  const tiles = views.filter((n) => /^heavy\.tile\.\d+$/.test(n['resource-id'] ?? ''));
  const login = views.some((n) => n['resource-id'] === 'login.submit');
  if (tiles.length === 0) return login ? 'login' : `mix: neither tiles nor the login form (${views.length} views)`;
  const broken = tiles.filter((tile) => all(tile).length !== TILE_NODES).length;
  if (login || broken > 0 || ![BIG, SMALL].includes(tiles.length)) {
    return `mix: ${tiles.length} tiles, ${broken} of them not whole, login form ${login ? 'shown' : 'absent'}, ${views.length} views`;
  }
  return `board of ${tiles.length}`;
}

/**
 * Starts a fresh read of the board as it is, then makes `change` land `delay` ms later. The reads the
 * last change set off are over first (a read asked for during one waits for the next), so the read
 * asked for here starts at once. A key press that changes nothing on the board moves the device's
 * version, so that read is made afresh rather than shared with the last one; it sets off no change
 * notification of its own.
 */
async function readAcross(change: () => Promise<void>, delay: number): Promise<{ during: string; after: string }> {
  await request('request_hierarchy');
  await untilQuiet(device.adminUrl);
  await request('request_hierarchy');
  expect((await request('request_press_key', { key: 'escape', modifiers: [] })).success).toBe(true);
  const read = request('request_hierarchy');
  await sleep(delay);
  await change();
  const during = stateOf((await read).data?.hierarchy);
  const after = stateOf((await request('request_hierarchy')).data?.hierarchy);
  return { during, after };
}

async function faults(set: string[]): Promise<void> {
  const res = await fetch(`${device.adminUrl}/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ faults: set }),
  });
  expect(res.status, await res.text()).toBe(200);
}

async function readsHeld(): Promise<number> {
  const res = await fetch(`${device.adminUrl}/reads`);
  return ((await res.json()) as { held: number }).held;
}

/**
 * A read stopped between two of its slices by the demo's gate (the fault xctest-read-hold), and `change`
 * made while it waits there: the change lands in the middle of the read, however fast or slow the machine
 * is. The page must take the change (a read held in one task would block it), and the read must answer
 * the screen as it is after it, whole.
 */
async function readAroundChange(change: () => Promise<void>): Promise<{ during: string; after: string }> {
  await request('request_hierarchy');
  expect((await request('request_press_key', { key: 'escape', modifiers: [] })).success).toBe(true);
  await faults(['xctest-read-hold']);
  const heldBefore = await readsHeld();
  const read = request('request_hierarchy');
  for (let waited = 0; (await readsHeld()) <= heldBefore; waited += 20) {
    if (waited > 30_000) throw new Error('the read never reached the gate');
    await sleep(20);
  }
  await change();
  await faults([]);
  const during = stateOf((await read).data?.hierarchy);
  const after = stateOf((await request('request_hierarchy')).data?.hierarchy);
  return { during, after };
}

beforeAll(async () => {
  device = await startDemoDevice({ port: 0, screen: 'heavy', heavyNodes: nodesFor(BIG), appReveal: false });
  ws = new WebSocket(device.runnerUrl);
  ws.on('message', (data) => {
    const msg = JSON.parse(data.toString()) as Msg;
    if (typeof msg.requestId === 'string') {
      waiting.get(msg.requestId)?.(msg);
      waiting.delete(msg.requestId);
    }
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
}, 60_000);

afterAll(async () => {
  ws?.close();
  await device?.close();
});

describe('R-PERF-10: a heavy screen read in slices', () => {
  it('R-PERF-10: the board rebuilt at another size while its views are read: the read answers the old board or the new one, each whole', async () => {
    let tiles = BIG;
    for (const delay of [100, 250, 100, 250]) {
      const next = tiles === BIG ? SMALL : BIG;
      const { during, after } = await readAcross(() => admin('/screen', { screen: 'heavy', nodes: nodesFor(next) }), delay);
      expect(during, `read ${delay} ms before the board went from ${tiles} to ${next} tiles`).toMatch(new RegExp(`^board of (${tiles}|${next})$`));
      expect(after).toBe(`board of ${next}`);
      tiles = next;
    }
  }, 120_000);

  it('R-PERF-10: the board rebuilt while a read waits between its slices: the page takes the change, and the read answers the new board, whole', async () => {
    await admin('/screen', { screen: 'heavy', nodes: nodesFor(BIG) });
    const { during, after } = await readAroundChange(() => admin('/screen', { screen: 'heavy', nodes: nodesFor(SMALL) }));
    // A read that went on after the change would hold tiles of both boards, or a board of neither size.
    expect(during).toBe(`board of ${SMALL}`);
    expect(after).toBe(`board of ${SMALL}`);
  }, 120_000);

  it('R-PERF-10: the screen switched away from the board while its views are read: the read answers the whole board or the login screen, never part of each', async () => {
    for (const delay of [100, 250]) {
      await admin('/screen', { screen: 'heavy', nodes: nodesFor(BIG) });
      const { during, after } = await readAcross(() => admin('/screen', { screen: 'login' }), delay);
      expect(during, `read ${delay} ms before the switch`).toMatch(new RegExp(`^(board of ${BIG}|login)$`));
      expect(after).toBe('login');
    }
    await admin('/screen', { screen: 'heavy', nodes: nodesFor(BIG) });
    const { during, after } = await readAroundChange(() => admin('/screen', { screen: 'login' }));
    expect(during).toBe('login');
    expect(after).toBe('login');
  }, 120_000);
});
