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
 */
import type { DemoDevice } from '@demo/device/demo-device';
import type { RunnerServer } from '@demo/runner/server';

export interface Span {
  kind: 'shot' | 'capture' | 'read' | 'hash' | 'push' | 'stall' | 'page';
  start: number;
  end: number;
}

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

  /** Collects the page's long tasks so far into spans. */
  async collectPage(): Promise<void> {
    const tasks = (await this.device.app.page.evaluate('window.__benchLongTasks.splice(0)')) as Array<[number, number]>;
    for (const [start, duration] of tasks) this.spans.push({ kind: 'page', start: start + this.pageOffset, end: start + this.pageOffset + duration });
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** The spans that overlap [from, to], as text relative to `zero`. */
  describe(from: number, to: number, zero: number): string {
    const kinds: Span['kind'][] = ['read', 'hash', 'push', 'stall', 'page', 'capture'];
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
