// @vitest-environment jsdom
/**
 * The attributes table of the selected node (docs/rules.md#r-show-01, #r-qa-20): the wire's own rows
 * first, then the rows the inspector's merge added, in a group of their own; a bidi control in a value
 * is shown as its code point while Copy copies the value as sent.
 */
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { indexTree } from '@shared/model/tree';
import type { UiNode } from '@shared/protocol/runner';
import { Attributes } from '@renderer/components/Attributes';
import { InspectorScope } from '@renderer/state/inspector-scope';
import { createInspectorStore } from '@renderer/state/store';

const LABEL = 'Pay \u202Eevil';
const root: UiNode = {
  className: 'Window',
  bounds: { left: 0, top: 0, right: 400, bottom: 800 },
  node: [{ className: 'Button', text: LABEL, 'resource-id': 'pay', 'sdk-element-id': 'sdk.pay', bounds: { left: 0, top: 0, right: 100, bottom: 40 } }],
} as UiNode;

function show() {
  const tree = indexTree(root);
  const store = createInspectorStore();
  store.getState().selectNode('0.0');
  render(
    <InspectorScope.Provider value={store}>
      <Attributes tree={tree} appReveal />
    </InspectorScope.Provider>,
  );
}

const row = (name: string, group?: string) => screen.getAllByTestId('attr-row').find((r) => r.dataset['name'] === name && r.dataset['group'] === group);

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('R-SHOW-01, R-QA-20: the attributes table', () => {
  it('R-SHOW-01, R-QA-20: a row shows its bidi control as a code point and copies the value as sent; a merged row stands in its group', async () => {
    const writeText = vi.fn(() => Promise.resolve());
    vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });
    show();
    const text = row('text')!;
    expect(text.querySelector('.attr-value')?.textContent).toBe('Pay <U+202E>evil');
    await act(async () => {
      fireEvent.click(text.querySelector('[data-testid="attr-copy"]')!);
    });
    expect(writeText).toHaveBeenCalledWith(LABEL);
    // The merge's identity is in the merged group, not among the wire's own rows.
    expect(row('sdk-element-id', 'merged')?.querySelector('.attr-value')?.textContent).toBe('sdk.pay');
    expect(row('sdk-element-id')).toBeUndefined();
    expect(screen.getByTestId('attr-merged').contains(row('sdk-element-id', 'merged')!)).toBe(true);
    expect(row('resource-id')?.querySelector('.attr-value')?.textContent).toBe('pay');
  });
});
