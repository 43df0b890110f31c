/**
 * The "try a selector" box (docs/rules.md#r-qa-22, #r-hand-13): its text, which only the selectors
 * panel reads and edits (the box, its Try buttons), and what the box's last answer found, which the
 * screen, the tree and the assert controls mark. The two are apart so typing re-renders the panel
 * alone: `matches` changes only when an answer finds other elements (or the box empties or fills), so
 * App and its heavy children are not rendered again per keystroke.
 */
import { useMemo } from 'react';
import { create } from 'zustand';
import type { NodeKey } from '@shared/model/tree';

interface SelectorTryState {
  text: string;
  setText(text: string): void;
  /** The keys the box's last answer found (none for a refusal); null while the box is empty, so the search's matches show. */
  matches: readonly NodeKey[] | null;
  /** An answer's matches; the same keys as before leave the state as it is, so nothing re-renders. */
  answered(matches: readonly NodeKey[] | null): void;
}

const sameKeys = (a: readonly NodeKey[] | null, b: readonly NodeKey[] | null) =>
  a === b || (a !== null && b !== null && a.length === b.length && a.every((k, i) => k === b[i]));

export const useSelectorTry = create<SelectorTryState>()((set, get) => ({
  text: '',
  setText: (text) => set({ text }),
  matches: null,
  answered: (matches) => {
    if (!sameKeys(get().matches, matches)) set({ matches });
  },
}));

/**
 * The keys to mark: the try box's last answer's while it has text, else `searched`. With `follow` false
 * (a view the box is not about: a trace, a comparison) always `searched`, and the box's answers render nothing.
 */
export function useMarkedKeys(searched: ReadonlySet<NodeKey>, follow = true): ReadonlySet<NodeKey> {
  const tried = useSelectorTry((s) => (follow ? s.matches : null));
  return useMemo(() => (tried ? new Set(tried) : searched), [tried, searched]);
}
