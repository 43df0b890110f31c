/**
 * Bench instrumentation of the host's live path (bench `live`, issue 29.2): with
 * `PARALLAX_LIVE_TRACE=<file>` set, the host appends one JSON line per span to that file (times in epoch
 * milliseconds, `performance.timeOrigin + performance.now()`, so the bench lays them against the device's
 * and the page's), and watches its own event loop for stalls. Unset, `liveTrace` is undefined and every
 * call site is a `liveTrace?.` that costs one property read: no timer, no buffer, no file.
 *
 * Kinds: `stall` (the event loop held over STALL_MS), `shot-in` / `shot-out` (a `device.screenshot` call
 * reached the socket / its reply was handed to it), `shot-device` (the runner's screenshot request, sent
 * to answered), `decode` (a big runner message decoded), `push` (a pushed tree observed), `send` (an API
 * message packed and its first piece written), `stream` (the rest of a message in pieces).
 */
import { appendFile } from 'node:fs';

export interface LiveTrace {
  span(kind: string, start: number, end?: number, detail?: string): void;
}

/** An event loop held this long is a stall (the monitor ticks every TICK_MS). */
const STALL_MS = 40;
const TICK_MS = 5;
const FLUSH_MS = 200;

export const epochNow = (): number => performance.timeOrigin + performance.now();

function fileTrace(path: string): LiveTrace {
  let lines: string[] = [];
  let last = epochNow();
  const trace: LiveTrace = {
    span(kind, start, end = epochNow(), detail) {
      lines.push(JSON.stringify(detail === undefined ? { kind, start, end } : { kind, start, end, detail }));
    },
  };
  setInterval(() => {
    const now = epochNow();
    if (now - last > STALL_MS) trace.span('stall', last, now);
    last = now;
  }, TICK_MS).unref();
  setInterval(() => {
    if (!lines.length) return;
    const text = lines.join('\n') + '\n';
    lines = [];
    appendFile(path, text, () => undefined);
  }, FLUSH_MS).unref();
  return trace;
}

const tracePath = process.env['PARALLAX_LIVE_TRACE'];
export const liveTrace: LiveTrace | undefined = tracePath ? fileTrace(tracePath) : undefined;
