/**
 * The trace view's replay: the one replay this window started, filled in step by step from
 * the host's `trace.replayStep` events and closed by its report.
 *
 * The run listens to the host itself, from its start to its end, rather than through a component: a
 * replay stopped by closing its trace still ends, and the next trace's Replay button waits for that.
 */
import { create } from 'zustand';
import type { ParallaxApi } from '@shared/api/api';
import type { ReplayReport, ReplayStep } from '@shared/trace/replay-report';
import { errorMessage } from './format';

export interface ReplayRun {
  /** Tells this run's late answers from the next run's. */
  id: number;
  path: string;
  deviceId: string;
  stopOnDivergence: boolean;
  /** Actions in the trace; the host's count replaces the view's once its first step arrives. */
  total: number;
  /**
   * The steps (by callId) a run from a step or of one step covers (docs/rules.md#r-edit-07); the rest
   * of the trace gets no verdict from it. Absent: the whole trace.
   */
  scope?: readonly string[];
  /** Each step judged so far, by the callId the trace view names its steps with. */
  steps: Record<string, ReplayStep>;
  /** The host's last word; null while it runs. */
  report: ReplayReport | null;
  running: boolean;
  /** The user asked it to stop; it stops before its next step. */
  stopping: boolean;
  /** Why it could not run, or could not be followed to its end. */
  error: string | null;
}

export interface ReplayChoice {
  /** The device last chosen to replay on (kept from one trace to the next). */
  deviceId: string | null;
  stopOnDivergence: boolean;
}

interface ReplayState {
  run: ReplayRun | null;
  choice: ReplayChoice;
  choose(change: Partial<ReplayChoice>): void;
}

export const useReplay = create<ReplayState>((set) => ({
  run: null,
  // A diverged screen is not the one the next action was recorded on: stop there unless told otherwise.
  choice: { deviceId: null, stopOnDivergence: true },
  choose: (change) => set((s) => ({ choice: { ...s.choice, ...change } })),
}));

let nextRunId = 1;

function update(id: number, change: (run: ReplayRun) => Partial<ReplayRun>): void {
  useReplay.setState((s) => (s.run?.id === id ? { run: { ...s.run, ...change(s.run) } } : s));
}

/** What a refused or lost replay call means to the user, in one line. */
export function replayErrorText(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const message = errorMessage(error);
  if (code === 'busy') return `Another replay is running in the host (${message}).`;
  if (code === 'replay_variables') return `This trace types secrets it does not hold: ${message}`;
  if (code === 'not_found') return `The device is gone from the host (${message}); choose another one.`;
  if (code === 'host_connection_lost') return 'The connection to the host was lost before the replay ended; it may still be running there.';
  if (typeof code === 'string' && code.startsWith('trace_')) return `This trace cannot be replayed: ${message}`;
  if (typeof code === 'string' && (code.startsWith('runner_') || code.startsWith('appreveal_'))) return `The device cannot replay now: ${message}`;
  return `The replay failed: ${message}`;
}

/**
 * Starts a replay of `path` on `deviceId` and follows it to its end. Resolves when it has ended, been
 * refused, or lost; never rejects (the run's `error` says what went wrong).
 */
export async function startReplay(
  api: ParallaxApi,
  input: {
    path: string;
    deviceId: string;
    stopOnDivergence: boolean;
    total: number;
    relaunchFirst?: boolean;
    fromCallId?: string;
    only?: boolean;
    scope?: readonly string[];
  },
  /** The trace's secrets, by variable name: sent with the call and kept nowhere (docs/rules.md#r-rpl-04). */
  variables?: Readonly<Record<string, string>>,
): Promise<void> {
  const id = nextRunId++;
  useReplay.setState({ run: { id, ...input, steps: {}, report: null, running: true, stopping: false, error: null } });
  const ours = (event: { path: string; deviceId: string }) => event.path === input.path && event.deviceId === input.deviceId;
  let ended!: () => void;
  const done = new Promise<void>((resolve) => (ended = resolve));
  const finish = (report: ReplayReport) => {
    update(id, () => ({ report, running: false, stopping: false }));
    ended();
  };
  const offs = [
    api.on('trace.replayStep', (progress) => {
      if (ours(progress)) update(id, (run) => ({ total: progress.total, steps: { ...run.steps, [progress.step.callId]: progress.step } }));
    }),
    // The report also comes as an event: a long replay outlives the web transport's wait for the reply.
    api.on('trace.replayEnded', (event) => {
      if (ours(event)) finish(event.report);
    }),
  ];
  try {
    api
      .call('trace.replay', {
        path: input.path,
        deviceId: input.deviceId,
        stopOnDivergence: input.stopOnDivergence,
        ...(input.relaunchFirst ? { relaunchFirst: true } : {}),
        ...(input.fromCallId !== undefined ? { fromCallId: input.fromCallId, ...(input.only ? { only: true } : {}) } : {}),
        ...(variables && Object.keys(variables).length > 0 ? { variables: { ...variables } } : {}),
      })
      .then(finish, (error: unknown) => {
        if ((error as { code?: unknown }).code === 'timeout') return;
        const refused = (error as { code?: unknown }).code === 'busy';
        // A refused replay never ran: steps heard meanwhile were another replay's.
        update(id, () => ({ running: false, stopping: false, error: replayErrorText(error), ...(refused ? { steps: {} } : {}) }));
        ended();
      });
    await done;
  } finally {
    offs.forEach((off) => off());
  }
}

/** Asks the host to stop the replay this window started; it stops before its next step. */
export async function stopReplay(api: ParallaxApi): Promise<void> {
  const run = useReplay.getState().run;
  if (!run?.running || run.stopping) return;
  update(run.id, () => ({ stopping: true }));
  try {
    await api.call('trace.stopReplay', {});
  } catch (error) {
    update(run.id, () => ({ stopping: false, error: `Could not stop the replay: ${errorMessage(error)}` }));
  }
}

/** Forgets a finished run of `path` (its trace was closed); a running one is left to end. */
export function forgetReplay(path: string): void {
  useReplay.setState((s) => (s.run && s.run.path === path && !s.run.running ? { run: null } : s));
}

/** A step's verdict in the run of `path`, "notRun" once the run ended without reaching it. */
export type StepReplayState = { verdict: 'pending' | 'notRun' } | { verdict: ReplayStep['verdict']; step: ReplayStep };

export function stepReplayState(run: ReplayRun | null, path: string, callId: string): StepReplayState | undefined {
  if (!run || run.path !== path) return undefined;
  const step = run.steps[callId];
  if (!step && run.scope !== undefined && !run.scope.includes(callId)) return undefined;
  if (step) return { verdict: step.verdict, step };
  if (run.running) return { verdict: 'pending' };
  return run.report ? { verdict: 'notRun' } : undefined;
}
