/**
 * The device a new user sees on `npm start`: the demo device when it can start (it needs a Chromium),
 * otherwise the bundled recorded runner session, with the reason said in one line.
 */
import { basename } from 'node:path';
import { bundledRecording, mdnsEnabled } from '@main/paths';
import { startReplayDevice } from '@demo/replay-device';
import type { DeviceKind, DeviceManager } from '@main/devices/manager';

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
  close(): Promise<void>;
}

export async function startDefaultDevice(): Promise<DefaultDevice> {
  let note: string | undefined;
  try {
    const { startDemoDevice } = await import('@demo/index');
    const demo = await startDemoDevice({ advertise: mdnsEnabled() });
    const { appRevealUrl } = demo;
    return { kind: 'demo', name: 'Demo iPhone 17', url: demo.runnerUrl, ...(appRevealUrl ? { appRevealUrl } : {}), close: () => demo.close() };
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
}
