/**
 * Parallax must not race itself: while an action runs on a device, the app's own observes and
 * screenshots (live mode, a second window) wait, so they cannot take a bridge capture between the
 * action's fresh read and its request and make the bridge refuse it as stale (docs/rules.md#r-key-09).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoDevice } from '@demo/index';
import { RunnerConnection } from '@main/runner/connection';

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
  });
});
