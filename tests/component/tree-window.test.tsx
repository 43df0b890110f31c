// @vitest-environment jsdom
/**
 * The tree on a heavy screen (docs/rules.md#r-perf-02): only the rows in view are in the page, a scroll
 * brings the rows at its offset, and selecting a node far down (from the screen) scrolls the tree to its
 * row and marks it. jsdom lays nothing out, so the tree's scroll container gets a browser's height.
 */
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { indexTree } from '@shared/model/tree';
import type { UiNode } from '@shared/protocol/runner';

import { InspectorScope } from '@renderer/state/inspector-scope';
import { createInspectorStore } from '@renderer/state/store';
import { Tree, TREE_ROW_HEIGHT } from '@renderer/components/Tree';
import { layOut } from '../support/dom-layout';

const COUNT = 10_000;
const root = {
  className: 'XCUIApplication',
  bounds: { left: 0, top: 0, right: 400, bottom: 800 },
  node: Array.from({ length: COUNT }, (_, i) => ({ className: 'StaticText', text: `tile ${i}`, bounds: { left: 0, top: i, right: 10, bottom: i + 1 } })),
} as unknown as UiNode;
const tree = indexTree(root);

afterEach(cleanup);

function show(shown = tree) {
  const store = createInspectorStore();
  layOut({ '.tree': { width: 300, height: 400 } });
  render(
    <InspectorScope.Provider value={store}>
      <Tree tree={shown} matchKeys={new Set()} />
    </InspectorScope.Provider>,
  );
  return { store, container: screen.getByTestId('tree') };
}

const drawnTexts = () => screen.queryAllByTestId('tree-node').map((row) => row.querySelector('.tree-caption')?.textContent ?? '');

describe('R-PERF-02: the tree window', () => {
  it('puts only the rows in view (and a margin) in the page, of 10,001', () => {
    const { container } = show();
    expect(container.dataset['rows']).toBe(String(COUNT + 1));
    const rows = screen.getAllByTestId('tree-node');
    expect(rows.length).toBeGreaterThan(400 / TREE_ROW_HEIGHT);
    expect(rows.length).toBeLessThan(100);
    expect(screen.getByText('10001 nodes')).toBeTruthy();
  });

  it('a scroll shows the rows at the new offset', () => {
    const { container } = show();
    container.scrollTop = 5_000 * TREE_ROW_HEIGHT;
    fireEvent.scroll(container);
    const texts = drawnTexts();
    // Row 5000 is the root's 4,999th child; the first rows are gone from the page.
    expect(texts.some((t) => t.includes('tile 4999'))).toBe(true);
    expect(texts.some((t) => /tile 1\b/.test(t))).toBe(false);
  });

  it('selecting a node far down scrolls the tree to its row and marks it selected', () => {
    const { store, container } = show();
    const far = tree.nodes[9_000]!.key;
    act(() => store.getState().selectNode(far));
    expect(container.scrollTop).toBeGreaterThan(8_000 * TREE_ROW_HEIGHT);
    fireEvent.scroll(container);
    const row = screen.getAllByTestId('tree-node').find((r) => r.dataset['nodeKey'] === far);
    expect(row?.dataset['selected']).toBe('true');
  });

  it('a selection already in view leaves the scroll where it is', () => {
    const { store, container } = show();
    container.scrollTop = 5_000 * TREE_ROW_HEIGHT;
    fireEvent.scroll(container);
    act(() => store.getState().selectNode(tree.nodes[5_005]!.key));
    expect(container.scrollTop).toBe(5_000 * TREE_ROW_HEIGHT);
  });

  it('a short tree draws every row, a scroll past the end keeps the last rows, an empty tree says so', () => {
    const short = indexTree({ ...root, node: (root.node ?? []).slice(0, 4) } as UiNode);
    const { container } = show(short);
    expect(screen.getAllByTestId('tree-node')).toHaveLength(5);
    container.scrollTop = 1e9;
    fireEvent.scroll(container);
    expect(drawnTexts().some((t) => t.includes('tile 3'))).toBe(true);
    cleanup();
    show(indexTree(null));
    expect(screen.queryAllByTestId('tree-node')).toHaveLength(0);
    expect(screen.getByText('No hierarchy.')).toBeTruthy();
  });
});
