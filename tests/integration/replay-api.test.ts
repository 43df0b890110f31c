/**
 * The UI's Replay button through the real API service, against the demo device over its real
 * sockets: a session recorded through the API, replayed on the same device, with each step announced
 * as an event, the choice to stop at a divergence or continue, a stop mid-run, and one replay at a time.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiEvent, ApiEventPayload, ReplayEnded, ReplayProgress } from '@shared/api/api';
import type { ReplayReport } from '@shared/trace/replay-report';
import { startDemoDevice, type DemoDeviceHandle } from '@demo/index';
import { createApiService, type ApiService } from '@main/host/api';
import { DeviceManager } from '@main/devices/manager';
import { SessionRecording } from '@main/trace/recording';
import { failed } from '../support/results';
import { recordCase, REPLAY_CASES, resetApp, SECRET_VALUE } from '../support/replay-cases';
import { admin as demoAdmin } from '../support/demo-admin';
import { watchFrames, type FrameWatch } from '../support/frame-watch';
import { apiCall } from '../support/api-call';

let demo: DemoDeviceHandle;
let manager: DeviceManager;
let recording: SessionRecording;
let api: ApiService;
let dir: string;
let deviceId: string;
/** Tap Sign In, tap the disabled passkey button (refused), tap the Checkout tab: recorded on the login screen. */
let tracePath: string;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The bridge route every SDK-backed action of the demo goes through. */
const BRIDGE_ACTION = 'POST /observation/action';

const admin = (path: string, body?: unknown) => demoAdmin(demo.adminUrl, path, body);

/** What the host's connection has observed of the demo's screen. */
let frames: FrameWatch;
/** A relaunched app on `screen` (request counts from zero), once the host has observed its first frame. */
async function reset(screen: string): Promise<void> {
  await admin('/reset', { screen, faults: [] });
  await frames.until(demo.adminUrl);
}

async function bridgeActionsSent(): Promise<number> {
  const stats = await admin('/stats');
  return (stats.sdkRequests as Record<string, number>)[BRIDGE_ACTION] ?? 0;
}

const call = (method: string, params: unknown) => apiCall(api, method, params);

/** The events of one kind the service emits while `run` runs (`run` sees them as they come). */
async function collecting<E extends ApiEvent, T>(
  event: E,
  run: (events: ApiEventPayload<E>[]) => Promise<T>,
): Promise<{ result: T; events: ApiEventPayload<E>[] }> {
  const events: ApiEventPayload<E>[] = [];
  const off = api.subscribe((name: ApiEvent, payload: unknown) => {
    if (name === event) events.push(payload as ApiEventPayload<E>);
  });
  try {
    return { result: await run(events), events };
  } finally {
    off();
  }
}

async function replay(stopOnDivergence: boolean): Promise<ReplayReport> {
  return (await call('trace.replay', { path: tracePath, deviceId, stopOnDivergence })) as unknown as ReplayReport;
}

/** A replay that continues on divergence, with trace.stopReplay called `delayMs` after its first step is judged. */
async function replayStoppedAfterFirstStep(delayMs: number) {
  let stopAnswer: Promise<Record<string, unknown>> | undefined;
  const { result: report, events } = await collecting('trace.replayStep', async (seen) => {
    const off = api.subscribe((name) => {
      if (name !== 'trace.replayStep' || seen.length !== 1 || stopAnswer) return;
      const stop = () => call('trace.stopReplay', {});
      stopAnswer = delayMs === 0 ? stop() : sleep(delayMs).then(stop);
    });
    try {
      return await replay(false);
    } finally {
      off();
    }
  });
  return { report, events, stopAnswer: await stopAnswer };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parallax-replay-api-'));
  demo = await startDemoDevice({ port: 0 });
  manager = new DeviceManager();
  recording = new SessionRecording(manager, { dir, version: 'test' });
  // A shorter calm between steps than a person needs; the engine still sends again after a race.
  api = createApiService({ manager, recording }, { host: 'web', version: 'test', replay: { settleMs: 150 } });
  deviceId = manager.connect(demo.runnerUrl, { kind: 'demo', name: 'Demo' }).id;
  frames = watchFrames(manager.connectionOf(deviceId));
  await manager.connectionOf(deviceId).waitUntilConnected(10_000);

  await reset('login');
  await call('device.observe', { deviceId });
  await call('recording.start', { deviceId });
  for (const id of ['login.submit', 'login.passkey', 'tab.checkout']) {
    // A person's pace: the pushed frame of one step is observed before the next is sent.
    await frames.until(demo.adminUrl);
    await call('device.act', { deviceId, action: { action: 'tap', target: { id } } });
  }
  const stopped = await call('recording.stop', {});
  expect(stopped).toMatchObject({ recording: false, steps: 3 });
  tracePath = stopped.lastTrace as string;
}, 90_000);

