/**
 * The trace view's store: which trace is open (or opening, or why it could not be), and the one way a
 * trace is opened into it, whether picked, dropped or asked for by the Electron menu.
 */
import { create } from 'zustand';
import { MAX_TRACE_BYTES, type TraceOpened } from '@shared/api/api';
import type { Transport } from '@renderer/api/transport';
import { errorMessage } from '@renderer/state/format';
import { useInspector } from '@renderer/state/store';

interface TraceViewState {
  /** The file being opened, while it is. */
  opening: string | null;
  trace: TraceOpened | null;
  /** Why the last file could not be opened, naming it. */
  error: string | null;
  close(): void;
}

export const useTraceView = create<TraceViewState>((set) => ({
  opening: null,
  trace: null,
  error: null,
  close: () => set({ opening: null, trace: null, error: null }),
}));

/** Shows `name` opening, then the trace, or why it cannot be opened (naming it): never a blank view. */
export async function openTraceInView(name: string, open: () => Promise<TraceOpened>): Promise<void> {
  useInspector.getState().selectNode(null);
  useTraceView.setState({ opening: name, trace: null, error: null });
  try {
    const trace = await open();
    useTraceView.setState({ opening: null, trace, error: null });
  } catch (error) {
    useTraceView.setState({ opening: null, trace: null, error: `Cannot open ${name}: ${errorMessage(error)}` });
  }
}

/** A file the user picked or dropped (Electron opens it in place; a browser sends its bytes to the host). */
export function openTraceFromFile(api: Transport, file: File): Promise<void> {
  return openTraceInView(file.name, async () => {
    if (file.size > MAX_TRACE_BYTES)
      throw new Error(`it is ${Math.round(file.size / (1024 * 1024))} MiB, larger than a trace may be (${MAX_TRACE_BYTES / (1024 * 1024)} MiB)`);
    return api.openTraceFile(file);
  });
}
