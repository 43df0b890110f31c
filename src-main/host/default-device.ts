/**
 * The device a new user sees on `npm start`: the demo device when it can start (it needs a Chromium),
 * otherwise the bundled recorded runner session, with the reason said in one line. `--demo-devices N`
 * (or PARALLAX_DEMO_DEVICES=N, how `start` tells the Electron app) starts N demo devices on varied
 * screens in one shared browser; the first keeps its AppReveal entry (docs/rules.md#r-perf-09). The demo
 * devices run in a child process of their own (docs/rules.md#r-peer-03).
 */
import { basename } from 'node:path';
import { bundledRecording, mdnsEnabled } from '@main/paths';
import { MAX_DEMO_DEVICES } from '@shared/protocol/demo-admin';
import { startReplayDevice } from '@demo/replay-device';
import type { DeviceKind, DeviceManager } from '@main/devices/manager';
import { registerDemoAdmin } from '@main/devices/demo-admin';
import { forkEntry } from '@main/entries';
import type { DemoProcessDevice, DemoProcessMessage } from '@demo/process';

export interface DefaultDevice {
  kind: DeviceKind;
  name: string;
  url: string;
  /** The demo app's AppReveal session URL (holds its token: connect with it, never print it). */
  appRevealUrl?: string;
  /** Why the demo device is not the one running, if it is not. */
  note?: string;
  /** The recorded session's folder, when the device plays one back. */
  recording?: { folder: string };
  /** More demo devices beside this one (`--demo-devices N`): their runners, connected with it. */
  others?: Array<{ name: string; url: string }>;
  close(): Promise<void>;
}

/**
 * How many demo devices to start: the option, else PARALLAX_DEMO_DEVICES, else one; outside 1–16 a usage
 * error (docs/rules.md#r-show-02), never a silent fall back to the recorded session.
 */
export function demoDeviceCount(option?: string): number {
  const value = option ?? process.env.PARALLAX_DEMO_DEVICES;
  if (value === undefined || value === '') return 1;
  const count = Number(value);
  if (!/^\d+$/.test(value) || count < 1 || count > MAX_DEMO_DEVICES)
    throw new Error(`--demo-devices must be a whole number from 1 to ${MAX_DEMO_DEVICES}, not "${value.slice(0, 40)}"`);
  return count;
}

/** How long the demo process has to close its devices before it is killed. */
const DEMO_CLOSE_MS = 10_000;

/**
 * The demo devices in a child process (src-demo/process.ts, docs/rules.md#r-peer-03): a demo that
 * crashes or hogs its CPU or memory takes its own process, never the host's event loop or heap. The host
 * starts it and ends it (`close`, or the child sees the IPC channel go when the host dies).
 */
export async function startDemoProcess(count: number, advertise: boolean): Promise<{ devices: DemoProcessDevice[]; close(): Promise<void>; pid: number }> {
  const child = forkEntry('demo-process', [String(count), ...(advertise ? ['advertise'] : [])], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    // From Electron's main process a fork runs Electron itself: as Node, not as another app.
    ...(process.versions.electron ? { env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } } : {}),
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const devices = await new Promise<DemoProcessDevice[]>((resolve, reject) => {
    child.once('message', (message: DemoProcessMessage) => (message.type === 'ready' ? resolve(message.devices) : reject(new Error(message.message))));
    child.once('error', reject);
    void exited.then((code) => reject(new Error(`the demo process ended (${code}) before its devices started`)));
  });
  let closed: Promise<void> | undefined;
  return {
    devices,
    pid: child.pid!,
    close: () =>
      (closed ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        if (child.connected) child.send({ type: 'close' });
        const timer = setTimeout(() => child.kill('SIGKILL'), DEMO_CLOSE_MS);
        await exited;
        clearTimeout(timer);
      })()),
  };
}

const screenLabel = (screen: string) => screen.charAt(0).toUpperCase() + screen.slice(1);

export async function startDefaultDevice(count?: number): Promise<DefaultDevice> {
  let note: string | undefined;
  try {
    // Read here, so a wrong PARALLAX_DEMO_DEVICES in the Electron app is a note, not a failed start.
    const demoCount = count ?? demoDeviceCount();
    const fleet = await startDemoProcess(demoCount, mdnsEnabled());
    const [demo, ...rest] = fleet.devices;
    if (!demo) throw new Error('no demo device started');
    // The host started them, so it holds their admin tokens (docs/rules.md#r-peer-02).
    for (const started of [demo, ...rest]) registerDemoAdmin(started.runnerUrl, started.adminUrl);
    const { appRevealUrl } = demo;
    const others = rest.map((other, i) => ({ name: `Demo iPhone 17 #${i + 2} (${screenLabel(other.screen)})`, url: other.runnerUrl }));
    return {
      kind: 'demo',
      name: 'Demo iPhone 17',
      url: demo.runnerUrl,
      ...(appRevealUrl ? { appRevealUrl } : {}),
      ...(others.length ? { others } : {}),
      close: fleet.close,
    };
  } catch (error) {
    note = `demo device unavailable (${(error as Error).message.split('\n')[0]}); showing the recorded Settings session instead`;
  }
  const replay = await startReplayDevice(bundledRecording());
  return {
    kind: 'replay',
    name: 'Recorded: Settings, tap General',
    url: replay.url,
    note,
    recording: { folder: basename(replay.recording.folder) },
    close: () => replay.close(),
  };
}

/** The demo shows both device kinds on one app: its runner, and AppReveal inside the same app. */
export function connectDefaultDevice(manager: DeviceManager, device: DefaultDevice): void {
  manager.connect(device.url, { kind: device.kind, name: device.name, ...(device.recording ? { recording: device.recording } : {}) });
  if (device.appRevealUrl) manager.connect(device.appRevealUrl, { name: `${device.name} (AppReveal)` });
  for (const other of device.others ?? []) manager.connect(other.url, { kind: device.kind, name: other.name });
}
