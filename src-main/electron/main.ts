/**
 * The Electron shell, kept thin: one window, the preload, IPC wiring and the security settings.
 * Everything it calls is the same main-process code the web host runs.
 */
import { app, BrowserWindow, dialog, ipcMain, Menu, session, shell, type IpcMainInvokeEvent, type MenuItemConstructorOptions } from 'electron';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import type { ApiService } from '@main/host/api';
import { startAppServices, type AppServices } from '@main/host/app-services';
import { connectDefaultDevice, startDefaultDevice, type DefaultDevice } from '@main/host/default-device';
import { RENDERER_CSP } from '@main/host/web-host';
import { projectRoot, rendererDir } from '@main/paths';

const CallSchema = z.object({ method: z.string().max(100), params: z.unknown() });

const rendererIndex = join(rendererDir(), 'index.html');
const rendererUrl = pathToFileURL(rendererIndex).href;

function fromOurRenderer(event: IpcMainInvokeEvent): boolean {
  return event.senderFrame?.url === rendererUrl;
}

async function createWindow(api: ApiService): Promise<void> {
  const window = new BrowserWindow({
    width: 1400,
    height: 900,
    title: 'Parallax',
    webPreferences: {
      preload: join(projectRoot(), 'out', 'preload', 'index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
    },
  });
  window.webContents.on('will-navigate', (event) => event.preventDefault());
  window.webContents.setWindowOpenHandler(({ url }) => {
    if (/^https:\/\//.test(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });

  ipcMain.handle('parallax:call', async (event, raw: unknown) => {
    if (!fromOurRenderer(event)) return { ok: false, error: { code: 'forbidden', message: 'not the Parallax renderer' } };
    const call = CallSchema.safeParse(raw);
    if (!call.success) return { ok: false, error: { code: 'bad_request', message: 'a call is {method, params}' } };
    return api.handle(call.data.method, call.data.params);
  });
  const unsubscribe = api.subscribe((name, payload) => {
    if (!window.isDestroyed()) window.webContents.send('parallax:event', { event: name, payload });
  });
  window.on('closed', unsubscribe);
  Menu.setApplicationMenu(applicationMenu(window, api));
  await window.loadFile(rendererIndex);
}

/**
 * File > Open Trace… picks a file with the system dialog and hands its path to the renderer, which opens
 * it exactly as it opens a dropped file, so a bad file gets the same clear error either way.
 */
function applicationMenu(window: BrowserWindow, api: ApiService): Menu {
  const openTrace = async () => {
    const picked = await dialog.showOpenDialog(window, {
      title: 'Open trace',
      properties: ['openFile'],
      filters: [
        { name: 'Parallax trace', extensions: ['parallax-trace'] },
        { name: 'All files', extensions: ['*'] },
      ],
    });
    const path = picked.canceled ? undefined : picked.filePaths[0];
    if (path) api.emit('trace.openRequested', { path });
  };
  const template: MenuItemConstructorOptions[] = [
    ...(process.platform === 'darwin' ? [{ role: 'appMenu' as const }] : []),
    {
      label: 'File',
      submenu: [
        { label: 'Open Trace…', accelerator: 'CmdOrCtrl+O', click: () => void openTrace() },
        { type: 'separator' },
        process.platform === 'darwin' ? { role: 'close' } : { role: 'quit' },
      ],
    },
    { role: 'editMenu' },
    { role: 'windowMenu' },
  ];
  return Menu.buildFromTemplate(template);
}

let defaultDevice: DefaultDevice | undefined;
let services: AppServices | undefined;

void app.whenReady().then(async () => {
  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [RENDERER_CSP] } });
  });
  session.defaultSession.setPermissionRequestHandler((_webContents, _permission, callback) => callback(false));
  services = await startAppServices('electron');
  defaultDevice = await startDefaultDevice();
  connectDefaultDevice(services.manager, defaultDevice);
  await createWindow(services.api);
});

app.on('web-contents-created', (_event, contents) => {
  contents.on('will-attach-webview', (event) => event.preventDefault());
});

app.on('window-all-closed', () => {
  void (async () => {
    await services?.close();
    await defaultDevice?.close();
    app.quit();
  })();
});
