import './AppPanel.css';
/**
 * An AppReveal app's own view of itself (docs/rules.md#r-ar-22): every read-only tool it registered
 * (state, navigation stack, feature flags, network calls, logs, recent errors, device info, launch
 * context), each shown readably. It reads on demand (↻) and takes the reading that came with each
 * action's result, so it follows the app step by step: every step this window or any other client
 * ran (the timeline's newest step), and every screen change a later observation shows, refresh it
 * (docs/rules.md#r-ar-32). A network call opens to its request and response in full when the app has
 * get_network_call_detail. Nothing here changes the app. A trace opened offline shows, per step, what
 * those tools said after it that was new (TraceAppState).
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Fragment, useEffect, useRef, useState } from 'react';
import type { AppState, AppStateReading } from '@shared/protocol/appreveal-tools';
import { APPREVEAL_NETWORK_DETAIL_TOOL, APPREVEAL_READ_TOOLS } from '@shared/protocol/appreveal-tools';
import type { DeviceSummary, Frame } from '@shared/protocol/device';
import { appReadingView, appToolTitle, networkCallDetailView, newerAppState, type NetworkMessageView } from '@shared/inspect/app-state';
import { useApi } from '@renderer/api/queries';
import { useTraceResource } from '@renderer/hooks/useTraceResources';
import { useTimeline } from '@renderer/state/timeline';

/** The screen a frame shows, as the app names it: a new one is a navigation, and the panel reads again. */
function screenOf(frame: Frame | undefined): string | undefined {
  return frame?.appReveal?.screen?.screenKey ?? undefined;
}

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
  const client = useQueryClient();
  const key = ['appState', device.id] as const;
  // The newest step of this device, whoever ran it: its own reading goes in, or the panel reads again.
  const newest = useTimeline((s) => {
    const entries = s.byDevice[device.id] ?? [];
    return entries.reduce<(typeof entries)[number] | undefined>((a, b) => (a && a.startedAt >= b.startedAt ? a : b), undefined)?.step;
  });
  const seenStep = useRef<string | undefined>(newest?.callId);
  useEffect(() => {
    if (!newest || newest.callId === seenStep.current) return;
    seenStep.current = newest.callId;
    const reading = newest.after?.appReveal?.app;
    if (reading) client.setQueryData<AppState>(key, (current) => newerAppState(current, reading));
    else if (connected && offered.length > 0) void client.invalidateQueries({ queryKey: key, exact: true });
    // key is rebuilt from device.id each render; the step is what matters.
  }, [newest, client, connected, offered.length]);
  // A screen change seen without a reading (the app moved by itself, or a live frame): read again.
  const screen = screenOf(frame);
  const seenScreen = useRef(screen);
  useEffect(() => {
    if (screen === seenScreen.current) return;
    seenScreen.current = screen;
    if (frame?.appReveal?.app) client.setQueryData<AppState>(key, (current) => newerAppState(current, frame.appReveal?.app));
    else if (screen !== undefined && connected && offered.length > 0) void client.invalidateQueries({ queryKey: key, exact: true });
  }, [screen, client, connected, offered.length]);
  // The step's own reading is newer than the panel's last read once an action ran.
  const state = newerAppState(query.data, frame?.appReveal?.app);
  const detail = connected && device.supportedCommands.includes(APPREVEAL_NETWORK_DETAIL_TOOL) ? device.id : undefined;
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
        <AppStateView state={state} {...(detail !== undefined ? { detailDeviceId: detail } : {})} />
      )}
    </section>
  );
}

/**
 * Every reading of one app state, one collapsible section each. With `detailDeviceId` (a connected app
 * that has get_network_call_detail) each network call opens to its request and response.
 */
export function AppStateView({ state, detailDeviceId }: { state: AppState; detailDeviceId?: string }) {
  return (
    <div className="app-readings" data-testid="app-readings">
      {state.readings.map((reading) => (
        <AppReadingSection key={reading.tool} reading={reading} {...(detailDeviceId !== undefined ? { detailDeviceId } : {})} />
      ))}
    </div>
  );
}

export function AppReadingSection({ reading, defaultOpen, detailDeviceId }: { reading: AppStateReading; defaultOpen?: boolean; detailDeviceId?: string }) {
  const [open, setOpen] = useState(defaultOpen ?? (reading.tool !== 'device_info' && reading.tool !== 'launch_context'));
  return (
    <div className="app-reading" data-testid="app-reading" data-tool={reading.tool}>
      <button type="button" className="app-reading-title" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span className="app-reading-caret">{open ? '▾' : '▸'}</span>
        {appToolTitle(reading.tool)}
        <span className="mono app-reading-tool">{reading.tool}</span>
      </button>
      {open && <AppReadingBody reading={reading} {...(detailDeviceId !== undefined ? { detailDeviceId } : {})} />}
    </div>
  );
}

