/**
 * Live view against the demo device (docs/rules.md#r-perf-05): pictures keep coming while a tree read is
 * stuck on the device; pausing stops them, and a read that answers after the pause is not shown;
 * resuming starts them again.
 */
import { expect } from '@playwright/test';
import { openDevice, postAdmin, stopAfterEach, type DemoUrls, test, sharedDemoDevice } from './harness';

const running = stopAfterEach();
/** The worker's demo device, its app relaunched on Sign In with no faults and its read counts from zero; the test's own web host. */
const demoDevice = sharedDemoDevice();

async function hierarchyReads(demo: DemoUrls): Promise<number> {
  const stats = (await (await fetch(`${demo.adminUrl}/stats`)).json()) as { requests: Record<string, number> };
  return stats.requests.request_hierarchy ?? 0;
}

test('R-PERF-05: pictures keep coming while a tree read is stuck; a pause drops the late read and stops pictures; resume restarts them', async ({ page }) => {
  test.setTimeout(90_000);
  const demo = await demoDevice({ screen: 'login' });
  await openDevice(page, running, demo.runnerUrl);
  const live = page.getByTestId('live-toggle');
  await expect(live).toHaveAttribute('data-live', 'true');
  const meter = page.getByTestId('live-fps');
  const frames = async () => Number(await meter.getAttribute('data-frames'));
  const tree = page.getByTestId('tree');
  await expect(tree).toContainText('login.username');

  // From now on every tree read grinds for 4 s on the device. Wait until the loop's next one is in flight.
  await postAdmin(demo, 'faults', { faults: ['xctest-slow=4000'] });
  const reads = await hierarchyReads(demo);
  await expect.poll(() => hierarchyReads(demo), { timeout: 15_000 }).toBeGreaterThan(reads);

  // While that read is stuck, pictures still reach the page.
  const during = await frames();
  await expect.poll(frames, { timeout: 3_000 }).toBeGreaterThan(during + 2);

  // Paused with the read still in flight; then the screen changes underneath.
  const image = page.getByTestId('screen-image');
  const beforePause = await frames();
  await live.click();
  await expect(live).toHaveAttribute('data-live', 'false');
  const pausedPicture = await image.getAttribute('src');
  const pausedTree = await tree.innerText();
  await postAdmin(demo, 'screen', { screen: 'feed' });
  // The stuck read answers (with Feed) during the pause: nothing of it, and no picture, is shown.
  await page.waitForTimeout(5_000);
  expect(await image.getAttribute('src')).toBe(pausedPicture);
  expect(await tree.innerText()).toBe(pausedTree);
  expect(pausedTree).not.toContain('feed.list');

  // Resumed: pictures and the tree come again.
  await postAdmin(demo, 'faults', { faults: [] });
  await live.click();
  await expect(live).toHaveAttribute('data-live', 'true');
  await expect(tree).toContainText('feed.list', { timeout: 15_000 });
  await expect.poll(frames, { timeout: 5_000 }).toBeGreaterThan(beforePause + 2);
  await expect.poll(() => image.getAttribute('src')).not.toBe(pausedPicture);
});
