/**
 * The demo devices in a process of their own (docs/rules.md#r-peer-03): the host forks this file
 * (src-main/host/default-device.ts, through src-main/entries.ts) so a demo that crashes, spins or fills
 * its memory (a 200k-node screen, a hung Chromium) takes its own process down, never the host's event
 * loop or heap. Arguments: the number of devices, then `advertise` to announce AppReveal over Bonjour.
 *
 * Over the IPC channel it sends `{ type: 'ready', devices }` (each device's runner, admin and AppReveal
 * URLs: the channel is the host's alone, so the AppReveal token never reaches a process list or a log)
 * or `{ type: 'failed', message }`; on `{ type: 'close' }`, or when the host goes away, it closes every
 * device and exits.
 */
import { startDemoDevices, type FleetDevice } from '@demo/index';

export interface DemoProcessDevice {
  runnerUrl: string;
  adminUrl: string;
  appRevealUrl?: string;
  screen: string;
}
export type DemoProcessMessage = { type: 'ready'; devices: DemoProcessDevice[] } | { type: 'failed'; message: string };

let devices: FleetDevice[] = [];
let closing: Promise<void> | undefined;

function closeAndExit(code: number): Promise<void> {
  closing ??= (async () => {
    for (const device of devices) await device.close().catch(() => undefined);
    process.exit(code);
  })();
  return closing;
}

const send = (message: DemoProcessMessage) => new Promise<void>((resolve) => process.send!(message, undefined, {}, () => resolve()));

process.on('message', (message: { type?: string }) => {
  if (message?.type === 'close') void closeAndExit(0);
});
// The host ended without saying so (killed, crashed): nothing is left to serve.
process.on('disconnect', () => void closeAndExit(0));

try {
  const count = Number(process.argv[2] ?? '1');
  devices = await startDemoDevices(count, { advertise: process.argv.includes('advertise') });
  await send({
    type: 'ready',
    devices: devices.map((d) => ({
      runnerUrl: d.runnerUrl,
      adminUrl: d.adminUrl,
      screen: d.screen,
      ...(d.appRevealUrl ? { appRevealUrl: d.appRevealUrl } : {}),
    })),
  });
} catch (error) {
  await send({ type: 'failed', message: (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? 'the demo devices did not start' });
  await closeAndExit(1);
}
