import './DeviceList.css';
import { DEVICE_KIND_LABELS, type DeviceSummary } from '@shared/protocol/device';
import { useDevices, useDisconnectDevice } from '@renderer/api/queries';
import { errorMessage } from '@renderer/state/format';
import { useInspector } from '@renderer/state/store';
import { useGridView } from '@renderer/state/grid-view';
import { gridDevices } from '@shared/inspect/grid';
import { pairPhones, removableConnections } from '@shared/inspect/phones';

const STATE_LABEL: Record<DeviceSummary['state'], string> = {
  connecting: 'connecting…',
  connected: 'connected',
  disconnected: 'disconnected',
};

export function DeviceList() {
  const devices = useDevices();
  const selectedId = useInspector((s) => s.selectedDeviceId);
  const selectDevice = useInspector((s) => s.selectDevice);
  const disconnect = useDisconnectDevice();
  const list = devices.data ?? [];
  const showGrid = useGridView((s) => s.show);
  const gridOpen = useGridView((s) => s.open);
  const openDevice = useGridView((s) => s.openDevice);
  // The grid is worth opening once two devices can show a picture side by side (docs/rules.md#r-perf-09).
  const gridCount = gridDevices(list.filter((d) => d.state === 'connected')).length;
  const phones = pairPhones(list);
  const choose = (deviceId: string) => (gridOpen ? openDevice(deviceId) : selectDevice(deviceId));

  return (
    <div className="device-section">
      <div className="section-title device-section-title">
        Devices
        {gridCount >= 2 && !gridOpen && (
          <button type="button" className="link-button dark" data-testid="grid-open" onClick={showGrid} title="Show every device live, side by side">
            grid of {gridCount}
          </button>
        )}
      </div>
      {devices.isError && <div className="form-error">Cannot list devices: {errorMessage(devices.error)}</div>}
      {/* One entry per phone, its connections under it (docs/rules.md#r-phone-01). */}
      <ul className="device-list" data-testid="device-list" aria-label="Devices">
        {phones.map((phone) => {
          const selectedHere = phone.connections.some((d) => d.id === selectedId);
          const primary = phone.connections.find((d) => d.state === 'connected') ?? phone.connections[0]!;
          const dead = removableConnections(phone);
          return (
            <li key={phone.key} className={`phone-item${selectedHere ? ' has-selected' : ''}`} data-testid="phone-item" data-state={phone.state}>
              <button type="button" className="phone-head" data-testid="phone-head" onClick={() => choose(primary.id)} title={phone.title}>
                <span className={`state-dot state-${phone.state}`} aria-hidden />
                <span className="device-name" data-testid="phone-name">
                  {phone.title}
                </span>
              </button>
              {phone.detail && (
                <div className="phone-detail" data-testid="phone-detail">
                  {phone.detail}
                </div>
              )}
              {phone.app && (
                <div className="phone-detail" data-testid="device-app">
                  {phone.app}
                </div>
              )}
              <ul className="phone-connections" role="listbox" aria-label={`Connections to ${phone.title}`}>
                {phone.connections.map((d) => (
                  <li
                    key={d.id}
                    data-testid="device-item"
                    data-device-id={d.id}
                    data-kind={d.kind}
                    data-state={d.state}
                    data-selected={String(d.id === selectedId)}
                    role="option"
                    aria-selected={d.id === selectedId}
                    className={`device-item${d.id === selectedId ? ' selected' : ''}`}
                    onClick={() => choose(d.id)}
                  >
                    <div className="device-line">
                      <span className={`state-dot state-${d.state}`} aria-hidden />
                      <span className="device-kind" data-testid="device-kind" data-kind={d.kind}>
                        {DEVICE_KIND_LABELS[d.kind]}
                      </span>
                      <span className={`device-state state-text-${d.state}`}>{STATE_LABEL[d.state]}</span>
                      <span className="spacer" />
                      {d.state !== 'disconnected' ? (
                        <button
                          type="button"
                          className="link-button"
                          data-testid="device-disconnect"
                          disabled={disconnect.isPending && disconnect.variables === d.id}
                          onClick={(e) => {
                            e.stopPropagation();
                            disconnect.mutate(d.id);
                          }}
                        >
                          disconnect
                        </button>
                      ) : (
                        <button
                          type="button"
                          className="link-button"
                          data-testid="device-remove"
                          title="Stop trying to reach it and take it off the list"
                          disabled={disconnect.isPending && disconnect.variables === d.id}
                          onClick={(e) => {
                            e.stopPropagation();
                            disconnect.mutate(d.id);
                          }}
                        >
                          remove
                        </button>
                      )}
                    </div>
                    {d.recording && (
                      <div className="device-url" data-testid="device-recording" title={d.recording.folder}>
                        recording {d.recording.folder}
                      </div>
                    )}
                    <div className="device-url" data-testid="device-url" title={d.url}>
                      {d.url}
                    </div>
                    {d.error && (
                      <div className="device-error" data-testid="device-error" title={d.error}>
                        {d.error}
                      </div>
                    )}
                  </li>
                ))}
                {phone.sdkBridge && (
                  <li className="device-item phone-bridge" data-testid="phone-bridge" title="The runner's reads merge the app's SDK observation bridge">
                    <div className="device-line">
                      <span className="state-dot state-connected" aria-hidden />
                      <span className="device-kind">SDK bridge</span>
                      <span className="device-state">through the runner</span>
                    </div>
                  </li>
                )}
              </ul>
              {dead.length > 1 && (
                <button type="button" className="link-button phone-remove" data-testid="phone-remove" onClick={() => dead.forEach((d) => disconnect.mutate(d.id))}>
                  remove {dead.length} dead connections
                </button>
              )}
            </li>
          );
        })}
      </ul>
      {devices.isSuccess && list.length === 0 && (
        <div className="empty-note" data-testid="device-list-empty">
          <p>No devices yet.</p>
          <p>
            A simulator: boot it (<code>xcrun simctl boot "iPhone 17"</code>) and let AutoMobile start its CtrlProxy runner on port 8765; Parallax finds runners
            on 127.0.0.1:8765–8864.
          </p>
          <p>
            An iPhone: sign CtrlProxy for it and forward the port with <code>iproxy 8765:8765</code>.
          </p>
          <p>An AppReveal app: paste the “Session URL” line from its log into Connect.</p>
          <p>
            <code>npx parallax doctor --device URL</code> checks each step; the README’s “From the demo to a real device” has the details.
          </p>
        </div>
      )}
    </div>
  );
}
