/**
 * The selectors panel on a heavy screen (docs/rules.md#r-perf-11): on a recorded 50,000-node board
 * played by the replay device, a selection is marked first and its selectors follow in tasks of their
 * own, the panel saying it is finding them meanwhile; a selection made before the last one's selectors
 * were found replaces it, whose selectors are never shown (that its work is cancelled, not just
 * outrun, is u/selectors-after-paint's).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { writeHeavyRecording } from '@demo/heavy-recording';
import { runParallax, stopAfterEach, urlIn } from './harness';

const running = stopAfterEach();
const NODES = 50_000;
let folder: string | undefined;

test.beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'parallax-selectors-heavy-e2e-'));
  writeHeavyRecording(folder, { nodes: NODES });
});
test.afterAll(async () => {
  if (folder) await rm(folder, { recursive: true, force: true });
});

test("R-PERF-11: on a 50,000-node screen the panel finds a selection's selectors after it is drawn, and a second selection replaces the first's, never shown", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const host = await runParallax(['serve', '--replay', folder as string, '--no-default-device'], /^Parallax web host: /, 60_000);
  running.push(host);
  await page.goto(urlIn(host.line));
  await page.getByTestId('device-item').click();
  await expect(page.getByTestId('tree')).toHaveAttribute('data-rows', String(NODES), { timeout: 60_000 });
  const live = page.getByTestId('live-toggle');
  if ((await live.getAttribute('data-live')) === 'true') await live.click();
  await expect(live).toHaveAttribute('data-live', 'false');

  // Every node the panel's selectors are ever for, as it shows them.
  const panel = page.getByTestId('selectors-panel');
  await panel.evaluate((el) => {
    const seen: string[] = [];
    (window as unknown as { __panelKeys: string[] }).__panelKeys = seen;
    new MutationObserver(() => seen.push(el.getAttribute('data-node-key') ?? '')).observe(el, { attributes: true, attributeFilter: ['data-node-key'] });
  });
  // The first tile's title and value, clicked one after the other before the next frame: the second
  // selection comes before the first's work can run.
  const keys = await page
    .locator('[data-testid="tree-node"]')
    .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-node-key')!).filter((k) => /^0\.1\.0\.0\.[01]$/.test(k)));
  const [first, second] = keys as [string, string];
  expect(second).toBeDefined();
  const finding = await page.evaluate(
    async ([a, b]) => {
      const rowOf = (key: string) => document.querySelector(`[data-testid="tree-node"][data-node-key="${key}"]`) as HTMLElement;
      // React renders a selection in a microtask after its click, well before the next frame: the
      // first one's work is scheduled when the second comes.
      const rendered = async () => {
        for (let i = 0; i < 5; i++) await Promise.resolve();
      };
      rowOf(a).click();
      await rendered();
      if (document.querySelector('[data-testid="tree-node"][aria-selected="true"]')?.getAttribute('data-node-key') !== a)
        return 'the first click selected nothing';
      rowOf(b).click();
      await rendered();
      // Its selectors are being found.
      return document.querySelector('[data-testid="selectors-finding"]')?.textContent ?? null;
    },
    [first, second] as const,
  );
  expect(finding).toBe('Finding selectors…');
  await expect(panel).toHaveAttribute('data-node-key', second);
  await expect(page.getByTestId('selectors-finding')).toHaveCount(0);
  // The value's text finds it: Maestro's text selector, counted on this screen.
  const row = page.locator(`[data-testid="selector-row"][data-syntax="maestro"][data-target="${second}"]`).first();
  await expect(row).toHaveAttribute('data-count', '1');
  expect(await page.evaluate(() => (window as unknown as { __panelKeys: string[] }).__panelKeys)).toEqual([second]);
});
