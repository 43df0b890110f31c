/**
 * The two sides of a comparison each keep their own inspector store; a selection or a hover on one
 * side moves the other side to the paired node (or to nothing, when the node has no pair there).
 */
import { COMPARE_SIDES, otherSide, partnerOf, type CompareSide, type PairIndex } from '@shared/compare/sides';
import { createInspectorStore, type InspectorStore } from './store';
import type { NodeKey } from '@shared/model/tree';

export type CompareStores = Record<CompareSide, InspectorStore>;

export function createCompareStores(): CompareStores {
  return { xctest: createInspectorStore(), sdk: createInspectorStore() };
}

/**
 * Links the sides' selection and hover through the diff's pairs. `onSelect` hears each selection the
 * user made (on which side, which node), not the ones the link made to follow it. Returns the unlink.
 */
export function linkSides(stores: CompareStores, index: PairIndex, onSelect: (side: CompareSide, key: NodeKey | null) => void): () => void {
  // A change the link makes must not be followed back: for a node without a pair it would clear the
  // user's own selection.
  let following = false;
  const follow = (from: CompareSide) =>
    stores[from].subscribe((state, previous) => {
      if (following) return;
      const to = stores[otherSide(from)].getState();
      const partner = (key: NodeKey | null) => (key === null ? null : partnerOf(index, from, key));
      following = true;
      try {
        if (state.selectedKey !== previous.selectedKey) {
          to.selectNode(partner(state.selectedKey));
          onSelect(from, state.selectedKey);
        }
        if (state.hoveredKey !== previous.hoveredKey) to.hoverNode(partner(state.hoveredKey));
      } finally {
        following = false;
      }
    });
  const unlinks = COMPARE_SIDES.map(follow);
  return () => unlinks.forEach((unlink) => unlink());
}
