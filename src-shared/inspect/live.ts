/**
 * Live mode's tree re-read, once an interval. A tree that reached the view from elsewhere since the
 * loop's own last read (a device push, an action's after-frame) is as fresh as a read, so the re-read
 * waits a full interval after it rather than asking the device again for what it just sent.
 *
 * `lastReadAt`: when the loop's own last read was taken; `latestTreeAt`: when the tree on screen was
 * (both on the host's clock: a frame's receivedAt). Returns how long to wait from `now` (0: read now).
 */
export function treeReadDelay(now: number, intervalMs: number, lastReadAt: number, latestTreeAt: number | undefined): number {
  if (latestTreeAt === undefined || latestTreeAt <= lastReadAt) return 0;
  return Math.max(0, latestTreeAt + intervalMs - now);
}
