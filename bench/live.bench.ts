/**
 * `npm run bench -- live`: live mode on the demo device (docs/rules.md#r-perf-05), in the web host with
 * Chromium at 1440x900, as a user has it: screenshot frames per second reaching the page on Login,
 * Feed, Edges and the 50,000-view heavy screen (5 s each), and the time from a change on the device
 * (a screen switch through the admin endpoint) to the new picture in the page, median and p95.
 */
import { chromium } from 'playwright-core';
import { startDemoDevice } from '@demo/index';
import { LAUNCH_ARGS } from '@demo/phone/browser';
import { findBrowser } from '@demo/phone/find-browser';
import { percentile, serveInChild } from './web-host-process';

const WINDOW_MS = 5_000;
const CHANGES = 10;

const device = await startDemoDevice({ port: 0 });
const { url, child } = await serveInChild(['--device', device.runnerUrl]);
const browser = await chromium.launch({ executablePath: findBrowser(), args: LAUNCH_ARGS });
const setScreen = async (screen: string) => {
  const res = await fetch(`${device.adminUrl}/screen`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ screen }) });
  if (res.status !== 200) throw new Error(`admin: ${res.status} ${await res.text()}`);
};
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await page.goto(url);
  await page.getByTestId('device-item').click();
  await page.getByTestId('screen-image').waitFor();
  const live = page.getByTestId('live-toggle');
  if ((await live.getAttribute('data-live')) !== 'true') await live.click();
  const meter = page.getByTestId('live-fps');
  await meter.waitFor();
  const frames = async () => Number(await meter.getAttribute('data-frames'));

  console.log(`live.bench: demo device, web host, Chromium 1440x900, live mode; frames reaching the page over ${WINDOW_MS / 1000} s`);
  for (const screen of ['login', 'feed', 'edges', 'heavy']) {
    await setScreen(screen);
    await page.waitForTimeout(screen === 'heavy' ? 8_000 : 2_000);
    const before = await frames();
    const started = Date.now();
    await page.waitForTimeout(WINDOW_MS);
    const fps = ((await frames()) - before) / ((Date.now() - started) / 1_000);
    console.log(`  ${screen.padEnd(8)} ${fps.toFixed(1).padStart(5)} frames/s`);
  }

  // A change on the device to the new picture in the page: the image's source changes.
  await setScreen('login');
  await page.getByTestId('screen-image').waitFor({ timeout: 60_000 });
  await page.waitForTimeout(2_000);
  const latencies: number[] = [];
  for (let i = 0; i < CHANGES; i++) {
    const next = i % 2 === 0 ? 'feed' : 'login';
    await page.evaluate(() => {
      const w = window as unknown as { __pictureAt?: number };
      w.__pictureAt = 0;
      const img = document.querySelector('[data-testid="screen"]')!;
      const observer = new MutationObserver(() => {
        w.__pictureAt = Date.now();
        observer.disconnect();
      });
      // The image element may be replaced as well as its source changed.
      observer.observe(img, { attributes: true, attributeFilter: ['src'], subtree: true, childList: true });
    });
    const changed = Date.now();
    await setScreen(next);
    const shown = await page.waitForFunction(() => (window as unknown as { __pictureAt?: number }).__pictureAt || 0, null, { timeout: 30_000 });
    latencies.push(Number(await shown.jsonValue()) - changed);
    await page.waitForTimeout(500);
  }
  console.log(
    `  change on the device -> new picture in the page: median ${percentile(latencies, 50).toFixed(0)} ms, p95 ${percentile(latencies, 95).toFixed(0)} ms (n=${CHANGES}; the change itself is a screen switch, admin round trip included)`,
  );
} finally {
  await browser.close();
  child.kill('SIGTERM');
  await device.close();
}
