import { createContext, useContext, useEffect, useRef, useState } from 'react';
import type { UiNode } from '@shared/protocol/runner';
import type { SelectorTry } from '@shared/selectors';
import { SelectorTryRunner, type TryRunnerOptions, type TryShown } from '@renderer/state/selector-try-runner';

/** How the try box's evaluations run: the browser's worker and limit, unless a test hands in its own. */
export const SelectorTryOptions = createContext<TryRunnerOptions>({});

export interface TryState {
  /** What the text finds (or why it is not a selector); null with no text, or while it is evaluated. */
  result: SelectorTry | null;
  /** The text is being evaluated (off the page's thread, docs/rules.md#r-hand-13). */
  pending: boolean;
}

/**
 * The try box's `text` evaluated on `root` in a worker. A new tree under the same text keeps showing the
 * last answer until the new one comes (a live frame does not blank the marks); new text shows pending.
 */
export function useSelectorTryResult(text: string, root: UiNode | undefined): TryState {
  const options = useContext(SelectorTryOptions);
  const [shown, setShown] = useState<TryShown | null>(null);
  const runner = useRef<SelectorTryRunner | null>(null);
  useEffect(() => {
    const created = new SelectorTryRunner(setShown, options);
    runner.current = created;
    return () => {
      created.dispose();
      runner.current = null;
    };
  }, [options]);
  const empty = text.trim() === '';
  useEffect(() => {
    if (!empty) runner.current?.request(text, root);
  }, [text, root, empty, options]);
  if (empty) return { result: null, pending: false };
  if (shown?.input === text) return { result: shown.result, pending: shown.root !== root };
  return { result: null, pending: true };
}
