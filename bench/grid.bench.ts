/**
 * `npm run bench -- grid`: many demo devices in the grid (docs/rules.md#r-perf-09), in the web host with
 * Chromium at 1440x900, as a user has it. For 1, 2, 4 and 8 devices: the page's frame time (the deltas
 * between requestAnimationFrame callbacks over the window), median and p95; each device's frames per
 * second in the grid (min / median); the host's RSS. At 8 devices the grid's choices against the plain
 * ones in the same run: tiles drawn as <img> of the full-size picture through React state (`gridDraw=img`)
 * instead of decoded and scaled off the main thread onto canvases; 4 requests in flight instead of 8.
 * The host runs in its own process and the demo devices in this one, so the host's RSS per device is
 * (RSS with 8 connected - RSS with none) / 8; the demo devices' memory is their shared browser's PSS.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startDemoDevices, type FleetDevice } from '@demo/index';
import { LAUNCH_ARGS } from '@demo/phone/browser';
import { findBrowser } from '@demo/phone/find-browser';
import { percentile, serveInChild } from './web-host-process';

const WINDOW_MS = 5_000;
const SETTLE_MS = 3_000;
const MB = 1024 * 1024;

/** RSS of one process, bytes. */
function rss(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : NaN;
}

/** PSS of one process, bytes: its share of pages shared with others (a browser's processes share many). */
function pss(pid: number): number {
  try {
    const match = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0; // gone meanwhile
  }
}

/** PSS of a process and all its descendants, bytes (a browser and its renderers, shared pages counted once). */
function treePss(root: number): number {
  const rows = execFileSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number) as [number, number]);
  const inTree = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of rows) {
      if (!inTree.has(ppid) || inTree.has(pid)) continue;
      inTree.add(pid);
      grew = true;
    }
  }
  return [...inTree].reduce((sum, pid) => sum + pss(pid), 0);
}

