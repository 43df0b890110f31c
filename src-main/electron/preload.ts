/**
 * The preload: exposes the one API to the sandboxed renderer, and nothing else of Electron.
 * `call` resolves with the text of the same reply envelope the web host sends ({ok, result} or {ok: false, error}).
 */
import { contextBridge, ipcRenderer, webUtils, type IpcRendererEvent } from 'electron';
import { joinReply } from '@shared/api/reply-pieces';

interface EventMessage {
  event: string;
  payload: unknown;
}

contextBridge.exposeInMainWorld('parallax', {
  // The reply's JSON text, taken a piece at a time (docs/rules.md#r-mem-09); the page parses it, as it
  // parses a WebSocket message: a string crosses into the page's world as one copy, an object graph does not.
  call: async (method: string, params: unknown): Promise<string> =>
    joinReply(await ipcRenderer.invoke('parallax:call', { method, params }), (id) => ipcRenderer.invoke('parallax:more', id)),
  on: (event: string, listener: (payload: unknown) => void): (() => void) => {
    const handler = (_event: IpcRendererEvent, message: EventMessage) => {
      if (message.event === event) listener(message.payload);
    };
    ipcRenderer.on('parallax:event', handler);
    return () => ipcRenderer.removeListener('parallax:event', handler);
  },
  // A picked or dropped file's path on disk ('' for one that has none), so a trace opens in place. The
  // main process hears of it first: only a path the user chose this way may be opened by the page.
  pathForFile: (file: File): string => {
    const path = webUtils.getPathForFile(file);
    if (path) ipcRenderer.send('parallax:chosen', path);
    return path;
  },
});
