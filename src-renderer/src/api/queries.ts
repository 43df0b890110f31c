/**
 * Device data through react-query: the device list and each device's latest frame per observe options,
 * kept fresh by the host's events (`devices.changed`, `device.frame`) and, in live mode, by the
 * screenshot loop (live.ts).
 */
import { createContext, useCallback, useContext, useEffect, useSyncExternalStore } from 'react';
import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { ActionRequest } from '@shared/protocol/action';
import type { ApiInput, RecordingStatus } from '@shared/api/api';
import type { ActionStep, DeviceSummary, Frame } from '@shared/protocol/device';
import type { DiscoveredDevice } from '@shared/protocol/appreveal';
import type { Strategy } from '@shared/protocol/observation';
import { useInspector } from '@renderer/state/store';
import { frameMeter } from '@renderer/state/frame-meter';
import { sameJson } from '@shared/protocol/json';
import { errorMessage } from '@renderer/state/format';
import { deviceBusy, useTimeline } from '@renderer/state/timeline';
import { ApiCallError, type HostStatus, type Transport } from './transport';

/** How a frame is observed; each combination is its own cached frame. */
export interface FrameOptions {
  strategy: Strategy;
  xctestOnly: boolean;
  /** An AppReveal window picked in the header (absent: the key window). */
  windowId?: string;
}

/** What the device's own pushes are observed with (the host observes a push with no options). */
export const PUSH_OPTIONS: FrameOptions = { strategy: 'visible', xctestOnly: false };

export function isPushOptions(options: Pick<FrameOptions, 'strategy' | 'xctestOnly'> & { windowId?: string | null | undefined }): boolean {
  return options.strategy === PUSH_OPTIONS.strategy && options.xctestOnly === PUSH_OPTIONS.xctestOnly && !options.windowId;
}

export function observeInput(deviceId: string, options: FrameOptions): ApiInput<'device.observe'> {
  return {
    deviceId,
    strategy: options.strategy,
    ...(options.xctestOnly ? { xctestOnly: true } : {}),
    ...(options.windowId !== undefined ? { windowId: options.windowId } : {}),
  };
}

export const ApiContext = createContext<Transport | null>(null);

export function useApi(): Transport {
  const api = useContext(ApiContext);
  if (!api) throw new Error('useApi outside <ApiContext.Provider>');
  return api;
}

export const queryKeys = {
  appInfo: ['app.info'] as const,
  devices: ['devices'] as const,
  frame: (deviceId: string, options: FrameOptions) => ['frame', deviceId, options.strategy, options.xctestOnly, options.windowId ?? null] as const,
  discovered: ['discovery'] as const,
  recording: ['recording'] as const,
  unfinished: ['recording', 'unfinished'] as const,
  demo: (deviceId: string) => ['demo', deviceId] as const,
};

export function useHostStatus(): HostStatus {
  const api = useApi();
  return useSyncExternalStore(
    (onChange) => api.onStatus(onChange),
    () => api.status(),
  );
}

export function useAppInfo() {
  const api = useApi();
  return useQuery({ queryKey: queryKeys.appInfo, queryFn: () => api.call('app.info', {}), staleTime: Infinity });
}

export function useDevices() {
  const api = useApi();
  return useQuery({ queryKey: queryKeys.devices, queryFn: () => api.call('devices.list', {}) });
}

/**
 * The device's latest frame observed with `options`. Observing stops while the device is not connected;
 * the last frame stays in the cache, so a device that drops keeps showing what it showed. In live mode
 * the screenshot loop fills the cache instead (one observe in flight); paused, the frame stays put until
 * a refresh.
 */
export function useFrame(device: DeviceSummary | undefined, options: FrameOptions, live: boolean) {
  const api = useApi();
  const deviceId = device?.id ?? '';
  return useQuery({
    queryKey: queryKeys.frame(deviceId, options),
    queryFn: () => api.call('device.observe', observeInput(deviceId, options)),
    enabled: device?.state === 'connected' && !live,
    retry: false,
    staleTime: Infinity,
    // Not react-query's deep merge (a copy of every object that differs, tens of ms on a 50,000-node tree
    // only to find it new): a frame is replaced whole, except that an unchanged tree stays the shown one.
    structuralSharing: (previous, next) => keepUnchangedTree(previous as Frame | undefined, next as Frame),
    // Switching strategy (not device) keeps the last frame on screen until the first one observed anew.
    placeholderData: (previous, previousQuery) => (previousQuery?.queryKey[1] === deviceId ? previous : undefined),
  });
}

export function useConnectDevice() {
  const api = useApi();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: ApiInput<'devices.connect'>) => api.call('devices.connect', input),
    onSuccess: (device) => {
      client.setQueryData<DeviceSummary[]>(queryKeys.devices, (list) => upsertDevice(list, device));
      void client.invalidateQueries({ queryKey: queryKeys.devices });
    },
  });
}

