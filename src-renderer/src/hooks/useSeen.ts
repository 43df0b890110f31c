import { useEffect, useState, type RefObject } from 'react';

/**
 * Whether an element has come near the viewport (within `margin`); once seen it stays seen. A long
 * filmstrip loads only the pictures the user scrolls to, not hundreds at once.
 */
export function useSeen(ref: RefObject<HTMLElement | null>, margin = '300px'): boolean {
  const [seen, setSeen] = useState(false);
  useEffect(() => {
    const element = ref.current;
    if (!element || seen) return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) setSeen(true);
      },
      { rootMargin: margin },
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, [ref, margin, seen]);
  return seen;
}
