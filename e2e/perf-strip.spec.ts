/**
 * The live performance strip in the web host, on the demo device (docs/rules.md#r-perfstrip): the CPU
 * plot Chromium draws rises when the device's CPU spins (`perf-cpu-spin`, real load on the demo's
 * process), a tap is marked on the time axis and hovering the mark says which action it was, and the
 * frame rate is the test runner's own, never the app's.
 */
import { expect, type Page } from '@playwright/test';
import { boxCentre, openDevice, postAdmin, sharedDemoDevice, stopAfterEach, test } from './harness';

const running = stopAfterEach();
/**
 * The worker's demo device, its app relaunched on Sign In with no faults: the device the CPU is read of, with
 * no other demo device beside it (a second idle Chromium would take its share of the cores from the spin).
 */
const demoDevice = sharedDemoDevice();

/**
 * How high the CPU line is drawn at the second `t` and at the newest second, as shares of the plot area's
 * height (0 at its bottom): the topmost painted pixel of the canvas columns at that time; with the newest
 * sample and the figure at the plot's top edge as drawn (`data-cpu-scale-top`), all read in one task so no
 * push falls between them. The plot area is uPlot's overlay (`.u-over`); the minute shown ends at the
 * newest sample. The CPU plot draws no grid and no x axis, so what is painted there is the line and its
 * fill, nothing else.
 */
function cpuDrawn(page: Page, t: number): Promise<{ at: number; newest: number; latest: Sample; scaleTop: number; areaPx: number }> {
  return page.getByTestId('perf-cpu').evaluate(
    (host, { t, spanMs }) => {
      const canvas = host.querySelector('canvas')!;
      const over = host.querySelector<HTMLElement>('.u-over')!;
      const strip = host.closest<HTMLElement>('[data-testid="perf-strip"]')!;
      const latest = { cpu: Number(strip.dataset.cpuLatest), t: Number(strip.dataset.latestT) };
      const scale = canvas.width / canvas.clientWidth;
      const context = canvas.getContext('2d')!;
      const top = Math.round(over.offsetTop * scale);
      const height = Math.round(over.offsetHeight * scale);
      const drawnAt = (time: number) => {
        const css = over.offsetLeft + ((time - (latest.t - spanMs)) / spanMs) * over.offsetWidth;
        // The columns either side too: the overlay's offsets are whole pixels where uPlot's are not, and
        // the newest second ends the line, its rise the stroke's width across.
        const x = Math.min(canvas.width - 2, Math.max(1, Math.round(css * scale)));
        const columns = context.getImageData(x - 1, top, 3, height).data;
        for (let y = 0; y < height; y++) for (let dx = 0; dx < 3; dx++) if (columns[(y * 3 + dx) * 4 + 3]! > 0) return 1 - y / height;
        return 0;
      };
      return { at: drawnAt(t), newest: drawnAt(latest.t), latest, scaleTop: Number(strip.dataset.cpuScaleTop), areaPx: height };
    },
    { t, spanMs: 60_000 },
  );
}

/** Where each plot draws its line on the page (uPlot's `.u-over`), in CSS pixels. */
function plotAreas(page: Page): Promise<{ left: number; width: number; height: number }[]> {
  return page.getByTestId('perf-strip').evaluate((strip) =>
    ['perf-cpu', 'perf-memory'].map((id) => {
      const box = strip.querySelector(`[data-testid="${id}"] .u-over`)!.getBoundingClientRect();
      return { left: box.left, width: box.width, height: box.height };
    }),
  );
}

interface Sample {
  cpu: number;
  t: number;
}

/** The newest sample's figure and time, read together (a push between two reads would mix two samples). */
function latestSample(page: Page): Promise<Sample> {
  return page.getByTestId('perf-strip').evaluate((strip: HTMLElement) => ({ cpu: Number(strip.dataset.cpuLatest), t: Number(strip.dataset.latestT) }));
}

