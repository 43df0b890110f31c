/**
 * The Electron shell cannot run here (no Electron binary), so its security settings are checked with
 * Electron mocked: what the shell asks Electron for is exactly what a user's window would get.
 */
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { isApiMethod } from '@shared/api/api';
import { joinReply } from '@shared/api/reply-pieces';
import { JSON_CHUNK_CHARS } from '@main/host/json-chunks';
import { DEMO_QA_TRACE, manyTapEvents } from '../support/trace-files';

/** Action steps of about 1.2 KiB each in the listing: a few MiB in all, several pieces. */
const STEPS = 3_000;

const captured = vi.hoisted(() => ({
  windowOptions: undefined as undefined | { webPreferences: Record<string, unknown> },
  webContentsHandlers: new Map<string, (...args: unknown[]) => void>(),
  windowOpenHandler: undefined as undefined | ((details: { url: string }) => { action: string }),
  ipcHandlers: new Map<string, (...args: unknown[]) => unknown>(),
  ipcListeners: new Map<string, (...args: unknown[]) => unknown>(),
  permissionCheck: undefined as undefined | ((...args: unknown[]) => boolean),
  openExternal: [] as string[],
  revealed: [] as string[],
  headersHandler: undefined as undefined | ((details: unknown, callback: (r: unknown) => void) => void),
  permissionHandler: undefined as undefined | ((wc: unknown, permission: string, callback: (ok: boolean) => void) => void),
  ready: undefined as undefined | Promise<void>,
  loaded: undefined as undefined | string,
  menu: undefined as undefined | MenuItem[],
  sent: [] as Array<{ channel: string; message: unknown }>,
  dialogAnswer: { canceled: true, filePaths: [] as string[] },
}));

interface MenuItem {
  label?: string;
  role?: string;
  accelerator?: string;
  click?: () => void;
  submenu?: MenuItem[];
}

vi.mock('electron', () => {
  class BrowserWindow {
    webContents = {
      on: (event: string, handler: (...args: unknown[]) => void) => captured.webContentsHandlers.set(event, handler),
      setWindowOpenHandler: (handler: (details: { url: string }) => { action: string }) => (captured.windowOpenHandler = handler),
      send: (channel: string, message: unknown) => captured.sent.push({ channel, message }),
    };
    constructor(options: { webPreferences: Record<string, unknown> }) {
      captured.windowOptions = options;
    }
    on() {}
    isDestroyed() {
      return false;
    }
    loadFile(file: string) {
      captured.loaded = file;
      return Promise.resolve();
    }
  }
  let markReady!: () => void;
  captured.ready = new Promise<void>((resolve) => (markReady = resolve));
  return {
    app: {
      whenReady: () => Promise.resolve().then(() => markReady()),
      on: vi.fn(),
      quit: vi.fn(),
    },
    BrowserWindow,
    Menu: {
      buildFromTemplate: (template: MenuItem[]) => template,
      setApplicationMenu: (menu: MenuItem[]) => (captured.menu = menu),
    },
    dialog: { showOpenDialog: async () => captured.dialogAnswer },
    ipcMain: {
      handle: (channel: string, handler: (...args: unknown[]) => unknown) => captured.ipcHandlers.set(channel, handler),
      on: (channel: string, listener: (...args: unknown[]) => unknown) => captured.ipcListeners.set(channel, listener),
    },
    shell: { openExternal: (url: string) => captured.openExternal.push(url), showItemInFolder: (path: string) => captured.revealed.push(path) },
    session: {
      defaultSession: {
        webRequest: { onHeadersReceived: (handler: typeof captured.headersHandler) => (captured.headersHandler = handler) },
        setPermissionRequestHandler: (handler: typeof captured.permissionHandler) => (captured.permissionHandler = handler),
        setPermissionCheckHandler: (handler: typeof captured.permissionCheck) => (captured.permissionCheck = handler),
      },
    },
  };
});

