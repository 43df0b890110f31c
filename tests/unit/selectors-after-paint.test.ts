/**
 * The selectors panel's work on a heavy screen, sliced (docs/rules.md#r-perf-11): the tree's index and
 * maps in tasks after the selection's paint, one step each, the suggestions in the next, and a newer
 * selection or tree cancelling whatever of the older one's work has not run.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { UiNode } from '@shared/protocol/runner';
import { indexScreen, selectorsFor, selectorSteps } from '@shared/selectors';
import { afterPaint } from '@renderer/hooks/useAfterPaint';

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

  const work = (done: string[], name: string) =>
    afterPaint([() => done.push(`${name} index`), () => done.push(`${name} maps`)], () => done.push(`${name} suggestions`));

  it('R-PERF-11: each heavy step runs in a task of its own after the paint, the suggestions in the task after them', () => {
    const done: string[] = [];
    work(done, 'a');
    vi.advanceTimersByTime(16);
    // The frame callback only: the paint comes before any step.
    expect(done).toEqual([]);
    vi.advanceTimersToNextTimer();
    expect(done).toEqual(['a index']);
    vi.advanceTimersToNextTimer();
    expect(done).toEqual(['a index', 'a maps']);
    vi.advanceTimersToNextTimer();
    expect(done).toEqual(['a index', 'a maps', 'a suggestions']);
  });

  it('R-PERF-11: a newer selection cancels the older one before its first step, or between its steps', () => {
    const done: string[] = [];
    // Before anything of the first ran.
    let cancel = work(done, 'a');
    cancel();
    cancel = work(done, 'b');
    vi.advanceTimersByTime(16);
    vi.advanceTimersToNextTimer();
    // After the second's index, before its maps and suggestions.
    expect(done).toEqual(['b index']);
    cancel();
    work(done, 'c');
    vi.runAllTimers();
    expect(done).toEqual(['b index', 'c index', 'c maps', 'c suggestions']);
  });

  it('R-PERF-11: the steps build the index the suggestions then use, and change nothing they find', () => {
    const root: UiNode = { className: 'XCUIApplication', node: [{ className: 'UIButton', 'resource-id': 'go', text: 'Go' }] };
    const copy = structuredClone(root);
    for (const step of selectorSteps(root)) step();
    const screen = indexScreen(root);
    expect(selectorSteps(root).length).toBeGreaterThan(2);
    expect(indexScreen(root)).toBe(screen);
    expect(selectorsFor(root, '0.0')).toEqual(selectorsFor(copy, '0.0'));
  });
});
