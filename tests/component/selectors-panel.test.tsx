// @vitest-environment jsdom
/**
 * The selectors panel as a QA engineer uses it (docs/rules.md#r-qa-21, #r-qa-22), on the demo's login
 * screen: a node picked in the tree gets its Maestro, XCUITest, Appium and Parallax CLI selectors, each
 * with what it finds on the screen shown; Try puts a selector in the box and the tree marks what it
 * finds; text that is not a selector is refused with the reason. The harness wires the box to the panel
 * and the tree as App does (trySelector on the box's text; its matches are the tree's marks).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useMemo } from 'react';
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { flattenTree, indexTree } from '@shared/model/tree';
import { ViewHierarchySchema, type UiNode } from '@shared/protocol/runner';
import { trySelector } from '@shared/selectors';
import { SelectorsPanel } from '@renderer/components/SelectorsPanel';
import { Tree } from '@renderer/components/Tree';
import { InspectorScope } from '@renderer/state/inspector-scope';
import { useSelectorTry } from '@renderer/state/selector-try';
import { createInspectorStore } from '@renderer/state/store';
import { layOut } from '../support/dom-layout';

// The demo's login screen as the runner reports it (tests/fixtures/demo-observations/README.md).
const root: UiNode = ViewHierarchySchema.parse(
  JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'demo-observations', 'login.json'), 'utf8')),
).hierarchy!;
const tree = indexTree(root);
const keyOf = (id: string) => flattenTree(root).find((f) => f.node['resource-id'] === id)!.key;
const SUBMIT = keyOf('login.submit');
const BUTTONS = flattenTree(root).filter((f) => f.node.className === 'button').length;

function Harness() {
  const text = useSelectorTry((s) => s.text);
  const tryResult = useMemo(() => (text.trim() === '' ? null : trySelector(text, root)), [text]);
  const matchKeys = useMemo(() => new Set(tryResult?.ok ? tryResult.matches : []), [tryResult]);
  return (
    <>
      <Tree tree={tree} matchKeys={matchKeys} />
      <SelectorsPanel root={root} tryResult={tryResult} />
    </>
  );
}

function show() {
  const store = createInspectorStore();
  layOut({ '.tree': { width: 300, height: 2_000 } });
  render(
    <InspectorScope.Provider value={store}>
      <Harness />
    </InspectorScope.Provider>,
  );
  return store;
}

const treeRow = (key: string) => screen.getAllByTestId('tree-node').find((r) => r.dataset['nodeKey'] === key)!;
const marked = () =>
  screen
    .getAllByTestId('tree-node')
    .filter((r) => r.dataset['match'] === 'true')
    .map((r) => r.dataset['nodeKey']);
const rows = () => screen.getAllByTestId('selector-row');
const rowFor = (selector: string) => rows().find((r) => r.querySelector('code')?.textContent === selector)!;

beforeEach(() => useSelectorTry.getState().setText(''));
afterEach(cleanup);

describe('R-QA-21: the selectors of the selected node', () => {
  it('with nothing selected, the panel asks for a node', () => {
    show();
    expect(screen.getByText('Select a node to see the selectors that find it.')).toBeTruthy();
    expect(screen.queryAllByTestId('selector-row')).toEqual([]);
  });

  it('the Sign In button picked in the tree gets selectors for Maestro, XCUITest, Appium and the CLI, each finding it once', () => {
    show();
    fireEvent.click(treeRow(SUBMIT));
    expect(treeRow(SUBMIT).dataset['selected']).toBe('true');
    expect(screen.getByTestId('selectors').dataset['nodeKey']).toBe(SUBMIT);
    const syntaxes = rows().map((r) => r.querySelector('.selector-syntax')?.textContent);
    expect(new Set(syntaxes)).toEqual(new Set(['Maestro', 'XCUITest', 'Appium', 'Parallax CLI']));
    // Most robust first: the identifier in each tool.
    expect(rowFor("id: 'login\\.submit'")).toBeTruthy();
    expect(rowFor('app.buttons["login.submit"]')).toBeTruthy();
    expect(rowFor('--id login.submit')).toBeTruthy();
    const appium = rows().filter((r) => r.dataset['syntax'] === 'appium');
    expect(appium[0]!.querySelector('.selector-strategy')?.textContent).toBe('accessibility id');
    expect(appium.at(-1)!.querySelector('.selector-strategy')?.textContent).toBe('xpath');
    // Each one finds exactly this node on the screen shown, and says so.
    for (const r of rows()) {
      expect(within(r).getByTestId('selector-count').textContent, r.dataset['selector']).toBe('1 match');
      expect(r.dataset['findsTarget']).toBe('true');
    }
  });

  it('a selector that needs its position says how many match without it', () => {
    show();
    fireEvent.click(treeRow(SUBMIT));
    // "Sign In" is the navigation title too.
    const byText = rowFor("text: 'Sign In'\nindex: 1");
    expect(within(byText).getByText(/^2 elements match without the position/)).toBeTruthy();
    const byType = rowFor('app.buttons.element(boundBy: 0)');
    expect(within(byType).getByText(new RegExp(`^${BUTTONS} elements match without the position`))).toBeTruthy();
  });
});

describe('R-QA-22: trying a selector', () => {
  it('Try puts the selector in the box, says what it finds, and the tree marks just that node', () => {
    show();
    fireEvent.click(treeRow(SUBMIT));
    expect(marked()).toEqual([]);
    fireEvent.click(within(rowFor('app.buttons["login.submit"]')).getByTestId('selector-try'));
    expect((screen.getByTestId('selector-try-input') as HTMLInputElement).value).toBe('app.buttons["login.submit"]');
    const status = screen.getByRole('status');
    expect(status.textContent).toMatch(/^1 match as XCUITest \(query\) in what XCTest reports/);
    expect(marked()).toEqual([SUBMIT]);
    // An Appium selector goes in with its strategy, so the box reads it as Appium and not as bare text.
    fireEvent.click(within(rows().find((r) => r.dataset['strategy'] === 'accessibility id')!).getByTestId('selector-try'));
    expect((screen.getByTestId('selector-try-input') as HTMLInputElement).value).toBe('accessibility id: login.submit');
    expect(screen.getByRole('status').textContent).toMatch(/^1 match as Appium \(accessibility id\)/);
    expect(marked()).toEqual([SUBMIT]);
  });

  it('R-HAND-15: Try puts a Maestro selector of several lines in the one-line box as the flow mapping that reads back the same', () => {
    show();
    fireEvent.click(treeRow(SUBMIT));
    const row = rowFor("text: 'Sign In'\nindex: 1");
    fireEvent.click(within(row).getByTestId('selector-try'));
    expect((screen.getByTestId('selector-try-input') as HTMLInputElement).value).toBe("{text: 'Sign In', index: 1}");
    expect(screen.getByRole('status').textContent).toMatch(/^1 match as Maestro/);
    expect(marked()).toEqual([row.dataset['target']]);
  });

  it('a typed selector that finds several marks every one of them, and Escape clears the marks', () => {
    show();
    const input = screen.getByTestId('selector-try-input');
    fireEvent.change(input, { target: { value: '//XCUIElementTypeButton' } });
    expect(screen.getByRole('status').textContent).toMatch(new RegExp(`^${BUTTONS} matches as Appium \\(xpath\\)`));
    const buttons = flattenTree(root)
      .filter((f) => f.node.className === 'button')
      .map((f) => f.key);
    expect(marked()).toEqual(buttons);
    fireEvent.keyDown(input, { key: 'Escape' });
    expect(marked()).toEqual([]);
    expect(screen.queryByRole('status')).toBeNull();
  });

  it('a selector that finds nothing says "no match" and marks nothing', () => {
    show();
    fireEvent.change(screen.getByTestId('selector-try-input'), { target: { value: '--text Nowhere' } });
    expect(screen.getByRole('status').textContent).toMatch(/^no match as Parallax CLI \(--text\) on the merged tree/);
    expect(marked()).toEqual([]);
  });

  it.each([
    ['app.buttons[', 'Not a selector: XCUITest: a subscript takes a string: the identifier, label or value to find (at character 13)'],
    ["id: 'login.submit", 'Not a selector: Maestro: a single-quoted value is not closed (at character 18)'],
    ['//*[', 'Not a selector: Appium: XPath: expected "]" to close the one here (at character 4)'],
  ])('%s is refused with its reason, and nothing is marked', (text, reason) => {
    show();
    // A valid selector first, so a refused one must also take its marks away.
    act(() => useSelectorTry.getState().setText('~login.submit'));
    expect(marked()).toEqual([SUBMIT]);
    fireEvent.change(screen.getByTestId('selector-try-input'), { target: { value: text } });
    expect(screen.getByRole('alert').textContent).toBe(reason);
    expect(screen.queryByRole('status')).toBeNull();
    expect(marked()).toEqual([]);
  });
});
