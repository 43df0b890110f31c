/**
 * A replayed step's performance beside the recorded step's (docs/rules.md#r-perfstep-05): cpu and memory
 * after the step and the memory it grew by, recorded and replayed, each side flagged when it grew by more
 * than the user's threshold (the one StepPerf sets: state/memory-threshold.ts). Reported, not judged: the
 * replay's verdict stays the screens' and the outcome's.
 */
import type { ReplayStep } from '@shared/trace/replay-report';
import { perfSideBySide, replayMemory } from '@shared/trace/perf-step';
import { stepReplayState, useReplay } from '@renderer/state/replay';
import { useMemoryThreshold } from '@renderer/state/memory-threshold';
import { MemoryThresholdInput } from './StepPerf';

const fmt = (value: number | null) => (value === null ? '—' : value.toFixed(1));

export function ReplayPerfFigures({ perf }: { perf: ReplayStep['perf'] }) {
  const threshold = useMemoryThreshold((s) => s.thresholdMb);
  if (!perf) return null;
  const memory = replayMemory(perf, threshold);
  const flagged = (side: keyof typeof memory) => memory[side]?.flagged === true;
  return (
    <section
      className="step-perf replay-perf"
      data-testid="replay-perf"
      data-flagged-recorded={String(flagged('recorded'))}
      data-flagged-replayed={String(flagged('replayed'))}
    >
      <table>
        <thead>
          <tr>
            <th scope="col">Replay performance</th>
            <th scope="col">recorded</th>
            <th scope="col">replayed</th>
          </tr>
        </thead>
        <tbody>
          {perfSideBySide(perf.recorded, perf.replayed).map((row) => (
            <tr key={row.figure} data-testid="replay-perf-row" data-figure={row.figure}>
              <th scope="row">{row.figure}</th>
              <td data-side="recorded">{fmt(row.recorded)}</td>
              <td data-side="replayed">{fmt(row.replayed)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {(flagged('recorded') || flagged('replayed')) && (
        <strong role="alert" data-testid="replay-perf-flag">
          Memory grew over {threshold} MB{' '}
          {flagged('replayed') && flagged('recorded') ? 'when recorded and replayed' : flagged('replayed') ? 'when replayed (not when recorded)' : 'when recorded (not when replayed)'}
        </strong>
      )}
      {/* The recorded step's window (StepPerf) holds the input when the trace has one. */}
      {!perf.recorded && <MemoryThresholdInput />}
    </section>
  );
}

/** The selected trace step's figures in this trace's replay, once it is judged. */
export function ReplayPerf({ path, callId }: { path: string; callId: string }) {
  const state = stepReplayState(
    useReplay((s) => s.run),
    path,
    callId,
  );
  if (!state || !('step' in state)) return null;
  return <ReplayPerfFigures perf={state.step.perf} />;
}
