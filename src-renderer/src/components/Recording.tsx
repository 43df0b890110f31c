import './Recording.css';
/**
 * Recording: a Record button for the selected device that shows the step count while it records; the
 * trace it wrote as a notice under the toolbar (Open, Reveal, dismiss: docs/rules.md#r-qa-19), so the
 * toolbar keeps its size in every state; and, at startup, an offer to recover each trace a crash or a
 * kill left unfinished.
 */
import { useState } from 'react';
import type { RecordingStatus } from '@shared/api/api';
import type { DeviceSummary } from '@shared/protocol/device';
import { useApi, useAppInfo, useDevices, useRecordingStatus, useRecordingToggle, useRecoverTrace, useUnfinishedTraces } from '@renderer/api/queries';
import { openTraceFromPath } from '@renderer/hooks/useTraceOpenRequests';
import { CopyButton } from './CopyButton';
import { errorMessage, formatTime, plural } from '@renderer/state/format';

function fileName(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}

export function RecordControls({ device }: { device: DeviceSummary | undefined }) {
  const status = useRecordingStatus();
  const toggle = useRecordingToggle();
  const devices = useDevices();
  const current: RecordingStatus | undefined = status.data;
  const recording = current?.recording ?? false;
  const recordedDevice = recording ? devices.data?.find((d) => d.id === current?.deviceId) : undefined;
  const unavailable = status.isError ? errorMessage(status.error) : null;
  const canStart = !recording && device !== undefined && device.state === 'connected' && !unavailable;

  const onClick = () => {
    if (recording) toggle.mutate({ start: false });
    else if (device) toggle.mutate({ start: true, deviceId: device.id });
  };

  return (
    <div className="record-controls">
      <button
        type="button"
        className={`record-button${recording ? ' is-recording' : ''}`}
        data-testid="record-button"
        data-recording={String(recording)}
        aria-pressed={recording}
        disabled={toggle.isPending || (!recording && !canStart)}
        title={
          unavailable
            ? `Recording is not available: ${unavailable}`
            : recording
              ? 'Stop and write the .parallax-trace file'
              : 'Record every action and observation of this device into a trace'
        }
        onClick={onClick}
      >
        <span className="record-dot" aria-hidden />
        {recording ? 'Stop' : 'Record'}
      </button>
      <span
        className="record-status"
        data-testid="record-status"
        data-steps={current?.steps ?? 0}
        data-comparisons={current?.comparisons ?? 0}
        data-trace={current?.lastTrace ?? ''}
      >
        {toggle.isPending ? (
          recording ? (
            'writing the trace…'
          ) : (
            'starting…'
          )
        ) : toggle.error ? (
          <span className="record-error" title={errorMessage(toggle.error)}>
            {errorMessage(toggle.error)}
          </span>
        ) : recording ? (
          <>
            <strong>{plural(current?.steps ?? 0, 'step')}</strong>
            {current?.comparisons ? ` · ${plural(current.comparisons, 'comparison')}` : ''}
            {recordedDevice && recordedDevice.id !== device?.id ? ` · ${recordedDevice.name}` : ''}
          </>
        ) : null}
      </span>
    </div>
  );
}

/** The trace the user dismissed the notice of, so a reload does not bring it back. */
const DISMISSED_KEY = 'parallax.savedTrace.dismissed';

function dismissedTrace(): string | null {
  try {
    return window.localStorage.getItem(DISMISSED_KEY);
  } catch {
    return null;
  }
}

/**
 * The trace the last recording wrote, under the toolbar: its file name, Open (the trace view), Reveal (its
 * folder: Electron shows it in the file manager, a browser can only show the path, with a copy button)
 * and a close button that keeps it closed after a reload.
 */