export function useDisconnectDevice() {
  const api = useApi();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (deviceId: string) => api.call('devices.disconnect', { deviceId }),
    onSettled: () => client.invalidateQueries({ queryKey: queryKeys.devices }),
  });
}

/** What discovery finds (Bonjour, the runner port probe, manual entries), kept live by `discovery.changed`. */
export function useDiscovered() {
  const api = useApi();
  return useQuery({ queryKey: queryKeys.discovered, queryFn: () => api.call('discovery.list', {}) });
}

export function useRememberDevice() {
  const api = useApi();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: ApiInput<'discovery.addManual'>) => api.call('discovery.addManual', input),
    onSuccess: (list) => client.setQueryData<DiscoveredDevice[]>(queryKeys.discovered, list),
  });
}

export function useRecordingStatus() {
  const api = useApi();
  return useQuery({ queryKey: queryKeys.recording, queryFn: () => api.call('recording.status', {}), retry: false });
}

export function useRecordingToggle() {
  const api = useApi();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { start: true; deviceId: string } | { start: false }) =>
      input.start ? api.call('recording.start', { deviceId: input.deviceId }) : api.call('recording.stop', {}),
    onSuccess: (status) => client.setQueryData<RecordingStatus>(queryKeys.recording, status),
  });
}

/**
 * The demo device's screen and faults, through the host (docs/rules.md#r-qa-18); `undefined` data with
 * a `not_offered` error for a device that is not the demo. Asked once per device, and again after a change.
 */
export function useDemoState(device: DeviceSummary | undefined) {
  const api = useApi();
  const deviceId = device?.id ?? '';
  const runner = device !== undefined && device.kind !== 'appreveal' && device.state === 'connected';
  return useQuery({
    queryKey: queryKeys.demo(deviceId),
    queryFn: () => api.call('demo.state', { deviceId }),
    enabled: runner,
    staleTime: Infinity,
    retry: (count, error) => count < 2 && !(error instanceof ApiCallError && error.code === 'not_offered'),
  });
}

/** Switches the demo's screen or its faults; the answer is the demo's state after the change. */
export function useDemoChange(deviceId: string) {
  const api = useApi();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (change: { screen: string } | { add?: string[]; remove?: string[] }) =>
      'screen' in change ? api.call('demo.setScreen', { deviceId, screen: change.screen }) : api.call('demo.setFaults', { deviceId, ...change }),
    onSuccess: (state) => client.setQueryData(queryKeys.demo(deviceId), state),
  });
}

/** Traces a crash or a kill left unfinished (asked once, at startup). */
export function useUnfinishedTraces() {
  const api = useApi();
  return useQuery({ queryKey: queryKeys.unfinished, queryFn: () => api.call('recording.unfinished', {}), staleTime: Infinity, retry: false });
}

export function useRecoverTrace() {
  const api = useApi();
  return useMutation({ mutationFn: (folder: string) => api.call('recording.recover', { folder }) });
}

/** Why a second action is not sent while the first runs (docs/rules.md#r-act-05). */
export const BUSY_NOTICE = 'an action is still running on this device; the next one waits for its result';

/**
 * Sends one action to a device. The step goes on the timeline (also from the `device.action` event, once)
 * and its after frame onto the screen, paused or live: the user asked for it.
 *
 * The device takes one action at a time: while one runs (this window's or one the host reports) another
 * is not sent, and the user is told so. The call waits for the host's answer however long it takes; a
 * lost connection to the host is said as such, and the row waits for the step the host still reports.
 */
export function useAct(device: DeviceSummary | undefined, options: FrameOptions) {
  const api = useApi();
  const client = useQueryClient();
  const deviceId = device?.id;
  const { xctestOnly } = options;
  return useCallback(
    async (action: ActionRequest): Promise<ActionStep | undefined> => {
      if (!deviceId) return undefined;
      const timeline = useTimeline.getState();
      if (deviceBusy(timeline.pending, deviceId)) {
        timeline.refuse(deviceId, BUSY_NOTICE);
        return undefined;
      }
      const pending = timeline.begin(deviceId, action);
      try {
        const step = await api.call('device.act', {
          deviceId,
          action,
          ...(xctestOnly ? { xctestOnly: true } : {}),
          ...(pending.clientRef ? { clientRef: pending.clientRef } : {}),
        });
        useTimeline.getState().add(step);
        useTimeline.getState().end(pending.id);
        showStepResult(client, step, options);
        return step;
      } catch (error) {
        if (error instanceof ApiCallError && (error.code === 'host_connection_lost' || error.code === 'wire_unresolved')) {
          // Not a result: the host may still be running it (or ran it and its reply could not be read),
          // and reports the step when it has it: the history read after the reconnect brings it.
          useTimeline.getState().lose(pending.id, errorMessage(error));
        } else {
          useTimeline.getState().end(pending.id, errorMessage(error));
        }
        return undefined;
      }
    },
    // options is memoized by the caller; xctestOnly is read from it.
    [api, client, deviceId, xctestOnly, options],
  );
}

