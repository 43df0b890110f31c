/**
 * Export of an opened trace to a Maestro flow or an XCUITest test method: the text is saved as a file
 * the user keeps (a download in the browser, the save dialog in Electron), and the steps the export
 * leaves out are listed with the trace view's step numbers, so the user knows before running it.
 */
import { useState } from 'react';
import { useApi } from '@renderer/api/queries';
import { errorMessage } from '@renderer/state/format';

type Format = 'maestro' | 'xcuitest';

const FORMATS: Record<Format, { label: string; suffix: string; mime: string; form: string }> = {
  maestro: { label: 'Export Maestro flow', suffix: '.maestro.yaml', mime: 'application/yaml', form: 'a Maestro form' },
  xcuitest: { label: 'Export XCUITest', suffix: '.xcuitest.swift', mime: 'text/x-swift', form: 'an XCUITest form' },
};

function fileName(tracePath: string, format: Format): string {
  const base = tracePath.split(/[\\/]/).pop() ?? 'trace';
  return `${base.replace(/\.parallax-trace(\.d)?$/, '') || 'trace'}${FORMATS[format].suffix}`;
}

function ExportButton({ path, format }: { path: string; format: Format }) {
  const api = useApi();
  const [state, setState] = useState<{ busy: boolean; notes: string[] | null; error: string | null }>({ busy: false, notes: null, error: null });
  const run = async () => {
    setState({ busy: true, notes: null, error: null });
    try {
      const { text, notes } =
        format === 'maestro'
          ? await api.call('trace.exportMaestro', { path }).then((r) => ({ text: r.yaml, notes: r.notes }))
          : await api.call('trace.exportXcuiTest', { path }).then((r) => ({ text: r.swift, notes: r.notes }));
      const url = URL.createObjectURL(new Blob([text], { type: FORMATS[format].mime }));
      const link = document.createElement('a');
      link.href = url;
      link.download = fileName(path, format);
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      setState({ busy: false, notes, error: null });
    } catch (error) {
      setState({ busy: false, notes: null, error: errorMessage(error) });
    }
  };
  const suffix = format === 'maestro' ? '' : `-${format}`;
  return (
    <span className="export-maestro">
      <button type="button" className="mini-button" data-testid={`export-maestro${suffix}`} disabled={state.busy} onClick={() => void run()}>
        {state.busy ? 'Exporting…' : FORMATS[format].label}
      </button>
      {state.error && (
        <span className="bad" data-testid={`export-error${suffix}`} role="alert">
          Export failed: {state.error}
        </span>
      )}
      {state.notes && (
        <details className="export-notes" data-testid={`export-notes${suffix}`} data-count={state.notes.length}>
          <summary>
            {state.notes.length === 0 ? `every step has ${FORMATS[format].form}` : `${state.notes.length} note${state.notes.length === 1 ? '' : 's'}`}
          </summary>
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

/** Both exports of the trace at `path`, side by side. */
export function ExportButtons({ path }: { path: string }) {
  return (
    <>
      <ExportButton path={path} format="maestro" />
      <ExportButton path={path} format="xcuitest" />
    </>
  );
}
