/**
 * Follows what is on screen: re-reads the page when it says something changed (debounced, the way a
 * runner coalesces accessibility notifications), moves the frame context, and tells listeners about
 * each new frame so the runner can push hierarchy_update.
 */
import { EventEmitter } from 'node:events';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { AppPage } from './app-page';
import type { ScreenCapture } from './capture-model';
import { FrameTracker } from './frame-context';

export interface FrameState {
  capture: ScreenCapture;
  token: string;
  generation: number;
}

const QUIET_MS = 40;
const MAX_WAIT_MS = 150;

export class ScreenMonitor extends EventEmitter<{ frame: [FrameState] }> {
  readonly tracker = new FrameTracker();
  private latest: FrameState | undefined;
  private timer: NodeJS.Timeout | undefined;
  private firstPending = 0;
  private running: Promise<FrameState> | undefined;
  private queued: Promise<FrameState> | undefined;
  private stopped = false;
  /** How long the last read took, from its start to its frame (0 before the first). */
  private lastReadMs = 0;
  /**
   * Makes ready, in slices, what a new frame's listeners will send (the runner's push), before the frame
   * is emitted or answered: the emit then costs no long task (docs/rules.md#r-perf-10).
   */
  prepare: ((frame: FrameState) => Promise<void>) | undefined;

  constructor(private readonly app: AppPage) {
    super();
    app.on('changed', () => this.schedule());
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private schedule(): void {
    if (this.stopped) return;
    const now = Date.now();
    if (!this.timer) this.firstPending = now;
    clearTimeout(this.timer);
    const wait = Math.max(0, Math.min(QUIET_MS, this.firstPending + MAX_WAIT_MS - now));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      // A read that fails (the page is closing or mid-relaunch) is followed by the next notification's.
      this.refresh().catch(() => {});
    }, wait);
  }

  /**
   * Reads the screen now. Reads never overlap: a request during a read waits for one more read that
   * starts after it, so its answer is never older than the request.
   */
  refresh(): Promise<FrameState> {
    if (this.running) {
      // Every request made during a read shares the one read that follows it.
      this.queued ??= this.running.then(
        () => {
          this.queued = undefined;
          return this.refresh();
        },
        () => {
          this.queued = undefined;
          return this.refresh();
        },
      );
      return this.queued;
    }
    const run = (async () => {
      const started = performance.now();
      try {
        const read = await this.app.capture();
        // A heavy screen's frame costs tens of milliseconds at each step (its hash here, its projection
        // in a push): each step gets a turn of its own, so a screenshot reply waits for one step at
        // most, not for all of them (docs/rules.md#r-perf-10).
        await nextTurn();
        const changed = this.tracker.update(read);
        // The same screen again is the last frame's capture: what was made of it (its projection, its
        // text) is not made again for every read of an unchanged screen.
        const capture = !changed && this.latest ? this.latest.capture : read;
        const state: FrameState = { capture, token: this.tracker.token, generation: this.tracker.currentGeneration };
        // What listeners send for a new frame is made first, in slices (the push's projection and text),
        // so sending it costs no long task; the frame is known to readers once it can be sent.
        if (changed && this.prepare) await this.prepare(state).catch(() => {});
        this.latest = state;
        this.lastReadMs = performance.now() - started;
        if (changed) await nextTurn();
        if (changed && !this.stopped) this.emit('frame', state);
        return state;
      } finally {
        this.running = undefined;
      }
    })();
    this.running = run;
    return run;
  }

  /** The last frame read, or a fresh read when there is none yet. */
  async current(): Promise<FrameState> {
    return this.latest ?? this.refresh();
  }

  /**
   * Whether a frame waiting to be read will be known within `ms`: no change is waiting, or reads take
   * less than that (the last one did). A heavy screen's read takes longer than a screenshot should wait.
   */
  knownWithin(ms: number): boolean {
    return !this.dirty || this.lastReadMs <= ms;
  }

  /** Whether a change notification is waiting to be read. */
  get dirty(): boolean {
    return this.timer !== undefined || this.running !== undefined;
  }
}
