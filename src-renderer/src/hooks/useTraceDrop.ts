import { useEffect } from 'react';
import { useApi } from '@renderer/api/queries';
import { openTraceFromFile } from '@renderer/state/trace-view';

/** A file dropped anywhere in the window is opened as a trace. */
export function useTraceDrop(): void {
  const api = useApi();
  useEffect(() => {
    const over = (e: DragEvent) => {
      if (e.dataTransfer?.types.includes('Files')) e.preventDefault();
    };
    const drop = (e: DragEvent) => {
      const file = e.dataTransfer?.files[0];
      if (!file) return;
      e.preventDefault();
      void openTraceFromFile(api, file);
    };
    window.addEventListener('dragover', over);
    window.addEventListener('drop', drop);
    return () => {
      window.removeEventListener('dragover', over);
      window.removeEventListener('drop', drop);
    };
  }, [api]);
}
