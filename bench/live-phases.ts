/**
 * Where a heavy tap's gap between pictures goes (bench `live`, issue 29.2): per-phase figures of one demo
 * device while it handles a tap on the heavy screen. Bench instrumentation only: it wraps the device's own
 * methods from outside (nothing in src-demo knows about it) and watches the demo's event loop and the app
 * page's long tasks, so each phase can be laid against the longest gap between answered screenshots.
 *
 * Spans, on the bench process's clock (performance.now()):
 *  - `shot`: a screenshot request, from its arrival at the device to its answer (`wait` the part spent
 *    behind the input chain, `capture` Chromium's capture);
 *  - `read`: a native read of the views (page read, transfer, parse and decode);
 *  - `hash`: the frame fingerprint; `push`: the hierarchy push (projection, encoding, send);
 *  - `stall`: the demo's event loop held for longer than STALL_MS (nothing else in the process ran);
 *  - `page`: a long task in the app page (Chromium drew and captured nothing meanwhile).
 * And beyond the device (`watchHost`, `watchUi`): the web host (its `PARALLAX_LIVE_TRACE` file,
 * src-main/connection/live-trace.ts) and the Parallax page (a PerformanceObserver and the API socket's own
 * messages), so a gap in which the device was not asked is laid to what held the asking:
 *  - `h-stall`: the host's event loop held; `h-decode`: a big runner message decoded; `h-push`: a pushed
 *    tree observed; `h-send`: an API message packed (its first piece written); `h-stream`: the rest of it;
 *  - `h-in` / `h-out` / `h-dev`: a screenshot call reached the host / its reply went to the socket / the
 *    host's request to the device, sent to answered;
 *  - `ui-long`: a long task in the Parallax page; `ui-ask` / `ui-got`: a screenshot call left the page /
 *    its reply reached it; `ui-frame`: a message over 1 MB reached the page (a tree).
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import type { DemoDevice } from '@demo/device/demo-device';
import type { RunnerServer } from '@demo/runner/server';

export interface Span {
  kind:
    | 'shot'
    | 'capture'
    | 'read'
    | 'hash'
    | 'push'
    | 'stall'
    | 'page'
    | 'h-stall'
    | 'h-decode'
    | 'h-push'
    | 'h-send'
    | 'h-stream'
    | 'h-in'
    | 'h-out'
    | 'h-dev'
    | 'ui-long'
    | 'ui-ask'
    | 'ui-got'
    | 'ui-frame';
  start: number;
  end: number;
}

const HOST_KINDS: Record<string, Span['kind']> = {
  stall: 'h-stall',
  decode: 'h-decode',
  push: 'h-push',
  send: 'h-send',
  stream: 'h-stream',
  'shot-in': 'h-in',
  'shot-out': 'h-out',
  'shot-device': 'h-dev',
};

/**
 * Runs in the Parallax page before its scripts: long tasks, and the API socket's screenshot calls and
 * big messages, on the page's clock in epoch ms. A listener added in the constructor runs before the
 * transport's `onmessage`, so an arrival is stamped before the page decodes it.
 */
export const UI_PROBE = `(() => {
  const at = () => performance.timeOrigin + performance.now();
  const spans = (window.__benchUi = []);
  const asked = new Map();
  new PerformanceObserver((list) => { for (const e of list.getEntries()) spans.push(['ui-long', performance.timeOrigin + e.startTime, performance.timeOrigin + e.startTime + e.duration]); })
    .observe({ type: 'longtask', buffered: true });
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    if (typeof data === 'string' && data.length < 4096 && data.includes('"device.screenshot"')) {
      const id = /"id":(\d+)/.exec(data);
      if (id) asked.set(id[1], at());
    }
    return send.call(this, data);
  };
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (event) => {
        const data = event.data;
        if (typeof data !== 'string') return;
        const now = at();
        if (data.length > 1e6) spans.push(['ui-frame', now, now]);
        const id = /^\{"id":(\d+),/.exec(data.slice(0, 32));
        const sent = id && asked.get(id[1]);
        if (sent !== undefined) { asked.delete(id[1]); spans.push(['ui-ask', sent, sent], ['ui-got', now, now]); }
      });
    }
  };
})()`;

/** An event loop held this long is a stall (the probe ticks every PROBE_MS). */
const STALL_MS = 40;
const PROBE_MS = 5;