export function SavedTraceNotice() {
  const api = useApi();
  const info = useAppInfo();
  const status = useRecordingStatus();
  const [dismissed, setDismissed] = useState(dismissedTrace);
  const [folder, setFolder] = useState<{ path: string; folder: string } | null>(null);
  const [revealError, setRevealError] = useState<string | null>(null);
  const current = status.data;
  const path = current && !current.recording ? current.lastTrace : undefined;
  if (!path || path === dismissed) return null;
  const shownFolder = folder?.path === path ? folder.folder : null;
  const dismiss = () => {
    try {
      window.localStorage.setItem(DISMISSED_KEY, path);
    } catch {
      // Without storage it stays closed until the reload.
    }
    setDismissed(path);
  };
  const reveal = () => {
    setRevealError(null);
    api.call('trace.reveal', { path }).then(
      (answer) => setFolder(answer.shown ? null : { path, folder: answer.folder }),
      (error: unknown) => setRevealError(errorMessage(error)),
    );
  };
  return (
    <div className="saved-trace" data-testid="saved-trace" data-trace={path} role="status">
      <span className="saved-trace-what">
        Recording saved:{' '}
        <span className="mono" title={path}>
          {fileName(path)}
        </span>
      </span>
      <button
        type="button"
        className="mini-button primary"
        data-testid="open-last-trace"
        title={`Open ${path}`}
        onClick={() => void openTraceFromPath(api, path)}
      >
        Open
      </button>
      <button
        type="button"
        className="mini-button"
        data-testid="reveal-last-trace"
        title={info.data?.host === 'electron' ? 'Show the file in its folder' : 'Show the folder it is in'}
        onClick={reveal}
      >
        Reveal
      </button>
      {shownFolder && (
        <span className="saved-trace-folder" data-testid="saved-trace-folder">
          <span className="mono" title={shownFolder}>
            {shownFolder}
          </span>
          <CopyButton text={shownFolder} testId="copy-trace-folder" title="Copy the folder's path" />
          <CopyButton text={path} label="Copy file path" testId="copy-trace-path" title="Copy the trace file's path" />
        </span>
      )}
      {revealError && <span className="record-error">{revealError}</span>}
      <span className="spacer" />
      <button type="button" className="saved-trace-close" data-testid="dismiss-last-trace" aria-label="Dismiss" title="Dismiss" onClick={dismiss}>
        ×
      </button>
    </div>
  );
}

interface Recovered {
  path?: string;
  droppedLines?: number;
  error?: string;
}

export function RecoverOffer() {
  const unfinished = useUnfinishedTraces();
  const recover = useRecoverTrace();
  const [results, setResults] = useState<Record<string, Recovered>>({});
  const [dismissed, setDismissed] = useState<ReadonlySet<string>>(new Set());
  const [busy, setBusy] = useState<string | null>(null);
  const list = (unfinished.data ?? []).filter((t) => !dismissed.has(t.folder));
  if (list.length === 0) return null;

  const run = (folder: string) => {
    setBusy(folder);
    recover.mutate(folder, {
      onSuccess: (report) => setResults((r) => ({ ...r, [folder]: { path: report.path, droppedLines: report.droppedLines } })),
      onError: (error) => setResults((r) => ({ ...r, [folder]: { error: errorMessage(error) } })),
      onSettled: () => setBusy(null),
    });
  };

  return (
    <div className="recover-banner">
      <div className="recover-title">
        {list.length === 1 ? 'A recording was left unfinished' : `${list.length} recordings were left unfinished`} (the app stopped while recording).
      </div>
      <ul>
        {list.map((trace) => {
          const result = results[trace.folder];
          return (
            <li
              key={trace.folder}
              className="recover-offer"
              data-testid="recover-offer"
              data-folder={trace.folder}
              data-recovered={String(Boolean(result?.path))}
            >
              <span className="recover-what">
                <strong>{trace.deviceName ?? 'unknown device'}</strong> · {plural(trace.actions, 'action')}
                {trace.lastEventTime !== undefined ? ` · last at ${formatTime(trace.lastEventTime)}` : ''}
              </span>
              <span className="recover-folder mono" title={trace.folder}>
                {fileName(trace.folder)}
              </span>
              <span className="spacer" />
              {result?.path ? (
                <span className="recover-result" data-testid="recover-result">
                  recovered to{' '}
                  <span className="mono" title={result.path}>
                    {result.path}
                  </span>
                  {result.droppedLines ? ` (${plural(result.droppedLines, 'damaged line')} dropped)` : ''}
                </span>
              ) : result?.error ? (
                <span className="recover-result error" data-testid="recover-result">
                  could not recover: {result.error}
                </span>
              ) : null}
              {!result?.path && (
                <button type="button" className="mini-button primary" data-testid="recover-button" disabled={busy !== null} onClick={() => run(trace.folder)}>
                  {busy === trace.folder ? 'Recovering…' : 'Recover'}
                </button>
              )}
              <button type="button" className="mini-button" onClick={() => setDismissed((d) => new Set([...d, trace.folder]))}>
                {result?.path ? 'Done' : 'Dismiss'}
              </button>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
