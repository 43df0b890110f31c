/**
 * Run by discovery-bonjour.test.ts inside a private network namespace (`unshare -n`): advertises an
 * AppReveal server over Bonjour, browses with Discovery, and prints one JSON line per step. It never
 * prints the session token; the parent checks that nothing it found carries one.
 */
import { Bonjour } from 'bonjour-service';
import { AppRevealClient } from '@main/appreveal/client';
import { startAppRevealServer } from '@demo/appreveal/server';
import { Discovery, discoverOnce, type DiscoveredDevice } from '@main/discovery/index';
import { FAKE_BUNDLE_ID, FakeApp } from './appreveal-fake-app';

const say = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);

function waitFor(discovery: Discovery, predicate: (devices: DiscoveredDevice[]) => boolean, timeoutMs: number): Promise<DiscoveredDevice[]> {
  return new Promise((resolve, reject) => {
    if (predicate(discovery.list())) {
      resolve(discovery.list());
      return;
    }
    const timer = setTimeout(() => {
      discovery.off('changed', onChange);
      reject(new Error(`timed out; last list: ${JSON.stringify(discovery.list())}`));
    }, timeoutMs);
    const onChange = (devices: DiscoveredDevice[]) => {
      if (!predicate(devices)) return;
      clearTimeout(timer);
      discovery.off('changed', onChange);
      resolve(devices);
    };
    discovery.on('changed', onChange);
  });
}

async function main(): Promise<void> {
  const server = await startAppRevealServer({ app: new FakeApp(), advertise: true });
  const discovery = new Discovery({ runnerProbe: false, bonjour: { queryIntervalMs: 1000 }, intervalMs: 500, healthTimeoutMs: 1000 });
  const warnings: string[] = [];
  discovery.on('warning', (error) => warnings.push(error.message));
  await discovery.start();
  const isOurs = (d: DiscoveredDevice) => d.kind === 'appreveal' && d.bundleId === FAKE_BUNDLE_ID;

  // The address records a browser receives, as bonjour-service hands them over.
  const raw = new Bonjour({}, () => undefined);
  const received = new Promise<string[]>((resolve) => {
    raw.find({ type: 'appreveal', protocol: 'tcp' }, (service) => resolve([...(service.addresses ?? [])]));
  });
  const found = await waitFor(discovery, (devices) => devices.some((d) => isOurs(d) && d.state === 'available'), 15_000);
  const device = found.find(isOurs);
  const addresses = await Promise.race([received, new Promise<string[]>((resolve) => setTimeout(() => resolve(['(none received)']), 5000))]);
  raw.destroy();
  say({ event: 'found', device, port: server.port, advertised: server.advertisedAddresses, addresses });

  // The discovered URL plus the token the app printed is all a user needs to connect.
  const token = server.token ?? '';
  const client = new AppRevealClient({ baseUrl: device?.url ?? '', token });
  await client.connect();
  say({ event: 'connected', screenKey: (await client.getScreen()).screenKey, tools: client.tools.length });
  await client.close();

  // What `parallax devices` does: one look, Bonjour included.
  const once = await discoverOnce({ runnerProbe: false, settleMs: 1500 });
  say({ event: 'once', found: once.devices.filter(isOurs).map((d) => d.state), warnings: once.warnings });

  await server.close();
  await waitFor(discovery, (devices) => !devices.some(isOurs), 15_000);
  say({ event: 'gone', warnings });
  await discovery.stop();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    say({ event: 'error', message: error instanceof Error ? error.message : String(error) });
    process.exit(1);
  },
);
