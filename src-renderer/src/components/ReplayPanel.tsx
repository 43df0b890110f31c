import { visibleText } from '@shared/model/visible-text';
import './ReplayPanel.css';
/**
 * Replay in the trace view: the trace's actions run again on a device the host holds, each
 * step's verdict shown on the filmstrip as it arrives, the selected step's replay under its recorded
 * result, and the report summed up in one line.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { TraceOpened } from '@shared/api/api';
import type { DeviceSummary } from '@shared/protocol/device';
import { ranSummary, replaySummary, type ReplayStep } from '@shared/trace/replay-report';
import { queryKeys, useApi, useDevices } from '@renderer/api/queries';
import { errorMessage } from '@renderer/state/format';
import { forgetReplay, startReplay, stepReplayState, stopReplay, useReplay, type ReplayRun, type StepReplayState } from '@renderer/state/replay';
import { ConnectForm } from './ConnectForm';
import { ReplayFindings } from './ReplayFindings';

/**
 * The host's devices, kept fresh by `devices.changed`: the trace view is shown without the live view,
 * which otherwise listens for it.
 */
export function useDevicesFollowed() {
  const api = useApi();
  const client = useQueryClient();
  useEffect(() => api.on('devices.changed', ({ devices }) => client.setQueryData(queryKeys.devices, devices)), [api, client]);
  return useDevices();
}

/** The device to replay on: the one last chosen while it is connected, else the first connected. */
export function chosenDevice(connected: readonly DeviceSummary[], chosenId: string | null): DeviceSummary | undefined {
  return connected.find((d) => d.id === chosenId) ?? connected[0];
}

function RunStatus({ run, devices }: { run: ReplayRun; devices: readonly DeviceSummary[] }) {
  const judged = Object.keys(run.steps).length;
  const device = devices.find((d) => d.id === run.deviceId);
  if (run.running) {
    return (
      <span className="replay-progress" data-testid="replay-progress" data-judged={judged} data-total={run.total}>
        {run.stopping ? 'Stopping after the step in flight…' : `Replaying on ${device?.name ?? run.deviceId}…`} {judged} of {run.total}
      </span>
    );
  }
  if (!run.report) return null;
  const allMatched = run.report.matched === run.report.total;
  return (
    <span className={`replay-summary${allMatched ? ' all-matched' : ''}`} data-testid="replay-summary" data-all-matched={String(allMatched)}>
      {replaySummary(run.report)}
      <span className="replay-ran" data-testid="replay-ran">
        {' '}
        ({ranSummary(run.report)})
      </span>
    </span>
  );
}

