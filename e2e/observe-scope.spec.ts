/**
 * The observe-scope picker in the web host, on the demo device (docs/rules.md#r-scope-06): on the Edges screen
 * the content area (the screen minus its system insets) hides the buttons that only sit in the status bar,
 * from the tree and from the accessibility findings alike, and says how many nodes it hid; the whole tree
 * and every finding come back when the scope is set back. The figures compared are this run's own.
 */
import { expect, type Page } from '@playwright/test';
import { openDevice, stopAfterEach, test, sharedDemoDevice } from './harness';

const running = stopAfterEach();
/** The worker's demo device, its app relaunched on Edges; the test's own web host. */
const demoDevice = sharedDemoDevice();

const findingKeys = (page: Page) => page.getByTestId('a11y-finding').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset['nodeKey']!).sort());
const rowKeys = (page: Page) => page.getByTestId('tree-node').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset['nodeKey']!));

test('R-SCOPE-06, R-SCOPE-05: the content area narrows the shown tree and its findings alike and says so; Whole tree brings them back', async ({ page }) => {
  test.setTimeout(150_000);
  const demo = await demoDevice({ screen: 'edges' });
  await openDevice(page, running, demo.runnerUrl);
  await page.getByTestId('a11y-toggle').check();
  const findings = page.getByTestId('a11y-finding');
  await expect.poll(() => findings.count(), { timeout: 30_000 }).toBeGreaterThan(0);
  const wholeFindings = await findings.count();
  const rows = page.getByTestId('tree-node');
  const wholeRows = await rows.count();
  await expect(page.getByTestId('scope-note')).toHaveCount(0);

  await page.getByTestId('scope-select').selectOption('content');
  const note = page.getByTestId('scope-note');
  await expect(note).toHaveAttribute('data-applied', 'region');
  const before = Number(await note.getAttribute('data-nodes-before'));
  const after = Number(await note.getAttribute('data-nodes-after'));
  expect(after).toBeLessThan(before);
  await expect(note).toHaveText(`region: ${after} of ${before} nodes, ${before - after} hidden`);
  await expect.poll(() => rows.count()).toBe(wholeRows - (before - after));
  await expect.poll(() => findings.count()).toBeLessThan(wholeFindings);
  // Every finding still listed names a row of the narrowed tree.
  const shown = new Set(await rowKeys(page));
  for (const key of await findingKeys(page)) expect(shown.has(key), key).toBe(true);

  await page.getByTestId('scope-select').selectOption('whole');
  await expect(note).toHaveCount(0);
  await expect.poll(() => rows.count()).toBe(wholeRows);
  await expect.poll(() => findings.count()).toBe(wholeFindings);
});