export function AppReadingBody({ reading, detailDeviceId }: { reading: AppStateReading; detailDeviceId?: string }) {
  const view = appReadingView(reading);
  const [openCall, setOpenCall] = useState<string | null>(null);
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
            {view.rows.map((row, index) => {
              const opens = detailDeviceId !== undefined && row.id !== '';
              const isOpen = opens && openCall === row.id;
              return (
                <Fragment key={row.id || index}>
                  <tr
                    className={[row.error ? 'failed' : '', opens ? 'opens' : ''].filter(Boolean).join(' ') || undefined}
                    title={row.error || (opens ? 'Show the request and response' : undefined)}
                    data-testid="app-network-row"
                    data-call={row.id || undefined}
                    aria-expanded={opens ? isOpen : undefined}
                    onClick={opens ? () => setOpenCall(isOpen ? null : row.id) : undefined}
                  >
                    <td className="mono">{row.method}</td>
                    <td className="mono app-url">{row.url}</td>
                    <td>{row.status || (row.error ? 'failed' : '')}</td>
                    <td>{row.duration}</td>
                  </tr>
                  {isOpen && detailDeviceId !== undefined && (
                    <tr className="app-network-detail-row">
                      <td colSpan={4}>
                        <NetworkCallDetail deviceId={detailDeviceId} callId={row.id} />
                      </td>
                    </tr>
                  )}
                </Fragment>
              );
            })}
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

/** One network call in full, read when opened (get_network_call_detail, docs/rules.md#r-ar-32). */
export function NetworkCallDetail({ deviceId, callId }: { deviceId: string; callId: string }) {
  const api = useApi();
  const query = useQuery({
    queryKey: ['networkCall', deviceId, callId],
    queryFn: () => api.call('device.networkCall', { deviceId, id: callId }),
    retry: false,
    staleTime: Infinity,
  });
  if (query.isError) return <div className="app-reading-failed">{query.error instanceof Error ? query.error.message : String(query.error)}</div>;
  if (!query.data) return <div className="muted">reading…</div>;
  const view = networkCallDetailView(query.data.value);
  if (!view) return <div className="muted">the app's answer is not a network call</div>;
  return (
    <div className="app-network-detail" data-testid="app-network-detail">
      {view.error && <div className="app-reading-failed">{view.error}</div>}
      <NetworkMessage title="Request" message={view.request} />
      <NetworkMessage title="Response" message={view.response} />
      {(view.sseEvents.length > 0 || (view.sseEventCount ?? 0) > 0) && (
        <div className="app-network-part" data-testid="app-network-sse">
          <div className="app-network-part-title">
            Server-Sent Events
            {view.sseEventCount !== undefined && view.sseEventCount !== view.sseEvents.length
              ? ` (${view.sseEvents.length} of ${view.sseEventCount} kept)`
              : ''}
          </div>
          <ol className="app-log">
            {view.sseEvents.map((event, index) => (
              <li key={index}>
                <span className="app-log-level">{event.event || 'message'}</span>
                {event.id && <span className="app-log-source">id {event.id}</span>}
                <span className="app-log-message mono">{event.data}</span>
              </li>
            ))}
          </ol>
        </div>
      )}
    </div>
  );
}

function NetworkMessage({ title, message }: { title: string; message: NetworkMessageView }) {
  return (
    <div className="app-network-part" data-testid={`app-network-${title.toLowerCase()}`}>
      <div className="app-network-part-title">{title}</div>
      {message.headers.length === 0 ? (
        <div className="muted">no headers</div>
      ) : (
        <dl className="app-fields">
          {message.headers.map((row) => (
            <div key={row.name} className="app-field">
              <dt className="mono">{row.name}</dt>
              <dd>{row.value}</dd>
            </div>
          ))}
        </dl>
      )}
      {message.body !== undefined ? <pre className="app-network-body mono">{message.body}</pre> : <div className="muted">no body captured</div>}
      {(message.bodyTruncated || message.bodySize !== undefined) && (
        <div className="muted">
          {message.bodySize !== undefined ? `${message.bodySize} bytes` : ''}
          {message.bodyTruncated ? `${message.bodySize !== undefined ? ', ' : ''}only the start was captured` : ''}
        </div>
      )}
    </div>
  );
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