export class PhaseProbe {
  readonly spans: Span[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** The page's clock against this process's (performance.timeOrigin differs). */
  private pageOffset = 0;

  constructor(
    private readonly device: DemoDevice,
    server: RunnerServer,
  ) {
    const app = device.app as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    this.wrap(app, 'readNative', 'read');
    this.wrap(app, 'captureScreenshot', 'capture');
    const tracker = device.monitor.tracker as unknown as Record<string, (...args: unknown[]) => unknown>;
    this.wrapSync(tracker, 'update', 'hash');
    this.wrapSync(server as unknown as Record<string, (...args: unknown[]) => unknown>, 'broadcast', 'push');
  }

  private wrap(target: Record<string, (...args: unknown[]) => Promise<unknown>>, name: string, kind: Span['kind']): void {
    const original = target[name]!.bind(target);
    target[name] = (...args: unknown[]) => {
      const start = performance.now();
      return original(...args).finally(() => this.spans.push({ kind, start, end: performance.now() }));
    };
  }

  private wrapSync(target: Record<string, (...args: unknown[]) => unknown>, name: string, kind: Span['kind']): void {
    const original = target[name]!.bind(target);
    target[name] = (...args: unknown[]) => {
      const start = performance.now();
      try {
        return original(...args);
      } finally {
        this.spans.push({ kind, start, end: performance.now() });
      }
    };
  }

  /** A screenshot request seen from the device: call it with the request's arrival and answer times. */
  shot(start: number, end: number): void {
    this.spans.push({ kind: 'shot', start, end });
  }

  async start(): Promise<void> {
    let last = performance.now();
    this.timer = setInterval(() => {
      const now = performance.now();
      if (now - last > STALL_MS) this.spans.push({ kind: 'stall', start: last, end: now });
      last = now;
    }, PROBE_MS);
    const page = this.device.app.page;
    const origin = Number(await page.evaluate('performance.timeOrigin'));
    this.pageOffset = origin - performance.timeOrigin;
    // A page-side long task blocks drawing and capture. The observer lives in the page until the next navigation.
    await page.evaluate(`(() => {
      window.__benchLongTasks = [];
      new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__benchLongTasks.push([e.startTime, e.duration]); })
        .observe({ type: 'longtask', buffered: false });
    })()`);
  }

  /** Collects the page's long tasks so far into spans, and the host's and the Parallax page's when watched. */
  async collectPage(): Promise<void> {
    const tasks = (await this.device.app.page.evaluate('window.__benchLongTasks.splice(0)')) as Array<[number, number]>;
    for (const [start, duration] of tasks) this.spans.push({ kind: 'page', start: start + this.pageOffset, end: start + this.pageOffset + duration });
    const zero = performance.timeOrigin;
    if (this.ui) {
      const ui = (await this.ui.evaluate('window.__benchUi.splice(0)')) as Array<[Span['kind'], number, number]>;
      for (const [kind, start, end] of ui) this.spans.push({ kind, start: start - zero, end: end - zero });
    }
    if (this.hostFile) {
      // The host flushes its trace every 200 ms: wait for the last flush.
      await new Promise((resolve) => setTimeout(resolve, 300));
      let text = '';
      try {
        text = readFileSync(this.hostFile, 'utf8');
      } catch {
        // nothing written yet
      }
      const lines = text.split('\n');
      for (const line of lines.slice(this.hostLines, -1)) {
        const { kind, start, end } = JSON.parse(line) as { kind: string; start: number; end: number };
        const mapped = HOST_KINDS[kind];
        if (mapped) this.spans.push({ kind: mapped, start: start - zero, end: end - zero });
      }
      this.hostLines = Math.max(this.hostLines, lines.length - 1);
    }
  }

  private ui: Page | undefined;
  private hostFile: string | undefined;
  private hostLines = 0;

  /** Reads the web host's trace file (PARALLAX_LIVE_TRACE) too. */
  watchHost(file: string): void {
    this.hostFile = file;
  }

  /** Reads the Parallax page's probe (UI_PROBE, added as an init script before it loaded) too. */
  watchUi(page: Page): void {
    this.ui = page;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** The spans that overlap [from, to], as text relative to `zero`. */
  describe(from: number, to: number, zero: number): string {
    const kinds: Span['kind'][] = [
      'read',
      'hash',
      'push',
      'stall',
      'page',
      'capture',
      'h-stall',
      'h-decode',
      'h-push',
      'h-send',
      'h-stream',
      'h-in',
      'h-dev',
      'h-out',
      'ui-ask',
      'ui-got',
      'ui-frame',
      'ui-long',
    ];
    const parts: string[] = [];
    for (const kind of kinds) {
      const inside = this.spans.filter((s) => s.kind === kind && s.end >= from && s.start <= to);
      if (!inside.length) continue;
      parts.push(`${kind} ${inside.map((s) => `${(s.start - zero).toFixed(0)}+${(s.end - s.start).toFixed(0)}`).join(' ')}`);
    }
    return parts.join('; ');
  }

  /** Totals per kind over [from, to] (clipped), in ms. */
  totals(from: number, to: number): Record<string, number> {
    const out: Record<string, number> = {};
    for (const s of this.spans) {
      const overlap = Math.min(s.end, to) - Math.max(s.start, from);
      if (overlap > 0) out[s.kind] = (out[s.kind] ?? 0) + overlap;
    }
    return out;
  }
}
