import './DeviceStatus.css';
/** The selected device's state, its last error, and what the screen is showing. */
import type { DeviceSummary, Frame } from '@shared/protocol/device';
import { formatTime } from '@renderer/state/format';

export function DeviceStatus({ device, frame }: { device: DeviceSummary | undefined; frame: Frame | undefined }) {
  if (!device) {
    return (
      <div className="device-status" data-testid="device-status" data-state="none">
        No device selected
      </div>
    );
  }
  const label = device.state === 'connected' ? 'Connected' : device.state === 'connecting' ? 'Connecting…' : 'Disconnected';
  return (
    <div className="device-status" data-testid="device-status" data-state={device.state}>
      <span className={`state-dot state-${device.state}`} aria-hidden />
      <span className="device-status-name">{device.name}</span>
      <span className={`device-status-state state-text-${device.state}`}>{label}</span>
      {device.error && device.state !== 'connected' && (
        <span className="device-status-error" data-testid="device-status-error" title={device.error}>
          {device.error}
        </span>
      )}
      {frame && device.state !== 'connected' && (
        <span className="device-status-note" data-testid="device-stale">
          showing the last frame, from {formatTime(frame.receivedAt)}
        </span>
      )}
    </div>
  );
}
