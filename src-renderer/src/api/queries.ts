/**
 * Device data through react-query: the device list and each device's latest frame, kept fresh by the
 * host's events (`devices.changed`, `device.frame`).
 */
import { createContext, useContext, useEffect, useSyncExternalStore } from 'react';
import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { ApiInput, DeviceSummary, Frame } from '../../../src-shared/protocol/api';
import type { HostStatus, Transport } from './transport';

export const ApiContext = createContext<Transport | null>(null);

export function useApi(): Transport {
  const api = useContext(ApiContext);
  if (!api) throw new Error('useApi outside <ApiContext.Provider>');
  return api;
}

export const queryKeys = {
  appInfo: ['app.info'] as const,
  devices: ['devices'] as const,
  frame: (deviceId: string) => ['frame', deviceId] as const,
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
 * The device's latest frame. Observing stops while the device is not connected; the last frame stays in
 * the cache, so a device that drops keeps showing what it showed.
 */
export function useFrame(device: DeviceSummary | undefined) {
  const api = useApi();
  const deviceId = device?.id ?? '';
  return useQuery({
    queryKey: queryKeys.frame(deviceId),
    queryFn: () => api.call('device.observe', { deviceId }),
    enabled: device?.state === 'connected',
    retry: false,
    staleTime: 2_000,
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
      client.setQueryData<Frame>(queryKeys.frame(frame.deviceId), (current) => newerFrame(current, frame));
    }),
    api.onStatus(({ state }) => {
      if (state === 'connected' && lastState !== 'connected') void client.invalidateQueries();
      lastState = state;
    }),
  ];
  return () => offs.forEach((off) => off());
}