afterAll(async () => {
  await recording?.close();
  await manager?.closeAll();
  await demo?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('trace.replay through the API', () => {
  it('on the screen it was recorded on every step matches, each announced as an event in order, then the end', async () => {
    await reset('login');
    const ended: ReplayEnded[] = [];
    const { result: report, events } = await collecting('trace.replayStep', async () => {
      const off = api.subscribe((name, payload) => {
        if (name === 'trace.replayEnded') ended.push(payload as ReplayEnded);
      });
      try {
        return await replay(true);
      } finally {
        off();
      }
    });
    expect(report.steps.map((s) => [s.kind, s.verdict, s.differences])).toEqual([
      ['tap', 'matched', []],
      ['tap', 'matched', []],
      ['tap', 'matched', []],
    ]);
    expect(report).toMatchObject({ matched: 3, diverged: 0, failed: 0, total: 3, notRun: 0 });
    expect(report.stopped).toBeUndefined();
    // The refusal the recording met is met again, through the same backend.
    expect(report.steps[1]!.replayed.outcome).toEqual({ success: false, backend: 'sdk', failureReason: 'element_not_actionable' });

    // The trace view names its steps by callId: the events do too, one per step, in the trace's order.
    const opened = (await call('trace.open', { path: tracePath })) as { steps: { callId: string }[] };
    expect(events.map((e: ReplayProgress) => [e.path, e.deviceId, e.total, e.step.callId])).toEqual(
      opened.steps.map((s) => [tracePath, deviceId, 3, s.callId]),
    );
    expect(events.map((e) => e.step)).toEqual(report.steps);
    expect(ended).toEqual([{ path: tracePath, deviceId, report }]);
  });

  it('on another screen, stopping at the first divergence: the first step names its missing target, the rest are not run', async () => {
    await reset('feed');
    const { result: report, events } = await collecting('trace.replayStep', () => replay(true));
    expect(report.steps).toHaveLength(1);
    expect(report.steps[0]!.verdict).not.toBe('matched');
    // R-RPL-01, R-RPL-02: judged by the screen it meets: not the recorded one, and the target is not on it.
    expect(report.steps[0]!.differences).toEqual([expect.stringMatching(/^the screen before differs: /), expect.stringMatching(/^target missing: /)]);
    expect(report.steps[0]).toMatchObject({ ran: 'no', target: { verdict: 'missing' } });
    expect(report).toMatchObject({ total: 3, notRun: 2, stopped: { reason: 'divergence', afterCallId: report.steps[0]!.callId } });
    expect(events).toHaveLength(1);
    // Nothing the bridge was asked to do: the element is not there, so the dispatcher never sent it.
    expect(await bridgeActionsSent()).toBe(0);
  });

  it('R-RPL-02: on another screen, continuing: every step is judged; the tab bar is found on every screen, but the screen it meets is not the recorded one', async () => {
    await reset('feed');
    const { result: report, events } = await collecting('trace.replayStep', () => replay(false));
    expect(report.steps.map((s) => s.verdict)).toEqual(['diverged', 'diverged', 'diverged']);
    expect(report.steps[1]!.target?.verdict).toBe('missing');
    expect(report.steps[2]).toMatchObject({ ran: 'yes', target: { verdict: 'found' }, screens: { before: { differs: true } } });
    expect(report).toMatchObject({ matched: 0, diverged: 3, failed: 0, total: 3, notRun: 0 });
    expect(report.stopped).toBeUndefined();
    expect(events.map((e) => e.step.verdict)).toEqual(['diverged', 'diverged', 'diverged']);
  });

  it('trace.stopReplay mid-run stops before the next step, and no action is sent twice', async () => {
    await reset('login');
    // Stop the instant the first step is judged, before the replay waits for the next.
    const { report, events, stopAnswer } = await replayStoppedAfterFirstStep(0);
    expect(stopAnswer).toEqual({ stopping: true });
    expect(report.steps).toHaveLength(1);
    expect(report.steps[0]!.verdict).toBe('matched');
    expect(report).toMatchObject({ total: 3, notRun: 2, stopped: { reason: 'aborted', afterCallId: report.steps[0]!.callId } });
    expect(events).toHaveLength(1);
    // The one step run reached the bridge once (twice only if the engine said it sent it again after a race).
    const sent = report.steps.reduce((n, s) => n + (s.replayed.result ? 1 : 0) + (s.replayed.retriedAfter ? 1 : 0), 0);
    expect(sent).toBeGreaterThanOrEqual(1);
    expect(await bridgeActionsSent()).toBe(sent);
    // Nothing runs any more: a second stop has nothing to stop.
    expect(await call('trace.stopReplay', {})).toEqual({ stopping: false });
  });

  it('a stop pressed while the replay waits for the screen to settle stops before the next step is sent', async () => {
    await reset('login');
    // After the first step the replay waits at least settleMs (150) for a still screen: a person's
    // click lands in that wait, not in the instant between the step and the wait.
    const { report, stopAnswer } = await replayStoppedAfterFirstStep(30);
    expect(stopAnswer).toEqual({ stopping: true });
    expect(report.steps.map((s) => s.verdict)).toEqual(['matched']);
    expect(report).toMatchObject({ notRun: 2, stopped: { reason: 'aborted' } });
    expect(await bridgeActionsSent()).toBe(report.steps[0]!.replayed.retriedAfter ? 2 : 1);
  });

  it('a second replay while one runs is refused as busy; the first one runs on undisturbed', async () => {
    await reset('login');
    const first = replay(false);
    const second = await api.handle('trace.replay', { path: tracePath, deviceId, stopOnDivergence: false });
    expect(second).toMatchObject({ ok: false, error: { code: 'busy', message: expect.stringContaining(tracePath) } });
    const report = await first;
    expect(report).toMatchObject({ matched: 3, total: 3, notRun: 0 });
    // Once it is over, another may start.
    await reset('login');
    expect((await replay(true)).matched).toBe(3);
  });

  it('a replay started on hearing that the last one ended may start, and holds the host until it ends', async () => {
    await reset('feed');
    let next: Promise<ReplayReport> | undefined;
    const off = api.subscribe((name) => {
      if (name === 'trace.replayEnded' && !next) next = replay(true);
    });
    try {
      await replay(true);
      expect(next).toBeDefined();
      const third = await api.handle('trace.replay', { path: tracePath, deviceId, stopOnDivergence: true });
      expect(third).toMatchObject({ ok: false, error: { code: 'busy' } });
      expect(await next).toMatchObject({ total: 3, notRun: 2, stopped: { reason: 'divergence' } });
    } finally {
      off();
    }
  });

  it('an unknown device is not_found and a damaged trace a trace_* error; neither leaves the host busy', async () => {
    await reset('login');
    const unknown = await api.handle('trace.replay', { path: tracePath, deviceId: 'no-such-device', stopOnDivergence: true });
    expect(unknown).toMatchObject({ ok: false, error: { code: 'not_found' } });

    const damaged = join(dir, 'damaged.parallax-trace');
    await writeFile(damaged, 'not a zip at all');
    const broken = await api.handle('trace.replay', { path: damaged, deviceId, stopOnDivergence: true });
    expect(broken.ok).toBe(false);
    expect(failed(broken).code).toMatch(/^trace_/);
    expect(await bridgeActionsSent()).toBe(0);

    expect((await replay(true)).matched).toBe(3);
  });

  it('R-RPL-05: the replayed frames of the last replay are kept for the side by side, redacted, and only for its trace', async () => {
    await reset('login');
    const report = await replay(true);
    expect(report.steps[0]!.replayed.frames).toEqual({ before: true, after: true });
    const callId = report.steps[0]!.callId;
    const before = (await call('trace.replayFrame', { path: tracePath, callId, when: 'before' })) as {
      screenshot: unknown;
      observation: unknown;
      receivedAt: number;
    };
    expect(before.screenshot).toMatchObject({ format: 'png' });
    expect(before.observation).toBeTruthy();
    expect(before.receivedAt).toBe(report.steps[0]!.replayed.beforeTime);
    expect(await call('trace.replayFrame', { path: tracePath, callId, when: 'after' })).toBeTruthy();
    expect(await api.handle('trace.replayFrame', { path: tracePath, callId: 'no-such-step', when: 'before' })).toEqual({ ok: true, result: null });
  });

  it('R-RPL-08: the reopened trace says each step as the live timeline did: action, whole result, frame times', async () => {
    const opened = (await call('trace.open', { path: tracePath })) as {
      steps: {
        action: string;
        actionResult?: { backend?: string; timings: Record<string, number>; target: unknown };
        before?: { time?: number };
        after?: { time?: number };
      }[];
      variables: unknown[];
    };
    expect(opened.steps.map((s) => s.action)).toEqual(['tap', 'tap', 'tap']);
    expect(opened.steps[0]!.actionResult).toMatchObject({ backend: 'sdk', target: expect.anything() });
    expect(Object.keys(opened.steps[0]!.actionResult!.timings).length).toBeGreaterThan(0);
    expect(opened.steps[0]!.before?.time).toEqual(expect.any(Number));
    expect(opened.steps[0]!.after?.time).toBeGreaterThanOrEqual(opened.steps[0]!.before!.time!);
    expect(opened.variables).toEqual([]);
  });

  it('R-RPL-04, R-RPL-07, R-RPL-10: a recording with a secret replays only with its variable, which the host never echoes; after a renamed label the renamed step runs, named as renamed', async () => {
    const loginA = REPLAY_CASES.find((c) => c.name === 'login-A')!;
    const path = await recordCase({ manager, recording, deviceId, adminUrl: demo.adminUrl }, loginA, []);
    const opened = (await call('trace.open', { path })) as { steps: { action: string; variable?: string }[]; variables: { name: string; step: number }[] };
    expect(opened.variables).toEqual([{ name: 'LOGIN_PASSWORD', step: 4, callIds: [expect.any(String)], field: 'login.password' }]);
    expect(opened.steps[3]).toMatchObject({ action: 'type secret', variable: 'LOGIN_PASSWORD' });
    expect(opened.steps[1]!.action).toBe('type “qa@example.com”');

    await resetApp(demo.adminUrl, 'login', [], [], frames);
    const refused = await api.handle('trace.replay', { path, deviceId, stopOnDivergence: true });
    expect(refused).toMatchObject({ ok: false, error: { code: 'replay_variables', message: expect.stringContaining('LOGIN_PASSWORD') } });
    expect(await bridgeActionsSent()).toBe(0);

    const variables = { LOGIN_PASSWORD: SECRET_VALUE };
    await resetApp(demo.adminUrl, 'login', [], [], frames);
    const { result: matched, events } = await collecting(
      'trace.replayStep',
      async () => (await call('trace.replay', { path, deviceId, stopOnDivergence: true, variables })) as unknown as ReplayReport,
    );
    expect(matched.steps.map((s) => s.verdict)).toEqual(loginA.steps.map(() => 'matched'));
    expect(matched.steps[3]!.replayed.variable).toBe('LOGIN_PASSWORD');
    const frame = await call('trace.replayFrame', { path, callId: matched.steps[3]!.callId, when: 'after' });
    for (const said of [matched, events, frame]) expect(JSON.stringify(said)).not.toContain(SECRET_VALUE);

    await resetApp(demo.adminUrl, 'login', [], ['renamed-label'], frames);
    try {
      const renamed = (await call('trace.replay', { path, deviceId, stopOnDivergence: true, variables })) as unknown as ReplayReport;
      // Sign In is Log In; the exported `id: 'login\.submit'` still finds it, so the flow (and the replay) taps it.
      expect(loginA.diverges['renamed-label']).toBeNull();
      expect(renamed.steps.map((s) => s.verdict)).toEqual(loginA.steps.map(() => 'matched'));
      expect(renamed.steps[4]).toMatchObject({ ran: 'yes', target: { verdict: 'renamed' } });
      expect(renamed.steps[4]!.changes).toContain('target renamed: "Sign In" → "Log In"');
      expect(renamed.changed).toBeGreaterThanOrEqual(1);
      expect(renamed.unreached).toEqual([]);
    } finally {
      await admin('/variants', { variants: [] });
    }
  }, 90_000);
});
