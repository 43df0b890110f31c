/**
 * The screen and the tree as the live view marks them (docs/rules.md#r-qa-22, #r-hand-13): what the try
 * box's last answer found while it has text, else the search's matches. Each reads the box's matches
 * itself, so an answer re-renders these two and nothing else of App; typing re-renders neither.
 */
import { useMemo, type ComponentProps } from 'react';
import type { NodeKey } from '@shared/model/tree';
import { useSelectorTry } from '@renderer/state/selector-try';
import { Screen } from './Screen';
import { Tree } from './Tree';

/** The keys to mark: the try box's, while it has text; else `searched`. */
export function useMarkedKeys(searched: ReadonlySet<NodeKey>): ReadonlySet<NodeKey> {
  const tried = useSelectorTry((s) => s.matches);
  return useMemo(() => (tried ? new Set(tried) : searched), [tried, searched]);
}

type Marked<P extends { matchKeys: ReadonlySet<NodeKey> }> = Omit<P, 'matchKeys'> & { searched: ReadonlySet<NodeKey> };

export function MarkedScreen({ searched, ...props }: Marked<ComponentProps<typeof Screen>>) {
  return <Screen {...props} matchKeys={useMarkedKeys(searched)} />;
}

export function MarkedTree({ searched, ...props }: Marked<ComponentProps<typeof Tree>>) {
  return <Tree {...props} matchKeys={useMarkedKeys(searched)} />;
}