// The default device is not what this test is about; a device URL that is never reached is enough.
vi.mock('@main/host/default-device', () => ({
  startDefaultDevice: async () => ({ kind: 'runner', name: 'test', url: 'ws://127.0.0.1:9/ws', close: async () => {} }),
  connectDefaultDevice: (manager: { connect(url: string): void }, device: { url: string }) => manager.connect(device.url),
}));

beforeAll(async () => {
  await import('@main/electron/main');
  await captured.ready;
  await vi.waitFor(() => expect(captured.loaded).toBeTruthy(), { timeout: 15_000 });
});

/**
 * A call as the preload makes it (docs/rules.md#r-mem-09): the reply's first piece from parallax:call, each
 * next one from parallax:more, the joined text parsed.
 */
async function callShell(event: unknown, raw: unknown): Promise<unknown> {
  const more = captured.ipcHandlers.get('parallax:more')!;
  const first = await captured.ipcHandlers.get('parallax:call')!(event, raw);
  return JSON.parse(await joinReply(first, async (id) => more(event, id)));
}

/** The CSP the shell adds to a response. */
function sentCsp(): string {
  let headers: { responseHeaders: Record<string, string[]> } | undefined;
  captured.headersHandler?.({ responseHeaders: {} }, (r) => (headers = r as typeof headers));
  return headers?.responseHeaders['Content-Security-Policy']?.[0] ?? '';
}

describe('Electron shell security', () => {
  it('opens the renderer with contextIsolation, sandbox, no nodeIntegration and the CJS preload', () => {
    const prefs = captured.windowOptions?.webPreferences;
    expect(prefs).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true });
    expect(String(prefs?.preload)).toMatch(/out[\\/]preload[\\/]index\.cjs$/);
  });

  it('blocks navigation and new windows', () => {
    const preventDefault = vi.fn();
    captured.webContentsHandlers.get('will-navigate')?.({ preventDefault }, 'https://example.com');
    expect(preventDefault).toHaveBeenCalled();
    expect(captured.windowOpenHandler?.({ url: 'https://example.com' })).toEqual({ action: 'deny' });
    expect(captured.windowOpenHandler?.({ url: 'file:///etc/passwd' })).toEqual({ action: 'deny' });
  });

  it('sends a strict CSP with every response and denies every permission', () => {
    const csp = sentCsp();
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-eval');
    const decisions: boolean[] = [];
    captured.permissionHandler?.({}, 'media', (ok) => decisions.push(ok));
    expect(decisions).toEqual([false]);
  });

  it('decodes every IPC call: foreign senders, malformed calls and bad params are refused', async () => {
    const handle = captured.ipcHandlers.get('parallax:call');
    expect(handle).toBeDefined();
    const ours = { senderFrame: { url: pathToFileURL(captured.loaded ?? '').href } };
    const foreign = { senderFrame: { url: 'https://evil.example/' } };
    expect(await callShell(foreign, { method: 'devices.list', params: {} })).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    expect(await callShell(ours, 'devices.list')).toMatchObject({ ok: false, error: { code: 'bad_request' } });
    expect(await callShell(ours, { method: 'devices.connect', params: { url: 'javascript:alert(1)' } })).toMatchObject({
      ok: false,
      error: { code: 'bad_request' },
    });
    const listed = (await callShell(ours, { method: 'devices.list', params: {} })) as { ok: boolean; result: unknown[] };
    expect(listed.ok).toBe(true);
    expect(listed.result).toHaveLength(1);
    expect(captured.loaded).toMatch(/out[\\/]renderer[\\/]index\.html$/);
  });
});

