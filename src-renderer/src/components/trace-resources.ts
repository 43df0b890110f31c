/**
 * Resources of a trace opened offline, read through the host (`trace.resource`) and cached for good: a
 * resource is named by its content, so it never changes. The trace view's steps and the comparisons
 * saved into a trace both draw their frames from these.
 */
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import type { Frame, TraceViewStep } from '@shared/api/api';
import type { Observation } from '@shared/protocol/observation';
import type { ViewHierarchy } from '@shared/protocol/runner';
import { useApi } from '@renderer/api/queries';

/** `wanted: false` holds the read back (a thumbnail not scrolled to yet). */
export function useTraceResource(path: string, ref: string | undefined, wanted = true) {
  const api = useApi();
  return useQuery({
    queryKey: ['trace-resource', path, ref],
    queryFn: () => api.call('trace.resource', { path, ref: ref as string }),
    enabled: ref !== undefined && wanted,
    staleTime: Infinity,
    retry: false,
  });
}

/** A recorded frame as the Screen draws one: the ViewHierarchy wrapped in a minimal observation. */
export function useTraceFrame(path: string, refs: TraceViewStep['before'], time: number) {
  const observation = useTraceResource(path, refs?.observationRef);
  const screenshot = useTraceResource(path, refs?.screenshotRef);
  const frame = useMemo((): Frame | undefined => {
    if (!refs) return undefined;
    const json = observation.data?.kind === 'json' ? (observation.data.json as ViewHierarchy | null) : null;
    // An observation resource is a ViewHierarchy; an older one may be a whole Observation.
    const hierarchy = json && typeof json === 'object' && 'viewHierarchy' in json ? ((json as { viewHierarchy?: ViewHierarchy }).viewHierarchy ?? null) : json;
    const png = screenshot.data?.kind === 'png' ? screenshot.data.dataBase64 : null;
    if (!hierarchy && !png) return undefined;
    const obs = {
      updatedAt: time,
      updatedAtSource: 'server',
      ...(hierarchy ? { viewHierarchy: hierarchy } : {}),
      layoutWarnings: { scope: 'full', warnings: [] },
      errors: [],
      quality: { verdict: 'complete', reason: 'recorded' },
      strategy: 'visible',
      timings: {},
    } as unknown as Observation;
    return {
      deviceId: 'trace',
      observation: hierarchy ? obs : null,
      screenshot: png ? { format: 'png', dataBase64: png } : null,
      receivedAt: time,
    };
  }, [refs, observation.data, screenshot.data, time]);
  const error = observation.error ?? screenshot.error;
  const loading = observation.isLoading || screenshot.isLoading;
  return { frame, error, loading };
}