test('R-PERFSTRIP-05: the CPU plot rises when the device spins; a tap is marked and named on hover', async ({ page }) => {
  test.setTimeout(120_000);
  const demo = await demoDevice({ screen: 'login' });
  await openDevice(page, running, demo.runnerUrl);
  const strip = page.getByTestId('perf-strip');
  await expect(strip).toBeVisible();
  await expect.poll(async () => Number(await strip.getAttribute('data-samples')), { timeout: 20_000 }).toBeGreaterThanOrEqual(3);
  // R-PERFSTRIP-02: the demo's frames are the runner's (as on iOS), and said to be.
  await expect(page.getByTestId('perf-frames')).toHaveText(/^Test runner’s own frame rate \(not the app’s\): 60 fps/);
  await expect(page.getByTestId('perf-readout')).toHaveText(/^CPU \d+\.\d % · memory \d+\.\d MB$/);
  // Each line has room to be read (uPlot's own padding once left the CPU line 2 px), and the two plots
  // show the same minute at the same place, so a mark on one is at its time on the other.
  const [cpuArea, memoryArea] = await plotAreas(page);
  expect(cpuArea!.height).toBeGreaterThanOrEqual(24);
  expect(memoryArea!.height).toBeGreaterThanOrEqual(24);
  expect(Math.abs(cpuArea!.left - memoryArea!.left)).toBeLessThanOrEqual(1);
  expect(Math.abs(cpuArea!.width - memoryArea!.width)).toBeLessThanOrEqual(1);

  // The idle device, measured in this run: a share of a core depends on the machine's load (on a
  // crowded machine the spin gets far less than its 80 %), so the spin is judged against the idle
  // device's highest figure and drawing, not a fixed one.
  const idle: Sample[] = [];
  for (let i = 0; i < 3; i++) {
    const samples = Number(await strip.getAttribute('data-samples'));
    await expect.poll(async () => Number(await strip.getAttribute('data-samples')), { timeout: 10_000 }).toBeGreaterThan(samples);
    idle.push(await latestSample(page));
  }
  const idleCpu = Math.max(...idle.map((s) => s.cpu));
  const idleSample = idle[1]!;

  await postAdmin(demo, 'faults', { faults: ['perf-cpu-spin'] });
  await expect.poll(async () => (await latestSample(page)).cpu, { timeout: 20_000 }).toBeGreaterThan(idleCpu * 1.5 + 2);
  // What Chromium drew, not only the figures, on the plot's own scale. Seconds are under 2 px apart on the
  // narrow strip, so the columns read at a second also cross the line's way to the seconds beside it: the
  // idle second is drawn no lower than its figure and no higher than the idle seconds' highest, the newest
  // no lower than its own figure (within the line's width and a pixel's rounding). (The scale spans the
  // whole minute shown, so a busy second before the test, a relaunch's, can leave the rise a few pixels.)
  const drawn = await cpuDrawn(page, idleSample.t);
  const px = (cpu: number) => (cpu / drawn.scaleTop) * drawn.areaPx;
  const said = (height: number, cpu: number) => `${cpu} % drawn ${height} of the way up a plot of 0..${drawn.scaleTop} %`;
  expect(drawn.scaleTop).toBeGreaterThanOrEqual(drawn.latest.cpu);
  expect(drawn.at * drawn.areaPx, said(drawn.at, idleSample.cpu)).toBeGreaterThanOrEqual(px(idleSample.cpu) - 2.5);
  expect(drawn.at * drawn.areaPx, said(drawn.at, idleSample.cpu)).toBeLessThanOrEqual(px(idleCpu) + 2.5);
  expect(drawn.newest * drawn.areaPx, said(drawn.newest, drawn.latest.cpu)).toBeGreaterThanOrEqual(px(drawn.latest.cpu) - 2.5);
  await postAdmin(demo, 'faults', { faults: [] });

  // R-PERFSTRIP-04: a tap (interact mode) is marked on the axis; hovering the mark names it.
  await page.getByTestId('search-input').blur();
  await page.getByTestId('mode-toggle').click();
  await expect(page.getByTestId('mode-toggle')).toHaveAttribute('data-mode', 'interact');
  const signIn = await boxCentre(page, 'login.submit');
  await page.mouse.click(signIn.x, signIn.y);
  const step = page.getByTestId('timeline-step').first();
  await expect(step).toHaveAttribute('data-success', 'true');
  const callId = await step.getAttribute('data-call-id');
  const mark = page.locator(`[data-testid="perf-mark"][data-call-id="${callId}"]`);
  await expect(mark).toBeVisible();
  // It sits inside the plot, where its time is: the newest push is at the right edge, the tap just before it.
  const plot = await page.getByTestId('perf-cpu').boundingBox();
  const at = await mark.boundingBox();
  if (!plot || !at) throw new Error('not laid out');
  expect(at.x).toBeGreaterThan(plot.x + plot.width * 0.5);
  expect(at.x).toBeLessThanOrEqual(plot.x + plot.width);
  await mark.hover();
  await expect(page.getByTestId('perf-mark-tip')).toHaveText(/^tap: done, at \d/);
});
