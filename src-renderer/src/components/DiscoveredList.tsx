import './DiscoveredList.css';
/**
 * What discovery finds (Bonjour, the runner port probe, manual entries), live: each device with its kind,
 * name, bundle id and state (unreachable with why), a Connect button and Remember.
 *
 * Discovery never knows an AppReveal app's session token (it changes every launch), so connecting one
 * asks for it; an app started with auth disabled connects straight away.
 */
import { useState, type FormEvent } from 'react';
import type { DeviceSummary } from '@shared/protocol/device';
import { stripSessionToken, type DiscoveredDevice } from '@shared/protocol/appreveal';
import { useConnectDevice, useDevices, useDiscovered, useRememberDevice } from '@renderer/api/queries';
import { errorMessage } from '@renderer/state/format';
import { useInspector } from '@renderer/state/store';
import { sessionUrl } from './ConnectForm';

const KIND_LABEL: Record<DiscoveredDevice['kind'], string> = { runner: 'runner', appreveal: 'AppReveal' };

/** The same endpoint, whatever trailing slash or token the two URLs carry. */
function sameEndpoint(a: string, b: string): boolean {
  const norm = (u: string) => (stripSessionToken(u) || u).replace(/\/+$/, '').toLowerCase();
  return norm(a) === norm(b);
}

function connectedAs(devices: readonly DeviceSummary[], found: DiscoveredDevice): DeviceSummary | undefined {
  return devices.find((d) => sameEndpoint(d.url, found.url));
}

function DiscoveredItem({ found, device }: { found: DiscoveredDevice; device: DeviceSummary | undefined }) {
  const connect = useConnectDevice();
  const remember = useRememberDevice();
  const selectDevice = useInspector((s) => s.selectDevice);
  const [asking, setAsking] = useState(false);
  const [token, setToken] = useState('');
  const needsToken = found.kind === 'appreveal' && found.auth !== 'disabled';
  const remembered = found.sources.includes('manual');

  const connectWith = (tokenValue: string | undefined) => {
    const url = found.kind === 'runner' ? found.url : sessionUrl(found.url, tokenValue);
    setToken('');
    setAsking(false);
    connect.mutate({ url, name: found.name }, { onSuccess: (summary) => selectDevice(summary.id) });
  };

  const submitToken = (e: FormEvent) => {
    e.preventDefault();
    if (token.trim() === '') return;
    connectWith(token.trim());
  };

  const error = connect.error ? errorMessage(connect.error) : remember.error ? errorMessage(remember.error) : null;
  return (
    <li className={`discovered-item state-${found.state}`} data-testid="discovered-item" data-kind={found.kind} data-state={found.state} data-url={found.url}>
      <div className="device-line">
        <span className={`state-dot ${found.state === 'available' ? 'state-connected' : 'state-disconnected'}`} aria-hidden />
        <span className="device-name" title={found.name}>
          {found.name}
        </span>
        <span className={`device-kind kind-${found.kind}`}>{KIND_LABEL[found.kind]}</span>
      </div>
      <div className="device-url" title={found.url}>
        {found.url}
      </div>
      <div className="device-line sub">
        <span className={`device-state ${found.state === 'available' ? 'state-text-connected' : 'state-text-disconnected'}`}>{found.state}</span>
        {found.bundleId && (
          <span className="device-bundle" title={found.bundleId}>
            {found.bundleId}
          </span>
        )}
        <span className="discovered-sources" title="where discovery found it">
          {found.sources.join(' · ')}
        </span>
      </div>
      {found.state === 'unreachable' && found.error && (
        <div className="device-error" data-testid="discovered-error" title={found.error}>
          {found.error}
        </div>
      )}
      <div className="discovered-actions">
        {device ? (
          <button type="button" className="link-button" onClick={() => selectDevice(device.id)} title="Already in the device list">
            {device.state === 'connected' ? 'connected — show' : `${device.state} — show`}
          </button>
        ) : (
          <button
            type="button"
            className="mini-button primary"
            data-testid="discovered-connect"
            disabled={connect.isPending || found.state !== 'available'}
            onClick={() => (needsToken ? setAsking(!asking) : connectWith(undefined))}
          >
            {connect.isPending ? 'Connecting…' : needsToken ? 'Connect…' : 'Connect'}
          </button>
        )}
        {!remembered && (
          <button
            type="button"
            className="mini-button"
            data-testid="discovered-remember"
            disabled={remember.isPending}
            title="Keep it in this list between starts (the token is never saved)"
            onClick={() => remember.mutate({ url: found.url, name: found.name })}
          >
            Remember
          </button>
        )}
        {remembered && <span className="remembered-note">remembered</span>}
      </div>
      {asking && needsToken && !device && (
        <form className="token-form" onSubmit={submitToken} autoComplete="off">
          <input
            data-testid="discovered-token"
            type="password"
            autoComplete="new-password"
            autoFocus
            placeholder="session token from the app's log"
            aria-label={`Session token for ${found.name}`}
            value={token}
            onChange={(e) => setToken(e.target.value)}
          />
          <button type="submit" className="mini-button primary" disabled={token.trim() === ''}>
            Connect
          </button>
        </form>
      )}
      {error && <div className="form-error">{error}</div>}
    </li>
  );
}

export function DiscoveredList() {
  const discovered = useDiscovered();
  const devices = useDevices();
  const list = discovered.data ?? [];
  const connected = devices.data ?? [];
  return (
    <div className="device-section discovered-section">
      <div className="section-title">
        Discovered <span className="section-count">{list.length > 0 ? list.length : ''}</span>
      </div>
      {discovered.isError && <div className="form-error">Discovery failed: {errorMessage(discovered.error)}</div>}
      <ul className="device-list" data-testid="discovered-list" aria-label="Discovered devices">
        {list.map((found) => (
          <DiscoveredItem key={found.id} found={found} device={connectedAs(connected, found)} />
        ))}
      </ul>
      {discovered.isSuccess && list.length === 0 && (
        <div className="empty-note">Nothing found yet: runners on ports 8765–8864, AppReveal apps over Bonjour, remembered devices.</div>
      )}
    </div>
  );
}
