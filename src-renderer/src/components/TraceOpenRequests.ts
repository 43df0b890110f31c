/**
 * Traces the user picked outside the page (the Electron menu's File > Open Trace…) arrive as a path;
 * they open into the same trace view, with the same clear error, as a file picked or dropped here.
 */
import { useEffect } from 'react';
import type { Transport } from '../api/transport';
import { useApi } from '../api/queries';
import { errorMessage } from '../state/format';
import { useInspector } from '../state/store';
import { useTraceView } from './TraceView';

export async function openTraceFromPath(api: Transport, path: string): Promise<void> {
  const name = path.split(/[\\/]/).pop() || path;
  useInspector.getState().selectNode(null);
  useTraceView.setState({ opening: name, trace: null, error: null });
  try {
    const trace = await api.call('trace.open', { path });
    useTraceView.setState({ opening: null, trace, error: null });
  } catch (error) {
    useTraceView.setState({ opening: null, trace: null, error: `Cannot open ${name}: ${errorMessage(error)}` });
  }
}

export function useTraceOpenRequests(): void {
  const api = useApi();
  useEffect(() => api.on('trace.openRequested', ({ path }) => void openTraceFromPath(api, path)), [api]);
}
