/**
 * The selectors panel, try-a-selector and copy (docs/rules.md#r-qa-20 … #r-qa-22), on the demo's login
 * screen: every selector shown finds the node it was made for when tried, a tried selector highlights
 * every match on the screen and in the tree, an invalid one says why, and Copy puts the text on the
 * clipboard.
 */
import { expect, type Page } from '@playwright/test';
import { boxCentre, serveDevice, sharedDemoDevice, stopAfterEach, urlIn, type DemoUrls, test } from './harness';

const running = stopAfterEach();
/** One demo device for the file, its app relaunched on Sign In (faults off) before each test; each test its own host. */
const demoDevice = sharedDemoDevice();

async function start(page: Page): Promise<DemoUrls> {
  const urls = await demoDevice({ screen: 'login' });
  const host = await serveDevice(running, urls.runnerUrl);
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(urlIn(host.line));
  await expect(page.getByTestId('device-item')).toHaveAttribute('data-state', 'connected');
  await expect(page.getByTestId('screen-image')).toBeVisible();
  return urls;
}

async function pick(page: Page, id: string): Promise<string> {
  const p = await boxCentre(page, id);
  await page.mouse.click(p.x, p.y);
  await expect(page.locator('[data-testid="attr-ios-row"][data-name="identifier"]')).toContainText(id);
  return (await page.locator('.attributes').getAttribute('data-node-key'))!;
}

const clipboard = (page: Page) => page.evaluate(() => navigator.clipboard.readText());

test('R-QA-21: every selector shown for the Sign In button finds it, once, when tried; ranked with its id first, and each in every syntax', async ({
  page,
}) => {
  await start(page);
  const key = await pick(page, 'login.submit');
  const rows = page.getByTestId('selector-row');
  await expect(rows.first()).toBeVisible();
  const list = await rows.evaluateAll((els) => els.map((e) => ({ ...(e as HTMLElement).dataset })));
  expect(new Set(list.map((r) => r.syntax))).toEqual(new Set(['maestro', 'xcuitest', 'appium', 'parallax']));
  for (const row of list) {
    expect(row.count, row.selector).toBe('1');
    expect(row.findsTarget, row.selector).toBe('true');
  }
  // Most robust first: the id, in Maestro and XCUITest; XPath last among Appium.
  // Maestro reads id: as a regular expression: the dot is escaped.
  expect(list.find((r) => r.syntax === 'maestro')!.selector).toBe("id: 'login\\.submit'");
  expect(list.find((r) => r.syntax === 'xcuitest')!.selector).toBe('app.buttons["login.submit"]');
  const appium = list.filter((r) => r.syntax === 'appium');
  expect(appium[0]!.strategy).toBe('accessibility id');
  expect(appium.at(-1)!.strategy).toBe('xpath');

  // Tried one by one, each highlights exactly this button on the screen and in the tree.
  for (let i = 0; i < list.length; i++) {
    await rows.nth(i).getByTestId('selector-try').click();
    const result = page.getByTestId('selector-try-result');
    await expect(result, list[i]!.selector).toHaveAttribute('data-count', '1');
    const matched = page.locator('[data-testid="box"][data-match="true"]');
    await expect(matched).toHaveCount(1);
    // What it finds is the node it was made for (the XCTest node, or the bridge node standing for it).
    await expect(matched).toHaveAttribute('data-node-key', list[i]!.target!);
    if (list[i]!.visibleTo === 'xctest' && list[i]!.syntax !== 'parallax') expect(list[i]!.target).toBe(key);
    await expect(page.locator('[data-testid="tree-node"][data-match="true"]')).toHaveCount(1);
  }
});

