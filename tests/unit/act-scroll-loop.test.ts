/**
 * The scroll search's swipe loop (docs/rules.md#r-look-07 … #r-look-09) against a scripted list: each
 * swipe moves the list by one page and leaves it gliding for a few reads, as a real fling does; a swipe
 * naming a frame the list has moved past is refused as the runner refuses it. No real time passes.
 */
import { describe, expect, it } from 'vitest';
import type { UiNode } from '@shared/protocol/runner';
import { runScrollLoop, SCROLL_STALE_RETRIES, type ScrollLoopIo } from '@shared/act/scroll-loop';
import type { RunnerVerdict } from '@shared/act/verdict';

interface Read {
  frame: string;
  offset: number;
}

/** A list of `length` rows, 8 per page, that glides for `glideReads` reads after each swipe. */
function scriptedList(options: { length: number; glideReads?: number; target?: string; staleAt?: number[] }) {
  const pageRows = 8;
  const maxOffset = Math.max(0, options.length - pageRows);
  let offset = 0;
  let gliding = 0;
  let generation = 0;
  const log: string[] = [];
  let swipeCalls = 0;
  const frame = () => `E:${generation}:${offset}`;
  const screen = (): Read => {
    if (gliding > 0) {
      gliding -= 1;
      generation += 1;
    }
    return { frame: frame(), offset };
  };
  const io: ScrollLoopIo<Read> & { waited: number } = {
    waited: 0,
    async swipe(at) {
      swipeCalls += 1;
      // The runner refuses a stroke naming a frame the screen moved past (or one the test forces stale).
      if (at.frame !== frame() || options.staleAt?.includes(swipeCalls)) {
        log.push('stale');
        return { kind: 'failClosed', failureReason: 'stale_frame_context', mayHaveRun: false } satisfies RunnerVerdict;
      }
      log.push('swipe');
      const next = Math.min(maxOffset, offset + pageRows);
      if (next !== offset) {
        offset = next;
        generation += 1;
        gliding = options.glideReads ?? 3;
      }
      return { kind: 'done' };
    },
    async read() {
      log.push('read');
      return screen();
    },
    frameOf: (at) => at.frame,
    contentOf: (at) => `rows from ${at.offset}`,
    find: (at) => {
      const rows = Array.from({ length: pageRows }, (_, i) => `Post ${at.offset + i + 1}`).filter((_, i) => at.offset + i < options.length);
      return options.target && rows.includes(options.target) ? ({ text: options.target } as UiNode) : undefined;
    },
    async wait(ms) {
      io.waited += ms;
    },
  };
  return { io, log, start: () => screen() };
}

describe('R-LOOK-07: the swipe loop', () => {
  it('finds a row many pages down, swiping only on a list at rest', async () => {
    const list = scriptedList({ length: 60, target: 'Post 55' });
    const end = await runScrollLoop(list.io, list.start(), 15);
    expect(end).toMatchObject({ kind: 'found', node: { text: 'Post 55' }, swipes: 6 });
    // Never a stale swipe: every swipe waited for the glide to end.
    expect(list.log.filter((l) => l === 'stale')).toEqual([]);
    expect(list.log.filter((l) => l === 'swipe')).toHaveLength(6);
  });

  it('a missing row ends with notFound at the list’s end, when a swipe moved nothing, before maxSwipes', async () => {
    const list = scriptedList({ length: 60, target: 'Post 999' });
    const end = await runScrollLoop(list.io, list.start(), 40);
    // 52 rows below the first page: 7 swipes reach the end, the 8th moves nothing.
    expect(end).toMatchObject({ kind: 'notFound', why: 'listEnd', swipes: 8 });
  });

  it('a miss with swipes to spare that are not enough ends notFound after exactly maxSwipes', async () => {
    const list = scriptedList({ length: 60, target: 'Post 999' });
    const end = await runScrollLoop(list.io, list.start(), 2);
    expect(end).toMatchObject({ kind: 'notFound', why: 'maxSwipes', swipes: 2 });
    expect(list.log.filter((l) => l === 'swipe')).toHaveLength(2);
  });

  it('maxSwipes 0 sends no swipe', async () => {
    const list = scriptedList({ length: 60, target: 'Post 55' });
    const end = await runScrollLoop(list.io, list.start(), 0);
    expect(end).toMatchObject({ kind: 'notFound', swipes: 0 });
    expect(list.log).toEqual([]);
  });

  it('R-LOOK-09: a swipe refused as stale mid-loop is read again and swiped with the fresh frame, not counted as a swipe', async () => {
    const list = scriptedList({ length: 60, target: 'Post 55', staleAt: [3] });
    const end = await runScrollLoop(list.io, list.start(), 15);
    expect(end).toMatchObject({ kind: 'found', swipes: 6 });
    expect(list.log.filter((l) => l === 'stale')).toHaveLength(1);
    const staleAt = list.log.indexOf('stale');
    expect(list.log[staleAt + 1]).toBe('read');
  });

  it('R-LOOK-09: a screen that stays stale fails closed stale_frame_context after a few retries; may have run, since it swiped before', async () => {
    const list = scriptedList({ length: 60, target: 'Post 55', staleAt: [2, 3, 4, 5, 6, 7, 8] });
    const end = await runScrollLoop(list.io, list.start(), 15);
    expect(end).toMatchObject({ kind: 'failed', verdict: { failureReason: 'stale_frame_context', mayHaveRun: true }, swipes: 1 });
    expect(list.log.filter((l) => l === 'stale')).toHaveLength(SCROLL_STALE_RETRIES + 1);
  });

  it('R-LOOK-08: after each swipe the loop reads until two reads name the same frame', async () => {
    const list = scriptedList({ length: 60, target: 'Post 20', glideReads: 5 });
    const end = await runScrollLoop(list.io, list.start(), 15);
    expect(end).toMatchObject({ kind: 'found', swipes: 2 });
    // 5 reads while it glides (the last shows it at rest), then the one that repeats it: 6 per swipe.
    expect(list.log).toEqual(['swipe', ...Array(6).fill('read'), 'swipe', ...Array(6).fill('read')]);
  });

  it('a failure that may have run (a timeout) is not retried', async () => {
    const list = scriptedList({ length: 60, target: 'Post 55' });
    const io: ScrollLoopIo<Read> = { ...list.io, swipe: async () => ({ kind: 'failClosed', failureReason: 'timeout', mayHaveRun: true }) };
    const end = await runScrollLoop(io, list.start(), 15);
    expect(end).toMatchObject({ kind: 'failed', verdict: { failureReason: 'timeout', mayHaveRun: true }, swipes: 0 });
  });
});
