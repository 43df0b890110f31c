import { useEffect, useRef, useState } from 'react';

/**
 * Runs each of `steps` in a task of its own after the next paint, then `show` in the task after them
 * (so what was already waiting, the next click, goes between them); the returned function cancels
 * whatever has not run yet (docs/rules.md#r-perf-11).
 */
export function afterPaint(steps: readonly (() => void)[], show: () => void): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const next = (at: number) => {
    timer = setTimeout(() => {
      if (at < steps.length) {
        steps[at]!();
        next(at + 1);
      } else show();
    }, 0);
  };
  // The frame callback runs before the paint, the first timeout after it.
  const frame = requestAnimationFrame(() => next(0));
  return () => {
    cancelAnimationFrame(frame);
    if (timer !== undefined) clearTimeout(timer);
  };
}

/**
 * `value`, or with `defer` the value as it was until the next frame has been painted: a panel whose
 * work on a heavy screen would lengthen the task that draws a selection or a frame (the selectors of a
 * node on 50,000 nodes: the tree's index, then its suggestions) lets them be drawn first and follows in
 * tasks of its own, each of the steps `prepare(value)` gives in one and the render with the value in
 * the next; a newer value cancels what the older one had not done yet (docs/rules.md#r-perf-08, #r-perf-11).
 */
export function useAfterPaint<T>(value: T, defer: boolean, prepare?: (value: T) => (() => void)[]): T {
  const [shown, setShown] = useState(value);
  const prepareRef = useRef(prepare);
  prepareRef.current = prepare;
  useEffect(() => {
    if (!defer || Object.is(shown, value)) return;
    return afterPaint(prepareRef.current?.(value) ?? [], () => setShown(value));
  }, [value, defer, shown]);
  return defer ? shown : value;
}
