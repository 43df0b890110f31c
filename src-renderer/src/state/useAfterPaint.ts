import { useEffect, useState } from 'react';

/**
 * `value`, or with `defer` the value as it was until the next frame has been painted: a panel whose
 * work on a heavy screen takes longer than a frame (the selectors of a node, checked over 50,000 nodes)
 * lets the selection's marks be drawn first and follows a frame later (docs/rules.md#r-perf-02).
 */
export function useAfterPaint<T>(value: T, defer: boolean): T {
  const [shown, setShown] = useState(value);
  useEffect(() => {
    if (!defer || Object.is(shown, value)) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    // The frame callback runs before the paint, the first timeout after it; the second lets whatever
    // was already waiting (the next click) go first.
    const frame = requestAnimationFrame(() => (timer = setTimeout(() => (timer = setTimeout(() => setShown(value), 0)), 0)));
    return () => {
      cancelAnimationFrame(frame);
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [value, defer, shown]);
  return defer ? shown : value;
}
