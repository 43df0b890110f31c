/**
 * Live mode: the device's pushes bring each new tree (the host observes them and sends `device.frame`),
 * and this loop keeps the picture moving with screenshots alone, which cost the device far less than an
 * observe (no tree, no SDK reads). Two screenshot requests are kept in flight so the device is never
 * idle between them; no more, so nothing queues up however slow it is. Each screenshot carries its frame
 * context, so the header still says when picture and tree come from different moments. A device that
 * takes no screenshots (or whose frames come without one, like a recorded session) is re-observed
 * once a second instead. One frame without a screenshot (a capture that timed out on a heavy screen)
 * does not stop the pictures: only the loop's own screenshot replies pace it, and one without a picture
 * makes that request wait a second before the next (docs/rules.md#r-perf-05). Pausing stops the loop,
 * and a reply that lands after the pause is dropped.
 * Reads and actions take their turns on the host (src-main/connection/gate.ts), so the loop just asks.
 */
import { useEffect, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { DeviceSummary, Frame } from '@shared/protocol/device';
import { treeReadDelay } from '@shared/inspect';
import { takesScreenshots } from '@shared/inspect/grid';
import { frameMeter } from '@renderer/state/frame-meter';
import { observeInput, queryKeys, showFrame, useApi, type FrameOptions } from './queries';

export const MAX_FPS = 30;
const MIN_INTERVAL_MS = 1_000 / MAX_FPS;
const ERROR_BACKOFF_MS = 1_000;
const NO_SCREENSHOT_INTERVAL_MS = 1_000;
/**
 * With pictures coming from the screenshot loop, the tree is still re-read once a second: some changes
 * push nothing (the SDK bridge becoming unavailable, a fault at run time) and must still show.
 */
const TREE_REFRESH_MS = 1_000;
/**
 * A tree re-read costs the device, the host and this page in proportion to the tree: the next one waits
 * at least this many times as long as the last one took, so on a heavy screen (a 50,000-node tree takes
 * seconds) the picture stays live and the tree follows at its own pace (docs/rules.md#r-perf-05).
 */
const TREE_COST_FACTOR = 3;
/** Screenshot requests in flight per device (measured on the demo: 11/s with one, ~15/s with two). */
const SCREENSHOT_DEPTH = 2;

export function useLiveLoop(
  device: DeviceSummary | undefined,
  options: FrameOptions,
  live: boolean,
  /** The last frame came without a screenshot: pictures start from the next frame that has one. */
  screenshotless = false,
): { error: unknown } {
  const api = useApi();
  const client = useQueryClient();
  const [error, setError] = useState<unknown>(null);
  const deviceId = device?.id;
  const connected = device?.state === 'connected';
  const screenshots = device ? takesScreenshots(device) : false;
  // Read when the loop starts, not a reason to restart it: a running picture loop outlives one frame without a picture.
  const screenshotlessNow = useRef(screenshotless);
  screenshotlessNow.current = screenshotless;
  const { strategy, xctestOnly, windowId } = options;

  useEffect(() => {
    if (!live || !deviceId || !connected) return;
    const frameOptions: FrameOptions = { strategy, xctestOnly, ...(windowId !== undefined ? { windowId } : {}) };
    const interval = screenshots ? TREE_REFRESH_MS : NO_SCREENSHOT_INTERVAL_MS;
    let picturesRunning = false;
    const key = queryKeys.frame(deviceId, frameOptions);
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;

    // When this loop's own last read was taken (host clock); 0: none yet.
    let lastReadAt = 0;

    const observeTick = async () => {
      // A push or an action may have brought a tree since: then the re-read waits an interval after it.
      const wait = treeReadDelay(Date.now(), interval, lastReadAt, client.getQueryData<Frame>(key)?.receivedAt);
      if (wait > 0) {
        timer = setTimeout(() => void observeTick(), wait);
        return;
      }
      const started = performance.now();
      let delay = 0;
      try {
        const sent = performance.now();
        const frame = await api.call('device.observe', observeInput(deviceId, frameOptions));
        if (stopped) return;
        lastReadAt = frame.receivedAt;
        const cost = performance.now() - sent;
        frameMeter.recordRoundTrip(cost);
        if (showFrame(client, key, frame)) frameMeter.record();
        setError(null);
        if (screenshots && frame.screenshot) startScreenshots();
        delay = Math.max(0, Math.max(interval, TREE_COST_FACTOR * cost) - (performance.now() - started));
      } catch (failure) {
        if (stopped) return;
        setError(failure);
        delay = ERROR_BACKOFF_MS;
      }
      timer = setTimeout(() => void observeTick(), delay);
    };
    const startScreenshots = () => {
      if (picturesRunning) return;
      picturesRunning = true;
      for (let i = 0; i < SCREENSHOT_DEPTH; i++) void screenshotWorker();
    };

    const screenshotWorker = async () => {
      while (!stopped) {
        const started = performance.now();
        try {
          const shot = await api.call('device.screenshot', { deviceId });
          if (stopped) return;
          frameMeter.recordRoundTrip(performance.now() - started);
          const { screenshot } = shot;
          if (screenshot) {
            let merged = false;
            client.setQueryData<Frame>(key, (current) => {
              if (!current) return current;
              merged = true;
              // The same picture again (the device's kept capture, docs/rules.md#r-perf-05): it is counted,
              // and the frame stays the same object, so nothing on the page renders again for it.
              const shown = current.screenshot;
              if (shown && shown.dataBase64 === screenshot.dataBase64 && shown.frameContext === screenshot.frameContext) return current;
              return { ...current, screenshot };
            });
            if (merged) frameMeter.record();
          }
          setError(null);
          // No picture this time (the device's capture failed or timed out): ask again, but not at once.
          const pace = screenshot ? MIN_INTERVAL_MS * SCREENSHOT_DEPTH : ERROR_BACKOFF_MS;
          await sleep(Math.max(0, pace - (performance.now() - started)));
        } catch (failure) {
          if (stopped) return;
          setError(failure);
          await sleep(ERROR_BACKOFF_MS);
        }
      }
    };

    // Trees from observes (and the device's pushes); pictures from the screenshot loop once a frame has one.
    if (screenshots && !screenshotlessNow.current && client.getQueryData<Frame>(key)?.screenshot) startScreenshots();
    void observeTick();
    return () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [api, client, deviceId, connected, screenshots, live, strategy, xctestOnly, windowId]);

  return { error: live && connected ? error : null };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
