/**
 * Frames cross the page's API socket once (docs/rules.md#r-perf-06), and the page still shows the right
 * frames: after a tap on the demo device, the step's event and the act's reply carry no observation or
 * picture of their own (the after frame came once, in the frame event; the before is what the page
 * showed), yet the timeline's step opens with its before and after frames, and the screen shows the after.
 */
import { expect } from '@playwright/test';
import { boxCentre, serveDevice, stopAfterEach, urlIn, test, sharedDemoDevice } from './harness';

const running = stopAfterEach();
/** The worker's demo device, its app relaunched on Sign In (counts from zero); the test's own web host. */
const demoDevice = sharedDemoDevice();

test('R-PERF-06: one tap sends its after frame over the socket once and the page shows before and after as they were', async ({ page }) => {
  test.setTimeout(90_000);
  const urls = await demoDevice({ screen: 'login' });
  const host = await serveDevice(running, urls.runnerUrl);
  const frames: string[] = [];
  page.on('websocket', (ws) => ws.on('framereceived', ({ payload }) => frames.push(typeof payload === 'string' ? payload : '')));
  await page.goto(urlIn(host.line));
  await expect(page.getByTestId('device-item')).toHaveAttribute('data-state', 'connected');
  await expect(page.getByTestId('screen-image')).toBeVisible();
  // Paused, so no live read crosses the socket while the tap runs.
  const live = page.getByTestId('live-toggle');
  if ((await live.getAttribute('data-live')) === 'true') await live.click();
  await expect(live).toHaveAttribute('data-live', 'false');
  // Every picture the screen shows from here on, in order, and where the tap fell among them: a frame the
  // device pushes still becomes the current frame, before the tap (a stress run saw one land between a read
  // of the screen and the tap) or while it runs (another saw the sign-in's own change pushed before its
  // after frame came), so "the screen it showed" is a picture shown from the last one before the tap on.
  await page.evaluate(() => {
    const current = () => document.querySelector('[data-testid="screen-image"]')?.getAttribute('src') ?? null;
    const shown: (string | null)[] = [current()];
    const w = window as unknown as { shownPictures: (string | null)[]; tappedAt: number };
    w.shownPictures = shown;
    w.tappedAt = -1;
    new MutationObserver(() => {
      if (current() !== shown.at(-1)) shown.push(current());
    }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['src'] });
    // Capture phase: noted before the page's own handler sends the tap.
    window.addEventListener('pointerdown', () => (w.tappedAt = shown.length - 1), { capture: true, once: true });
  });

  await page.getByTestId('search-input').blur();
  await page.keyboard.press('i');
  await expect(page.getByTestId('mode-toggle')).toHaveAttribute('data-mode', 'interact');
  const signIn = await boxCentre(page, 'login.submit');
  const from = frames.length;
  await page.mouse.click(signIn.x, signIn.y);
  const steps = page.getByTestId('timeline-step');
  await expect(steps).toHaveCount(1);
  await expect(steps.first()).toHaveAttribute('data-success', 'true');

  const sent = frames.slice(from);
  const step = sent.filter((f) => f.startsWith('{"event":"device.action"'));
  const reply = sent.filter((f) => f.startsWith('{"id":') && f.includes('"callId"'));
  expect(step).toHaveLength(1);
  expect(reply).toHaveLength(1);
  // The step and the reply refer to the frames; neither carries a tree or a picture.
  for (const text of [...step, ...reply]) {
    expect(text).not.toContain('"viewHierarchy":');
    expect(text).not.toContain('"dataBase64":');
    expect(text).toContain('"$wire":');
  }
  const copies = sent.reduce((n, f) => n + (f.match(/"viewHierarchy":/g)?.length ?? 0), 0);
  const pushes = sent.filter((f) => f.startsWith('{"event":"device.frame"')).length;
  // One after frame, plus one for each frame the device pushed meanwhile; before: 5 for the tap alone.
  expect(copies).toBe(pushes);

  // The page resolved them: the step opens with its before (the screen it showed) and its after.
  await steps.first().click();
  const detail = page.getByTestId('step-detail');
  await expect(detail.getByTestId('step-frame-before')).toHaveAttribute('data-has-screenshot', 'true');
  await expect(detail.getByTestId('step-frame-after')).toHaveAttribute('data-has-screenshot', 'true');
  const before = await detail.getByTestId('step-frame-before').locator('img').getAttribute('src');
  const after = await detail.getByTestId('step-frame-after').locator('img').getAttribute('src');
  expect(after).not.toBe(before);
  const { shown, tappedAt } = await page.evaluate(() => {
    const w = window as unknown as { shownPictures: (string | null)[]; tappedAt: number };
    return { shown: w.shownPictures, tappedAt: w.tappedAt };
  });
  expect(tappedAt, 'the tap was seen').toBeGreaterThanOrEqual(0);
  const afterAt = shown.indexOf(after, Math.max(tappedAt, 0));
  expect(afterAt, 'the screen showed the after picture after the tap').toBeGreaterThan(tappedAt);
  // The before is what the screen showed when the host sent the tap: the picture shown as it was tapped, or
  // one the device pushed before the tap reached it; never the after, nor one from before the tap.
  expect(shown.slice(tappedAt, afterAt), "the step's before is a picture the screen showed from the tap to the after").toContain(before);
  await page.keyboard.press('Escape');
  // The screen shows the after frame: what the app said to an empty sign-in.
  await page.getByTestId('search-input').fill('Enter a username and a password.');
  await expect(page.locator('[data-testid="tree-node"][data-match="true"]').first()).toBeVisible();
});
