// @vitest-environment jsdom
/**
 * WebDriverAgent's page source in the selectors panel (docs/rules.md#r-hand-08): opened, it shows the XML
 * an Appium XPath is evaluated over, and that very text, parsed again, answers an XPath as the try box
 * does; Copy puts it on the clipboard and Save hands it over as page-source.xml. On the demo's login
 * screen (tests/fixtures/demo-observations/README.md).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DOMParser } from '@xmldom/xmldom';
import * as xpath from 'xpath';
import { ViewHierarchySchema, type UiNode } from '@shared/protocol/runner';
import { trySelector } from '@shared/selectors';
import { SelectorsPanel } from '@renderer/components/SelectorsPanel';
import { InspectorScope } from '@renderer/state/inspector-scope';
import { createInspectorStore } from '@renderer/state/store';

const root: UiNode = ViewHierarchySchema.parse(
  JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'demo-observations', 'login.json'), 'utf8')),
).hierarchy!;

function open(tree: UiNode) {
  render(
    <InspectorScope.Provider value={createInspectorStore()}>
      <SelectorsPanel root={tree} tryResult={null} />
    </InspectorScope.Provider>,
  );
  const details = screen.getByTestId('page-source') as HTMLDetailsElement;
  details.open = true;
  fireEvent(details, new Event('toggle'));
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('R-HAND-08: the page source, as Appium Inspector offers it', () => {
  it('R-HAND-08: the XML shown is the one XPath is evaluated over', () => {
    open(root);
    const xml = screen.getByTestId('page-source-xml').textContent!;
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<XCUIElementTypeApplication type="XCUIElementTypeApplication"')).toBe(true);
    expect(xml).toMatch(/<XCUIElementTypeButton type="XCUIElementTypeButton"[^>]* name="login\.submit"/);
    const document = new DOMParser().parseFromString(xml, 'text/xml');
    const select = (query: string) => xpath.parse(query).evaluate({ node: document }).nodeset().toArray().length;
    for (const query of ['//XCUIElementTypeButton', '//*[@name="login.submit"]', '//XCUIElementTypeTextField[@label=""]', '//*[@enabled="true"]']) {
      const shown = select(query);
      const tried = trySelector(query, root, 'appium');
      expect(tried.ok && tried.matches.length, query).toBe(shown);
    }
    expect(select('//XCUIElementTypeButton')).toBeGreaterThan(0);
  });

  it('R-HAND-08: Copy and Save hand over the same text', async () => {
    const writeText = vi.fn(() => Promise.resolve());
    vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });
    const blobs: Blob[] = [];
    URL.createObjectURL = (blob: Blob) => (blobs.push(blob), 'blob:page-source');
    URL.revokeObjectURL = () => undefined;
    const clicked: string[] = [];
    HTMLAnchorElement.prototype.click = function (this: HTMLAnchorElement) {
      clicked.push(this.download);
    };
    open(root);
    const xml = screen.getByTestId('page-source-xml').textContent!;
    fireEvent.click(screen.getByTestId('page-source-copy'));
    await waitFor(() => expect(screen.getByTestId('page-source-copy').dataset['copied']).toBe('copied'));
    expect(writeText).toHaveBeenCalledWith(xml);
    fireEvent.click(screen.getByTestId('page-source-save'));
    expect(clicked).toEqual(['page-source.xml']);
    expect(await blobs[0]!.text()).toBe(xml);
  });

  it('R-HAND-08: a screen over the page source limit says so instead of building it', () => {
    open({ className: 'XCUIApplication', node: Array.from({ length: 5_000 }, (_, i) => ({ className: 'UIButton', text: `b${i}` })) } as unknown as UiNode);
    expect(screen.getByTestId('page-source-error').textContent).toMatch(/5,001 elements; WebDriverAgent's page source is built here for at most 5,000/);
  });
});
