/**
 * One device, one action at a time against its observers. Reads (observes, screenshots) run together; an
 * action runs alone. Every bridge capture moves the current observation (docs/rules.md#r-key-07), and
 * the bridge refuses an action naming an older one (R-CMD-08), so a read of Parallax's own between an
 * action's fresh read and its request would make Parallax refuse itself (R-KEY-09).
 *
 * Reads and actions have their own queues, and take turns in phases (docs/rules.md#r-gate-01): a read
 * that finds an action running or waiting waits for that one, and when it ends every waiting read runs
 * before the next action starts. So a read never waits behind more than the one action in flight, however
 * many are queued after it, and an action never waits behind more than the reads already running (a busy
 * live view cannot starve it). Each device has its own gate: a slow device slows only itself.
 *
 * A read's wait has a budget (R-GATE-02): past it the read fails as busy rather than pile up behind an
 * action the device does not answer. Actions are never refused here: one the user asked for either runs
 * or fails with its own timeouts, and is never sent twice.
 */

/** A read that could not start within its budget: the device is busy with an action. */
export class DeviceBusyError extends Error {
  override readonly name = 'DeviceBusyError';
}

export interface DeviceGateOptions {
  /** How long a read may wait for the action in flight (default READ_WAIT_BUDGET_MS). */
  readWaitBudgetMs?: number;
  /** Reads waiting at once; more are refused as busy at once (default MAX_WAITING_READS). */
  maxWaitingReads?: number;
}

/** One XCTest command's timeout and then some: an action this slow is not answering. */
export const READ_WAIT_BUDGET_MS = 15_000;
/** Live view, a second window and the push observer are a handful; this bounds what a stalled device holds. */
export const MAX_WAITING_READS = 64;

interface WaitingRead {
  admit: () => void;
  timer: NodeJS.Timeout | undefined;
}

export class DeviceGate {
  private readers = 0;
  private writer = false;
  private writerSince = 0;
  private readonly actions: Array<() => void> = [];
  private readonly reads: WaitingRead[] = [];
  private readonly budgetMs: number;
  private readonly maxWaitingReads: number;

  constructor(options: DeviceGateOptions = {}) {
    this.budgetMs = options.readWaitBudgetMs ?? READ_WAIT_BUDGET_MS;
    this.maxWaitingReads = options.maxWaitingReads ?? MAX_WAITING_READS;
  }

  async read<T>(run: () => Promise<T>): Promise<T> {
    if (this.writer || this.actions.length > 0) await this.waitForTurn();
    else this.readers++;
    try {
      return await run();
    } finally {
      this.readers--;
      this.next();
    }
  }

  async exclusive<T>(run: () => Promise<T>): Promise<T> {
    await new Promise<void>((resolve) => {
      this.actions.push(resolve);
      this.next();
    });
    try {
      return await run();
    } finally {
      this.writer = false;
      // The reads that waited for this action run now, before the next action.
      for (const waiting of this.reads.splice(0)) {
        clearTimeout(waiting.timer);
        this.readers++;
        waiting.admit();
      }
      this.next();
    }
  }

  /** Waits for the action in flight (or about to be) to end; resolves with this read counted in. */
  private waitForTurn(): Promise<void> {
    if (this.reads.length >= this.maxWaitingReads) {
      return Promise.reject(new DeviceBusyError(`${this.reads.length} reads already wait for the action on this device`));
    }
    return new Promise<void>((admit, reject) => {
      const waiting: WaitingRead = { admit, timer: undefined };
      waiting.timer = setTimeout(() => {
        const at = this.reads.indexOf(waiting);
        if (at >= 0) this.reads.splice(at, 1);
        const running = this.writer ? `an action that has run for ${Date.now() - this.writerSince} ms` : 'an action waiting to start';
        reject(new DeviceBusyError(`the device is busy: this read waited ${this.budgetMs} ms behind ${running}`));
      }, this.budgetMs);
      this.reads.push(waiting);
    });
  }

  /** Starts the next action once no read and no action runs. */
  private next(): void {
    if (this.writer || this.readers > 0) return;
    const start = this.actions.shift();
    if (!start) return;
    this.writer = true;
    this.writerSince = Date.now();
    start();
  }
}
