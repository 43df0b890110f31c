/**
 * The grid's live loop (docs/rules.md#r-perf-09): screenshots of many devices at once, with a bounded
 * number of requests in flight, shared so that every device gets its turn (nextShot picks the device
 * waiting longest), one request per device at a time. It runs only while the grid shows, the page is
 * visible and live is on; a reply that lands after it stopped is dropped.
 *
 * Pictures never go through React: each tile gives the loop a sink that draws on its canvas, at the
 * size the tile shows it. The PNG is decoded and scaled off the main thread (createImageBitmap on a
 * Blob, with a resize), and a picture identical to the tile's last one is not decoded again. Only the
 * frame-rate readout changes text, twice a second, through the tile's own elements.
 */
import { useEffect, useState } from 'react';
import type { Screenshot } from '@shared/protocol/device';
import { nextShot, type PaceSlot } from '@shared/inspect/grid';
import { FrameMeter } from '@renderer/state/frame-meter';
import type { Transport } from './transport';

/**
 * Requests in flight over all devices. A device answers one at a time, and a demo device's answer takes
 * ~40-250 ms on a loaded 2-core machine mostly waiting on its renderer, so up to about one per device keeps
 * every device busy; the turns (nextShot) keep them from crowding each other. Eight bounds it; the bench
 * (`npm run bench -- grid`) measures it against four.
 */
export const GRID_IN_FLIGHT = 8;
/** No tile needs more: a device alone in the grid is not asked more often than this. */
export const GRID_MAX_FPS = 10;
/** However slow another device is, each one is asked at least this often (docs/rules.md#r-perf-09: 3 fps). */
export const GRID_FLOOR_FPS = 4;
const PACE = { minIntervalMs: 1_000 / GRID_MAX_FPS, maxWaitMs: 1_000 / GRID_FLOOR_FPS };
const ERROR_BACKOFF_MS = 1_000;
const RATE_EVERY_MS = 500;

export interface TileSink {
  /** Draws the picture; the loop waits for it, so a device's decode is part of its turn. */
  show(screenshot: Screenshot): Promise<void>;
  /** The tile's frame rate (replies per second over the last window) and its count of replies so far. */
  rate(fps: number, total: number): void;
  /** The last request failed (null: the last one succeeded). */
  failed(message: string | null): void;
}

interface Slot extends PaceSlot {
  meter: FrameMeter;
}

export class GridLoop {
  private readonly slots = new Map<string, Slot>();
  private readonly sinks = new Map<string, TileSink>();
  private waiters: Array<() => void> = [];
  private generation = 0;
  private running = false;
  private rateTimer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly api: Pick<Transport, 'call'>,
    private readonly inFlight = GRID_IN_FLIGHT,
  ) {}

  /** The devices to keep live (connected, taking screenshots); the others' slots go. */
  setDevices(ids: readonly string[]): void {
    const wanted = new Set(ids);
    for (const id of this.slots.keys()) if (!wanted.has(id)) this.slots.delete(id);
    for (const id of ids) if (!this.slots.has(id)) this.slots.set(id, { id, inFlight: false, lastStartedAt: undefined, meter: new FrameMeter() });
    this.wake();
  }

  attach(id: string, sink: TileSink): () => void {
    this.sinks.set(id, sink);
    return () => {
      if (this.sinks.get(id) === sink) this.sinks.delete(id);
    };
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    const generation = ++this.generation;
    for (let i = 0; i < this.inFlight; i++) void this.worker(generation);
    this.rateTimer = setInterval(() => this.reportRates(), RATE_EVERY_MS);
  }

  stop(): void {
    if (!this.running) return;
    this.running = false;
    this.generation++;
    if (this.rateTimer !== undefined) clearInterval(this.rateTimer);
    this.rateTimer = undefined;
    // A request still in flight is not cancelled on the host; its slot must be free when the loop restarts.
    for (const slot of this.slots.values()) slot.inFlight = false;
    this.wake();
  }

  private reportRates(): void {
    for (const [id, slot] of this.slots) this.sinks.get(id)?.rate(slot.meter.fps(), slot.meter.total);
  }

  private current(generation: number): boolean {
    return this.running && generation === this.generation;
  }

  private async worker(generation: number): Promise<void> {
    while (this.current(generation)) {
      const decision = nextShot([...this.slots.values()], performance.now(), PACE);
      if (decision === null) {
        await this.nextWake();
        continue;
      }
      if ('waitMs' in decision) {
        await this.nextWake(decision.waitMs);
        continue;
      }
      const slot = this.slots.get(decision.id);
      if (!slot) continue;
      slot.inFlight = true;
      slot.lastStartedAt = performance.now();
      try {
        const shot = await this.api.call('device.screenshot', { deviceId: slot.id });
        if (!this.current(generation) || this.slots.get(slot.id) !== slot) continue;
        slot.meter.record();
        const sink = this.sinks.get(slot.id);
        // The count shows every reply at once; the rate is re-read on the timer too, so it falls when replies stop.
        sink?.rate(slot.meter.fps(), slot.meter.total);
        sink?.failed(shot.screenshot ? null : (shot.screenshotError ?? 'no screenshot'));
        if (shot.screenshot && sink) await sink.show(shot.screenshot);
      } catch (error) {
        if (!this.current(generation)) continue;
        this.sinks.get(slot.id)?.failed(error instanceof Error ? error.message : String(error));
        // Its next turn comes a backoff later; the other devices keep theirs.
        slot.lastStartedAt = performance.now() + ERROR_BACKOFF_MS - PACE.minIntervalMs;
      } finally {
        if (this.current(generation)) slot.inFlight = false;
        this.wake();
      }
    }
  }

  private nextWake(timeoutMs?: number): Promise<void> {
    return new Promise((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const done = () => {
        if (timer !== undefined) clearTimeout(timer);
        resolve();
      };
      this.waiters.push(done);
      if (timeoutMs !== undefined) timer = setTimeout(done, timeoutMs);
    });
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter();
  }
}

