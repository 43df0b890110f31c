/**
 * `npx tsx bench/trace-ui.bench.ts`: how long a 500-step trace takes to open in the app, as a user sees
 * it (target: under 2 s), in the web host with Chromium: from choosing the file to the filmstrip
 * listing every step and the first step's before screenshot drawn.
 *
 *   by file      Open trace… in the web host: the page has the file's bytes, not its path, so they
 *                travel to the host first (the cost of a browser; Electron opens by path).
 *   by path      a trace the host already has (Recent traces, the Electron menu): no bytes travel.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const STEPS = 500;
const RUNS = 3;

const home = await mkdtemp(join(tmpdir(), 'parallax-trace-ui-bench-'));
process.env['PARALLAX_HOME'] = home;
process.env['PARALLAX_MDNS'] = 'off';
const { startAppServices } = await import('@main/host/app-services');
const { startWebHost } = await import('@main/host/web-host');
const { rendererDir, tracesDir } = await import('@main/paths');
const { LAUNCH_ARGS } = await import('@demo/phone/browser');
const { findBrowser } = await import('@demo/phone/find-browser');
const { writeTrace } = await import('./trace-fixture');

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const services = await startAppServices('web');
const host = await startWebHost({ api: services.api, rendererDir: rendererDir(), port: 0 });
const browser = await chromium.launch({ executablePath: findBrowser(), args: LAUNCH_ARGS });
try {
  const file = await writeTrace(tracesDir(), STEPS);
  const size = (await stat(file)).size;
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(host.url);
  await page.getByTestId('host-status').and(page.locator('[data-state="connected"]')).waitFor();

  const opened = async () => {
    await page
      .getByTestId('trace-step')
      .nth(STEPS - 1)
      .waitFor({ state: 'attached', timeout: 120_000 });
    await page.getByTestId('trace-before').getByTestId('screen-image').waitFor({ timeout: 120_000 });
  };
  const close = async () => {
    await page.getByTestId('trace-close').click();
    await page.getByTestId('trace-view').waitFor({ state: 'detached' });
  };

  const byFile: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await page.getByTestId('open-trace').setInputFiles(file);
    await opened();
    byFile.push(performance.now() - t0);
    await close();
  }
  console.log(`trace-ui.bench: ${STEPS}-step trace (${(size / 1024 / 1024).toFixed(0)} MiB), web host in Chromium, ${RUNS} runs`);
  console.log(
    `open by file (bytes sent to the host): median ${median(byFile).toFixed(0)} ms, runs ${byFile.map((t) => t.toFixed(0)).join(' / ')} (target < 2000 ms)`,
  );

  const recent = page.getByTestId('recent-trace');
  if (await page.getByTestId('recent-traces').count()) {
    const byPath: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      await page.getByTestId('recent-traces').click();
      const t0 = performance.now();
      await recent.first().click();
      await opened();
      byPath.push(performance.now() - t0);
      await close();
    }
    console.log(
      `open by path (Recent traces):         median ${median(byPath).toFixed(0)} ms, runs ${byPath.map((t) => t.toFixed(0)).join(' / ')} (target < 2000 ms)`,
    );
  }
} finally {
  await browser.close();
  await host.close();
  await services.close();
  await rm(home, { recursive: true, force: true });
}
