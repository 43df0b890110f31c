/**
 * A trace step's accessibility findings offline, and compared with a device (docs/rules.md#r-a11y-21),
 * through the real app in Chromium over the demo device's real ports: a tap recorded on the demo's `access`
 * screen, the trace reopened in the trace view; the step's panel lists a finding for every rule the page
 * plants (resources/demo-app/index.html: data-planted), audited by the host from the frame the trace stored
 * (contrast from the stored screenshot); picking one selects its element on the frame and in the tree.
 * Compared with the device on the same screen nothing is new or gone; once the device shows another
 * screen, the planted findings are gone from it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from '@playwright/test';
import { ROOT, boxCentre, postAdmin, serveDevice, stopAfterEach, stopRecording, urlIn, test, sharedDemoDevice } from './harness';

const running = stopAfterEach();
/** The worker's demo device, its app relaunched on the access screen; the test's own web host. */
const demoDevice = sharedDemoDevice();

function plantedRules(): string[] {
  const html = readFileSync(join(ROOT, 'resources', 'demo-app', 'index.html'), 'utf8');
  const section = html.slice(html.indexOf('id="screen-access"'), html.indexOf('<!-- The tab bar'));
  return [...new Set([...section.matchAll(/data-planted="([^"]+)"/g)].map((m) => m[1]!))].sort();
}

const INFO = 'R-A11Y-07|access.info';

test('R-A11Y-21: a recorded step lists its findings offline, picking one selects its element, and Compare says what is new, gone or unchanged on a device', async ({
  page,
}) => {
  test.setTimeout(240_000);
  const urls = await demoDevice({ screen: 'access' });
  await page.setViewportSize({ width: 1440, height: 1000 });
  const host = await serveDevice(running, urls.runnerUrl, [urls.adminUrl]);
  await page.goto(urlIn(host.line));
  await expect(page.getByTestId('device-item')).toHaveAttribute('data-state', 'connected');
  await expect(page.getByTestId('screen-image')).toBeVisible();

  // A tap on the Help button (a clean look-alike: nothing changes) recorded on the access screen.
  await page.getByTestId('record-button').click();
  await expect(page.getByTestId('record-button')).toHaveAttribute('data-recording', 'true');
  await page.getByTestId('mode-toggle').click();
  await expect(page.getByTestId('mode-toggle')).toHaveAttribute('data-mode', 'interact');
  const help = await boxCentre(page, 'access.help');
  await page.mouse.click(help.x, help.y);
  await expect(page.getByTestId('record-status')).toHaveAttribute('data-steps', '1');
  await stopRecording(page);

  await page.getByTestId('open-last-trace').click();
  await expect(page.getByTestId('trace-view')).toBeVisible();
  const panel = page.getByTestId('step-findings');
  await expect(panel).toHaveAttribute('data-side', 'after');
  const info = panel.locator(`[data-testid="step-finding"][data-fingerprint="${INFO}"]`);
  await expect(info).toBeVisible({ timeout: 30_000 });

  // Every planted rule, the contrast one measured on the trace's stored screenshot.
  const rules = await panel.getByTestId('step-finding').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset['rule']!));
  const planted = plantedRules();
  expect(planted.length).toBeGreaterThanOrEqual(10);
  for (const rule of planted) expect(rules, rule).toContain(rule);
  await expect(panel.locator('[data-testid="step-finding"][data-rule="R-A11Y-09"] .a11y-colors').first()).toContainText('#');
  await expect(panel.locator('[data-testid="a11y-not-evaluated"][data-kind="contrast"]')).toHaveCount(0);

  // Picking the tiny Info button's finding selects it in the tree, and its mark on the after frame is drawn stronger.
  const key = (await info.getAttribute('data-node-key'))!;
  await info.getByTestId('step-finding-pick').click();
  await expect(page.locator(`[data-testid="tree-node"][data-node-key="${key}"]`)).toHaveAttribute('data-selected', 'true');
  await expect(page.locator(`[data-testid="tree-node"][data-node-key="${key}"] [data-testid="tree-a11y"]`)).toBeVisible();
  const mark = page.getByTestId('trace-after').locator(`[data-testid="a11y-mark"][data-fingerprint="${INFO}"]`);
  await expect(mark).toHaveAttribute('data-focused', 'true');
  const box = page.getByTestId('trace-after').locator(`[data-testid="box"][data-node-key="${key}"]`);
  const [m, b] = [(await mark.boundingBox())!, (await box.boundingBox())!];
  expect(Math.abs(m.x + m.width / 2 - (b.x + b.width / 2))).toBeLessThan(2);
  expect(Math.abs(m.y + m.height / 2 - (b.y + b.height / 2))).toBeLessThan(2);
  // The before frame is the same screen, audited from its own stored frame.
  await page.getByTestId('trace-before').click({ position: { x: 5, y: 5 } });
  await expect(panel).toHaveAttribute('data-side', 'before');
  await expect(panel.locator(`[data-testid="step-finding"][data-fingerprint="${INFO}"]`)).toBeVisible({ timeout: 30_000 });
  const total = Number(await panel.getByTestId('step-findings-count').getAttribute('data-total'));
  expect(total).toBeGreaterThanOrEqual(planted.length);

  // Compared with the device still on the access screen: every finding unchanged, none new or gone.
  const diff = panel.getByTestId('findings-diff');
  await panel.getByTestId('findings-compare-button').click();
  await expect(diff).toHaveAttribute('data-new', '0', { timeout: 30_000 });
  await expect(diff).toHaveAttribute('data-gone', '0');
  await expect(diff).toHaveAttribute('data-unchanged', String(total));

  // The device moved to the login screen: the planted findings are gone from it (retried until the host has its new frame).
  await postAdmin(urls, 'screen', { screen: 'login' });
  await expect(async () => {
    await panel.getByTestId('findings-compare-button').click();
    await expect(panel.locator(`[data-testid="finding-gone"][data-fingerprint="${INFO}"]`)).toBeVisible({ timeout: 3_000 });
  }).toPass({ timeout: 60_000 });
  const gone = await panel.getByTestId('finding-gone').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset['rule']!));
  for (const rule of planted) expect(gone, rule).toContain(rule);
  await expect(panel.getByTestId('findings-diff-summary')).toContainText(/accessibility: \d+ new.*, \d+ gone \(R-A11Y-/);
  // A gone finding is on the recorded frame: picking it selects its element there.
  await panel.locator(`[data-testid="finding-gone"][data-fingerprint="${INFO}"]`).getByTestId('step-finding-pick').click();
  await expect(page.locator(`[data-testid="tree-node"][data-node-key="${key}"]`)).toHaveAttribute('data-selected', 'true');
});