/** Whether the page is shown (a hidden tab or a minimised window asks for nothing). */
export function usePageVisible(): boolean {
  const [visible, setVisible] = useState(() => document.visibilityState !== 'hidden');
  useEffect(() => {
    const onChange = () => setVisible(document.visibilityState !== 'hidden');
    document.addEventListener('visibilitychange', onChange);
    return () => document.removeEventListener('visibilitychange', onChange);
  }, []);
  return visible;
}

/** The loop for the grid: running while `running`, over `deviceIds`. */
export function useGridLoop(api: Pick<Transport, 'call'>, deviceIds: readonly string[], running: boolean, inFlight = GRID_IN_FLIGHT): GridLoop {
  const [loop] = useState(() => new GridLoop(api, inFlight));
  const key = deviceIds.join('\n');
  useEffect(() => loop.setDevices(key === '' ? [] : key.split('\n')), [loop, key]);
  useEffect(() => {
    if (!running) return;
    loop.start();
    return () => loop.stop();
  }, [loop, running]);
  return loop;
}

// ---- Drawing a picture on a tile ------------------------------------------------------------------------

/**
 * How tiles draw: `bitmap` (the default) decodes and scales off the main thread onto a canvas of the
 * tile's size; `img` is the plain way (React state per picture, an <img> of the full-size data URL scaled
 * by CSS, every picture decoded again).
 */
export type GridDraw = 'bitmap' | 'img';

export interface GridTuning {
  draw: GridDraw;
  inFlight: number;
}

/**
 * The defaults, or what the page's URL asks for (`?gridDraw=img`, `?gridInFlight=N`, 1-16): kept only so
 * the bench can measure the chosen way against the plain one in the same run (bench/grid.bench.ts).
 */
export function gridTuning(search: string = window.location.search): GridTuning {
  const params = new URLSearchParams(search);
  const inFlight = Number(params.get('gridInFlight'));
  return {
    draw: params.get('gridDraw') === 'img' ? 'img' : 'bitmap',
    inFlight: Number.isInteger(inFlight) && inFlight >= 1 && inFlight <= 16 ? inFlight : GRID_IN_FLIGHT,
  };
}

function base64Bytes(data: string): Uint8Array<ArrayBuffer> {
  const native = (Uint8Array as unknown as { fromBase64?: (s: string) => Uint8Array<ArrayBuffer> }).fromBase64;
  if (native) return native(data);
  const binary = atob(data);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * A canvas painter that keeps only the newest picture: one decode at a time per tile, a picture equal
 * to the last one drawn is skipped, and the bitmap is scaled to the canvas's height while it decodes.
 */
export class TilePainter {
  private lastData: string | null = null;
  private lastHeight = 0;

  constructor(private readonly canvas: () => HTMLCanvasElement | null) {}

  async show(screenshot: Screenshot): Promise<void> {
    const canvas = this.canvas();
    if (!canvas || canvas.width === 0 || canvas.height === 0) return;
    if (screenshot.dataBase64 === this.lastData && canvas.height === this.lastHeight) return;
    const blob = new Blob([base64Bytes(screenshot.dataBase64)], { type: 'image/png' });
    const bitmap = await createImageBitmap(blob, { resizeHeight: canvas.height, resizeQuality: 'medium' });
    try {
      const context = canvas.getContext('2d');
      if (!context) return;
      // Wider than the tile (a landscape screen): shrink it to the width too, centred.
      const scale = Math.min(1, canvas.width / bitmap.width);
      const width = bitmap.width * scale;
      const height = bitmap.height * scale;
      context.clearRect(0, 0, canvas.width, canvas.height);
      context.drawImage(bitmap, (canvas.width - width) / 2, (canvas.height - height) / 2, width, height);
      this.lastData = screenshot.dataBase64;
      this.lastHeight = canvas.height;
    } finally {
      bitmap.close();
    }
  }

  /** The canvas was resized (which clears it): the next picture is drawn even if it is the same. */
  reset(): void {
    this.lastData = null;
  }
}
