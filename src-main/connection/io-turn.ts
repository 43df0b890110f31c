/**
 * A turn for the I/O that waited (docs/rules.md#r-perf-15). On a heavy screen one observation holds the
 * host's event loop for hundreds of milliseconds at each step (a 9 MB reply decoded, the bridge's 50,000
 * views merged, the frame's text written), and live pictures cross this same loop: a screenshot request
 * from the page, the device's answer. Work that lets I/O in between its steps keeps them moving.
 *
 * One `setImmediate` is not such a turn when it is set from an I/O callback (where a decoded reply
 * continues): it runs in the same loop iteration's check phase, right after the poll that ran the callback
 * and before the loop polls again. Set from that check phase, the second one runs after the next poll, so
 * every socket that became readable meanwhile has been read.
 */
const immediate = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Resolves once the event loop has polled for I/O again (what was ready by then has run). */
export async function letIoIn(): Promise<void> {
  await immediate();
  await immediate();
}
