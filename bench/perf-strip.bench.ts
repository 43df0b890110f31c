/**
 * `npm run bench -- perf-strip`: the live performance strip's main-thread cost per second in live mode
 * (issue 31's figure; docs/rules.md#r-perfstrip-03), in the web host with Chromium at 1440x900, on the
 * demo device with live mode on (the screenshot loop running, as a user has it) and `perf-cpu-spin` on,
 * so every push moves the plots.
 *
 * The strip sums its own time (StripCost: taking each push, setData on both plots, and uPlot's drawing
 * from its drawClear to its draw hook) into `data-cost-ms` on its element; the bench reads it before and
 * after a window and divides by the window. Two limits, both ours (decisions; the issue names none):
 * - 4 ms per second, a quarter of one 60 Hz frame's 16.7 ms budget, so even a whole second's strip work
 *   falling into one frame would not drop it. Wall-clock time: on a crowded machine (load far above its
 *   cores) every figure on it is inflated, so this one is printed, not judged;
 * - the judged one, measured in the same run: at most 5 % of the whole page's main-thread time over the
 *   same window (Chrome's TaskDuration, live mode's screenshots and boxes included), since both grow alike
 *   when the machine is busy. `PERF_STRIP_WINDOW_MS` (default 15000), `PERF_STRIP_ROUNDS` (3).
 */
import { chromium } from 'playwright-core';
import { startDemoDevice } from '@demo/index';
import { LAUNCH_ARGS } from '@demo/phone/browser';
import { findBrowser } from '@demo/phone/find-browser';
import { percentile, serveInChild } from './web-host-process';

const LIMIT_MS_PER_S = 4;
const LIMIT_SHARE = 0.05;
const WINDOW_MS = Number(process.env.PERF_STRIP_WINDOW_MS ?? 15_000);
const ROUNDS = Number(process.env.PERF_STRIP_ROUNDS ?? 3);

const device = await startDemoDevice({ port: 0 });
const { url, child } = await serveInChild(['--device', device.runnerUrl]);
const browser = await chromium.launch({ executablePath: findBrowser(), args: LAUNCH_ARGS });
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const taskSeconds = async () => (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'TaskDuration')!.value;
  await page.goto(url);
  await page.getByTestId('device-item').click();
  await page.getByTestId('screen-image').waitFor();
  const live = page.getByTestId('live-toggle');
  if ((await live.getAttribute('data-live')) !== 'true') await live.click();
  await page.getByTestId('live-fps').waitFor();
  await fetch(`${device.adminUrl}/faults`, { method: 'POST', body: JSON.stringify({ faults: ['perf-cpu-spin'] }) });
  const strip = page.getByTestId('perf-strip');
  const read = async () => ({ cost: Number(await strip.getAttribute('data-cost-ms')), updates: Number(await strip.getAttribute('data-updates')) });
  // Warm-up: the plots exist and have drawn a few pushes.
  while ((await read()).updates < 3) await page.waitForTimeout(500);

  const perSecond: number[] = [];
  const pagePerSecond: number[] = [];
  const shares: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const before = await read();
    const taskBefore = await taskSeconds();
    const start = performance.now();
    await page.waitForTimeout(WINDOW_MS);
    const after = await read();
    const elapsedS = (performance.now() - start) / 1000;
    const taskAfter = await taskSeconds();
    const ms = (after.cost - before.cost) / elapsedS;
    perSecond.push(ms);
    const pageMs = ((taskAfter - taskBefore) * 1000) / elapsedS;
    pagePerSecond.push(pageMs);
    shares.push(ms / pageMs);
    console.log(
      `perf strip round ${round + 1}: ${after.updates - before.updates} updates in ${elapsedS.toFixed(1)} s, ` +
        `strip ${ms.toFixed(3)} ms/s (${(ms / LIMIT_MS_PER_S).toFixed(3)} × ${LIMIT_MS_PER_S} ms/s); whole page ${pageMs.toFixed(0)} ms/s; ` +
        `share ${(shares.at(-1)! * 100).toFixed(2)} % (${(shares.at(-1)! / LIMIT_SHARE).toFixed(3)} × limit ${LIMIT_SHARE * 100} %)`,
    );
  }
  const share = percentile(shares, 50);
  const median = percentile(perSecond, 50);
  const worst = Math.max(...perSecond);
  console.log(
    `perf strip main-thread cost in live mode: median ${median.toFixed(3)} ms/s (${(median / LIMIT_MS_PER_S).toFixed(3)} × ${LIMIT_MS_PER_S} ms/s), worst ${worst.toFixed(3)} ms/s; ` +
      `median share of the page's main thread ${(share * 100).toFixed(2)} %  ${(share / LIMIT_SHARE).toFixed(3)} × limit ${LIMIT_SHARE * 100} %  ` +
      `(whole page median ${percentile(pagePerSecond, 50).toFixed(0)} ms/s)  ${share < LIMIT_SHARE ? 'ok' : 'MISSED'}`,
  );
} finally {
  await browser.close();
  child.kill('SIGTERM');
  await device.close();
}
