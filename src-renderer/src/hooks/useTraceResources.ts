/**
 * Resources of a trace opened offline, read through the host (`trace.resource`), decoded there as the
 * kind each reference names, and cached for good: a resource is named by its content, so it never
 * changes. The trace view's steps and the comparisons saved into a trace both draw their frames from these.
 */
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import type { TraceResource, TraceViewStep } from '@shared/api/api';
import type { Frame } from '@shared/protocol/device';
import { recordedObservation } from '@shared/observe/recorded';
import { useApi } from '@renderer/api/queries';

/** `wanted: false` holds the read back (a thumbnail not scrolled to yet). */
export function useTraceResource<K extends TraceResource['kind']>(path: string, ref: string | undefined, as: K, wanted = true) {
  const api = useApi();
  return useQuery({
    queryKey: ['trace-resource', path, ref, as],
    queryFn: async () => (await api.call('trace.resource', { path, ref: ref as string, as })) as Extract<TraceResource, { kind: K }>,
    enabled: ref !== undefined && wanted,
    staleTime: Infinity,
    retry: false,
  });
}

/** A recorded frame as the Screen draws one: the recorded screen judged by the observation rules, and its screenshot. */
export function useTraceFrame(path: string, refs: TraceViewStep['before'], time: number) {
  const observation = useTraceResource(path, refs?.observationRef, 'hierarchy');
  const screenshot = useTraceResource(path, refs?.screenshotRef, 'png');
  const frame = useMemo((): Frame | undefined => {
    if (!refs) return undefined;
    const hierarchy = observation.data?.hierarchy;
    const png = screenshot.data?.dataBase64;
    if (!hierarchy && !png) return undefined;
    return {
      deviceId: 'trace',
      observation: hierarchy ? recordedObservation(hierarchy, time) : null,
      screenshot: png ? { format: 'png', dataBase64: png } : null,
      receivedAt: time,
    };
  }, [refs, observation.data, screenshot.data, time]);
  const error = observation.error ?? screenshot.error;
  const loading = observation.isLoading || screenshot.isLoading;
  return { frame, error, loading };
}

/**
 * A replayed frame of the last replay's step (`trace.replayFrame`), kept by the host in memory for the
 * side by side; `runId` tells one replay's frames from the next one's.
 */
export function useReplayedFrame(path: string, callId: string, when: 'before' | 'after', kept: boolean, runId: number) {
  const api = useApi();
  const query = useQuery({
    queryKey: ['replayed-frame', runId, path, callId, when],
    queryFn: () => api.call('trace.replayFrame', { path, callId, when }),
    enabled: kept,
    staleTime: Infinity,
    retry: false,
  });
  const frame = useMemo((): Frame | undefined => (query.data ? { deviceId: 'replay', ...query.data } : undefined), [query.data]);
  return { frame, error: query.error, loading: query.isLoading && kept };
}
