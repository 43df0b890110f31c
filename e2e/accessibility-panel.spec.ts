/**
 * The live Accessibility panel (docs/rules.md#r-a11y-17) through the real app in Chromium, against the demo
 * device's `access` screen over its real ports: with the audit on, the host audits each frame (contrast read
 * from the device's real screenshot) and the panel lists a finding for every rule the page plants
 * (resources/demo-app/index.html: data-planted); picking one selects its element in the attributes, the tree
 * and on the screen; a finding muted stays listed as muted, and is still muted after the device is
 * disconnected and connected again, and after the host itself is started again (the device's profile in
 * the settings file).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, type Page } from '@playwright/test';
import { ROOT, serveDevice, stopAfterEach, urlIn, test, sharedDemoDevice } from './harness';

const running = stopAfterEach();
/** The worker's demo device, its app relaunched on the access screen; the test's own web hosts (the mute is the host's setting, not the device's). */
const demoDevice = sharedDemoDevice();

/** The rules the access screen plants, from the page's own source. */
function plantedRules(): string[] {
  const html = readFileSync(join(ROOT, 'resources', 'demo-app', 'index.html'), 'utf8');
  const section = html.slice(html.indexOf('id="screen-access"'), html.indexOf('<!-- The tab bar'));
  return [...new Set([...section.matchAll(/data-planted="([^"]+)"/g)].map((m) => m[1]!))].sort();
}

const INFO = 'R-A11Y-07|access.info';
const finding = (page: Page, fingerprint: string) => page.locator(`[data-testid="a11y-finding"][data-fingerprint="${fingerprint}"]`);

async function openAudited(page: Page, hostLine: string): Promise<void> {
  await page.goto(urlIn(hostLine));
  await expect(page.getByTestId('device-item')).toHaveAttribute('data-state', 'connected');
  await expect(page.getByTestId('screen-image')).toBeVisible();
  await page.getByTestId('a11y-toggle').check();
  await expect(finding(page, INFO)).toBeVisible({ timeout: 30_000 });
}

test('R-A11Y-17: the panel lists the access screen’s planted findings, picking one selects its element, and a mute outlives a reconnect and a host restart', async ({
  page,
}) => {
  test.setTimeout(240_000);
  const urls = await demoDevice({ screen: 'access' });
  await page.setViewportSize({ width: 1440, height: 1000 });
  let host = await serveDevice(running, urls.runnerUrl);
  await openAudited(page, host.line);

  // Every planted rule is listed (the contrast one measured on the device's own screenshot).
  const rules = await page.getByTestId('a11y-finding').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset['rule']!));
  const planted = plantedRules();
  expect(planted.length).toBeGreaterThanOrEqual(10);
  for (const rule of planted) expect(rules, rule).toContain(rule);
  // R-A11Y-12: of the two promos with one text, only the one the screen's edge cuts is listed and outlined; the one that wraps is not.
  const clipped = await page
    .locator('[data-testid="a11y-finding"][data-rule="R-A11Y-12"]')
    .evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset['fingerprint']!));
  expect(clipped).toEqual(['R-A11Y-12|access.promo.clipped']);
  await expect(page.locator('[data-testid="a11y-mark"][data-fingerprint="R-A11Y-12|access.promo.clipped"]')).toHaveCount(1);
  await expect(page.locator('[data-testid="a11y-finding"][data-fingerprint*="access.promo.wrapped"]')).toHaveCount(0);
  const contrast = page.locator('[data-testid="a11y-finding"][data-rule="R-A11Y-09"]').first();
  await expect(contrast.getByTestId('a11y-colors')).toContainText('#');

  // Picking the tiny Info button's finding selects the button: attributes, tree and screen agree.
  const row = finding(page, INFO);
  const key = (await row.getAttribute('data-node-key'))!;
  await row.getByTestId('a11y-finding-pick').click();
  await expect(page.locator('.attributes')).toHaveAttribute('data-node-key', key);
  await expect(page.locator('[data-testid="attr-ios-row"][data-name="identifier"]')).toContainText('access.info');
  await expect(page.locator(`[data-testid="tree-node"][data-node-key="${key}"]`)).toHaveAttribute('data-selected', 'true');
  await expect(page.locator(`[data-testid="tree-node"][data-node-key="${key}"] [data-testid="tree-a11y"]`)).toBeVisible();
  const mark = page.locator(`[data-testid="a11y-mark"][data-fingerprint="${INFO}"]`);
  await expect(mark).toHaveAttribute('data-focused', 'true');
  // The mark sits on the selected box: what a finger at its centre hits is the Info button's box.
  const box = page.locator(`[data-testid="box"][data-node-key="${key}"]`);
  // Polled: a live frame arriving meanwhile redraws both, and an element being redrawn has no box for a moment.
  await expect(async () => {
    const [m, b] = [await mark.boundingBox(), await box.boundingBox()];
    expect(m && b, 'the mark and the box are drawn').toBeTruthy();
    expect(Math.abs(m!.x + m!.width / 2 - (b!.x + b!.width / 2))).toBeLessThan(2);
    expect(Math.abs(m!.y + m!.height / 2 - (b!.y + b!.height / 2))).toBeLessThan(2);
  }).toPass({ timeout: 15_000 });

  // Muted: still listed, marked muted, counted.
  await row.getByTestId('a11y-mute').click();
  await expect(row).toHaveAttribute('data-muted', 'true');
  await expect(page.getByTestId('a11y-counts')).toHaveAttribute('data-muted', '1');
  await expect(mark).toHaveAttribute('data-muted', 'true');

  // Disconnected and connected again: a new device id, the same device, the same mute.
  await page.getByTestId('device-disconnect').click();
  await expect(page.getByTestId('device-item')).toHaveCount(0);
  await page.getByTestId('connect-url').fill(urls.runnerUrl);
  await page.getByTestId('connect-submit').click();
  await expect(page.getByTestId('device-item')).toHaveAttribute('data-state', 'connected');
  await expect(finding(page, INFO)).toHaveAttribute('data-muted', 'true', { timeout: 30_000 });
  await expect(page.getByTestId('a11y-counts')).toHaveAttribute('data-muted', '1');

  // The host started again (same settings folder): the mute was kept on disk.
  await host.stop();
  host = await serveDevice(running, urls.runnerUrl);
  await openAudited(page, host.line);
  await expect(finding(page, INFO)).toHaveAttribute('data-muted', 'true');
  // And unmuted, it is reported as open again.
  await finding(page, INFO).getByTestId('a11y-mute').click();
  await expect(finding(page, INFO)).toHaveAttribute('data-muted', 'false');
  await expect(page.getByTestId('a11y-counts')).toHaveAttribute('data-muted', '0');
});
