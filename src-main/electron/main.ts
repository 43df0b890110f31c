/**
 * The Electron shell, kept thin: one window, the preload, IPC wiring and the security settings.
 * Everything it calls is the same main-process code the web host runs.
 */
import {
  app,
  BrowserWindow,
  dialog,
  ipcMain,
  Menu,
  session,
  shell,
  type IpcMainEvent,
  type IpcMainInvokeEvent,
  type MenuItemConstructorOptions,
} from 'electron';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import type { ApiService } from '@main/host/api';
import { startAppServices, type AppServices } from '@main/host/app-services';
import { connectDefaultDevice, startDefaultDevice, type DefaultDevice } from '@main/host/default-device';
import { RENDERER_CSP } from '@main/host/web-host';
import { ReplyPieces } from '@main/host/reply-pieces';
import { packFrames, WIRE_RESET_METHOD, WirePacker } from '@shared/protocol/wire';
import { projectRoot, rendererDir } from '@main/paths';

const CallSchema = z.object({ method: z.string().max(100), params: z.unknown() });

/**
 * The external pages the app links to, exactly as written in the renderer. None today; a link added
 * to the UI is listed here, or it does not open (docs/rules.md#r-host-04).
 */
export const EXTERNAL_URLS: ReadonlySet<string> = new Set<string>();

/** The one permission a page gets: writing to the clipboard what the user asked to copy. */
export const COPY_PERMISSION = 'clipboard-sanitized-write';

const rendererIndex = join(rendererDir(), 'index.html');
const rendererUrl = pathToFileURL(rendererIndex).href;

function fromOurRenderer(event: IpcMainInvokeEvent | IpcMainEvent): boolean {
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
  window.webContents.on('will-redirect', (event) => event.preventDefault());
  window.webContents.setWindowOpenHandler(({ url }) => {
    // Only a URL the app itself defines leaves for the browser; whatever a page names is dropped (R-HOST-04).
    if (EXTERNAL_URLS.has(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });

  // A dropped or picked file's path, sent by the preload from a real File (a page cannot make one with
  // a path of its choosing), so the page may open it (R-PATH-01).
  ipcMain.on('parallax:chosen', (event, path: unknown) => {
    if (fromOurRenderer(event) && typeof path === 'string' && path !== '' && path.length <= 4096) api.allowTrace(path);
  });
  // What this window already received: each observation and screenshot crosses IPC once. A page that
  // starts (or finds a reference it cannot resolve) calls wire.reset, which starts both sides empty
  // (docs/protocol.md#p-api-wire).
  let packer = new WirePacker();
  const answer = async (event: IpcMainInvokeEvent, raw: unknown): Promise<unknown> => {
    if (!fromOurRenderer(event)) return { ok: false, error: { code: 'forbidden', message: 'not the Parallax renderer' } };
    const call = CallSchema.safeParse(raw);
    if (!call.success) return { ok: false, error: { code: 'bad_request', message: 'a call is {method, params}' } };
    if (call.data.method === WIRE_RESET_METHOD) {
      packer = new WirePacker();
      return { ok: true, result: {} };
    }
    const result = await api.handle(call.data.method, call.data.params);
    return result.ok ? { ok: true, result: packFrames(packer, result.result) } : result;
  };
  // A reply is JSON text the page takes a piece at a time (docs/rules.md#r-mem-09), as the web host
  // sends it in fragments: the trace view's listing, whole, was one structured clone of over 100 MiB.
  const pieces = new ReplyPieces();
  ipcMain.handle('parallax:call', async (event, raw: unknown) => pieces.begin(await answer(event, raw)));
  ipcMain.handle('parallax:more', (event, id: unknown) => {
    if (!fromOurRenderer(event)) throw new Error('not the Parallax renderer');
    if (typeof id !== 'number') throw new Error('parallax:more takes the id of a reply');
    return pieces.take(id);
  });
  const unsubscribe = api.subscribe((name, payload) => {
    if (!window.isDestroyed()) window.webContents.send('parallax:event', { event: name, payload: packFrames(packer, payload) });
  });
  window.on('closed', () => {
    unsubscribe();
    pieces.clear();
  });
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
    if (!path) return;
    // The user chose it here, so the page may open it (docs/rules.md#r-path-01).
    api.allowTrace(path);
    api.emit('trace.openRequested', { path });
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
  // Every permission is refused but writing what the user copies (a Copy button, docs/rules.md#r-qa-20):
  // reading the clipboard stays refused.
  session.defaultSession.setPermissionRequestHandler((_webContents, permission, callback) => callback(permission === COPY_PERMISSION));
  // Checks are asked separately from requests (a page can probe without asking); both say no (R-HOST-04).
  session.defaultSession.setPermissionCheckHandler((_webContents, permission) => permission === COPY_PERMISSION);
  services = await startAppServices('electron', undefined, (path) => shell.showItemInFolder(path));
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
