/**
 * The host's audit of the shown frame (docs/rules.md#r-a11y-17) through react-query: asked once per frame
 * (its `receivedAt`), only while the panel's audit is on, the last answer kept while the next is on its
 * way; and the mute that the host keeps in the device's profile.
 */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ApiOutput } from '@shared/api/api';
import type { DeviceSummary, Frame } from '@shared/protocol/device';
import { useAccessibility } from '@renderer/state/accessibility';
import { useApi } from './queries';

export type DeviceAudit = ApiOutput<'device.audit'>;

const auditKey = (deviceId: string, receivedAt: number | null) => ['a11y', deviceId, receivedAt] as const;

export function useDeviceAudit(device: DeviceSummary | undefined, frame: Frame | undefined) {
  const api = useApi();
  const auditing = useAccessibility((s) => s.auditing);
  const deviceId = device?.id ?? '';
  const receivedAt = frame?.observation ? frame.receivedAt : null;
  return useQuery({
    queryKey: auditKey(deviceId, receivedAt),
    queryFn: () => api.call('device.audit', { deviceId }),
    enabled: auditing && device !== undefined && receivedAt !== null,
    staleTime: Infinity,
    placeholderData: keepPreviousData,
    retry: false,
  });
}

export function useMuteFinding(deviceId: string) {
  const api = useApi();
  const client = useQueryClient();
  return useMutation({
    mutationFn: (input: { fingerprint: string; muted: boolean }) => api.call('device.muteFinding', { deviceId, ...input }),
    // Every audit of this device shows the mutes the host now keeps.
    onSuccess: ({ muted }) => client.setQueriesData<DeviceAudit>({ queryKey: ['a11y', deviceId] }, (audit) => (audit ? { ...audit, muted } : audit)),
  });
}
