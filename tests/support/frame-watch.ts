/**
 * What a live connection has shown of the demo's screen: the frame contexts of the frames it pushed
 * (its `frame` events) and of its actions' after frames (an after frame's own push is dropped,
 * docs/rules.md#r-perf-07). A test waits until the connection holds the demo's current frame, where it
 * used to sleep "long enough" for the push to be observed.
 */
import type { DeviceConnection } from '@main/connection/connection';
import type { ObservedFrame } from '@shared/protocol/device';
import { untilQuiet, type DemoStats } from './demo-admin';

/** A runner connection's dispatcher keeps the after frame of its latest action. */
type Watched = Pick<DeviceConnection, 'on'> & { readonly dispatcher?: { readonly lastFrame: ObservedFrame | undefined } };

const contextOf = (frame: ObservedFrame | undefined) => frame?.hierarchyFrameContext ?? frame?.observation?.frameContext;

export class FrameWatch {
  private readonly seen = new Set<string>();

  constructor(private readonly connection: Watched) {
    connection.on('frame', (frame) => {
      const context = contextOf(frame);
      if (context) this.seen.add(context);
    });
  }

  private holds(context: string): boolean {
    return this.seen.has(context) || contextOf(this.connection.dispatcher?.lastFrame) === context;
  }

  /**
   * Until the device is quiet and the connection holds its current frame: the push a reset, a screen
   * change or an action made has been observed (with its screenshot and SDK reads), so nothing of it
   * still runs when the test goes on.
   */
  until(adminUrl: string): Promise<DemoStats> {
    return untilQuiet(adminUrl, (stats) => this.holds(stats.frameContext));
  }
}

const watches = new WeakMap<object, FrameWatch>();

/** The one watch of `connection` (made on first use: it sees the frames pushed from then on). */
export function watchFrames(connection: Watched): FrameWatch {
  let watch = watches.get(connection);
  if (!watch) {
    watch = new FrameWatch(connection);
    watches.set(connection, watch);
  }
  return watch;
}
