// @vitest-environment jsdom
/**
 * R-HAND-13: the try box evaluates off the page's thread, with a time limit. The box and the tree are
 * wired as App wires them (the panel evaluates its own text; the tree reads only the answers' matches,
 * through TryMarks), and the evaluator runs in a real
 * worker thread (tests/support/selector-try-thread.ts), the same createTryEvaluator the web worker runs.
 * The thread's gate, opened by the test, holds an evaluation as long as the test needs, so nothing here
 * depends on how fast the machine is.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Profiler, useMemo } from 'react';
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { flattenTree, indexTree } from '@shared/model/tree';
import { ViewHierarchySchema, type UiNode } from '@shared/protocol/runner';
import { SelectorsPanelWithTry } from '@renderer/components/SelectorsPanel';
import { MarkedTree } from '@renderer/components/TryMarks';
import { SelectorTryOptions } from '@renderer/hooks/useSelectorTryResult';
import { InspectorScope } from '@renderer/state/inspector-scope';
import { useSelectorTry } from '@renderer/state/selector-try';
import { createInspectorStore } from '@renderer/state/store';
import type { TryRunnerOptions } from '@renderer/state/selector-try-runner';
import { layOut } from '../support/dom-layout';
import { threadWorkers, type ThreadWorkers } from '../support/selector-try-thread';

const loginRoot: UiNode = ViewHierarchySchema.parse(
  JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'demo-observations', 'login.json'), 'utf8')),
).hierarchy!;
const keyOf = (root: UiNode, id: string) => flattenTree(root).find((f) => f.node['resource-id'] === id)!.key;

const NO_SEARCH: ReadonlySet<string> = new Set();
/** How many times the tree (App's side of the wiring) has rendered. */
let treeRenders = 0;

function Harness({ root }: { root: UiNode }) {
  const tree = useMemo(() => indexTree(root), [root]);
  return (
    <>
      <Profiler id="tree" onRender={() => void treeRenders++}>
        <MarkedTree tree={tree} searched={NO_SEARCH} />
      </Profiler>
      <SelectorsPanelWithTry root={root} tryRoot={root} />
    </>
  );
}

let workers: ThreadWorkers;
beforeEach(() => {
  useSelectorTry.getState().setText('');
  useSelectorTry.getState().answered(null);
  workers = threadWorkers();
});
afterEach(async () => {
  cleanup();
  await workers.close();
});

function show(root: UiNode, limitMs = 10_000) {
  const options: TryRunnerOptions = { createWorker: workers.create, limitMs };
  const store = createInspectorStore();
  const app = (shown: UiNode) => (
    <SelectorTryOptions.Provider value={options}>
      <InspectorScope.Provider value={store}>
        <Harness root={shown} />
      </InspectorScope.Provider>
    </SelectorTryOptions.Provider>
  );
  layOut({ '.tree': { width: 300, height: 2_000 } });
  const view = render(app(root));
  return { showTree: (shown: UiNode) => view.rerender(app(shown)) };
}

/** A worker thread boots tsx and the selectors before its first answer: seconds on a loaded machine. */
const BOOT_MS = 20_000;
const found = (id: string) => screen.findByTestId(id, {}, { timeout: BOOT_MS });
const input = () => screen.getByTestId('selector-try-input') as HTMLInputElement;
const type = (value: string) => fireEvent.change(input(), { target: { value } });
const marked = () =>
  screen
    .getAllByTestId('tree-node')
    .filter((r) => r.dataset['match'] === 'true')
    .map((r) => r.dataset['nodeKey']);

