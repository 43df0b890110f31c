/**
 * Parallax must not race itself: while an action runs on a device, the app's own observes and
 * screenshots (live mode, a second window) wait, so they cannot take a bridge capture between the
 * action's fresh read and its request and make the bridge refuse it as stale (docs/rules.md#r-key-09).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startDemoDevice } from '@demo/index';
import { RunnerConnection } from '@main/devices/runner-connection';
import { DeviceBusyError, DeviceGate } from '@main/connection/gate';

let demo: Awaited<ReturnType<typeof startDemoDevice>>;
let connection: RunnerConnection;
beforeAll(async () => {
  demo = await startDemoDevice({ port: 0, appReveal: false });
  connection = new RunnerConnection('demo', demo.runnerUrl);
  connection.start();
  await connection.waitUntilConnected(10_000);
}, 60_000);
afterAll(async () => {
  await connection?.close();
  await demo?.close();
});

describe('one device, one action at a time against its observers', () => {
  it('taps succeed while three observers keep reading the same device', async () => {
    let stop = false;
    // Three observers, as a live window, a second window and a push-observe can be at once.
    const loop = async () => {
      while (!stop) await connection.observe({ screenshot: false });
    };
    const live = Promise.all([loop(), loop(), loop()]);
    try {
      for (let i = 0; i < 15; i++) {
        await fetch(`${demo.adminUrl}/screen`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"screen":"login"}' });
        const { result } = await connection.act({ action: 'tap', target: { id: 'login.submit' } });
        expect(result, `tap ${i}: ${result.failureReason ?? ''}`).toMatchObject({ success: true, backend: 'sdk' });
      }
    } finally {
      stop = true;
      await live;
    }
    // Fifteen taps against three busy observers: on a loaded machine that takes long, and only its outcome is judged.
  }, 120_000);
});

describe('a slow device slows only itself (docs/rules.md#r-gate-01)', () => {
  /** An action whose end the test decides. */
  function controlled() {
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    return { run: () => done, finish };
  }

  it('R-GATE-01: an observe waits behind the one action in flight, never behind the actions queued after it', async () => {
    const gate = new DeviceGate();
    const order: string[] = [];
    const actions = [controlled(), controlled(), controlled()];
    const acted = actions.map((a, i) => gate.exclusive(async () => (await a.run(), order.push(`action ${i}`))));
    await new Promise((resolve) => setTimeout(resolve, 10));
    const read = gate.read(async () => order.push('read'));
    actions[0]!.finish();
    await read;
    expect(order).toEqual(['action 0', 'read']);
    actions[1]!.finish();
    actions[2]!.finish();
    await Promise.all(acted);
    expect(order).toEqual(['action 0', 'read', 'action 1', 'action 2']);
  });

  it('R-GATE-01: a queued action is not starved by reads that keep coming', async () => {
    const gate = new DeviceGate();
    const order: string[] = [];
    const running = [controlled(), controlled(), controlled()];
    const reads = running.map((r, i) => gate.read(async () => (await r.run(), order.push(`read ${i}`))));
    const acting = gate.exclusive(async () => order.push('action'));
    // Reads that keep coming while the action waits: they queue behind it, not beside the running ones.
    const later = [0, 1, 2].map((i) => gate.read(async () => order.push(`later ${i}`)));
    for (const r of running) r.finish();
    await Promise.all([...reads, acting, ...later]);
    expect(order).toEqual(['read 0', 'read 1', 'read 2', 'action', 'later 0', 'later 1', 'later 2']);
  });

  it('R-GATE-02: a read that cannot start within its budget fails as busy, naming the wait; the action goes on', async () => {
    vi.useFakeTimers();
    try {
      const gate = new DeviceGate({ readWaitBudgetMs: 100 });
      const action = controlled();
      const acting = gate.exclusive(action.run);
      const reading = gate.read(async () => 'read').catch((e: unknown) => e);
      await vi.advanceTimersByTimeAsync(99);
      let settled = false;
      void reading.then(() => (settled = true));
      await Promise.resolve();
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      const error = (await reading) as Error;
      expect(error).toBeInstanceOf(DeviceBusyError);
      expect(error.message).toMatch(/waited 100 ms behind an action that has run for 100 ms/);
      action.finish();
      await acting;
      expect(await gate.read(async () => 'read')).toBe('read');
    } finally {
      vi.useRealTimers();
    }
  });

  it('R-GATE-01: with a runner whose taps the test holds and three taps queued, an observe answers after the first, and another device is not slowed', async () => {
    // The runner answers a tap only when the test lets it: the order below is forced, not timed.
    const heldTaps: Array<() => void> = [];
    let tapArrived: (() => void) | undefined;
    const nextTap = () => new Promise<void>((resolve) => (tapArrived = resolve));
    const { WebSocketServer } = await import('ws');
    const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', path: '/ws' });
    await new Promise((resolve) => wss.once('listening', resolve));
    wss.on('connection', (socket) => {
      socket.send(
        JSON.stringify({ type: 'connected', supportedCommands: ['request_hierarchy', 'request_screenshot', 'request_tap_coordinates'], supportedFeatures: [] }),
      );
      socket.on('message', (data) => {
        const request = JSON.parse(data.toString()) as { type: string; requestId: string };
        const reply = (body: object) => socket.send(JSON.stringify({ requestId: request.requestId, ...body }));
        if (request.type === 'request_hierarchy')
          reply({
            type: 'hierarchy_update',
            data: {
              screenWidth: 390,
              screenHeight: 844,
              screenScale: 3,
              hierarchy: { className: 'XCUIApplication', bounds: { left: 0, top: 0, right: 390, bottom: 844 } },
            },
          });
        else if (request.type === 'request_tap_coordinates') {
          heldTaps.push(() => reply({ type: 'tap_coordinates_result', success: true }));
          tapArrived?.();
        } else reply({ type: 'screenshot_error', error: 'none' });
      });
    });
    const slow = new RunnerConnection('runner', `ws://127.0.0.1:${(wss.address() as { port: number }).port}/ws`);
    slow.start();
    try {
      await slow.waitUntilConnected(5_000);
      const first = nextTap();
      const taps = [1, 2, 3].map((x) => slow.act({ action: 'tap', target: { point: { x, y: 10 } } }));
      await first;
      let observed = false;
      const frame = slow.observe({ screenshot: false }).then(() => (observed = true));
      // Another device answers while this one's first tap is held.
      await connection.observe({ screenshot: false });
      expect(observed).toBe(false);
      // Behind the first tap, not behind all three: the observe answers while taps 2 and 3 are still out.
      const second = nextTap();
      heldTaps.shift()!();
      await frame;
      expect(heldTaps).toHaveLength(0);
      await second;
      heldTaps.shift()!();
      const third = nextTap();
      await third;
      heldTaps.shift()!();
      const results = await Promise.all(taps);
      expect(results.map((r) => r.result.success)).toEqual([true, true, true]);
    } finally {
      await slow.close();
      wss.close();
    }
  }, 30_000);
});
