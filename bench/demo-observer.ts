/**
 * The demo device in this process, its runner port on a free port and an Observer reading it over a
 * real RunnerClient: what the benches that compare Parallax's reads with the demo's own page start.
 * `close` stops all three.
 */
import { DemoDevice } from '@demo/device/demo-device';
import { RunnerServer } from '@demo/runner/server';
import { RunnerClient } from '@main/runner/client';
import { Observer } from '@main/runner/observer';

export async function startDemoObserver(screen: string): Promise<{ device: DemoDevice; observer: Observer; close(): Promise<void> }> {
  const device = await DemoDevice.start({ screen });
  const server = new RunnerServer(device);
  const port = await server.listen(0);
  const client = new RunnerClient(`ws://127.0.0.1:${port}/ws`);
  client.start();
  await client.waitUntilConnected();
  return {
    device,
    observer: new Observer(client),
    async close() {
      await client.close();
      await server.close();
      await device.close();
    },
  };
}
