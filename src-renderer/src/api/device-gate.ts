/** Per device: the observe in flight, and the actions that must not overlap one (see below). */
/** The observe currently in flight per device, loop or not. */
export const inFlight = new Map<string, Promise<unknown>>();
/** The loop's screenshot requests in flight per device. */
const shotsInFlight = new Map<string, Set<Promise<unknown>>>();

/** Runs one screenshot request of the live loop, once no action is running on the device. */
export async function gatedScreenshot<T>(deviceId: string, run: () => Promise<T>): Promise<T> {
  await untilNoAction(deviceId);
  const request = run();
  const set = shotsInFlight.get(deviceId) ?? new Set();
  set.add(request);
  shotsInFlight.set(deviceId, set);
  try {
    return await request;
  } finally {
    set.delete(request);
  }
}

/**
 * Actions and the loop's reads take turns on a device. An observe makes the SDK bridge take a new
 * capture, and a bridge action names the capture of the read just before it: an observe landing between
 * the two makes the bridge refuse the action as stale_observation. So an action waits for the observe
 * in flight, and the loop observes nothing while an action runs.
 */
const actionsInFlight = new Map<string, number>();
const idleWaiters = new Map<string, Array<() => void>>();

export async function runExclusiveAction<T>(deviceId: string, run: () => Promise<T>): Promise<T> {
  actionsInFlight.set(deviceId, (actionsInFlight.get(deviceId) ?? 0) + 1);
  try {
    // Nothing of this window's reads overlaps the action: not an observe (a new bridge capture), not a
    // screenshot (on a demo device a screenshot during a touch can make the touch land elsewhere).
    const observing = inFlight.get(deviceId);
    const shots = [...(shotsInFlight.get(deviceId) ?? [])];
    await Promise.all([observing, ...shots].map((p) => p?.catch(() => undefined)));
    return await run();
  } finally {
    const left = (actionsInFlight.get(deviceId) ?? 1) - 1;
    if (left > 0) actionsInFlight.set(deviceId, left);
    else {
      actionsInFlight.delete(deviceId);
      for (const wake of idleWaiters.get(deviceId)?.splice(0) ?? []) wake();
    }
  }
}

export async function untilNoAction(deviceId: string): Promise<void> {
  // Checked again after every wake-up: the check and the observe that follows it must be one synchronous step.
  while ((actionsInFlight.get(deviceId) ?? 0) > 0) {
    await new Promise<void>((resolve) => {
      const list = idleWaiters.get(deviceId) ?? [];
      list.push(resolve);
      idleWaiters.set(deviceId, list);
    });
  }
}
