/**
 * The trace view's replay state: a run follows the host's step events for its own trace and
 * device, ends with the report (from the reply or, when the reply wait gave up, from the end event),
 * and says plainly why a refused replay did not run. The report's one line, shared with the CLI.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { ApiEvent, ApiEventPayload, ApiMethod, ApiOutput, ParallaxApi } from '@shared/api/api';
import { ranSummary, replaySummary, type ReplayReport, type ReplayStep } from '@shared/trace/replay-report';
import { startReplay, stepReplayState, stopReplay, useReplay } from '@renderer/state/replay';

class CallError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A host whose answers the test gives by hand. */
function fakeHost() {
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  const calls: { method: string; input: unknown; resolve(value: unknown): void; reject(error: unknown): void }[] = [];
  const api: ParallaxApi = {
    call<M extends ApiMethod>(method: M, input: unknown): Promise<ApiOutput<M>> {
      return new Promise((resolve, reject) => calls.push({ method, input, resolve: resolve as (v: unknown) => void, reject }));
    },
    on<E extends ApiEvent>(event: E, listener: (payload: ApiEventPayload<E>) => void) {
      const set = listeners.get(event) ?? new Set();
      listeners.set(event, set);
      set.add(listener as (payload: unknown) => void);
      return () => set.delete(listener as (payload: unknown) => void);
    },
  };
  const emit = <E extends ApiEvent>(event: E, payload: ApiEventPayload<E>) => listeners.get(event)?.forEach((l) => l(payload));
  const listening = () => [...listeners.values()].reduce((n, set) => n + set.size, 0);
  return { api, calls, emit, listening };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

function step(index: number, verdict: ReplayStep['verdict'], differences: string[] = []): ReplayStep {
  return {
    index,
    number: index + 1,
    callId: `call-${index + 1}`,
    kind: 'tap',
    verdict,
    differences,
    notes: [],
    changes: [],
    ran: verdict === 'matched' ? 'yes' : 'no',
    screens: {},
    recorded: { status: 'succeeded' },
    replayed: { frames: { before: false, after: false } },
  };
}

function report(steps: ReplayStep[], total: number, stopped?: ReplayReport['stopped']): ReplayReport {
  const count = (v: ReplayStep['verdict']) => steps.filter((s) => s.verdict === v).length;
  return {
    steps,
    matched: count('matched'),
    diverged: count('diverged'),
    failed: count('failed'),
    changed: 0,
    total,
    notRun: total - steps.length,
    unreached: [],
    ...(stopped ? { stopped } : {}),
  };
}

const input = { path: '/traces/a.parallax-trace', deviceId: 'd1', stopOnDivergence: true, total: 3 };

beforeEach(() => useReplay.setState({ run: null }));

describe('a replay run in the trace view', () => {
  it("fills in its own steps as their events come, ignores another trace's, and ends with the reply", async () => {
    const host = fakeHost();
    const done = startReplay(host.api, input);
    expect(host.calls[0]).toMatchObject({ method: 'trace.replay', input: { path: input.path, deviceId: 'd1', stopOnDivergence: true } });
    expect(useReplay.getState().run).toMatchObject({ running: true, total: 3, steps: {} });

    host.emit('trace.replayStep', { path: input.path, deviceId: 'd1', total: 4, step: step(0, 'matched') });
    host.emit('trace.replayStep', { path: '/traces/other.parallax-trace', deviceId: 'd1', total: 4, step: step(1, 'failed') });
    host.emit('trace.replayStep', { path: input.path, deviceId: 'd2', total: 4, step: step(1, 'failed') });
    const run = useReplay.getState().run!;
    expect(Object.keys(run.steps)).toEqual(['call-1']);
    // The host's count is the trace's actions, which the view may not all show.
    expect(run.total).toBe(4);
    expect(stepReplayState(run, input.path, 'call-1')).toMatchObject({ verdict: 'matched' });
    expect(stepReplayState(run, input.path, 'call-2')).toEqual({ verdict: 'pending' });
    expect(stepReplayState(run, '/traces/other.parallax-trace', 'call-1')).toBeUndefined();

    const final = report([step(0, 'matched'), step(1, 'diverged')], 4, { reason: 'divergence', afterCallId: 'call-2' });
    host.calls[0]!.resolve(final);
    await done;
    const ended = useReplay.getState().run!;
    expect(ended).toMatchObject({ running: false, report: final, error: null });
    expect(stepReplayState(ended, input.path, 'call-4')).toEqual({ verdict: 'notRun' });
    expect(host.listening()).toBe(0);
  });

  it('when the wait for the reply gives up, the run keeps going until the end event brings the report', async () => {
    const host = fakeHost();
    let finished = false;
    const done = startReplay(host.api, input).then(() => (finished = true));
    host.calls[0]!.reject(new CallError('timeout', 'trace.replay got no answer within 30 s'));
    await settle();
    expect(useReplay.getState().run).toMatchObject({ running: true, error: null });
    expect(finished).toBe(false);

    const final = report([step(0, 'matched'), step(1, 'matched'), step(2, 'matched')], 3);
    host.emit('trace.replayEnded', { path: input.path, deviceId: 'd1', report: final });
    await done;
    expect(useReplay.getState().run).toMatchObject({ running: false, report: final });
  });

  it('a refused replay says why and keeps no steps heard meanwhile; a lost device says to choose another', async () => {
    const host = fakeHost();
    const busy = startReplay(host.api, input);
    host.emit('trace.replayStep', { path: input.path, deviceId: 'd1', total: 3, step: step(0, 'matched') });
    host.calls[0]!.reject(new CallError('busy', 'a replay of /traces/b.parallax-trace is running; stop it first'));
    await busy;
    expect(useReplay.getState().run).toMatchObject({
      running: false,
      steps: {},
      error: 'Another replay is running in the host (a replay of /traces/b.parallax-trace is running; stop it first).',
    });

    const gone = startReplay(host.api, input);
    host.calls[1]!.reject(new CallError('not_found', 'no device d1'));
    await gone;
    expect(useReplay.getState().run?.error).toBe('The device is gone from the host (no device d1); choose another one.');
  });

  it('R-EDIT-07: a run from a step, or of one step, gives no badge to the steps outside it: they were not part of the run, not "not reached"', async () => {
    const host = fakeHost();
    const done = startReplay(host.api, { ...input, total: 2, fromCallId: 'call-2', scope: ['call-2', 'call-3'] });
    expect(host.calls[0]).toMatchObject({ input: { fromCallId: 'call-2' } });
    let run = useReplay.getState().run!;
    // While it runs, the step before it waits for nothing.
    expect(stepReplayState(run, input.path, 'call-1')).toBeUndefined();
    expect(stepReplayState(run, input.path, 'call-2')).toEqual({ verdict: 'pending' });
    host.emit('trace.replayStep', { path: input.path, deviceId: 'd1', total: 2, step: step(1, 'matched') });
    host.calls[0]!.resolve(report([step(1, 'matched')], 2, { reason: 'divergence', afterCallId: 'call-2' }));
    await done;
    run = useReplay.getState().run!;
    expect(stepReplayState(run, input.path, 'call-1')).toBeUndefined();
    expect(stepReplayState(run, input.path, 'call-2')).toMatchObject({ verdict: 'matched' });
    expect(stepReplayState(run, input.path, 'call-3')).toEqual({ verdict: 'notRun' });
  });

  it('Stop asks the host once, and only while the run runs', async () => {
    const host = fakeHost();
    const done = startReplay(host.api, input);
    void stopReplay(host.api);
    void stopReplay(host.api);
    expect(host.calls.map((c) => c.method)).toEqual(['trace.replay', 'trace.stopReplay']);
    expect(useReplay.getState().run?.stopping).toBe(true);
    host.calls[1]!.resolve({ stopping: true });
    host.calls[0]!.resolve(report([step(0, 'matched')], 3, { reason: 'aborted', afterCallId: 'call-1' }));
    await done;
    expect(useReplay.getState().run).toMatchObject({ running: false, stopping: false });
    await stopReplay(host.api);
    expect(host.calls).toHaveLength(2);
  });
});

describe('the report in one line', () => {
  it('counts the steps, and says why and how many were not reached when it stopped', () => {
    expect(replaySummary(report([step(0, 'matched'), step(1, 'matched')], 2))).toBe('2 of 2 replayed: 2 matched, 0 diverged, 0 failed');
    expect(replaySummary(report([step(0, 'diverged')], 3, { reason: 'divergence', afterCallId: 'call-1' }))).toBe(
      '1 of 3 replayed: 0 matched, 1 diverged, 0 failed; stopped at the first divergence, 2 not reached',
    );
    expect(replaySummary(report([step(0, 'matched'), step(1, 'failed')], 7, { reason: 'aborted', afterCallId: 'call-2' }))).toBe(
      '2 of 7 replayed: 1 matched, 0 diverged, 1 failed; stopped by you, 5 not reached',
    );
  });

  it('R-RPL-10: the count line and the ran line agree: a reached step that ran nothing "did not run", the rest "not reached"', () => {
    // Issue 27: "5 of 11 replayed … not run: 5–11" counted step 5 twice.
    const steps = [0, 1, 2, 3].map((i) => step(i, 'matched')).concat(step(4, 'diverged'));
    const r = { ...report(steps, 11, { reason: 'divergence', afterCallId: 'call-5' }), unreached: [6, 7, 8, 9, 10, 11] };
    expect(replaySummary(r)).toBe('5 of 11 replayed: 4 matched, 1 diverged, 0 failed; stopped at the first divergence, 6 not reached');
    expect(ranSummary(r)).toBe('ran: 1–4 · did not run: 5 · not reached: 6–11');
  });

  it('R-RPL-10: matched steps with changes are counted and named in the summary', () => {
    const moved = { ...step(0, 'matched'), changes: ['target moved by 62 pt'] };
    const removed = { ...step(1, 'matched'), changes: ['removed Cell "Post 12"'] };
    // The row is gone from every screen after it: named once, at the first step that met it.
    const stillRemoved = { ...step(2, 'matched'), changes: ['removed Cell "Post 12"'] };
    const r = { ...report([moved, removed, stillRemoved], 3), changed: 3 };
    expect(replaySummary(r)).toBe(
      '3 of 3 replayed: 3 matched (3 with changes), 0 diverged, 0 failed; changes: step 1: target moved by 62 pt; step 2: removed Cell "Post 12"',
    );
  });
});
