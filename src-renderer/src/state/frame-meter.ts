/**
 * Counts the frames that reach the shown frame (screenshot-loop replies and device pushes), for the
 * live readout and for anyone measuring it: `total` only grows; `fps` is the rate over the last window.
 */
import { useEffect, useState } from 'react';

const WINDOW_MS = 2_000;

export interface FrameRate {
  total: number;
  fps: number;
  /** The loop's observe round trip (request to reply), averaged over the last frames, in ms; 0 before the first. */
  roundTripMs: number;
}

export class FrameMeter {
  private times: number[] = [];
  private count = 0;
  private trips: number[] = [];

  constructor(private readonly now: () => number = () => performance.now()) {}

  record(): void {
    this.count++;
    const t = this.now();
    this.times.push(t);
    this.trim(t);
  }

  /** One screenshot-loop observe took `ms` from request to reply. */
  recordRoundTrip(ms: number): void {
    this.trips.push(ms);
    if (this.trips.length > 20) this.trips.shift();
  }

  roundTripMs(): number {
    return this.trips.length === 0 ? 0 : this.trips.reduce((a, b) => a + b, 0) / this.trips.length;
  }

  get total(): number {
    return this.count;
  }

  /** Frames per second over the last window. */
  fps(): number {
    this.trim(this.now());
    return (this.times.length * 1_000) / WINDOW_MS;
  }

  private trim(t: number): void {
    let drop = 0;
    while (drop < this.times.length && this.times[drop]! < t - WINDOW_MS) drop++;
    if (drop > 0) this.times.splice(0, drop);
  }
}

export const frameMeter = new FrameMeter();

/** The meter read every `everyMs`. */
export function useFrameRate(everyMs = 500): FrameRate {
  const read = (): FrameRate => ({ total: frameMeter.total, fps: frameMeter.fps(), roundTripMs: Math.round(frameMeter.roundTripMs()) });
  const [rate, setRate] = useState<FrameRate>(read);
  useEffect(() => {
    const timer = setInterval(() => {
      const next = read();
      setRate((r) => (r.total === next.total && r.fps === next.fps && r.roundTripMs === next.roundTripMs ? r : next));
    }, everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return rate;
}