describe('Electron shell: who may call, and where a page may go', () => {
  it('R-HOST-04: redirects are blocked, and no URL a page names reaches the system browser', () => {
    const preventDefault = vi.fn();
    captured.webContentsHandlers.get('will-redirect')?.({ preventDefault }, 'https://evil.example');
    expect(preventDefault).toHaveBeenCalled();
    for (const url of ['https://evil.example/', 'https://github.com/', 'file:///etc/passwd', 'mailto:x@y.z']) {
      expect(captured.windowOpenHandler?.({ url })).toEqual({ action: 'deny' });
    }
    expect(captured.openExternal).toEqual([]);
  });

  it('R-HOST-04: the CSP forbids <base> and form posts, and every permission check says no but writing a copy', () => {
    const csp = sentCsp();
    expect(csp).toContain("base-uri 'none'");
    expect(csp).toContain("form-action 'none'");
    expect(captured.permissionCheck).toBeDefined();
    for (const permission of ['media', 'geolocation', 'clipboard-read', 'notifications']) {
      expect(captured.permissionCheck?.({}, permission, 'file://', {})).toBe(false);
    }
    // A Copy button writes the clipboard; nothing may read it.
    expect(captured.permissionCheck?.({}, 'clipboard-sanitized-write', 'file://', {})).toBe(true);
    const decisions: boolean[] = [];
    captured.permissionHandler?.({}, 'clipboard-sanitized-write', (ok) => decisions.push(ok));
    captured.permissionHandler?.({}, 'clipboard-read', (ok) => decisions.push(ok));
    expect(decisions).toEqual([true, false]);
  });

  it('R-PERF-06: wire.reset (a page starting its wire anew) is answered by the shell for its own renderer only, never by the API', async () => {
    const ours = { senderFrame: { url: pathToFileURL(captured.loaded ?? '').href } };
    const foreign = { senderFrame: { url: 'https://evil.example/' } };
    expect(await callShell(ours, { method: 'wire.reset', params: {} })).toEqual({ ok: true, result: {} });
    expect(await callShell(foreign, { method: 'wire.reset', params: {} })).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    // The API itself has no such method (it would answer unknown_method): the shell took it.
    expect(isApiMethod('wire.reset')).toBe(false);
  });

  it('R-QA-19: Reveal shows a trace Parallax wrote in the file manager, and no other path', async () => {
    const ours = { senderFrame: { url: pathToFileURL(captured.loaded ?? '').href } };
    expect(await callShell(ours, { method: 'trace.reveal', params: { path: '/etc/passwd' } })).toMatchObject({ ok: false, error: { code: 'trace_forbidden' } });
    expect(captured.revealed).toEqual([]);
    const chosen = '/home/qa/chosen.parallax-trace';
    captured.ipcListeners.get('parallax:chosen')?.(ours, chosen);
    expect(await callShell(ours, { method: 'trace.reveal', params: { path: chosen } })).toMatchObject({
      ok: true,
      result: { shown: true, folder: '/home/qa' },
    });
    expect(captured.revealed).toEqual([chosen]);
  });

  it('R-PATH-01: the page opens only a file the user chose (dialog or drop), not any path it names', async () => {
    const ours = { senderFrame: { url: pathToFileURL(captured.loaded ?? '').href } };
    const foreign = { senderFrame: { url: 'https://evil.example/' } };
    const dropped = '/home/qa/dropped.parallax-trace';
    expect(await callShell(ours, { method: 'trace.open', params: { path: dropped } })).toMatchObject({ ok: false, error: { code: 'trace_forbidden' } });
    captured.ipcListeners.get('parallax:chosen')?.(foreign, dropped);
    expect(await callShell(ours, { method: 'trace.open', params: { path: dropped } })).toMatchObject({ ok: false, error: { code: 'trace_forbidden' } });
    captured.ipcListeners.get('parallax:chosen')?.(ours, dropped);
    // Allowed now: it fails only because the file is not there.
    expect(await callShell(ours, { method: 'trace.open', params: { path: dropped } })).toMatchObject({ ok: false, error: { code: 'trace_unreadable' } });
  });
});

