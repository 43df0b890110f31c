/**
 * The host's audit of the shown frame (docs/rules.md#r-a11y-17) through react-query: asked once per frame
 * (its `receivedAt`), only while the panel's audit is on, the last answer kept while the next is on its
 * way; and the mute that the host keeps in the device's profile.
 */
import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ApiOutput } from '@shared/api/api';
import type { DeviceSummary, Frame } from '@shared/protocol/device';
import { useAccessibility } from '@renderer/state/accessibility';
import { useApi } from './queries';

export type DeviceAudit = ApiOutput<'device.audit'>;

const auditKey = (deviceId: string, receivedAt: number | null) => ['a11y', deviceId, receivedAt] as const;

/**
 * The newest audit the host has answered for this device, of any frame. The host audits off its thread
 * (docs/rules.md#r-a11y-24), so on a busy machine the next frame can come before this one's audit: then
 * react-query's previous data is that of a query still pending, and the panel would say "Auditing…" for
 * as long as frames keep coming faster than audits. The panel shows this one instead, said to be stale.
 */
function newestAnswered(client: QueryClient, deviceId: string): DeviceAudit | undefined {
  let newest: DeviceAudit | undefined;
  for (const [, data] of client.getQueriesData<DeviceAudit>({ queryKey: ['a11y', deviceId] }))
    if (data && (newest === undefined || (data.receivedAt ?? 0) > (newest.receivedAt ?? 0))) newest = data;
  return newest;
}

export function useDeviceAudit(device: DeviceSummary | undefined, frame: Frame | undefined) {
  const api = useApi();
  const client = useQueryClient();
  const auditing = useAccessibility((s) => s.auditing);
  const deviceId = device?.id ?? '';
  const receivedAt = frame?.observation ? frame.receivedAt : null;
  return useQuery({
    queryKey: auditKey(deviceId, receivedAt),
    queryFn: () => api.call('device.audit', { deviceId }),
    enabled: auditing && device !== undefined && receivedAt !== null,
    staleTime: Infinity,
    placeholderData: (previous) => previous ?? newestAnswered(client, deviceId),
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
