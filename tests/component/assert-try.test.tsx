// @vitest-environment jsdom
/**
 * R-ASRT-01 with R-HAND-13: while the device records, the assert controls offer the one element the try
 * box finds, read from the box's answers (the store the screen and the tree read), not from App: the
 * box's text never reaches them. The host is a stub transport answering `recording.status`; the login
 * screen is the demo's (tests/fixtures/demo-observations/README.md).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { act, cleanup, fireEvent, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flattenTree, indexTree } from '@shared/model/tree';
import type { DeviceSummary } from '@shared/protocol/device';
import { ViewHierarchySchema, type UiNode } from '@shared/protocol/runner';
import { AssertControls } from '@renderer/components/AssertControls';
import { InspectorScope } from '@renderer/state/inspector-scope';
import { useSelectorTry } from '@renderer/state/selector-try';
import { createInspectorStore } from '@renderer/state/store';
import { renderOverHost, stubTransport } from '../support/stub-host';

const root: UiNode = ViewHierarchySchema.parse(
  JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'demo-observations', 'login.json'), 'utf8')),
).hierarchy!;
const tree = indexTree(root);
const keyOf = (id: string) => flattenTree(root).find((f) => f.node['resource-id'] === id)!.key;
const device = { id: 'demo-1', name: 'Demo', kind: 'runner', state: 'connected' } as unknown as DeviceSummary;

function show() {
  const transport = stubTransport((method) => {
    if (method === 'recording.status') return { recording: true, deviceId: device.id };
    throw new Error(`unexpected ${method}`);
  });
  const sent = vi.fn(async () => undefined);
  renderOverHost(
    transport,
    <InspectorScope.Provider value={createInspectorStore()}>
      <AssertControls device={device} tree={tree} act={sent} />
    </InspectorScope.Provider>,
  );
  return sent;
}

beforeEach(() => {
  useSelectorTry.getState().setText('');
  useSelectorTry.getState().answered(null);
});
afterEach(cleanup);

describe('R-ASRT-01: the assert controls offer the try box’s one match', () => {
  it('R-ASRT-01: an answer finding one element offers it; two, or none, offer nothing (nothing is selected)', async () => {
    const sent = show();
    // Recording, nothing selected, the box empty: nothing to assert on.
    await act(async () => {});
    expect(screen.queryByTestId('assert-controls')).toBeNull();
    act(() => useSelectorTry.getState().answered([keyOf('login.submit')]));
    const controls = await screen.findByTestId('assert-controls');
    expect(controls.dataset['source']).toBe('try');
    expect(controls.textContent).toMatch(/^Assert the try box’s match:/);
    fireEvent.click(screen.getByTestId('assert-visible'));
    expect(sent).toHaveBeenCalledWith({ action: 'assert', target: { id: 'login.submit' }, check: 'visible' });
    // Typing changes only the text: the controls keep the last answer's element until another answer comes.
    act(() => useSelectorTry.getState().setText('~login.'));
    expect(screen.getByTestId('assert-controls').dataset['source']).toBe('try');
    act(() => useSelectorTry.getState().answered([keyOf('login.submit'), keyOf('login.passkey')]));
    expect(screen.queryByTestId('assert-controls')).toBeNull();
    act(() => useSelectorTry.getState().answered(null));
    expect(screen.queryByTestId('assert-controls')).toBeNull();
  });
});
