import './AppPanel.css';
/**
 * An AppReveal app's own view of itself (docs/rules.md#r-ar-22): every read-only tool it registered
 * (state, navigation stack, feature flags, network calls, logs, recent errors, device info, launch
 * context), each shown readably. It reads on demand (↻) and takes the reading that came with each
 * action's result, so it follows the app step by step. Nothing here changes the app. A trace opened
 * offline shows, per step, what those tools said after it that was new (TraceAppState).
 */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { AppState, AppStateReading } from '@shared/protocol/appreveal-tools';
import { APPREVEAL_READ_TOOLS } from '@shared/protocol/appreveal-tools';
import type { DeviceSummary, Frame } from '@shared/protocol/device';
import { appReadingView, appToolTitle, newerAppState } from '@shared/inspect/app-state';
import { useApi } from '@renderer/api/queries';
import { useTraceResource } from '@renderer/hooks/useTraceResources';

export function AppPanel({ device, frame }: { device: DeviceSummary; frame: Frame | undefined }) {
  const api = useApi();
  const connected = device.state === 'connected';
  const offered = APPREVEAL_READ_TOOLS.filter((tool) => device.supportedCommands.includes(tool));
  const query = useQuery({
    queryKey: ['appState', device.id],
    queryFn: () => api.call('device.appState', { deviceId: device.id }),
    enabled: connected && offered.length > 0,
    retry: false,
    staleTime: Infinity,
  });
  // The step's own reading is newer than the panel's last read once an action ran.
  const state = newerAppState(query.data, frame?.appReveal?.app);
  const identity = frame?.appReveal?.identity;
  const name = identity?.displayName ?? identity?.appName ?? identity?.bundleId;
  return (
    <section className="app-panel" data-testid="app-panel">
      <div className="panel-title">
        <span>App</span>
        {name && (
          <span className="app-identity" data-testid="app-identity" title={identity?.bundleId}>
            {name}
            {identity?.version ? ` ${identity.version}` : ''}
            {identity?.platform ? ` · ${identity.platform}` : ''}
          </span>
        )}
        <span className="spacer" />
        <button
          type="button"
          className="key-button"
          data-testid="app-refresh"
          title="Read the app's state again"
          disabled={!connected || offered.length === 0 || query.isFetching}
          onClick={() => void query.refetch()}
        >
          ↻
        </button>
      </div>
      {offered.length === 0 ? (
        <div className="muted" data-testid="app-none">
          This app registered none of the read-only tools.
        </div>
      ) : query.isError && !state ? (
        <div className="muted" data-testid="app-error">
          {query.error instanceof Error ? query.error.message : String(query.error)}
        </div>
      ) : !state ? (
        <div className="muted">reading…</div>
      ) : (
        <AppStateView state={state} />
      )}
    </section>
  );
}

/** Every reading of one app state, one collapsible section each. */
export function AppStateView({ state }: { state: AppState }) {
  return (
    <div className="app-readings" data-testid="app-readings">
      {state.readings.map((reading) => (
        <AppReadingSection key={reading.tool} reading={reading} />
      ))}
    </div>
  );
}

export function AppReadingSection({ reading, defaultOpen }: { reading: AppStateReading; defaultOpen?: boolean }) {
  const [open, setOpen] = useState(defaultOpen ?? (reading.tool !== 'device_info' && reading.tool !== 'launch_context'));
  return (
    <div className="app-reading" data-testid="app-reading" data-tool={reading.tool}>
      <button type="button" className="app-reading-title" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span className="app-reading-caret">{open ? '▾' : '▸'}</span>
        {appToolTitle(reading.tool)}
        <span className="mono app-reading-tool">{reading.tool}</span>
      </button>
      {open && <AppReadingBody reading={reading} />}
    </div>
  );
}

export function AppReadingBody({ reading }: { reading: AppStateReading }) {
  const view = appReadingView(reading);
  switch (view.kind) {
    case 'failed':
      return <div className="app-reading-failed">{view.message}</div>;
    case 'empty':
      return <div className="muted">nothing</div>;
    case 'network':
      return view.rows.length === 0 ? (
        <div className="muted">no calls</div>
      ) : (
        <table className="app-table" data-testid="app-network">
          <thead>
            <tr>
              <th>method</th>
              <th>url</th>
              <th>status</th>
              <th>time</th>
            </tr>
          </thead>
          <tbody>
            {view.rows.map((row, index) => (
              <tr key={index} className={row.error ? 'failed' : undefined} title={row.error || undefined}>
                <td className="mono">{row.method}</td>
                <td className="mono app-url">{row.url}</td>
                <td>{row.status || (row.error ? 'failed' : '')}</td>
                <td>{row.duration}</td>
              </tr>
            ))}
          </tbody>
        </table>
      );
    case 'logs':
      return view.rows.length === 0 ? (
        <div className="muted">none</div>
      ) : (
        <ol className="app-log" data-testid="app-log">
          {view.rows.map((row, index) => (
            <li key={index} className={`level-${row.level.toLowerCase() || 'none'}`}>
              <span className="app-log-time">{shortTime(row.time)}</span>
              {row.level && <span className="app-log-level">{row.level}</span>}
              <span className="app-log-message">{row.message}</span>
              {row.source && <span className="app-log-source">{row.source}</span>}
            </li>
          ))}
        </ol>
      );
    case 'navigation':
      return (
        <div className="app-navigation" data-testid="app-navigation">
          <div>
            route <span className="mono">{view.current || '—'}</span>
          </div>
          {view.stack.length > 0 && <div className="mono">{view.stack.join(' › ')}</div>}
          {view.modals.length > 0 && <div>modals: {view.modals.join(', ')}</div>}
        </div>
      );
    case 'fields':
      return (
        <dl className="app-fields">
          {view.rows.map((row) => (
            <div key={row.name} className="app-field">
              <dt className="mono">{row.name}</dt>
              <dd>{row.value}</dd>
            </div>
          ))}
          {view.truncated && <div className="muted">more not shown</div>}
        </dl>
      );
  }
}

/** A recorded step's app state: what the app's tools said after it that differed from the step before. */
export function TraceAppState({ path, appStateRef }: { path: string; appStateRef: string }) {
  const resource = useTraceResource(path, appStateRef, 'appState');
  const changes = resource.data?.appState;
  return (
    <section className="app-panel trace-app-state" data-testid="trace-app-state">
      <div className="panel-title">
        <span>App after this step</span>
      </div>
      {resource.isError ? (
        <div className="muted">{resource.error instanceof Error ? resource.error.message : String(resource.error)}</div>
      ) : !changes ? (
        <div className="muted">reading…</div>
      ) : (
        <>
          {changes.changed.length === 0 && <div className="muted">nothing changed</div>}
          <div className="app-readings">
            {changes.changed.map((reading) => (
              <AppReadingSection key={reading.tool} reading={reading} defaultOpen />
            ))}
          </div>
          {changes.unchanged.length > 0 && (
            <div className="muted" data-testid="trace-app-unchanged">
              unchanged: {changes.unchanged.map(appToolTitle).join(', ')}
            </div>
          )}
          {changes.removed.length > 0 && <div className="muted">no longer answered: {changes.removed.map(appToolTitle).join(', ')}</div>}
        </>
      )}
    </section>
  );
}

/** "10:42:07" from an ISO time; anything else as it came. */
function shortTime(value: string): string {
  const match = /T(\d\d:\d\d:\d\d)/.exec(value);
  return match?.[1] ?? value;
}
