import './RecentTraces.css';
/**
 * The traces this host recorded, newest first, opened in place by their path: no bytes travel, which
 * matters in a browser (it knows no paths) for a trace of hundreds of steps.
 */
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useApi } from '@renderer/api/queries';
import { errorMessage, formatTime } from '@renderer/state/format';
import { openTraceFromPath } from '@renderer/hooks/useTraceOpenRequests';

function size(bytes: number): string {
  return bytes < 1024 * 1024 ? `${Math.max(1, Math.round(bytes / 1024))} KiB` : `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

export function RecentTraces() {
  const api = useApi();
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const recent = useQuery({ queryKey: ['trace', 'recent'], queryFn: () => api.call('trace.recent', {}), enabled: open, staleTime: 0, retry: false });
  useEffect(() => {
    if (!open) return;
    const close = (e: PointerEvent | KeyboardEvent) => {
      if (e instanceof KeyboardEvent ? e.key === 'Escape' : !box.current?.contains(e.target as Node)) setOpen(false);
    };
    window.addEventListener('pointerdown', close);
    window.addEventListener('keydown', close);
    return () => {
      window.removeEventListener('pointerdown', close);
      window.removeEventListener('keydown', close);
    };
  }, [open]);
  return (
    <div className="recent-traces" ref={box}>
      <button
        type="button"
        className="mini-button"
        data-testid="recent-traces"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        title="Traces this host recorded"
      >
        Recent ▾
      </button>
      {open && (
        <div className="recent-menu" role="menu" data-testid="recent-menu">
          {recent.isPending && <div className="muted">Loading…</div>}
          {recent.isError && <div className="bad">Cannot list the traces: {errorMessage(recent.error)}</div>}
          {recent.data?.length === 0 && <div className="muted">No trace recorded yet: Record, act, Stop.</div>}
          {recent.data?.map((trace) => (
            <button
              key={trace.path}
              type="button"
              role="menuitem"
              className="recent-item"
              data-testid="recent-trace"
              title={trace.path}
              onClick={() => {
                setOpen(false);
                void openTraceFromPath(api, trace.path);
              }}
            >
              <span className="mono">{trace.name}</span>
              <span className="muted">
                {formatTime(trace.modifiedAt)} · {size(trace.bytes)}
              </span>
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