/** Device, what to do on a divergence, Replay / Stop, and the run's progress or summary. */
export function ReplayPanel({ trace }: { trace: TraceOpened }) {
  const api = useApi();
  const devices = useDevicesFollowed();
  const list = devices.data ?? [];
  const connected = list.filter((d) => d.state === 'connected');
  const choice = useReplay((s) => s.choice);
  const choose = useReplay((s) => s.choose);
  const run = useReplay((s) => s.run);
  const device = chosenDevice(connected, choice.deviceId);
  const ours = run?.path === trace.path ? run : null;
  // One replay at a time in the host: one of another trace (closed while it ran) is still ending.
  const otherRunning = run?.running === true && run.path !== trace.path;
  const path = trace.path;

  // Closing this trace or opening another stops its replay: its steps would land on a screen nobody watches.
  useEffect(
    () => () => {
      const current = useReplay.getState().run;
      if (current?.path === path && current.running) void stopReplay(api);
      else forgetReplay(path);
    },
    [api, path],
  );

  // The trace's secrets, typed here for this replay only: component state, sent with the call, never stored.
  const [values, setValues] = useState<Record<string, string>>({});
  // "Relaunch first" (docs/rules.md#r-life-05): on by default when the recording began with a launch.
  const [relaunchFirst, setRelaunchFirst] = useState(() => trace.steps[0]?.kind === 'launch');
  const missing = trace.variables.filter((v) => (values[v.name] ?? '') === '');

  const lostDevice = ours?.running && !connected.some((d) => d.id === ours.deviceId);
  return (
    <div className="replay-panel" data-testid="replay-panel" data-running={String(ours?.running ?? false)}>
      <div className="replay-bar">
        <strong>Replay</strong>
        {connected.length > 0 ? (
          <label>
            on{' '}
            <select data-testid="replay-device" value={device?.id ?? ''} disabled={ours?.running} onChange={(e) => choose({ deviceId: e.target.value })}>
              {connected.map((d) => (
                <option key={d.id} value={d.id}>
                  {d.name} ({d.kind})
                </option>
              ))}
            </select>
          </label>
        ) : (
          <span className="replay-no-device" data-testid="replay-no-device">
            {devices.isError ? `Cannot list the host's devices: ${errorMessage(devices.error)}` : 'No device is connected to replay on.'}
          </span>
        )}
        <label>
          On divergence{' '}
          <select
            data-testid="replay-on-divergence"
            value={choice.stopOnDivergence ? 'stop' : 'continue'}
            disabled={ours?.running}
            onChange={(e) => choose({ stopOnDivergence: e.target.value === 'stop' })}
          >
            <option value="stop">stop</option>
            <option value="continue">continue</option>
          </select>
        </label>
        <label title="Relaunch the app (cold boot) before step 1, so the replay starts at the app's first screen">
          <input
            type="checkbox"
            data-testid="replay-relaunch-first"
            checked={relaunchFirst}
            disabled={ours?.running}
            onChange={(e) => setRelaunchFirst(e.currentTarget.checked)}
          />{' '}
          relaunch first
        </label>
        {ours?.running ? (
          <button type="button" className="mini-button" data-testid="replay-stop" disabled={ours.stopping} onClick={() => void stopReplay(api)}>
            Stop
          </button>
        ) : (
          <button
            type="button"
            className="mini-button primary"
            data-testid="replay-start"
            disabled={!device || otherRunning || trace.steps.length === 0 || missing.length > 0}
            title={
              trace.steps.length === 0
                ? 'This trace holds no actions'
                : missing.length > 0
                  ? `Type the value of ${missing.map((v) => v.name).join(', ')} first`
                  : undefined
            }
            onClick={() => {
              if (device)
                void startReplay(
                  api,
                  { path, deviceId: device.id, stopOnDivergence: choice.stopOnDivergence, total: trace.steps.length, relaunchFirst },
                  values,
                );
            }}
          >
            Replay
          </button>
        )}
        {ours && <RunStatus run={ours} devices={list} />}
        {otherRunning && <span className="muted">The replay of the trace closed before is still ending…</span>}
      </div>
      {trace.variables.length > 0 && (
        <div className="replay-variables" data-testid="replay-variables">
          <span className="muted">
            This trace typed secrets it did not keep; type them for this replay (they are sent to the host for it and kept nowhere):
          </span>
          {trace.variables.map((v) => (
            <label key={v.name} className="replay-variable">
              <span className="mono">{v.name}</span>{' '}
              <span className="muted" data-testid="replay-variable-target">
                (step {v.step}
                {v.callIds.length > 1 ? ` and ${v.callIds.length - 1} more` : ''},{' '}
                {v.field !== undefined ? `field “${visibleText(v.field)}”` : 'a field with no name'})
              </span>{' '}
              <input
                type="password"
                autoComplete="off"
                data-testid="replay-variable"
                data-name={v.name}
                value={values[v.name] ?? ''}
                disabled={ours?.running}
                onChange={(e) => {
                  const value = e.currentTarget.value;
                  setValues((old) => ({ ...old, [v.name]: value }));
                }}
              />
            </label>
          ))}
        </div>
      )}
      {connected.length === 0 && (
        <div className="replay-connect">
          <p>
            Connect the device to replay on: paste its runner URL (<span className="mono">ws://HOST:PORT/ws</span>, the demo iPhone prints one with{' '}
            <span className="mono">npx parallax demo-device</span>) or an AppReveal session URL.
          </p>
          <ConnectForm />
        </div>
      )}
      {ours?.error && (
        <div className="banner error replay-error" data-testid="replay-error" role="alert">
          {ours.error}
        </div>
      )}
      {lostDevice && (
        <div className="banner warn" data-testid="replay-device-lost" role="alert">
          The device left or disconnected during the replay: the steps still to run will fail.
        </div>
      )}
    </div>
  );
}

