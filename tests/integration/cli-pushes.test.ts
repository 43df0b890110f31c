/**
 * A command line shows no live screen (docs/rules.md#r-cli-02): the hierarchy the runner pushes on connect
 * must not become an observe (a bridge read and a full screenshot) that the action then waits behind. The
 * device's own admin stats count what reached it. The order is forced, not timed: the push has arrived (and
 * a live connection has started observing it) before the action is asked for, and an action waits for the
 * reads already running (R-GATE-01), so their requests are counted whenever they would be sent.
 */
import { describe, expect, it } from 'vitest';
import { connectionFor, type ConnectionOptions } from '@main/devices/manager';
import type { RunnerConnection } from '@main/devices/runner-connection';
import { admin } from '../support/demo-admin';
import { useDemoDevice } from '../support/host-over-demo';

const started = useDemoDevice({ appReveal: false });

type Counts = Record<string, number>;
const counts = async () => (await admin<{ requests: Counts }>(started.demo.adminUrl, '/stats')).requests;
const sentSince = (before: Counts, after: Counts) =>
  Object.fromEntries(Object.entries(after).flatMap(([command, n]) => (n - (before[command] ?? 0) > 0 ? [[command, n - (before[command] ?? 0)]] : [])));

/** Connects as the options say, waits for the push the runner sends on connect, then taps; what the device saw meanwhile. */
async function tapAfterConnectPush(options: ConnectionOptions) {
  await admin(started.demo.adminUrl, '/reset', { screen: 'login' });
  const connection = connectionFor(started.demo.runnerUrl, options) as RunnerConnection;
  const pushed = new Promise<void>((resolve) => connection.client.once('hierarchy', () => resolve()));
  const before = await counts();
  try {
    connection.start();
    await connection.waitUntilConnected(10_000);
    await pushed;
    const { result } = await connection.act({ action: 'tap', target: { point: { x: 5, y: 5 } } });
    expect(result.success).toBe(true);
    return { result, sent: sentSince(before, await counts()) };
  } finally {
    await connection.close();
  }
}

describe('the command line connects for its one action (R-CLI-02)', () => {
  it('R-CLI-02: a command line connection observes no push: the device sees only the requests the tap reports', async () => {
    const { result, sent } = await tapAfterConnectPush({ screenshotAfter: false, livePushes: false });
    expect(sent.request_screenshot).toBeUndefined();
    expect(Object.values(sent).reduce((a, b) => a + b, 0)).toBe(result.requestsSent);
  });

  it('R-CLI-02: a live connection (the host) does observe the push, with its screenshot', async () => {
    const { result, sent } = await tapAfterConnectPush({ screenshotAfter: false });
    expect(sent.request_screenshot).toBe(1);
    expect(Object.values(sent).reduce((a, b) => a + b, 0)).toBeGreaterThan(result.requestsSent);
  });
});
