/**
 * Scroll searches over the whole demo Feed (docs/rules.md#r-look-07, issue 27): the swipe loop waits for
 * each fling to settle before it reads, never swipes with a frame the list has moved past, and ends with
 * target_not_found at the list's end. Over real sockets; what was sent is the device's own count.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoDevice, type DemoDeviceHandle } from '@demo/index';
import { RunnerClient } from '@main/runner/client';
import { Observer } from '@main/runner/observer';
import { Dispatcher } from '@main/runner/dispatch/dispatcher';
import { SCROLL_STALE_RETRIES } from '@shared/act/scroll-loop';

let device: DemoDeviceHandle;
let client: RunnerClient;
let dispatcher: Dispatcher;

async function admin(path: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${device.adminUrl}${path}`, body === undefined ? {} : { method: 'POST', body: JSON.stringify(body) });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status !== 200) throw new Error(`admin ${path}: ${JSON.stringify(json)}`);
  return json;
}
/**
 * The Feed, its list gliding on for 1.5 s after each swipe as a fling does on a device: a read right
 * after a swipe lands mid-glide, which is what made the search fail as stale (issue 27).
 */
const GLIDE = 'scroll-glide=1500';
const reset = (screen: string) => admin('/reset', { screen, faults: [GLIDE] });
const swipes = async () => ((await admin('/stats')).requests as Record<string, number>).request_swipe ?? 0;

beforeAll(async () => {
  device = await startDemoDevice({ port: 0 });
  client = new RunnerClient(device.runnerUrl);
  client.start();
  await client.waitUntilConnected();
  // As the UI runs it: every observation after an action carries a screenshot.
  dispatcher = new Dispatcher(client, new Observer(client));
}, 60_000);

afterAll(async () => {
  await client?.close();
  await device?.close();
});

describe('R-LOOK-07: a scroll search over the whole Feed', () => {
  it.each(['Post 55'])(
    'finds %s after swipes of a gliding list, never refused as stale',
    async (text) => {
      await reset('feed');
      const result = await dispatcher.scrollTo({ action: 'scrollTo', lookFor: { text }, maxSwipes: 15 });
      expect(result.failureReason).toBeUndefined();
      expect(result).toMatchObject({ success: true, target: { resolvedBy: 'lookFor' } });
      // Found past the first screen, so swiped to; how many swipes it took is Chromium's fling, whose length
      // comes from the stroke's touch timing (app-page.ts swipe), so the load decides it: usually 4, and a
      // quiet fresh clone's CI flung to Post 55 in one.
      expect(await swipes()).toBeGreaterThan(0);
    },
    120_000,
  );

  it('a text the list does not hold ends with target_not_found at the list’s end, before maxSwipes', async () => {
    await reset('feed');
    const result = await dispatcher.scrollTo({ action: 'scrollTo', lookFor: { text: 'Post 999' }, maxSwipes: 40 });
    expect(result).toMatchObject({ success: false, failureReason: 'target_not_found', mayHaveRun: true });
    const sent = await swipes();
    expect(sent).toBeGreaterThan(1);
    // The list ended: the search stopped when a swipe moved nothing, not after 40 swipes.
    expect(sent).toBeLessThan(40);
    expect(result.warnings.join(' ')).toMatch(/end of the list/);
  }, 180_000);

  it('a miss after 2 swipes is target_not_found, not stale_frame_context', async () => {
    await reset('feed');
    const result = await dispatcher.scrollTo({ action: 'scrollTo', lookFor: { text: 'Post 999' }, maxSwipes: 2 });
    expect(result).toMatchObject({ success: false, failureReason: 'target_not_found', mayHaveRun: true });
    // Two swipes ran; a stroke refused as stale (nothing ran) may have been sent again with a fresh frame.
    const sent = await swipes();
    expect(sent).toBeGreaterThanOrEqual(2);
    expect(sent).toBeLessThanOrEqual(2 + SCROLL_STALE_RETRIES);
  }, 60_000);
});
