/**
 * Everything a host runs behind the one API, started the same way by the Electron shell and the web
 * host: the device manager, discovery, and the API service over both.
 */
import { Discovery } from '@main/discovery/index';
import { appVersion, mdnsEnabled, settingsFile, tracesDir } from '@main/paths';
import { DeviceManager } from '@main/devices/manager';
import { SessionRecording } from '@main/trace/recording';
import { endTraceWorker } from '@main/trace/off-thread';
import { DeviceProfiles } from '@main/a11y/profiles';
import { createApiService, type ApiService, type HostKind } from './api';

export interface AppServices {
  manager: DeviceManager;
  discovery: Discovery;
  recording: SessionRecording;
  api: ApiService;
  close(): Promise<void>;
}

/** `secrets`: strings that must never reach a trace (the web host's token, once it exists). */
/** `reveal`: shows a file in the system's file manager (the Electron shell's; the web host has none). */
export async function startAppServices(host: HostKind, secrets: () => string[] = () => [], reveal?: (path: string) => void): Promise<AppServices> {
  const manager = new DeviceManager();
  const discovery = new Discovery({ settingsPath: settingsFile(), bonjour: mdnsEnabled() });
  const recording = new SessionRecording(manager, { dir: tracesDir(), version: appVersion(), secrets });
  const profiles = new DeviceProfiles(settingsFile());
  const api = createApiService({ manager, discovery, recording, profiles }, { host, version: appVersion(), ...(reveal ? { reveal } : {}) });
  // Discovery failing to start (a port, a socket) must not keep the app from opening.
  discovery.on('warning', () => {});
  await discovery.start().catch(() => {});
  return {
    manager,
    discovery,
    recording,
    api,
    async close() {
      await recording.close();
      await discovery.stop();
      await manager.closeAll();
      // The trace worker's process ends with the host (docs/rules.md#r-mem-10), not an idle timer later.
      await endTraceWorker();
    },
  };
}
