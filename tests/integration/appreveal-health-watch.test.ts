/**
 * R-AR-23: an AppReveal app is watched through `/health`. An app that goes away (its server closes, as
 * when the app is killed) is shown disconnected with the reason, and the connection comes back by itself
 * when the app listens again on the same address, with the same session token.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startAppRevealServer, type AppRevealServerHandle } from '@demo/appreveal/server';
import { AppRevealConnection } from '@main/appreveal/connection';
import type { ConnectionState } from '@main/connection/connection';
import { FakeApp } from './appreveal-fake-app';

const servers: AppRevealServerHandle[] = [];
const connections: AppRevealConnection[] = [];

afterEach(async () => {
  await Promise.all(connections.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(options: { port?: number; token?: string } = {}): Promise<AppRevealServerHandle> {
  const server = await startAppRevealServer({ app: new FakeApp(), ...options });
  servers.push(server);
  return server;
}

/** Resolves with the connection's states, in order, once `until` is reached (or rejects after `ms`). */
function statesUntil(connection: AppRevealConnection, until: ConnectionState, ms: number): Promise<ConnectionState[]> {
  const seen: ConnectionState[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      connection.off('state', onState);
      reject(new Error(`no '${until}' within ${ms} ms (states: ${seen.join(', ') || 'none'})`));
    }, ms);
    const onState = () => {
      seen.push(connection.state);
      if (connection.state !== until) return;
      clearTimeout(timer);
      connection.off('state', onState);
      resolve(seen);
    };
    connection.on('state', onState);
  });
}

describe('AppReveal health watch', () => {
  it('R-AR-23: an app that stops answering /health is shown disconnected with the reason, and reconnects when it is back', async () => {
    const first = await serve();
    const connection = new AppRevealConnection(first.url);
    connections.push(connection);
    connection.start();
    await connection.waitUntilConnected(5_000);
    expect(connection.state).toBe('connected');

    // The app goes away: the next health check (every 3 s) finds nothing listening.
    const { port, token } = first;
    await first.close();
    servers.splice(servers.indexOf(first), 1);
    const down = await statesUntil(connection, 'disconnected', 8_000);
    expect(down.at(-1)).toBe('disconnected');
    expect(connection.error).toMatch(/stopped answering/);
    // Actions and reads fail with that state, not with a hang.
    await expect(connection.waitUntilConnected(100)).rejects.toThrow(/not connected/);

    // The app is back on the same address with the same token: the connection recovers by itself.
    await serve({ port, token: token ?? undefined });
    const up = await statesUntil(connection, 'connected', 15_000);
    expect(up).toContain('connecting');
    expect(connection.state).toBe('connected');
    expect(connection.error).toBeUndefined();
    const frame = await connection.observe({});
    expect(frame.appReveal?.screen?.screenKey).toBe('login');
  }, 40_000);
});
