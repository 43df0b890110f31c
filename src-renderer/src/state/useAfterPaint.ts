import { useEffect, useRef, useState } from 'react';

/**
 * Runs `prepare` in a task of its own after the next paint, then `show` in the task after it (so what
 * was already waiting, the next click, goes between them); the returned function cancels whatever has
 * not run yet (docs/rules.md#r-perf-11).
 */
export function afterPaint(prepare: (() => void) | undefined, show: () => void): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  // The frame callback runs before the paint, the first timeout after it.
  const frame = requestAnimationFrame(() => {
    timer = setTimeout(() => {
      prepare?.();
      timer = setTimeout(show, 0);
    }, 0);
  });
  return () => {
    cancelAnimationFrame(frame);
    if (timer !== undefined) clearTimeout(timer);
  };
}

/**
 * `value`, or with `defer` the value as it was until the next frame has been painted: a panel whose
 * work on a heavy screen would lengthen the task that draws a selection or a frame (the selectors of a
 * node on 50,000 nodes: the tree's index, then its suggestions) lets them be drawn first and follows in
 * tasks of its own, `prepare(value)` in one and the render with the value in the next; a newer value
 * cancels what the older one had not done yet (docs/rules.md#r-perf-08, #r-perf-11).
 */
export function useAfterPaint<T>(value: T, defer: boolean, prepare?: (value: T) => void): T {
  const [shown, setShown] = useState(value);
  const prepareRef = useRef(prepare);
  prepareRef.current = prepare;
  useEffect(() => {
    if (!defer || Object.is(shown, value)) return;
    const run = prepareRef.current;
    return afterPaint(run && (() => run(value)), () => setShown(value));
  }, [value, defer, shown]);
  return defer ? shown : value;
}
