/** The "try a selector" box's text (docs/rules.md#r-qa-22): the selectors panel edits it, the screen and the tree highlight what it finds. */
import { create } from 'zustand';

interface SelectorTryState {
  text: string;
  setText(text: string): void;
}

export const useSelectorTry = create<SelectorTryState>()((set) => ({
  text: '',
  setText: (text) => set({ text }),
}));
