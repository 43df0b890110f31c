/**
 * Device data through react-query: the device list and each device's latest frame per observe options,
 * kept fresh by the host's events (`devices.changed`, `device.frame`) and, in live mode, by the
 * screenshot loop (live.ts).
 */
import { createContext, useContext, useEffect, useSyncExternalStore } from 'react';
import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { ApiInput, DeviceSummary, Frame } from '../../../src-shared/protocol/api';
import type { Strategy } from '../../../src-shared/protocol/observation';
import { useInspector } from '../state/store';
import { frameMeter } from '../state/frame-meter';
import type { HostStatus, Transport } from './transport';

/** How a frame is observed; each combination is its own cached frame. */
export interface FrameOptions {
  strategy: Strategy;
  xctestOnly: boolean;
}

/** What the device's own pushes are observed with (the host observes a push with no options). */
export const PUSH_OPTIONS: FrameOptions = { strategy: 'visible', xctestOnly: false };

export function isPushOptions(options: FrameOptions): boolean {
  return options.strategy === PUSH_OPTIONS.strategy && options.xctestOnly === PUSH_OPTIONS.xctestOnly;
}

export function observeInput(deviceId: string, options: FrameOptions): ApiInput<'device.observe'> {
  return { deviceId, strategy: options.strategy, ...(options.xctestOnly ? { xctestOnly: true } : {}) };
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
  frame: (deviceId: string, options: FrameOptions) => ['frame', deviceId, options.strategy, options.xctestOnly] as const,
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

function upsertDevice(list: DeviceSummary[] | undefined, device: DeviceSummary): DeviceSummary[] {
  const rest = (list ?? []).filter((d) => d.id !== device.id);
  return [...rest, device];
}

/** Keep only the newer of two frames of the same device (pushes and observe replies can cross). */
export function newerFrame(current: Frame | undefined, next: Frame): Frame {
  return current && current.receivedAt > next.receivedAt ? current : next;
}

/** Puts `frame` in the cache under `key` unless a newer one is there; says whether it went in. */
export function showFrame(client: QueryClient, key: readonly unknown[], frame: Frame): boolean {
  let shown = false;
  client.setQueryData<Frame>(key, (current) => {
    const next = newerFrame(current, frame);
    shown = next === frame;
    return next;
  });
  return shown;
}

/** Feeds the host's events into the query cache, and refetches everything when the host comes back. */
export function useHostEvents(): void {
  const api = useApi();
  const client = useQueryClient();
  useEffect(() => subscribeHostEvents(api, client), [api, client]);
}

export function subscribeHostEvents(api: Transport, client: QueryClient): () => void {
  let lastState = api.status().state;
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
    api.onStatus(({ state }) => {
      if (state === 'connected' && lastState !== 'connected') void client.invalidateQueries();
      lastState = state;
    }),
  ];
  return () => offs.forEach((off) => off());
}
