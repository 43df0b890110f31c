/**
 * Everything a host runs behind the one API, started the same way by the Electron shell and the web
 * host: the device manager, discovery, and the API service over both.
 */
import { Discovery } from '../discovery/index';
import { appVersion, mdnsEnabled, settingsFile } from '../paths';
import { DeviceManager } from '../session/device-manager';
import { createApiService, type ApiService, type HostKind } from './api';

export interface AppServices {
  manager: DeviceManager;
  discovery: Discovery;
  api: ApiService;
  close(): Promise<void>;
}

export async function startAppServices(host: HostKind): Promise<AppServices> {
  const manager = new DeviceManager();
  const discovery = new Discovery({ settingsPath: settingsFile(), bonjour: mdnsEnabled() });
  const api = createApiService({ manager, discovery }, { host, version: appVersion() });
  // Discovery failing to start (a port, a socket) must not keep the app from opening.
  discovery.on('warning', () => {});
  await discovery.start().catch(() => {});
  return {
    manager,
    discovery,
    api,
    async close() {
      await discovery.stop();
      await manager.closeAll();
    },
  };
}