describe('R-HAND-13: the try box evaluates in a worker with a time limit', { timeout: 60_000 }, () => {
  it('R-HAND-13: a selector is answered by the worker thread and its match marked in the tree', async () => {
    show(loginRoot);
    type('~login.submit');
    const result = await found('selector-try-result');
    expect(result.textContent).toMatch(/^1 match as Appium \(accessibility id\)/);
    expect(marked()).toEqual([keyOf(loginRoot, 'login.submit')]);
    // An invalid one comes back as the reader's reason, with its syntax, as on the main thread.
    type('app.buttons[');
    expect((await found('selector-try-error')).textContent).toMatch(/^Not a selector: XCUITest: /);
    expect(workers.created).toHaveLength(1);
  });

  it('R-HAND-13: while an evaluation runs, the page keeps taking keystrokes and drawing them; only the latest text is answered', async () => {
    show(loginRoot);
    workers.hold();
    type('~login');
    expect(screen.getByTestId('selector-try-pending').textContent).toBe('Evaluating…');
    // The evaluation is held in the worker (after its selector was read); the page is not: each keystroke is taken and drawn at once.
    for (const value of ['~login.', '~login.su', '~login.submit']) {
      type(value);
      expect(input().value).toBe(value);
      expect(screen.getByTestId('selector-try-pending')).toBeTruthy();
    }
    expect(screen.queryByTestId('selector-try-result')).toBeNull();
    act(() => workers.open());
    const result = await found('selector-try-result');
    // '~login' (no such id) finished first, but only the latest text's answer is drawn.
    expect(result.dataset['count']).toBe('1');
    expect(marked()).toEqual([keyOf(loginRoot, 'login.submit')]);
  });

  it('R-HAND-13: an evaluation still running at the limit is stopped with its reason, and the next selector gets a fresh worker', async () => {
    show(loginRoot, 300);
    // The limit times the evaluation, so the thread is booted first (a browser worker boots in ms).
    type('~login.submit');
    await found('selector-try-result');
    workers.hold();
    type('//*[count(//*) > 0]');
    const error = await found('selector-try-error');
    expect(error.textContent).toBe(
      'Not a selector: Appium: evaluating it took longer than 300 ms on this screen: stopped, so the page stays responsive (a simpler selector, or one without a path inside a predicate, is evaluated in time)',
    );
    expect(marked()).toEqual([]);
    // The worker that held it is ended, its evaluation with it.
    expect(workers.created[0]!.terminated).toBe(true);
    await workers.created[0]!.exited;
    workers.open();
    type('XCUIElementTypeButton');
    await waitFor(
      () =>
        expect(screen.getByTestId('selector-try-result').dataset['count']).toBe(
          String(flattenTree(loginRoot).filter((f) => f.node.className === 'button').length),
        ),
      { timeout: BOOT_MS },
    );
    expect(workers.created).toHaveLength(2);
  });

  it('R-HAND-13: a new tree under the same text keeps the last answer until the new one comes', async () => {
    const view = show(loginRoot);
    type('~login.submit');
    await found('selector-try-result');
    workers.hold();
    const gone = structuredClone(loginRoot);
    // The next frame has no Sign In button.
    for (const f of flattenTree(gone)) if (f.node.node) f.node.node = f.node.node.filter((c) => c['resource-id'] !== 'login.submit');
    view.showTree(gone);
    expect(screen.getByTestId('selector-try-result').dataset['pending']).toBe('true');
    act(() => workers.open());
    await waitFor(() => expect(screen.getByTestId('selector-try-result').dataset['count']).toBe('0'), { timeout: BOOT_MS });
    expect(screen.getByTestId('selector-try-result').dataset['pending']).toBe('false');
  });
  it('R-HAND-13: typing renders the panel, not the tree: the tree renders again only when an answer finds other elements', async () => {
    show(loginRoot);
    type('~login.submit');
    await found('selector-try-result');
    workers.hold();
    const before = treeRenders;
    const matches = useSelectorTry.getState().matches;
    for (const value of ['~login.s', '~login', '~log']) {
      type(value);
      expect(input().value).toBe(value);
    }
    // Keystrokes: the box shows each and says it is evaluating; the marks stay the last answer's, and nothing outside the panel rendered.
    expect(screen.getByTestId('selector-try-pending')).toBeTruthy();
    expect(treeRenders).toBe(before);
    expect(useSelectorTry.getState().matches).toBe(matches);
    expect(marked()).toEqual([keyOf(loginRoot, 'login.submit')]);
    act(() => workers.open());
    // '~log' finds nothing: an answer with other matches renders the tree, which drops the mark.
    await waitFor(() => expect(screen.getByTestId('selector-try-result').dataset['count']).toBe('0'), { timeout: BOOT_MS });
    expect(treeRenders).toBeGreaterThan(before);
    expect(marked()).toEqual([]);
    // Another text that finds the same (nothing) leaves the store as it was: the tree does not render.
    const afterAnswer = treeRenders;
    type('~nowhere');
    await waitFor(() => expect(screen.getByTestId('selector-try-result').dataset['count']).toBe('0'), { timeout: BOOT_MS });
    expect(screen.getByTestId('selector-try-result').dataset['pending']).toBe('false');
    expect(treeRenders).toBe(afterAnswer);
    // Emptied, the box gives the marks back to the search.
    type('');
    expect(useSelectorTry.getState().matches).toBeNull();
  });
});
