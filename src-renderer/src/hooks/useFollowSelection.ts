/**
 * After each new observation the selection follows the element it named (docs/rules.md#r-layout-05): found
 * again by identity (`followSelection`), re-selected under its new key when its place in the tree moved,
 * or cleared with a note saying which element left. A tree that is empty for a moment (a read in flight)
 * changes nothing.
 */
import { useEffect, useRef, useState } from 'react';
import { followSelection, nodeTitleText } from '@shared/inspect';
import type { TreeIndex } from '@shared/model/tree';
import { useInspector } from '@renderer/state/store';

export function useFollowSelection(tree: TreeIndex): string | null {
  const previous = useRef(tree);
  const [note, setNote] = useState<string | null>(null);
  useEffect(() => {
    const before = previous.current;
    if (tree.nodes.length === 0 || before === tree) return;
    previous.current = tree;
    const { selectedKey, selectNode } = useInspector.getState();
    if (selectedKey === null) return;
    const was = before.byKey.get(selectedKey);
    if (!was) return;
    // Most frames show the same element under the same key: checked first, so a heavy tree is not searched each frame.
    const there = tree.byKey.get(selectedKey);
    if (there && followSelection(was.node, [there])) return;
    const now = followSelection(was.node, tree.nodes);
    if (now) {
      if (now.key !== selectedKey) selectNode(now.key);
      return;
    }
    selectNode(null);
    setNote(`${nodeTitleText(was.node)} is not on this screen: the selection was cleared.`);
  }, [tree]);
  // A new selection replaces the note.
  const selected = useInspector((s) => s.selectedKey);
  useEffect(() => {
    if (selected !== null) setNote(null);
  }, [selected]);
  return note;
}
