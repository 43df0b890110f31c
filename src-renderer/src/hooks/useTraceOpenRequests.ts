/**
 * Traces the user picked outside the page (the Electron menu's File > Open Trace…) arrive as a path;
 * they open into the same trace view, with the same clear error, as a file picked or dropped here.
 */
import { useEffect } from 'react';
import type { Transport } from '@renderer/api/transport';
import { useApi } from '@renderer/api/queries';
import { openTraceInView } from '@renderer/state/trace-view';

export function openTraceFromPath(api: Transport, path: string): Promise<void> {
  return openTraceInView(path.split(/[\\/]/).pop() || path, () => api.call('trace.open', { path }));
}

export function useTraceOpenRequests(): void {
  const api = useApi();
  useEffect(() => api.on('trace.openRequested', ({ path }) => void openTraceFromPath(api, path)), [api]);
}