describe('R-MEM-09: the shell gives a reply a piece at a time, as the web host does', () => {
  const ours = () => ({ senderFrame: { url: pathToFileURL(captured.loaded ?? '').href } });
  const foreign = { senderFrame: { url: 'https://evil.example/' } };

  it("R-MEM-09: trace.open's listing of 3,000 steps comes as pieces of about JSON_CHUNK_CHARS; joined, the page reads every step in order", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'parallax-shell-pieces-'));
    try {
      const trace = join(dir, 'many.parallax-trace.d');
      await mkdir(trace);
      await copyFile(join(DEMO_QA_TRACE, 'manifest.json'), join(trace, 'manifest.json'));
      await writeFile(join(trace, 'events.jsonl'), manyTapEvents(STEPS));
      captured.ipcListeners.get('parallax:chosen')?.(ours(), trace);

      const call = captured.ipcHandlers.get('parallax:call')!;
      const more = captured.ipcHandlers.get('parallax:more')!;
      const pieces: { text: string; more?: number }[] = [
        (await call(ours(), { method: 'trace.open', params: { path: trace } })) as { text: string; more?: number },
      ];
      while (pieces.at(-1)!.more !== undefined) pieces.push((await more(ours(), pieces.at(-1)!.more)) as { text: string; more?: number });
      const text = pieces.map((p) => p.text).join('');
      const reply = JSON.parse(text) as { ok: boolean; result: { steps: { callId: string }[] } };
      expect(reply.ok).toBe(true);
      expect(reply.result.steps.map((s) => s.callId)).toEqual(Array.from({ length: STEPS }, (_, i) => `call-${i}`));
      expect(text).toBe(JSON.stringify(reply));
      expect(pieces.length).toBeGreaterThan(text.length / (JSON_CHUNK_CHARS + 64 * 1024));
      expect(Math.max(...pieces.map((p) => p.text.length))).toBeLessThanOrEqual(JSON_CHUNK_CHARS + 64 * 1024);
      // Taken to its end, the reply has no piece left to give.
      await expect(Promise.resolve().then(() => more(ours(), pieces[0]!.more))).rejects.toThrow(/has no more pieces/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('R-MEM-09: parallax:more answers our renderer only, and only a reply id', async () => {
    const more = captured.ipcHandlers.get('parallax:more')!;
    await expect(Promise.resolve().then(() => more(foreign, 1))).rejects.toThrow('not the Parallax renderer');
    await expect(Promise.resolve().then(() => more(ours(), '1'))).rejects.toThrow('parallax:more takes the id of a reply');
    await expect(Promise.resolve().then(() => more(ours(), 424_242))).rejects.toThrow(/reply 424242 has no more pieces/);
  });
});

describe('Electron menu', () => {
  const openRequests = () => captured.sent.filter((s) => (s.message as { event?: string }).event === 'trace.openRequested');
  const openTraceItem = () => captured.menu?.find((m) => m.label === 'File')?.submenu?.find((m) => m.label === 'Open Trace…');

  it('File > Open Trace… hands the picked file to the renderer, which opens it as it opens a dropped one', async () => {
    const item = openTraceItem();
    expect(item?.accelerator).toBe('CmdOrCtrl+O');
    captured.sent.length = 0;
    captured.dialogAnswer = { canceled: false, filePaths: ['/home/qa/login.parallax-trace'] };
    item?.click?.();
    await vi.waitFor(() => expect(openRequests()).toHaveLength(1));
    const ours = { senderFrame: { url: pathToFileURL(captured.loaded ?? '').href } };
    // R-PATH-01: the picked file may be opened by the page (it is not there, so: unreadable, not forbidden).
    expect(await callShell(ours, { method: 'trace.open', params: { path: '/home/qa/login.parallax-trace' } })).toMatchObject({
      error: { code: 'trace_unreadable' },
    });
    expect(openRequests()[0]).toEqual({
      channel: 'parallax:event',
      message: { event: 'trace.openRequested', payload: { path: '/home/qa/login.parallax-trace' } },
    });
  });

  it('a cancelled dialog sends nothing', async () => {
    captured.sent.length = 0;
    captured.dialogAnswer = { canceled: true, filePaths: [] };
    openTraceItem()?.click?.();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(openRequests()).toEqual([]);
  });
});
