/**
 * A scroll search's XCTest swipe loop (docs/rules.md#r-look-07, #r-look-08, #r-look-09): swipe, wait
 * for the list to come to rest, search, and stop at the list's end. The I/O (the stroke, the reads, the
 * clock) is handed in, so the loop itself is tested with a scripted screen and no real time.
 *
 * Why it waits: a swipe hands the list a velocity, and the list keeps gliding after the finger lifts. A
 * read taken mid-glide names a frame the screen has already moved past, and the next swipe naming it is
 * refused as `stale_frame_context` (the runner's own check, docs/protocol.md#p-frame-context). The
 * runner offers no settle event of its own (its `connected` push lists every command; none waits for
 * the screen to be idle: resources/recordings/settings-tap-general/0001-push-connected.json), so rest is the
 * runner's own word for "nothing changed": two reads in a row that name the same frame context.
 */
import type { UiNode } from '@shared/protocol/runner';
import type { FailClosed, RunnerVerdict } from './verdict';

/** Between two reads while waiting for the list to rest. */
export const SCROLL_SETTLE_INTERVAL_MS = 100;
/** The longest a search waits for one swipe's glide to end before it reads what is there. */
export const SCROLL_SETTLE_LIMIT_MS = 4000;
/** Swipes refused as stale (nothing ran) in a row before the search gives up. */
export const SCROLL_STALE_RETRIES = 3;

export interface ScrollLoopIo<R> {
  /** One stroke naming the frame of `read`; the runner refuses it if the screen moved past that frame. */
  swipe(read: R): Promise<RunnerVerdict>;
  /** A fresh read of the screen. */
  read(): Promise<R>;
  /** The frame context the read names (the runner's token; absent from a runner that sends none). */
  frameOf(read: R): string | undefined;
  /** What the scroll moved: where the search scope's content sits on this read. */
  contentOf(read: R): string;
  /** The target on this read, if it is there. */
  find(read: R): UiNode | undefined;
  wait(ms: number): Promise<void>;
}

export type ScrollLoopEnd<R> =
  | { readonly kind: 'found'; readonly node: UiNode; readonly read: R; readonly swipes: number }
  /** `listEnd`: a swipe moved nothing; `maxSwipes`: the budget ran out. */
  | { readonly kind: 'notFound'; readonly why: 'listEnd' | 'maxSwipes'; readonly read: R; readonly swipes: number }
  | { readonly kind: 'failed'; readonly verdict: FailClosed; readonly read: R; readonly swipes: number };

/** Same frame twice in a row: the screen is at rest (without a token, the same content twice). */
export async function settledRead<R>(io: ScrollLoopIo<R>, first: R): Promise<{ read: R; settled: boolean }> {
  const key = (r: R) => io.frameOf(r) ?? io.contentOf(r);
  let read = first;
  for (let waited = 0; waited < SCROLL_SETTLE_LIMIT_MS; waited += SCROLL_SETTLE_INTERVAL_MS) {
    await io.wait(SCROLL_SETTLE_INTERVAL_MS);
    const next = await io.read();
    if (key(next) === key(read)) return { read: next, settled: true };
    read = next;
  }
  return { read, settled: false };
}

/**
 * Up to `maxSwipes` swipes from `start` (a read that did not show the target). Each swipe is followed
 * by reads until the list rests; the target is searched on the resting screen. A swipe after which the
 * content sits where it sat before reached the list's end. A swipe refused as stale ran nothing: the
 * loop reads again and swipes with the fresh frame, a few times at most.
 */
export async function runScrollLoop<R>(io: ScrollLoopIo<R>, start: R, maxSwipes: number): Promise<ScrollLoopEnd<R>> {
  let read = start;
  let swipes = 0;
  let stale = 0;
  while (swipes < maxSwipes) {
    const before = io.contentOf(read);
    const verdict = await io.swipe(read);
    if (verdict.kind === 'failClosed') {
      if (verdict.failureReason === 'stale_frame_context' && !verdict.mayHaveRun && stale < SCROLL_STALE_RETRIES) {
        stale += 1;
        read = (await settledRead(io, await io.read())).read;
        const hit = io.find(read);
        if (hit) return { kind: 'found', node: hit, read, swipes };
        continue;
      }
      return { kind: 'failed', verdict: { ...verdict, mayHaveRun: verdict.mayHaveRun || swipes > 0 }, read, swipes };
    }
    swipes += 1;
    stale = 0;
    read = (await settledRead(io, await io.read())).read;
    const hit = io.find(read);
    if (hit) return { kind: 'found', node: hit, read, swipes };
    if (io.contentOf(read) === before) return { kind: 'notFound', why: 'listEnd', read, swipes };
  }
  return { kind: 'notFound', why: 'maxSwipes', read, swipes };
}
