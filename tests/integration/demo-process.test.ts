/**
 * R-PEER-03: the host's built-in demo devices run in a child process of their own (src-demo/process.ts),
 * started and ended by the host: their runner answers from another pid, a demo killed outright leaves the
 * host running (its devices simply go away), and closing ends the process.
 */
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startDemoProcess } from '@main/host/default-device';
import { alive } from '../support/processes';

/** Whether a WebSocket to `url` opens (the runner answers its upgrade). */
const opens = (url: string) =>
  new Promise<boolean>((resolve) => {
    const ws = new WebSocket(url);
    ws.once('open', () => (ws.close(), resolve(true)));
    ws.once('error', () => resolve(false));
  });

describe('R-PEER-03: the demo devices in a process of their own', () => {
  it('R-PEER-03: the demo runs in another process, which the host ends on close', async () => {
    const fleet = await startDemoProcess(1, false);
    try {
      expect(fleet.pid).not.toBe(process.pid);
      expect(alive(fleet.pid)).toBe(true);
      expect(fleet.devices).toHaveLength(1);
      expect(await opens(fleet.devices[0]!.runnerUrl)).toBe(true);
    } finally {
      await fleet.close();
    }
    expect(alive(fleet.pid)).toBe(false);
    expect(await opens(fleet.devices[0]!.runnerUrl)).toBe(false);
  }, 180_000);

  it('R-PEER-03: a demo killed outright takes only its own process: the host goes on and close still resolves', async () => {
    const fleet = await startDemoProcess(1, false);
    process.kill(fleet.pid, 'SIGKILL');
    await fleet.close();
    expect(alive(fleet.pid)).toBe(false);
    expect(await opens(fleet.devices[0]!.runnerUrl)).toBe(false);
    // This process (the host) is untouched and starts another.
    const again = await startDemoProcess(1, false);
    try {
      expect(await opens(again.devices[0]!.runnerUrl)).toBe(true);
    } finally {
      await again.close();
    }
  }, 180_000);
});
