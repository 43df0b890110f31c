/**
 * The device a new user sees on `npm start`: the demo device when it can start (it needs a Chromium),
 * otherwise the bundled recorded runner session, with the reason said in one line.
 */
import { bundledRecording } from '../paths';
import { startReplayDevice } from '../devices/replay-device';
import type { DeviceKind } from '../session/device-manager';

export interface DefaultDevice {
  kind: DeviceKind;
  name: string;
  url: string;
  /** Why the demo device is not the one running, if it is not. */
  note?: string;
  close(): Promise<void>;
}

export async function startDefaultDevice(): Promise<DefaultDevice> {
  let note: string | undefined;
  try {
    const { startDemoDevice } = await import('../demo-device/index');
    const demo = await startDemoDevice({});
    return { kind: 'demo', name: 'Demo iPhone 17', url: demo.runnerUrl, close: () => demo.close() };
  } catch (error) {
    note = `demo device unavailable (${(error as Error).message.split('\n')[0]}); showing the recorded Settings session instead`;
  }
  const replay = await startReplayDevice(bundledRecording());
  return { kind: 'replay', name: 'Recorded: Settings, tap General', url: replay.url, note, close: () => replay.close() };
}
