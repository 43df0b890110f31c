/**
 * WebDriverAgent's page source of the screen shown (docs/selectors.md#s-page-source, docs/rules.md#r-hand-08):
 * the XML an Appium XPath is evaluated over, to read, copy and save, as Appium Inspector offers it. Built
 * only while it is open, from what XCTest reports; a screen over the page source limit says so.
 */
import { memo, useMemo, useState } from 'react';
import type { UiNode } from '@shared/protocol/runner';
import { indexScreen, pageSourceXml, SelectorError } from '@shared/selectors';
import { CopyButton } from './CopyButton';

function pageSourceText(root: UiNode): { xml: string } | { error: string } {
  try {
    // The tree XCTest reported, with what the merge moved back in place (docs/rules.md#r-hand-10).
    const screen = indexScreen(root);
    return { xml: pageSourceXml((screen.xctestReported()?.screen ?? screen).xctest) };
  } catch (error) {
    if (error instanceof SelectorError) return { error: error.reason };
    throw error;
  }
}

function save(xml: string): void {
  const url = URL.createObjectURL(new Blob([xml], { type: 'application/xml' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = 'page-source.xml';
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Memoized: the selectors panel renders on every keystroke in its try box; the XML need not (docs/rules.md#r-hand-13). */
export const PageSource = memo(function PageSource({ root }: { root: UiNode | undefined }) {
  const [open, setOpen] = useState(false);
  const source = useMemo(() => (open && root ? pageSourceText(root) : null), [open, root]);
  return (
    <details className="page-source" data-testid="page-source" onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}>
      <summary title="The XML WebDriverAgent evaluates an Appium XPath over, from what XCTest reports">Page source (WebDriverAgent XML)</summary>
      {!root ? (
        <div className="empty-note">No screen yet.</div>
      ) : source && 'error' in source ? (
        <div className="selector-try-error" data-testid="page-source-error" role="alert">
          {source.error}
        </div>
      ) : source ? (
        <>
          <div className="selector-try-line">
            <CopyButton text={source.xml} testId="page-source-copy" title="Copy the page source XML" />
            <button type="button" className="copy-button" data-testid="page-source-save" title="Save as page-source.xml" onClick={() => save(source.xml)}>
              Save
            </button>
          </div>
          <pre className="page-source-xml" data-testid="page-source-xml">
            {source.xml}
          </pre>
        </>
      ) : null}
    </details>
  );
});
