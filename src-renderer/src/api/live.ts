/**
 * Live mode's screenshot loop: observe, show the frame, observe again. One observe per device is in
 * flight at a time (a restarted loop waits for the previous one's request), so nothing queues up however
 * slow the device is; the loop never runs faster than MAX_FPS, and backs off after a failure. A device
 * that takes no screenshots (or whose last frame came without one, like a recorded session) has nothing
 * for the loop to refresh but its tree, which its pushes already bring: it is re-observed once a second. Pausing stops the loop (and a reply that
 * lands after the pause is dropped).
 */
import { useEffect, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import type { DeviceSummary, Frame } from '../../../src-shared/protocol/api';
import { frameMeter } from '../state/frame-meter';
import { observeInput, queryKeys, showFrame, useApi, type FrameOptions } from './queries';

export const MAX_FPS = 30;
const MIN_INTERVAL_MS = 1_000 / MAX_FPS;
const ERROR_BACKOFF_MS = 1_000;
const NO_SCREENSHOT_INTERVAL_MS = 1_000;

/** The observe currently in flight per device, loop or not. */
const inFlight = new Map<string, Promise<unknown>>();

export function useLiveLoop(
  device: DeviceSummary | undefined,
  options: FrameOptions,
  live: boolean,
  /** The last frame came without a screenshot. */
  screenshotless = false,
): { error: unknown } {
  const api = useApi();
  const client = useQueryClient();
  const [error, setError] = useState<unknown>(null);
  const deviceId = device?.id;
  const connected = device?.state === 'connected';
  const screenshots = !screenshotless && (device?.supportedCommands.includes('request_screenshot') ?? false);
  const { strategy, xctestOnly } = options;

  useEffect(() => {
    if (!live || !deviceId || !connected) return;
    const frameOptions: FrameOptions = { strategy, xctestOnly };
    const interval = screenshots ? MIN_INTERVAL_MS : NO_SCREENSHOT_INTERVAL_MS;
    const key = queryKeys.frame(deviceId, frameOptions);
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;

    const tick = async () => {
      const started = performance.now();
      let delay = 0;
      try {
        const previous = inFlight.get(deviceId);
        if (previous) await previous.catch(() => undefined);
        if (stopped) return;
        const sent = performance.now();
        const request = api.call('device.observe', observeInput(deviceId, frameOptions));
        inFlight.set(deviceId, request);
        let frame: Frame;
        try {
          frame = await request;
        } finally {
          if (inFlight.get(deviceId) === request) inFlight.delete(deviceId);
        }
        if (stopped) return;
        frameMeter.recordRoundTrip(performance.now() - sent);
        if (showFrame(client, key, frame)) frameMeter.record();
        setError(null);
        delay = Math.max(0, interval - (performance.now() - started));
      } catch (failure) {
        if (stopped) return;
        setError(failure);
        delay = ERROR_BACKOFF_MS;
      }
      timer = setTimeout(() => void tick(), delay);
    };
    void tick();
    return () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [api, client, deviceId, connected, screenshots, live, strategy, xctestOnly]);

  return { error: live && connected ? error : null };
}
