/**
 * Export of an opened trace to a Maestro flow: the YAML is saved as a file the user keeps
 * (a download in the browser, the save dialog in Electron), and the steps that have no Maestro form
 * are listed, so the user knows what the flow leaves out before running it.
 */
import { useState } from 'react';
import { useApi } from '@renderer/api/queries';
import { errorMessage } from '@renderer/state/format';

function flowName(tracePath: string): string {
  const base = tracePath.split(/[\\/]/).pop() ?? 'trace';
  return `${base.replace(/\.parallax-trace(\.d)?$/, '') || 'trace'}.maestro.yaml`;
}

export function ExportMaestroButton({ path }: { path: string }) {
  const api = useApi();
  const [state, setState] = useState<{ busy: boolean; notes: string[] | null; error: string | null }>({ busy: false, notes: null, error: null });
  const exportFlow = async () => {
    setState({ busy: true, notes: null, error: null });
    try {
      const { yaml, notes } = await api.call('trace.exportMaestro', { path });
      const url = URL.createObjectURL(new Blob([yaml], { type: 'application/yaml' }));
      const link = document.createElement('a');
      link.href = url;
      link.download = flowName(path);
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      setState({ busy: false, notes, error: null });
    } catch (error) {
      setState({ busy: false, notes: null, error: errorMessage(error) });
    }
  };
  return (
    <span className="export-maestro">
      <button type="button" className="mini-button" data-testid="export-maestro" disabled={state.busy} onClick={() => void exportFlow()}>
        {state.busy ? 'Exporting…' : 'Export Maestro flow'}
      </button>
      {state.error && (
        <span className="bad" data-testid="export-error" role="alert">
          Export failed: {state.error}
        </span>
      )}
      {state.notes && (
        <details className="export-notes" data-testid="export-notes" data-count={state.notes.length}>
          <summary>{state.notes.length === 0 ? 'every step has a Maestro form' : `${state.notes.length} note${state.notes.length === 1 ? '' : 's'}`}</summary>
          <ul>
            {state.notes.map((note) => (
              <li key={note}>{note.replace(/^note: /, '')}</li>
            ))}
          </ul>
        </details>
      )}
    </span>
  );
}
