import './TopBar.css';
import { useAppInfo, useHostStatus } from '@renderer/api/queries';
import { RecentTraces } from './RecentTraces';
import { OpenTraceButton } from './TraceView';

export function TopBar() {
  const host = useHostStatus();
  const info = useAppInfo();
  return (
    <header className="topbar">
      <span className="brand">Parallax</span>
      {info.data && (
        <span className="topbar-meta">
          v{info.data.version} · {info.data.host === 'electron' ? 'desktop' : 'web host'}
        </span>
      )}
      <span className="spacer" />
      <OpenTraceButton />
      <RecentTraces />
      <span data-testid="host-status" data-state={host.state} className={`host-status host-${host.state}`} title={host.detail ?? 'connected to the host'}>
        {host.state === 'connected' ? 'host connected' : host.state === 'connecting' ? 'connecting to host…' : (host.detail ?? 'host connection lost')}
      </span>
    </header>
  );
}
