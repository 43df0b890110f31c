/**
 * The swipe arrow on a trace step's before frame (docs/rules.md#r-edit-08), in Chromium against the web
 * host over the demo iPhone: a drag recorded on the Feed, the trace opened, and the arrow checked against
 * the points the trace file itself recorded for that step (read with the trace reader, not the view), and
 * those points against where the mouse pressed and let go, so an arrow drawn elsewhere, reversed or at
 * the wrong scale fails.
 */
import { expect, type Locator } from '@playwright/test';
import { openTraceFile } from '@main/trace/open';
import { isFilmstripStep } from '@shared/trace/reader';
import { boxCentre, hostDemoInteractive, sharedDemoDevice, stopAfterEach, stopRecording, test } from './harness';

const running = stopAfterEach();
/** The worker's demo device, its app relaunched on the Feed; the test's own web host. */
const demoDevice = sharedDemoDevice();

type Point = { x: number; y: number };
const point = (value: unknown): Point => {
  const { x, y } = (value ?? {}) as Partial<Point>;
  if (typeof x !== 'number' || typeof y !== 'number') throw new Error(`not a point: ${JSON.stringify(value)}`);
  return { x, y };
};

/** A drawn element's centre in the page, for a circle; its box for the line. */
async function box(locator: Locator) {
  const rect = await locator.boundingBox();
  if (!rect) throw new Error('not drawn');
  return rect;
}

test('R-EDIT-08: a recorded swipe is drawn on its before frame as an arrow from where the recorded stroke began to where it ended', async ({ page }) => {
  test.setTimeout(150_000);
  await hostDemoInteractive(page, running, await demoDevice({ screen: 'feed' }));

  const record = page.getByTestId('record-button');
  await record.click();
  await expect(record).toHaveAttribute('data-recording', 'true');

  // Where the mouse presses and lets go, in the device's points (the live screen's own scale), measured
  // once recording has started, right before the press: measured before, a layout that moved meanwhile (a
  // fresh-clone run saw the press land 34 pt off what was computed) puts the press elsewhere.
  const live = page.getByTestId('screen').first();
  const list = await boxCentre(page, 'feed.list');
  const liveBox = await box(live);
  const liveScale = Number(await live.getAttribute('data-scale'));
  expect(liveScale).toBeGreaterThan(0);
  const press = { x: list.x - 20, y: list.y + 120 };
  const release = { x: list.x + 30, y: list.y - 120 };
  const inPoints = (p: Point) => ({ x: (p.x - liveBox.x) / liveScale, y: (p.y - liveBox.y) / liveScale });
  await page.mouse.move(press.x, press.y);
  await page.mouse.down();
  await page.mouse.move(release.x, release.y, { steps: 8 });
  await page.mouse.up();
  // Counted once the swipe and the read after it are done: a gate, wide for the shared, busy machine.
  await expect(page.getByTestId('record-status')).toHaveAttribute('data-steps', '1', { timeout: 45_000 });
  const tracePath = await stopRecording(page);

  // The step's stroke as the trace file holds it.
  const trace = await openTraceFile(tracePath);
  const step = trace.timeline.find(isFilmstripStep);
  expect(step?.before?.action.kind).toBe('swipe');
  const from = point(step?.before?.action['start']);
  const to = point(step?.before?.action['end']);
  // The recording is of this drag: it starts where the mouse pressed and goes the way it went.
  const pressed = inPoints(press);
  const released = inPoints(release);
  expect(Math.abs(from.x - pressed.x)).toBeLessThan(4);
  expect(Math.abs(from.y - pressed.y)).toBeLessThan(4);
  expect(Math.sign(to.x - from.x)).toBe(Math.sign(released.x - pressed.x));
  expect(Math.sign(to.y - from.y)).toBe(Math.sign(released.y - pressed.y));

  await page.getByTestId('open-trace').setInputFiles(tracePath);
  await expect(page.getByTestId('trace-filmstrip').getByTestId('trace-step')).toHaveCount(1);
  const frame = page.getByTestId('trace-before');
  const mark = frame.getByTestId('gesture-mark');
  await expect(mark).toHaveAttribute('data-kind', 'swipe');
  await expect(mark).toHaveAttribute('data-from', `${from.x},${from.y}`);
  await expect(mark).toHaveAttribute('data-to', `${to.x},${to.y}`);

  // Drawn, not only labelled: the dot sits on the stroke's start and the line spans start to end, at the
  // frame's own scale (its displayed width over its width in points), within a few pixels.
  const screen = frame.getByTestId('screen');
  const screenBox = await box(screen);
  const scale = Number(await screen.getAttribute('data-scale'));
  expect(scale).toBeGreaterThan(0);
  const onFrame = (p: Point) => ({ x: screenBox.x + p.x * scale, y: screenBox.y + p.y * scale });
  const start = onFrame(from);
  const end = onFrame(to);
  const dot = await box(mark.locator('circle.gesture-dot'));
  expect(Math.abs(dot.x + dot.width / 2 - start.x)).toBeLessThan(3);
  expect(Math.abs(dot.y + dot.height / 2 - start.y)).toBeLessThan(3);
  const line = await box(mark.locator('line'));
  expect(Math.abs(line.x - Math.min(start.x, end.x))).toBeLessThan(3);
  expect(Math.abs(line.x + line.width - Math.max(start.x, end.x))).toBeLessThan(3);
  expect(Math.abs(line.y - Math.min(start.y, end.y))).toBeLessThan(3);
  expect(Math.abs(line.y + line.height - Math.max(start.y, end.y))).toBeLessThan(3);
  // The head is at the end: its tip is the polyline's middle point.
  const tip = (await mark.locator('polyline').getAttribute('points'))?.split(' ')[1]?.split(',').map(Number) ?? [];
  expect(Math.abs((tip[0] ?? NaN) - to.x * scale)).toBeLessThan(0.5);
  expect(Math.abs((tip[1] ?? NaN) - to.y * scale)).toBeLessThan(0.5);
  console.log(`R-EDIT-08 figures: recorded swipe ${JSON.stringify(from)} → ${JSON.stringify(to)} pt; drawn at scale ${scale.toFixed(3)}`);
});