/** The browsers this process started itself (the demo devices' and the measuring one), by pid. */
function browsersHere(): number[] {
  return execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .filter((line) => /chrom/i.test(line) && !line.includes('--type='))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

/** The deltas between animation frames over `ms` (a string: tsx's helpers do not exist in the page). */
async function frameTimes(page: Page, ms: number): Promise<number[]> {
  return page.evaluate(`new Promise((resolve) => {
    const deltas = [];
    let last = performance.now();
    const end = last + ${ms};
    requestAnimationFrame(function tick(now) {
      deltas.push(now - last);
      last = now;
      if (now < end) requestAnimationFrame(tick);
      else resolve(deltas);
    });
  })`);
}

const tileFrames = (page: Page) =>
  page.locator('[data-testid="grid-tile"]').evaluateAll((tiles) => tiles.map((tile) => Number(tile.getAttribute('data-frames') ?? '0')));

/** Frame time and each tile's frames per second over one window. */
async function measure(page: Page): Promise<{ median: number; p95: number; fpsMin: number; fpsMedian: number; tiles: number }> {
  await page.waitForTimeout(SETTLE_MS);
  const before = await tileFrames(page);
  const started = Date.now();
  const deltas = await frameTimes(page, WINDOW_MS);
  const after = await tileFrames(page);
  const seconds = (Date.now() - started) / 1_000;
  const fps = after.map((n, i) => (n - (before[i] ?? 0)) / seconds);
  return { median: percentile(deltas, 50), p95: percentile(deltas, 95), fpsMin: Math.min(...fps), fpsMedian: percentile(fps, 50), tiles: after.length };
}

const line = (label: string, m: Awaited<ReturnType<typeof measure>>) =>
  `  ${label.padEnd(34)} frame time median ${m.median.toFixed(1).padStart(5)} ms, p95 ${m.p95.toFixed(1).padStart(5)} ms; ` +
  `per device ${m.fpsMin.toFixed(1)} min / ${m.fpsMedian.toFixed(1)} median fps (${m.tiles} tiles)`;

const fleet: FleetDevice[] = [];
let host: Awaited<ReturnType<typeof serveInChild>> | undefined;
let browser: Browser | undefined;
try {
  // One demo device first, then seven more in the same browser, to see what each one costs; before the
  // measuring browser starts, so the only browser this process started is the demo devices'.
  fleet.push(...(await startDemoDevices(1, { appReveal: false })));
  const [demoBrowser] = browsersHere();
  const demoOne = demoBrowser ? treePss(demoBrowser) : NaN;
  fleet.push(...(await startDemoDevices(7, { appReveal: false })));
  const demoEight = demoBrowser ? treePss(demoBrowser) : NaN;
  host = await serveInChild([]);
  const { url } = host;
  const hostPid = host.child.pid!;
  browser = await chromium.launch({ executablePath: findBrowser(), args: LAUNCH_ARGS });
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await page.goto(url);
  await page.getByTestId('host-status').and(page.locator('[data-state="connected"]')).waitFor();
  await page.waitForTimeout(SETTLE_MS);
  const hostRss = new Map<number, number>([[0, rss(hostPid)]]);

  console.log(`grid.bench: demo devices (one shared browser) in the grid of the web host, Chromium 1440x900; windows of ${WINDOW_MS / 1000} s`);
  const connected = page.locator('[data-testid="device-item"][data-state="connected"]');
  const results = new Map<number, Awaited<ReturnType<typeof measure>>>();
  for (const count of [1, 2, 4, 8]) {
    while ((await connected.count()) < count) {
      const next = await connected.count();
      await page.getByTestId('connect-url').fill(fleet[next]!.runnerUrl);
      await page.getByTestId('connect-submit').click();
      await connected.nth(next).waitFor({ timeout: 60_000 });
    }
    if (count >= 2 && (await page.getByTestId('grid-view').count()) === 0) await page.getByTestId('grid-open').click();
    if (count >= 2) results.set(count, await measure(page));
    else await page.waitForTimeout(SETTLE_MS);
    hostRss.set(count, rss(hostPid));
  }

  // The plain ways, at 8 devices, in the same run.
  const grid = new URL(url);
  const open = async (params: Record<string, string>) => {
    const next = new URL(grid);
    for (const [key, value] of Object.entries(params)) next.searchParams.set(key, value);
    await page.goto(next.toString());
    await connected.nth(7).waitFor({ timeout: 60_000 });
    await page.getByTestId('grid-open').click();
    return measure(page);
  };
  // The chosen way measured again beside them (reloaded the same way), as the base of the ratios.
  const eight = await open({});
  const img = await open({ gridDraw: 'img' });
  const four = await open({ gridInFlight: '4' });

  // Down to one tile: the grid stays open while devices go.
  for (let left = 7; left >= 1; left--) {
    await page.locator('[data-testid="device-disconnect"]').last().click();
    await page.locator('[data-testid="grid-tile"]').nth(left).waitFor({ state: 'detached' });
  }
  const one = await measure(page);

  for (const count of [2, 4, 8]) console.log(line(`${count} devices`, results.get(count)!));
  console.log(line('1 device', one));
  console.log(line('8 devices, reloaded (ratio base)', eight));
  console.log(line('8 devices, <img> through React', img));
  console.log(line('8 devices, 4 requests in flight', four));
  console.log(
    `  at 8 devices: p95 frame time <img>/canvas ${(img.p95 / eight.p95).toFixed(2)}x (median ${(img.median / eight.median).toFixed(2)}x); ` +
      `min fps 4-in-flight/8-in-flight ${(four.fpsMin / Math.max(eight.fpsMin, 0.01)).toFixed(2)}x, median ${(four.fpsMedian / Math.max(eight.fpsMedian, 0.01)).toFixed(2)}x`,
  );
  const byCount = [...hostRss].map(([n, bytes]) => `${n}: ${(bytes / MB).toFixed(0)} MB`).join(', ');
  console.log(`  host RSS by connected devices: ${byCount}; per device (8 vs 0) ${((hostRss.get(8)! - hostRss.get(0)!) / 8 / MB).toFixed(1)} MB`);
  console.log(
    `  demo devices' browser PSS (their shared Chromium, all its processes): 1 device ${(demoOne / MB).toFixed(0)} MB, 8 devices ${(demoEight / MB).toFixed(0)} MB; each added device ${((demoEight - demoOne) / 7 / MB).toFixed(0)} MB`,
  );
} finally {
  await browser?.close();
  host?.child.kill('SIGTERM');
  for (const device of fleet) await device.close();
}
