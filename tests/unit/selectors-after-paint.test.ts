/**
 * The selectors panel's work on a heavy screen, sliced (docs/rules.md#r-perf-11): the tree's index in a
 * task after the selection's paint, the suggestions in the next, and a newer selection or tree
 * cancelling whatever of the older one's work has not run.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { afterPaint } from '@renderer/state/useAfterPaint';

describe('R-PERF-11: the selectors panel follows a selection in tasks of its own', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    // A frame every 16 ms; its callbacks run before that frame's paint.
    vi.stubGlobal('requestAnimationFrame', (run: () => void) => setTimeout(run, 16));
    vi.stubGlobal('cancelAnimationFrame', (id: ReturnType<typeof setTimeout>) => clearTimeout(id));
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('R-PERF-11: the heavy part runs after the paint, the suggestions in the task after it', () => {
    const done: string[] = [];
    afterPaint(
      () => done.push('index'),
      () => done.push('suggestions'),
    );
    expect(done).toEqual([]);
    vi.advanceTimersByTime(16);
    // The frame callback only: the paint comes before either part.
    expect(done).toEqual([]);
    vi.advanceTimersToNextTimer();
    expect(done).toEqual(['index']);
    vi.advanceTimersToNextTimer();
    expect(done).toEqual(['index', 'suggestions']);
  });

  it('R-PERF-11: a newer selection cancels the older one before its index, or between its index and its suggestions', () => {
    const done: string[] = [];
    const work = (name: string) =>
      afterPaint(
        () => done.push(`${name} index`),
        () => done.push(`${name} suggestions`),
      );
    // Before anything of the first ran.
    let cancel = work('a');
    cancel();
    cancel = work('b');
    vi.advanceTimersByTime(16);
    vi.advanceTimersToNextTimer();
    // After the second's index, before its suggestions.
    expect(done).toEqual(['b index']);
    cancel();
    work('c');
    vi.runAllTimers();
    expect(done).toEqual(['b index', 'c index', 'c suggestions']);
  });
});
