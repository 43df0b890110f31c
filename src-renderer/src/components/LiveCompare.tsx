import './LiveCompare.css';
/**
 * Compare on a live device: the Compare button of the canvas bar takes an XCTest-only and an
 * SDK-backed read of the current screen through the host, and the comparison replaces the live view
 * until it is closed. While this device is being recorded, the comparison can be saved into the trace.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ComparisonView, RecordingStatus } from '@shared/api/api';
import type { DeviceSummary } from '@shared/protocol/device';
import { queryKeys, useApi, useHostEvents, useRecordingStatus } from '@renderer/api/queries';
import { errorMessage, formatTime, plural } from '@renderer/state/format';
import { closeComparison, compareDevice, useLiveComparison } from '@renderer/state/live-compare';
import { CompareView } from './CompareView';

/** The canvas bar's button; it also says why the last comparison failed. */
export function CompareButton({ device }: { device: DeviceSummary | undefined }) {
  const api = useApi();
  const pending = useLiveComparison((s) => s.pending);
  const error = useLiveComparison((s) => s.error);
  const connected = device?.state === 'connected';
  // An AppReveal app has one view of its screen; only a runner reads plain XCTest and the bridge apart.
  const comparable = device?.kind !== 'appreveal';
  return (
    <div className="compare-controls">
      <button
        type="button"
        className="mini-button"
        data-testid="compare-button"
        disabled={!connected || !comparable || pending}
        title={
          !comparable
            ? 'An AppReveal app has only its own view of the screen: Compare needs a runner'
            : connected
              ? 'What plain XCTest sees beside the SDK-backed view of this screen, diffed'
              : 'Connect a device to compare'
        }
        onClick={() => device && void compareDevice(api, device.id)}
      >
        {pending ? 'Comparing…' : 'Compare'}
      </button>
      {error && (
        <span className="compare-error" data-testid="compare-error" title={error}>
          {error}
        </span>
      )}
    </div>
  );
}

/** The open comparison, in place of the live view (App renders it while one is open). */
export function LiveCompareView() {
  useHostEvents();
  const view = useLiveComparison((s) => s.view);
  if (!view) return null;
  // A new comparison starts with nothing selected and nothing saved.
  return <LiveComparison key={view.comparisonId} view={view} />;
}

function LiveComparison({ view }: { view: ComparisonView }) {
  const api = useApi();
  const client = useQueryClient();
  const pending = useLiveComparison((s) => s.pending);
  const error = useLiveComparison((s) => s.error);
  const recording = useRecordingStatus().data;
  const save = useMutation({
    mutationFn: () => api.call('recording.saveComparison', { comparisonId: view.comparisonId }),
    onSuccess: (status) => client.setQueryData<RecordingStatus>(queryKeys.recording, status),
  });
  const recordingThis = recording?.recording === true && recording.deviceId === view.deviceId;
  const saved = save.isSuccess;

  return (
    <CompareView
      comparison={view}
      title={
        <span className="compare-title">
          <strong>Compare</strong> · taken {formatTime(view.sdk.receivedAt)}
        </span>
      }
      actions={
        <>
          <button type="button" className="mini-button" data-testid="compare-again" disabled={pending} onClick={() => void compareDevice(api, view.deviceId)}>
            {pending ? 'Comparing…' : 'Compare again'}
          </button>
          <button
            type="button"
            className="mini-button primary"
            data-testid="compare-save"
            disabled={!recordingThis || save.isPending || saved}
            title={recordingThis ? 'Write this comparison into the running recording' : 'Record this device to save a comparison into its trace'}
            onClick={() => save.mutate()}
          >
            {save.isPending ? 'Saving…' : saved ? 'Saved' : 'Save to trace'}
          </button>
          <button type="button" className="mini-button" data-testid="compare-close" onClick={closeComparison}>
            Close
          </button>
        </>
      }
      notice={
        <>
          {error && (
            <div className="banner warn" data-testid="compare-error" role="alert">
              {error}
            </div>
          )}
          {save.isError && (
            <div className="banner warn" data-testid="compare-save-error" role="alert">
              Not saved: {errorMessage(save.error)}
            </div>
          )}
          {saved && save.data && (
            <div className="banner info" data-testid="compare-saved" role="status">
              Saved into the recording ({plural(save.data.comparisons, 'comparison')} and {plural(save.data.steps, 'step')} so far).
            </div>
          )}
        </>
      }
    />
  );
}
