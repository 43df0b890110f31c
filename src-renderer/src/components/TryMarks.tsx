/**
 * The tree as the live view marks it (docs/rules.md#r-qa-22, #r-hand-13): what the try box's last
 * answer found while it has text, else the search's matches. It reads the box's matches itself, so an
 * answer re-renders the tree and nothing else of App, and typing does not re-render it. (The screen's
 * boxes read them in BoxLayer, `followTry`, so an answer redraws the boxes, not the screen.)
 */
import type { ComponentProps } from 'react';
import type { NodeKey } from '@shared/model/tree';
import { useMarkedKeys } from '@renderer/state/selector-try';
import { Tree } from './Tree';

type Marked<P extends { matchKeys: ReadonlySet<NodeKey> }> = Omit<P, 'matchKeys'> & { searched: ReadonlySet<NodeKey> };

export function MarkedTree({ searched, ...props }: Marked<ComponentProps<typeof Tree>>) {
  return <Tree {...props} matchKeys={useMarkedKeys(searched)} />;
}
