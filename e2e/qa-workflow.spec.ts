/**
 * The QA workflow's data in the UI (docs/rules.md#r-qa-13, #r-qa-14, #r-qa-15): attributes in iOS terms
 * beside their wire names, devices named by their phone, app and kind, and an empty device list that says how
 * to get a real device in.
 */
import { expect } from '@playwright/test';
import { boxCentre, openDevice, runParallax, stopAfterEach, urlIn, test, sharedDemoDevice } from './harness';

const running = stopAfterEach();
/** The second test's device: the worker's demo device, its app relaunched on Sign In; the test's own web host. */
const demoDevice = sharedDemoDevice();
// No shared device (issue 29): only the second test boots one; the first must see a host with no device at all.

test('an empty device list says how to get a simulator, an iPhone or an AppReveal app in', async ({ page }) => {
  const host = await runParallax(['serve', '--no-default-device'], /^Parallax web host: /);
  running.push(host);
  await page.goto(urlIn(host.line));
  const empty = page.getByTestId('device-list-empty');
  await expect(empty).toBeVisible();
  await expect(empty).toContainText('xcrun simctl boot');
  await expect(empty).toContainText('8765');
  await expect(empty).toContainText('iproxy 8765:8765');
  await expect(empty).toContainText('Session URL');
  await expect(empty).toContainText('parallax doctor');
});

test('the demo is listed by its phone, its app and its kind; a picked button reads in iOS terms, its wire names beside them', async ({ page }) => {
  const demo = await demoDevice({ screen: 'login' });
  await openDevice(page, running, demo.runnerUrl);
  // A runner alone names its phone by the UDID its /health gave (docs/rules.md#r-phone-02), never by the app on it.
  await expect(page.getByTestId('phone-name')).toHaveText(/^iOS device [0-9A-F]{8}…$/);
  await expect(page.getByTestId('device-app')).toHaveText('Parallax Demo · dev.parallax.demo');
  await expect(page.getByTestId('device-kind')).toHaveText('iOS runner');

  const submit = await boxCentre(page, 'login.submit');
  await page.mouse.click(submit.x, submit.y);
  const ios = (name: string) => page.locator(`[data-testid="attr-ios-row"][data-name="${name}"]`);
  await expect(ios('identifier')).toContainText('login.submit');
  await expect(ios('identifier')).toHaveAttribute('data-wire', 'resource-id');
  await expect(ios('type')).toContainText('XCUIElementTypeButton');
  await expect(ios('frame')).toContainText(/x \d+, y \d+, \d+ × \d+ pt/);
  // The bridge served this button; XCTest reports it too, by the same identifier.
  await expect(ios('seen by XCTest')).toContainText('as XCUIElementTypeButton login.submit');
});