test('R-QA-21: a node only the SDK bridge reports has its bridge-only selectors marked', async ({ page }) => {
  await start(page);
  // Walk the bridge's boxes until one has a selector only the bridge can resolve.
  const rows = page.getByTestId('selector-row');
  const keys = await page.locator('[data-testid="box"][data-source="sdkBridge"]').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.nodeKey!));
  let marked = 0;
  for (const key of keys) {
    await page.locator(`[data-testid="tree-node"][data-node-key="${key}"]`).click();
    await expect(page.locator('.attributes')).toHaveAttribute('data-node-key', key);
    await expect(rows.first().or(page.getByTestId('selectors-none'))).toBeVisible();
    marked = await rows.locator('[data-testid="selector-bridge-only"]').count();
    if (marked > 0) break;
  }
  expect(marked, 'some bridge-only node on the login screen').toBeGreaterThan(0);
  const bridgeOnly = page.locator('[data-testid="selector-row"][data-visible-to="sdkBridge"]').first();
  await expect(bridgeOnly.getByTestId('selector-bridge-only')).toHaveAttribute('title', /plain XCTest .* will not find it/);
});

test('R-QA-22: a tried selector highlights every match on the screen and in the tree, and says how many; an invalid one says why', async ({ page }) => {
  await start(page);
  const input = page.getByTestId('selector-try-input');
  await input.fill('XCUIElementTypeButton');
  const result = page.getByTestId('selector-try-result');
  await expect(result).toBeVisible();
  const n = Number(await result.getAttribute('data-count'));
  expect(n).toBeGreaterThanOrEqual(2);
  await expect(result).toContainText(`${n} matches`);
  await expect(page.locator('[data-testid="box"][data-match="true"]')).toHaveCount(n);
  await expect(page.locator('[data-testid="tree-node"][data-match="true"]')).toHaveCount(n);

  await input.fill("label == 'Sign In' AND type == 'XCUIElementTypeButton'");
  await expect(result).toHaveAttribute('data-count', '1');
  await expect(result).toContainText('Appium');

  await input.fill('app.buttons[');
  const error = page.getByTestId('selector-try-error');
  await expect(error).toBeVisible();
  await expect(error).toContainText('XCUITest');
  await expect(page.locator('[data-testid="box"][data-match="true"]')).toHaveCount(0);

  await input.fill('hello there');
  await expect(error).toContainText('is not a selector in any syntax');
  await input.press('Escape');
  await expect(error).toHaveCount(0);
  await expect(result).toHaveCount(0);
});

test("R-QA-20: a selector, an attribute, a subtree as JSON and a step's result and reason copy to the clipboard", async ({ page, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const demo = await start(page);
  await pick(page, 'login.submit');

  const row = page.locator('[data-testid="selector-row"][data-syntax="xcuitest"]').first();
  await row.getByTestId('selector-copy').click();
  await expect(row.getByTestId('selector-copy')).toHaveAttribute('data-copied', 'copied');
  expect(await clipboard(page)).toBe('app.buttons["login.submit"]');

  const identifier = page.locator('[data-testid="attr-ios-row"][data-name="identifier"]');
  await identifier.hover();
  await identifier.getByTestId('attr-copy').click();
  expect(await clipboard(page)).toBe('login.submit');

  await page.getByTestId('copy-subtree').click();
  const subtree = JSON.parse(await clipboard(page)) as Record<string, unknown>;
  expect(JSON.stringify(subtree)).toContain('login.submit');

  // A step refused by the bridge: its reason and its result.
  await fetch(`${demo.adminUrl}/faults`, { method: 'POST', body: JSON.stringify({ faults: ['bridge-reject=stale_observation'] }) });
  await page.getByTestId('mode-toggle').click();
  const signIn = await boxCentre(page, 'login.submit');
  await page.mouse.click(signIn.x, signIn.y);
  const step = page.getByTestId('timeline-step').first();
  await expect(step).toHaveAttribute('data-outcome', 'notRun', { timeout: 20_000 });
  await step.click();
  await expect(page.getByTestId('step-detail')).toBeVisible();
  await page.getByTestId('copy-step-result').click();
  const copied = JSON.parse(await clipboard(page)) as { request: unknown; result: { ok?: boolean } };
  expect(JSON.stringify(copied.result)).toContain('stale_observation');
  expect(copied.request).toMatchObject({ action: 'tap' });
  await page.getByTestId('copy-step-reason').click();
  expect(await clipboard(page)).toMatch(/^[a-z_]+: .+/);
});
