/**
 * One device, one action at a time against its observers. Reads (observes, screenshots) run together; an
 * action runs alone, and new reads wait behind an action that is waiting, so a busy live view never
 * starves it (docs/rules.md#r-key-09). Every bridge capture moves the current observation (R-KEY-07), and
 * the bridge refuses an action naming an older one (R-CMD-08), so a read of Parallax's own between an
 * action's fresh read and its request would make Parallax refuse itself.
 */
export class DeviceGate {
  private readers = 0;
  private writer = false;
  private writersWaiting = 0;
  private waiters: Array<() => void> = [];

  async read<T>(run: () => Promise<T>): Promise<T> {
    while (this.writer || this.writersWaiting > 0) await this.wait();
    this.readers++;
    try {
      return await run();
    } finally {
      this.readers--;
      this.wake();
    }
  }

  async exclusive<T>(run: () => Promise<T>): Promise<T> {
    this.writersWaiting++;
    try {
      while (this.writer || this.readers > 0) await this.wait();
    } finally {
      this.writersWaiting--;
    }
    this.writer = true;
    try {
      return await run();
    } finally {
      this.writer = false;
      this.wake();
    }
  }

  private wait(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private wake(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }
}