/** The device's frame after an action, shown whatever the live state (observed with the push options). */
function showStepResult(client: QueryClient, step: ActionStep, options: FrameOptions): void {
  if (step.after) {
    if (showFrame(client, queryKeys.frame(step.deviceId, PUSH_OPTIONS), step.after) && isPushOptions(options)) frameMeter.record();
  }
  // Other observe options: observe again with them (live mode does it by itself).
  if (!isPushOptions(options) && !useInspector.getState().live) {
    void client.invalidateQueries({ queryKey: queryKeys.frame(step.deviceId, options) });
  }
}

function upsertDevice(list: DeviceSummary[] | undefined, device: DeviceSummary): DeviceSummary[] {
  const rest = (list ?? []).filter((d) => d.id !== device.id);
  return [...rest, device];
}

/** Keep only the newer of two frames of the same device (pushes and observe replies can cross). */
export function newerFrame(current: Frame | undefined, next: Frame): Frame {
  return current && current.receivedAt > next.receivedAt ? current : next;
}

/**
 * `next`, holding `previous`'s tree objects where its tree is the same (docs/rules.md#r-perf-03): what the
 * views draw from is keyed on those objects, so a live read of an unchanged screen (new timings, a new
 * observation every time) redraws no row, no box and no match. The root node is kept when only the read's
 * own stamps (updatedAt) moved on; the whole `viewHierarchy` when nothing did. Neither frame is changed.
 */
export function keepUnchangedTree(previous: Frame | undefined, next: Frame): Frame {
  const was = previous?.observation?.viewHierarchy;
  const observation = next.observation;
  const now = observation?.viewHierarchy;
  if (!previous || !was || !observation || !now || was === now || previous.deviceId !== next.deviceId) return next;
  if (!sameJson(was.hierarchy, now.hierarchy)) return next;
  const kept = sameJson({ ...was, hierarchy: undefined }, { ...now, hierarchy: undefined }) ? was : { ...now, hierarchy: was.hierarchy };
  return { ...next, observation: { ...observation, viewHierarchy: kept } };
}

/** Puts `frame` in the cache under `key` unless a newer one is there; says whether it went in. */
export function showFrame(client: QueryClient, key: readonly unknown[], frame: Frame): boolean {
  let shown = false;
  client.setQueryData<Frame>(key, (current) => {
    const next = newerFrame(current, frame);
    shown = next === frame;
    return shown ? keepUnchangedTree(current, frame) : next;
  });
  return shown;
}

/** Feeds the host's events into the query cache, and refetches everything when the host comes back. */
export function useHostEvents(): void {
  const api = useApi();
  const client = useQueryClient();
  useEffect(() => subscribeHostEvents(api, client), [api, client]);
}

/**
 * The steps the host already holds: a window opened or reloaded mid-session shows the timeline so far
 * (steps it already has are not added twice).
 */
async function loadTimelineHistory(api: Transport): Promise<void> {
  try {
    const devices = await api.call('devices.list', {});
    await Promise.all(
      devices.map(async (device) => {
        for (const step of await api.call('device.history', { deviceId: device.id })) useTimeline.getState().add(step);
      }),
    );
  } catch {
    // The host went away again; the next connection loads it.
  }
}

export function subscribeHostEvents(api: Transport, client: QueryClient): () => void {
  let lastState = api.status().state;
  if (lastState === 'connected') void loadTimelineHistory(api);
  const offs = [
    api.on('devices.changed', ({ devices }) => {
      client.setQueryData(queryKeys.devices, devices);
    }),
    api.on('device.frame', (frame) => {
      // Paused means paused: a push changes nothing on screen.
      const ui = useInspector.getState();
      if (!ui.live) return;
      if (showFrame(client, queryKeys.frame(frame.deviceId, PUSH_OPTIONS), frame) && ui.selectedDeviceId === frame.deviceId && isPushOptions(ui)) {
        frameMeter.record();
      }
    }),
    api.on('device.actionProgress', (progress) => useTimeline.getState().progress(progress)),
    api.on('device.action', (step) => {
      useTimeline.getState().add(step);
      // The step count of a running recording moves with every action; the host sends no event for it.
      if (client.getQueryData<RecordingStatus>(queryKeys.recording)?.recording) void client.invalidateQueries({ queryKey: queryKeys.recording, exact: true });
    }),
    api.on('discovery.changed', ({ devices }) => {
      client.setQueryData(queryKeys.discovered, devices);
    }),
    api.on('recording.changed', (status) => {
      client.setQueryData(queryKeys.recording, status);
    }),
    api.onStatus(({ state }) => {
      if (state === 'connected' && lastState !== 'connected') {
        void client.invalidateQueries();
        void loadTimelineHistory(api);
      }
      lastState = state;
    }),
  ];
  return () => offs.forEach((off) => off());
}
