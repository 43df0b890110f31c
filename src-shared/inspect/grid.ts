/**
 * The grid of many devices (docs/rules.md#r-perf-09), its pure decisions: which devices get a tile, how
 * large the tiles are, and which device's screenshot is asked for next so that every device gets its
 * share of a bounded number of requests in flight.
 */
import type { DeviceSummary } from '@shared/protocol/device';

/** A connected device takes screenshots when it offers a runner's request_screenshot or AppReveal's screenshot tool. */
export function takesScreenshots(device: Pick<DeviceSummary, 'supportedCommands'>): boolean {
  return device.supportedCommands.some((command) => command === 'request_screenshot' || command === 'screenshot');
}

/**
 * The devices with a tile: every connected device that takes screenshots, and the devices not (or no
 * longer) connected, whose tile says so; a connected device without screenshots has nothing to show.
 */
export function gridDevices<T extends Pick<DeviceSummary, 'state' | 'supportedCommands'>>(devices: readonly T[]): T[] {
  return devices.filter((device) => device.state !== 'connected' || takesScreenshots(device));
}

export interface GridLayout {
  columns: number;
  /** The picture's size in CSS pixels inside each tile (the caption is below it). */
  pictureWidth: number;
  pictureHeight: number;
}

export interface GridLayoutOptions {
  /** The picture's width / height (a phone in portrait: about 0.46). */
  aspect: number;
  /** Space between tiles, px. */
  gap: number;
  /** Height of each tile's caption and padding, px. */
  chrome: number;
  /** Width of each tile's padding and border, px. */
  sideChrome: number;
}

/** The column count that gives `count` tiles the largest picture inside `width` x `height`. */
export function gridLayout(count: number, width: number, height: number, options: GridLayoutOptions): GridLayout {
  let best: GridLayout = { columns: 1, pictureWidth: 0, pictureHeight: 0 };
  if (count <= 0 || width <= 0 || height <= 0) return best;
  for (let columns = 1; columns <= count; columns++) {
    const rows = Math.ceil(count / columns);
    const cellWidth = (width - options.gap * (columns - 1)) / columns - options.sideChrome;
    const cellHeight = (height - options.gap * (rows - 1)) / rows - options.chrome;
    if (cellWidth <= 0 || cellHeight <= 0) continue;
    const pictureHeight = Math.floor(Math.min(cellHeight, cellWidth / options.aspect));
    if (pictureHeight > best.pictureHeight) best = { columns, pictureWidth: Math.floor(pictureHeight * options.aspect), pictureHeight };
  }
  return best;
}

/** One device in the grid's screenshot loop. */
export interface PaceSlot {
  id: string;
  /** A screenshot request for it is in flight (one at most: the host serves a device's reads in turn anyway). */
  inFlight: boolean;
  /** When its last request went out (ms, any clock), undefined before the first. */
  lastStartedAt: number | undefined;
}

export interface PaceOptions {
  /** A device is asked at most once per this (its fastest rate). */
  minIntervalMs: number;
  /** A device waits for the ones asked before it at most this long (its rate's floor, however slow another is). */
  maxWaitMs: number;
}

/**
 * The next screenshot to ask for, or how long until one is due, or null when nothing can go before a
 * request in flight ends. Devices take turns: the one waiting longest goes first, and a device asked
 * after another whose answer is still outstanding waits for it (up to `maxWaitMs`), so fast devices do
 * not run laps around a slow one and take the CPU it needs (the demo devices share one machine). Never
 * more than one request per device, never more often than `minIntervalMs`.
 */
export function nextShot(slots: readonly PaceSlot[], now: number, options: PaceOptions): { id: string } | { waitMs: number } | null {
  const started = (slot: PaceSlot) => slot.lastStartedAt ?? -Infinity;
  // The earliest start among the requests in flight: whoever started after it waits its turn.
  let oldestInFlight = Infinity;
  for (const slot of slots) if (slot.inFlight) oldestInFlight = Math.min(oldestInFlight, started(slot));
  let pick: PaceSlot | undefined;
  let waitMs = Infinity;
  for (const slot of slots) {
    if (slot.inFlight) continue;
    if (slot.lastStartedAt === undefined) {
      if (!pick || pick.lastStartedAt !== undefined) pick = slot;
      continue;
    }
    const since = now - slot.lastStartedAt;
    const behind = slot.lastStartedAt > oldestInFlight;
    const due = Math.max(options.minIntervalMs - since, behind ? options.maxWaitMs - since : 0);
    if (due <= 0) {
      if (!pick || started(slot) < started(pick)) pick = slot;
    } else {
      waitMs = Math.min(waitMs, due);
    }
  }
  if (pick) return { id: pick.id };
  return waitMs === Infinity ? null : { waitMs };
}
