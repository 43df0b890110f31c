/**
 * Frames cross the page's API socket once (docs/rules.md#r-perf-06), and the page still shows the right
 * frames: after a tap on the demo device, the step's event and the act's reply carry no observation or
 * picture of their own (the after frame came once, in the frame event; the before is what the page
 * showed), yet the timeline's step opens with its before and after frames, and the screen shows the after.
 */
import { expect, type Locator, type Page } from '@playwright/test';
import { boxCentre, demoStats, postAdmin, type DemoStats, serveDevice, stopAfterEach, urlIn, test, sharedDemoDevice } from './harness';

const running = stopAfterEach();
/** The worker's demo device, its app relaunched on Sign In (counts from zero); the test's own web host. */
const demoDevice = sharedDemoDevice();

/** What the page records of the pictures its screen shows (`watchPictures`). */
interface PicturesShown {
  /** Each picture's src, in the order shown. */
  shown: (string | null)[];
  /** The index of the picture shown when the next tap's pointer went down (-1 before it). */
  tappedAt: number;
  /** The index of the picture shown when the tree first named `text`, if it has (-1 before it). */
  namedAt: number;
}

/**
 * Every picture the screen shows from here on, in order, where the next tap fell among them, and which
 * picture the screen showed when the tree first named `text`: a frame the device pushes before the tap still
 * becomes the current frame (a stress run saw one land between a read of the screen and the tap); one pushed
 * while the tap runs waits behind it and is no newer than its after (R-GATE-01, R-PERF-07: the gated test).
 */
async function watchPictures(page: Page, text?: string): Promise<void> {
  await page.evaluate((text) => {
    const current = () => document.querySelector('[data-testid="screen-image"]')?.getAttribute('src') ?? null;
    const named = () => text !== null && [...document.querySelectorAll('[data-testid="tree-node"]')].some((node) => node.textContent?.includes(text));
    const w = window as unknown as { pictures: PicturesShown };
    const pictures: PicturesShown = { shown: [current()], tappedAt: -1, namedAt: -1 };
    w.pictures = pictures;
    // A tree drawn in a later commit than its picture still names the picture that frame brought.
    const note = () => {
      if (current() !== pictures.shown.at(-1)) pictures.shown.push(current());
      if (pictures.namedAt < 0 && named()) pictures.namedAt = pictures.shown.length - 1;
    };
    new MutationObserver(note).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['src'] });
    // Capture phase: noted before the page's own handler sends the tap.
    window.addEventListener('pointerdown', () => (pictures.tappedAt = pictures.shown.length - 1), { capture: true, once: true });
  }, text ?? null);
}

function picturesShown(page: Page): Promise<PicturesShown> {
  return page.evaluate(() => (window as unknown as { pictures: PicturesShown }).pictures);
}

/** The demo's host on a demo device on Sign In, its page connected and paused (no live read crosses the socket). */
async function openPaused(page: Page, runnerUrl: string): Promise<void> {
  const host = await serveDevice(running, runnerUrl);
  await page.goto(urlIn(host.line));
  await expect(page.getByTestId('device-item')).toHaveAttribute('data-state', 'connected');
  await expect(page.getByTestId('screen-image')).toBeVisible();
  const live = page.getByTestId('live-toggle');
  if ((await live.getAttribute('data-live')) === 'true') await live.click();
  await expect(live).toHaveAttribute('data-live', 'false');
}

/** The pictures of a timeline step's before and after frames, from its opened detail. */
async function stepPictures(page: Page, step: Locator): Promise<{ before: string | null; after: string | null }> {
  await step.click();
  const [before, after] = ['step-frame-before', 'step-frame-after'].map((id) => page.getByTestId('step-detail').getByTestId(id));
  await expect(before!).toHaveAttribute('data-has-screenshot', 'true');
  await expect(after!).toHaveAttribute('data-has-screenshot', 'true');
  return { before: await before!.locator('img').getAttribute('src'), after: await after!.locator('img').getAttribute('src') };
}

async function interactMode(page: Page): Promise<void> {
  await page.getByTestId('search-input').blur();
  await page.keyboard.press('i');
  await expect(page.getByTestId('mode-toggle')).toHaveAttribute('data-mode', 'interact');
}

test('R-PERF-06: one tap sends its after frame over the socket once and the page shows before and after as they were', async ({ page }) => {
  test.setTimeout(90_000);
  const urls = await demoDevice({ screen: 'login' });
  const frames: string[] = [];
  page.on('websocket', (ws) => ws.on('framereceived', ({ payload }) => frames.push(typeof payload === 'string' ? payload : '')));
  await openPaused(page, urls.runnerUrl);
  // "The screen it showed" is a picture shown from the last one before the tap on (watchPictures).
  await watchPictures(page);
  await interactMode(page);
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
  const { before, after } = await stepPictures(page, steps.first());
  expect(after).not.toBe(before);
  const { shown, tappedAt } = await picturesShown(page);
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

test("R-PERF-06, R-SUITE-01: the device's push of a tap's change, sent while the tap's answer is held, is not shown between the step's before and its after", async ({
  page,
}) => {
  test.setTimeout(90_000);
  // XCTest carries the tap: the runner's answer is held for as long as the test needs (the bridge's 2 s
  // budget would end the hold; XCTest's is 10 s), so the device pushes the tap's change while the action
  // runs, every time: the interleaving a stress run met, forced rather than left to the machine's load.
  const urls = await demoDevice({ screen: 'login', faults: ['bridge-unregistered'] });
  await openPaused(page, urls.runnerUrl);
  await watchPictures(page, 'Enter a username and a password.');
  await interactMode(page);
  const signIn = await boxCentre(page, 'login.submit');
  const { frameContext: tappedOn } = (await demoStats(urls)) as DemoStats & { frameContext: string };
  await postAdmin(urls, 'faults', { add: ['runner-action-reply-slow=600000'] });
  await page.mouse.click(signIn.x, signIn.y);

  // The device did the tap and read its new screen (its push is sent), and still holds the tap's answer.
  await expect
    .poll(async () => {
      const stats = (await demoStats(urls)) as DemoStats & { frameContext: string; settling: boolean; busy: number };
      return stats.frameContext !== tappedOn && !stats.settling && stats.busy > 0;
    })
    .toBe(true);
  const steps = page.getByTestId('timeline-step');
  await expect(steps).toHaveCount(0);
  await postAdmin(urls, 'faults', { remove: ['runner-action-reply-slow'] });

  await expect(steps).toHaveCount(1);
  await expect(steps.first()).toHaveAttribute('data-success', 'true');
  await expect.poll(async () => (await picturesShown(page)).namedAt).toBeGreaterThan(0);
  const { before, after } = await stepPictures(page, steps.first());
  const { shown, tappedAt, namedAt } = await picturesShown(page);
  expect(tappedAt, 'the tap was seen').toBeGreaterThanOrEqual(0);
  // The push waits behind the action (docs/rules.md#r-gate-01) and came before the after read's answer,
  // so it is no newer than the after (R-PERF-07): the first picture naming the change is the step's after.
  expect(shown[namedAt], "the first picture naming the tap's change is the step's after").toBe(after);
  expect(shown.slice(tappedAt, namedAt), "the step's before is a picture shown from the tap to the after").toContain(before);
});