const VERDICT_TEXT: Record<StepReplayState['verdict'], string> = {
  matched: 'matched',
  diverged: 'diverged',
  failed: 'failed',
  notRun: 'not reached',
  pending: '…',
};

/** A filmstrip step's verdict in this trace's replay, if one ran. */
export function ReplayBadge({ path, callId }: { path: string; callId: string }) {
  const state = stepReplayState(
    useReplay((s) => s.run),
    path,
    callId,
  );
  if (!state) return null;
  // What changed on the way is named on the badge, so a matched step that met a removed row says so (docs/rules.md#r-rpl-10).
  const changes = 'step' in state ? state.step.changes : [];
  return (
    <span
      className={`replay-badge verdict-${state.verdict}${changes.length > 0 ? ' with-changes' : ''}`}
      data-testid="replay-badge"
      data-verdict={state.verdict}
      data-changes={changes.length}
      title={changes.join('\n') || undefined}
    >
      {VERDICT_TEXT[state.verdict]}
      {changes.length > 0 ? `, ${changes.join(', ')}` : ''}
    </span>
  );
}

/** What the device did this time, as the recorded result is shown above it. */
function replayedText(step: ReplayStep): string {
  const outcome = step.replayed.outcome;
  if (!outcome) return 'not sent';
  const how = outcome.success ? 'succeeded' : `failed: ${outcome.failureReason ?? 'no reason given'}`;
  return `${how}${outcome.backend ? ` via ${outcome.backend}` : ''}${outcome.fallbackReason ? ` (fallback: ${outcome.fallbackReason})` : ''}`;
}

const RAN_TEXT: Record<ReplayStep['ran'], string> = { yes: 'ran', no: 'did not run', maybe: 'may have run (never sent again)' };

/** The selected step as replayed: its verdict, what differed, what was noted, and what the device did this time. */
export function ReplayStepResult({ path, callId }: { path: string; callId: string }) {
  const state = stepReplayState(
    useReplay((s) => s.run),
    path,
    callId,
  );
  if (!state) return null;
  if (!('step' in state)) {
    return (
      <div className="replay-step-result" data-testid="replay-verdict" data-verdict={state.verdict}>
        <strong>Replay:</strong> {state.verdict === 'pending' ? 'not replayed yet' : 'not reached: the replay stopped before this step'}
      </div>
    );
  }
  const { step } = state;
  const selector = step.replayed.sent;
  return (
    <div className={`replay-step-result verdict-${step.verdict}`} data-testid="replay-verdict" data-verdict={step.verdict} data-ran={step.ran}>
      <strong>Replay: {step.verdict}</strong>
      <span>
        replayed: {replayedText(step)} · {RAN_TEXT[step.ran]}
        {selector ? ` · sent ${selector}` : ''}
        {step.replayed.variable ? ` · typed ${step.replayed.variable}` : ''}
        {step.replayed.retriedAfter ? ` · sent again after ${step.replayed.retriedAfter}` : ''}
        {step.replayed.durationMs !== undefined ? ` · ${step.replayed.durationMs} ms` : ''}
      </span>
      {step.target && (
        <span className="replay-target" data-testid="replay-target" data-verdict={step.target.verdict}>
          target: {step.target.detail}
        </span>
      )}
      {step.changes.length > 0 && (
        <ul className="replay-changes" data-testid="replay-changes">
          {step.changes.map((d) => (
            <li key={d}>{d}</li>
          ))}
        </ul>
      )}
      {step.differences.length > 0 && (
        <ul className="replay-differences" data-testid="replay-differences">
          {step.differences.map((d) => (
            <li key={d}>{d}</li>
          ))}
        </ul>
      )}
      {step.notes.length > 0 && (
        <ul className="replay-notes muted" data-testid="replay-notes">
          {step.notes.map((d) => (
            <li key={d}>{d}</li>
          ))}
        </ul>
      )}
      <ReplayFindings a11y={step.a11y} />
    </div>
  );
}
