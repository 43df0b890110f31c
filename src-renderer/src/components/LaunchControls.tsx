/**
 * Launch, relaunch and deep links from the device header (docs/rules.md#r-life-01 … #r-life-05): each
 * is an action like a tap (a result, an outcome, a timeline row, a trace step). A runner launches
 * (`request_launch_app`); an AppReveal app that registered `open_deeplink` opens links. "Record from
 * launch" starts a recording whose first step is the relaunch, so a replay can start where it did.
 */
import { useState } from 'react';
import type { ActionRequest } from '@shared/protocol/action';
import type { DeviceSummary } from '@shared/protocol/device';
import { useRecordingStatus, useRecordingToggle } from '@renderer/api/queries';
import { deviceBusy, useTimeline } from '@renderer/state/timeline';

export function LaunchControls({ device, act }: { device: DeviceSummary | undefined; act: (request: ActionRequest) => Promise<unknown> }) {
  const status = useRecordingStatus();
  const toggle = useRecordingToggle();
  const [link, setLink] = useState('');
  // While an action runs, the relaunch would not be sent (docs/rules.md#r-act-05): a recording started
  // then would not begin with its launch, so Record from launch waits for the device.
  const busy = useTimeline((s) => device !== undefined && deviceBusy(s.pending, device.id));
  if (!device || device.state !== 'connected') return null;
  const launches = device.kind !== 'appreveal' && device.supportedCommands.includes('request_launch_app');
  const opensLinks = device.kind === 'appreveal' && device.supportedCommands.includes('open_deeplink');
  if (!launches && !opensLinks) return null;
  const recording = status.data?.recording ?? false;
  const relaunch: ActionRequest = { action: 'launch', relaunch: true };
  return (
    <div className="launch-controls" data-testid="launch-controls">
      {launches && (
        <>
          <button
            type="button"
            className="mini-button"
            data-testid="launch-app"
            title="Bring the app to the front as it is (request_launch_app)"
            onClick={() => void act({ action: 'launch', relaunch: false })}
          >
            Launch
          </button>
          <button
            type="button"
            className="mini-button"
            data-testid="relaunch-app"
            title="Terminate the app and start it again at its first screen (request_launch_app, coldBoot)"
            onClick={() => void act(relaunch)}
          >
            Relaunch
          </button>
          {!recording && (
            <button
              type="button"
              className="mini-button"
              data-testid="record-from-launch"
              disabled={toggle.isPending || busy}
              title={
                busy
                  ? 'An action is still running on this device: record from launch once it has its result'
                  : "Start recording, then relaunch the app: the trace begins at the app's first screen"
              }
              onClick={() =>
                void toggle.mutateAsync({ start: true, deviceId: device.id }).then(
                  () => act(relaunch),
                  () => undefined,
                )
              }
            >
              Record from launch
            </button>
          )}
        </>
      )}
      {opensLinks && (
        <form
          className="open-link"
          onSubmit={(e) => {
            e.preventDefault();
            const url = link.trim();
            if (url !== '' && url.length <= 2048) void act({ action: 'openLink', url });
          }}
        >
          <input
            type="url"
            data-testid="open-link-url"
            placeholder="app://deep/link"
            aria-label="Deep link to open"
            maxLength={2048}
            value={link}
            onChange={(e) => setLink(e.currentTarget.value)}
          />
          <button type="submit" className="mini-button" data-testid="open-link" disabled={link.trim() === ''}>
            Open link
          </button>
        </form>
      )}
    </div>
  );
}
