/**
 * `parallax open | replay | export | compare` on traces recorded from real actions on the demo
 * device, run in-process through runTraceCommand. One demo device for the file; every test that needs a
 * screen sets it through the admin reset first.
 */
import { copyFile, mkdtemp, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActionRequest, ActionResult } from '@shared/protocol/action';
import type { UiNode } from '@shared/protocol/runner';
import { startDemoDevice, type DemoDeviceHandle } from '@demo/index';
import { connectionFor } from '@main/devices/manager';
import type { DeviceConnection } from '@main/connection/connection';
import { compareNow } from '@main/devices/compare';
import { recordComparison } from '@main/trace/comparison';
import { recordActionStep, type ReplayReport } from '@main/trace/replay';
import { openTraceFile, TraceRecorder } from '@main/trace/index';
import { startAppServices } from '@main/host/app-services';
import { flattenTree } from '@shared/model/tree';
import { runTraceCommand, type TraceCommand } from '@main/cli/traces';
import type { ObservedFrame } from '@shared/protocol/device';
import { watchFrames, type FrameWatch } from '../support/frame-watch';

let device: DemoDeviceHandle;
let connection: DeviceConnection;
let dir: string;
/** Through the SDK bridge: tap Sign In, tap the disabled passkey button (refused), tap the Checkout tab. */
let loginTrace: string;
const recorded: ActionResult[] = [];
/** The same taps with the bridge flag off: XCTest alone. */
let xctestTrace: string;

/** What the file's live connection has observed of the demo's screen. */
let frames: FrameWatch;

/** A relaunched app on `screen`, once its first frame is pushed and observed, as a person would wait for it. */
async function reset(screen: string, variants?: string[]): Promise<void> {
  const res = await fetch(`${device.adminUrl}/reset`, { method: 'POST', body: JSON.stringify({ screen, faults: [], ...(variants ? { variants } : {}) }) });
  expect(res.status).toBe(200);
  await frames.until(device.adminUrl);
}

async function run(command: TraceCommand, ...args: string[]): Promise<{ code: number; stdout: string[]; stderr: string[] }> {
  return runWith({}, command, ...args);
}

/**
 * A printed replay's lines without its memory line: the CLI adds it after the summary when a step's memory
 * grew over the threshold while it replayed (R-PERFSTEP), which the machine's load decides (a fresh clone's
 * CI printed one), so a test of the other lines must not read it as one of them.
 */
function withoutMemoryLine(stdout: readonly string[]): string[] {
  return stdout.filter((l) => !/^memory grew over \d+ MB at steps? [\d–, ]+ \(recorded: .+\)$/.test(l));
}

/** `run` with a stdin and a terminal prompt of the test's own. */
async function runWith(
  io: { stdin?: string; prompt?: (question: string) => Promise<string> },
  command: TraceCommand,
  ...args: string[]
): Promise<{ code: number; stdout: string[]; stderr: string[] }> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await runTraceCommand(command, args, {
    log: (line) => stdout.push(line),
    error: (line) => stderr.push(line),
    ...(io.stdin !== undefined ? { readStdin: async () => io.stdin! } : {}),
    ...(io.prompt ? { prompt: io.prompt } : {}),
  });
  return { code, stdout, stderr };
}

/** What the demo's runner was asked to do, by request kind (its admin stats: what reached the device). */
async function runnerRequests(): Promise<Record<string, number>> {
  return ((await (await fetch(`${device.adminUrl}/stats`)).json()) as { requests: Record<string, number> }).requests;
}

/** The same trace with every event's text rewritten (a hostile edit of the events, the resources as they were). */
async function rewritten(file: string, name: string, edit: (events: string) => string): Promise<string> {
  const entries = unzipSync(new Uint8Array(await readFile(file)));
  entries['events.jsonl'] = strToU8(edit(strFromU8(entries['events.jsonl']!)));
  const out = join(dir, name);
  await writeFile(out, zipSync(entries));
  return out;
}

/** Records `requests` on the login screen, the way the app's record button does: each step with the frames around it. */
async function record(name: string, requests: ActionRequest[], options: { xctestOnly?: boolean } = {}): Promise<{ file: string; results: ActionResult[] }> {
  const xctestOnly = options.xctestOnly === true;
  await reset('login');
  let before: ObservedFrame | undefined = await connection.observe({ xctestOnly });
  const recorder = await TraceRecorder.start({
    dir,
    manifest: {
      device: { name: 'Demo iPhone', kind: 'demo', url: device.runnerUrl },
      app: { bundleId: before.observation?.activeWindow?.bundleId ?? 'com.parallax.demo' },
    },
  });
  const results: ActionResult[] = [];
  for (const [i, request] of requests.entries()) {
    // A person's pace: the pushed frame of the last step is observed before the next one is sent.
    await frames.until(device.adminUrl);
    const { result, after } = await connection.act(request, { xctestOnly });
    results.push(result);
    await recordActionStep(recorder, { callId: `call-${i + 1}`, request, before, result, after, xctestOnly });
    before = after;
  }
  await recorder.append({ type: 'note', callId: 'note-1', text: 'recorded by the trace CLI test' });
  return { file: await recorder.stop({ outFile: join(dir, name) }), results };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parallax-trace-cli-'));
  device = await startDemoDevice({ port: 0 });
  connection = connectionFor(device.runnerUrl);
  frames = watchFrames(connection);
  connection.start();
  await connection.waitUntilConnected();
  // Taps only: on the demo device a sendKeys races the connection's own observe of the frame the focus
  // tap pushes (its screenshot), which makes the typed text fail its read-back now and then.
  const login = await record('login.parallax-trace', [
    { action: 'tap', target: { id: 'login.submit' } },
    { action: 'tap', target: { id: 'login.passkey' } },
    { action: 'tap', target: { id: 'tab.checkout' } },
  ]);
  loginTrace = login.file;
  recorded.push(...login.results);
  xctestTrace = (
    await record(
      'xctest.parallax-trace',
      [
        { action: 'tap', target: { id: 'login.submit' } },
        { action: 'tap', target: { id: 'tab.checkout' } },
      ],
      { xctestOnly: true },
    )
  ).file;
}, 90_000);

afterAll(async () => {
  await connection?.close();
  await device?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the recorded trace', () => {
  it('holds real actions with their results (a refusal included) and the frames around them', async () => {
    expect(recorded.map((r) => [r.success, r.backend, r.failureReason])).toEqual([
      [true, 'sdk', undefined],
      [false, 'sdk', 'element_not_actionable'],
      [true, 'sdk', undefined],
    ]);
    const trace = await openTraceFile(loginTrace);
    const first = trace.timeline[0]!;
    expect(first.before?.action).toEqual({ kind: 'tap' });
    expect(first.before?.target).toMatchObject({
      selector: { id: 'login.submit' },
      nodeKey: expect.any(String),
      node: { 'resource-id': 'login.submit', 'content-desc': 'Sign In' },
    });
    expect(first.before?.observationRef).toBeDefined();
    expect(first.before?.screenshotRef).toBeDefined();
    expect(first.after?.screenshotRef).toBeDefined();
    expect(first.after?.result).toMatchObject({ success: true, backend: 'sdk', target: { resolvedBy: 'id', elementId: 'login.submit' } });
    expect(trace.missingResources).toEqual([]);
    // The screenshot is the device's PNG, byte for byte.
    const png = await trace.resource(first.before!.screenshotRef!);
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
  });
});

describe('parallax open', () => {
  it('prints the manifest and one line per step with its result, backend and failure reason', async () => {
    const { code, stdout, stderr } = await run('open', loginTrace);
    expect(stderr).toEqual([]);
    expect(code).toBe(0);
    const text = stdout.join('\n');
    expect(text).toContain(`Trace ${loginTrace}`);
    expect(text).toContain('on Demo iPhone (demo, ');
    // The step count is the trace view's (its filmstrip counts actions only): issue 27.
    expect(text).toContain('3 steps (+1 note or observation)');
    // R-QA-10: actions carry the trace view's step numbers; the note is a step of the trace, not of the filmstrip.
    const steps = stdout.filter((line) => /^[\d·] {2}/.test(line));
    expect(steps).toHaveLength(4);
    expect(steps[0]).toMatch(/^1 {2}tap +id "login\.submit" +succeeded via sdk +\d+ ms$/);
    expect(steps[1]).toMatch(/^2 {2}tap +id "login\.passkey" +failed: element_not_actionable via sdk +\d+ ms$/);
    expect(steps[2]).toMatch(/^3 {2}tap +id "tab\.checkout" +succeeded via sdk/);
    expect(steps[3]).toMatch(/^· {2}note +recorded by the trace CLI test$/);
  });

  it('--json gives the manifest and the steps with backend and reasons', async () => {
    const { code, stdout } = await run('open', loginTrace, '--json');
    expect(code).toBe(0);
    const json = JSON.parse(stdout.join('\n'));
    expect(json.manifest).toMatchObject({ format: 'parallax-trace', version: 1, device: { name: 'Demo iPhone', kind: 'demo' } });
    expect(json.steps).toHaveLength(4);
    expect(json.steps[1]).toMatchObject({
      kind: 'action',
      status: 'failed',
      success: false,
      backend: 'sdk',
      failureReason: 'element_not_actionable',
      action: { kind: 'tap' },
      target: { selector: { id: 'login.passkey' } },
    });
  });

  it('a damaged trace (cut short) is one clear line and exit code 1', async () => {
    const cut = join(dir, 'cut.parallax-trace');
    await copyFile(loginTrace, cut);
    const { size } = await stat(cut);
    await truncate(cut, Math.floor(size / 2));
    const { code, stdout, stderr } = await run('open', cut);
    expect(code).toBe(1);
    expect(stdout).toEqual([]);
    expect(stderr).toHaveLength(1);
    expect(stderr[0]).toMatch(/^parallax open: .*cut\.parallax-trace.*cut short/);
  });

  it('a file that is not a zip at all says so in one line', async () => {
    const junk = join(dir, 'junk.parallax-trace');
    await writeFile(junk, 'hello, this is a text file\n');
    const { code, stderr } = await run('open', junk);
    expect(code).toBe(1);
    expect(stderr).toHaveLength(1);
    expect(stderr[0]).toMatch(/^parallax open: .*junk\.parallax-trace: not a zip archive/);
  });

  it('a foreign zip is named as not a Parallax trace, in one line', async () => {
    const foreign = join(dir, 'photos.zip');
    await writeFile(foreign, zipSync({ 'holiday.txt': strToU8('sunny'), 'notes/readme.md': strToU8('# hi') }));
    const { code, stdout, stderr } = await run('open', foreign);
    expect(code).toBe(1);
    expect(stdout).toEqual([]);
    expect(stderr).toHaveLength(1);
    expect(stderr[0]).toMatch(/^parallax open: .*photos\.zip: not a Parallax trace: manifest\.json missing/);
  });

  it('a missing file and a wrong command line are told apart by exit code', async () => {
    const missing = await run('open', join(dir, 'nope.parallax-trace'));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toEqual([expect.stringMatching(/^parallax open: cannot read .*nope\.parallax-trace: no such file or folder$/)]);
    expect((await run('open')).code).toBe(2);
    expect((await run('open', loginTrace, '--device', 'ws://x')).code).toBe(2);
  });
});

describe('parallax replay', () => {
  it('on a fresh device every step matches, the recorded refusal included, and the exit code is 0', async () => {
    await reset('login');
    const { code, stdout, stderr } = await run('replay', loginTrace, '--device', device.runnerUrl, '--json');
    expect(stderr).toEqual([]);
    const report = JSON.parse(stdout.join('\n')) as ReplayReport;
    expect(report.steps.map((s) => [s.callId, s.verdict, s.differences])).toEqual([
      ['call-1', 'matched', []],
      ['call-2', 'matched', []],
      ['call-3', 'matched', []],
    ]);
    expect(report).toMatchObject({ matched: 3, diverged: 0, failed: 0, total: 3, notRun: 0 });
    expect(report.steps[0]!.replayed).toMatchObject({ sent: 'id login.submit', outcome: { success: true, backend: 'sdk' } });
    // R-RPL-01, R-RPL-02: found by the exported selector, on the screen it was recorded on, before and after.
    expect(report.steps[0]!.target).toMatchObject({ verdict: 'found', by: { kind: 'selector' } });
    expect(report.steps[0]!.screens.before).toMatchObject({ differs: false });
    expect(report.steps[0]!.screens.after).toMatchObject({ differs: false });
    // R-RPL-06: the refused tap ran nothing, the others ran.
    expect(report.steps.map((s) => s.ran)).toEqual(['yes', 'no', 'yes']);
    expect((report as ReplayReport & { ran: string }).ran).toBe('ran: 1, 3 · did not run: 2');
    expect(report.steps[1]!.replayed.outcome).toEqual({ success: false, backend: 'sdk', failureReason: 'element_not_actionable' });
    expect(code).toBe(0);
  });

  it('prints one line per step as it goes, and a summary', async () => {
    await reset('login');
    const { code, stdout } = await run('replay', loginTrace, '--device', device.runnerUrl);
    expect(stdout[0]).toMatch(/^Replaying 3 action\(s\) from .*login\.parallax-trace on ws:\/\//);
    // A step's memory beside the recording's is said when the device's performance pushes fell in its
    // windows, which depends on timing (R-PERFSTEP-05 tests that text): the line may end with it.
    expect(stdout[2]).toMatch(/^2 {2}matched +tap +id "login\.passkey" +— failed: element_not_actionable via sdk( · memory [^·]+)?$/);
    expect(stdout.filter((l) => /^\d+ {2}matched/.test(l))).toHaveLength(3);
    const printed = withoutMemoryLine(stdout);
    expect(printed.at(-2)).toBe('3 of 3 replayed: 3 matched, 0 diverged, 0 failed');
    expect(printed.at(-1)).toBe('ran: 1, 3 · did not run: 2');
    expect(code).toBe(0);
  });

  it('a trace recorded with the bridge off replays with the bridge off', async () => {
    await reset('login');
    const { code, stdout } = await run('replay', xctestTrace, '--device', device.runnerUrl, '--json');
    const report = JSON.parse(stdout.join('\n')) as ReplayReport;
    expect(report.steps.map((s) => s.verdict)).toEqual(['matched', 'matched']);
    expect(report.steps[0]!.replayed.outcome).toEqual({ success: true });
    expect(code).toBe(0);
  });

  it('R-RPL-01, R-RPL-02: on another screen every step diverges by the screen; a missing target is not sent, the run continues; exit code 1', async () => {
    await reset('feed');
    const { code, stdout } = await run('replay', loginTrace, '--device', device.runnerUrl, '--json');
    const report = JSON.parse(stdout.join('\n')) as ReplayReport;
    expect(report.steps).toHaveLength(3);
    expect(report.steps[0]).toMatchObject({ verdict: 'diverged', ran: 'no', target: { verdict: 'missing', matches: 0 } });
    expect(report.steps[0]!.replayed.result).toBeUndefined();
    expect(report.steps[0]!.differences).toEqual([
      expect.stringMatching(/^the screen before differs: /),
      expect.stringMatching(/^target missing: the exported selector \(Maestro id: 'login\\.submit'\) finds nothing$/),
    ]);
    expect(report.steps[1]!.target?.verdict).toBe('missing');
    // The tab bar is on every screen: the tab is found and sent, but the screen it met is not the recorded one.
    expect(report.steps[2]).toMatchObject({ verdict: 'diverged', ran: 'yes', target: { verdict: 'found' } });
    expect(report.steps[2]!.differences[0]).toMatch(/^the screen before differs: /);
    expect(report).toMatchObject({ matched: 0, diverged: 3, failed: 0, notRun: 0 });
    expect(code).toBe(1);
  });

  it('--stop-on-divergence stops at the first step that diverged', async () => {
    await reset('feed');
    const { code, stdout } = await run('replay', loginTrace, '--device', device.runnerUrl, '--stop-on-divergence');
    expect(code).toBe(1);
    expect(stdout.filter((l) => /^\d+ {2}(matched|diverged|failed)/.test(l))).toEqual([
      expect.stringMatching(/^1 {2}diverged +tap +id "login\.submit" +— the screen before differs: .*; target missing/),
    ]);
    expect(withoutMemoryLine(stdout).slice(-2)).toEqual([
      '1 of 3 replayed: 0 matched, 1 diverged, 0 failed; stopped at the first divergence, 2 not reached',
      'did not run: 1 · not reached: 2, 3',
    ]);
  });

  it('R-RPL-10, R-RPL-07: after the app changed, a step runs where the exported selector still finds its target (moved, renamed) and diverges where it does not (gone); the changes are named', async () => {
    const variant = async (variants: string[]) => {
      await reset('login', variants);
      const { stdout } = await run('replay', loginTrace, '--device', device.runnerUrl, '--json', '--stop-on-divergence');
      return JSON.parse(stdout.join('\n')) as ReplayReport & { ran: string };
    };
    try {
      // Sign In below the passkey button: `id: 'login\.submit'` still finds it alone, so it is tapped.
      const moved = await variant(['moved-button']);
      expect(moved.steps[0]).toMatchObject({ verdict: 'matched', ran: 'yes', target: { verdict: 'elsewhere', movedPt: expect.any(Number) } });
      expect(moved.steps[0]!.changes).toEqual([`target moved by ${moved.steps[0]!.target!.movedPt} pt`]);
      expect(moved.steps[0]!.differences).toEqual([]);
      expect(moved.steps[0]!.replayed.result).toMatchObject({ success: true });
      expect(moved.changed).toBeGreaterThanOrEqual(1);

      const renamed = await variant(['renamed-label']);
      expect(renamed.steps[0]).toMatchObject({
        verdict: 'matched',
        ran: 'yes',
        target: { verdict: 'renamed', detail: 'target renamed: "Sign In" → "Log In"' },
      });
      expect(renamed.steps[0]!.changes).toContain('target renamed: "Sign In" → "Log In"');

      // The passkey button is gone: its step diverges and is not sent; the step before names what went.
      const removed = await variant(['removed-row']);
      expect(removed.steps[0]).toMatchObject({ verdict: 'matched', changes: ['removed Button "Sign in with Passkey"'] });
      expect(removed.steps[1]).toMatchObject({ verdict: 'diverged', ran: 'no', target: { verdict: 'missing' } });
      expect(removed).toMatchObject({ matched: 1, changed: 1, diverged: 1, notRun: 1, unreached: [3] });
      expect(removed.ran).toBe('ran: 1 · did not run: 2 · not reached: 3');
    } finally {
      await fetch(`${device.adminUrl}/variants`, { method: 'POST', body: JSON.stringify({ variants: [] }) });
    }
  }, 120_000);

  it('R-RPL-10: the summary the CLI prints names the changes, and its counts agree with --json', async () => {
    await reset('login', ['removed-row']);
    try {
      const { stdout } = await run('replay', loginTrace, '--device', device.runnerUrl, '--stop-on-divergence');
      expect(stdout.filter((l) => /^\d+ {2}(matched|diverged|failed)/.test(l))).toEqual([
        expect.stringMatching(/^1 {2}matched +tap +id "login\.submit" +— succeeded via \w+ · removed Button "Sign in with Passkey"$/),
        expect.stringMatching(/^2 {2}diverged +tap +id "login\.passkey" +— target missing/),
      ]);
      const printed = withoutMemoryLine(stdout);
      expect(printed.at(-2)).toBe(
        '2 of 3 replayed: 1 matched (1 with changes), 1 diverged, 0 failed; stopped at the first divergence, 1 not reached; changes: step 1: removed Button "Sign in with Passkey"',
      );
      expect(printed.at(-1)).toBe('ran: 1 · did not run: 2 · not reached: 3');
    } finally {
      await fetch(`${device.adminUrl}/variants`, { method: 'POST', body: JSON.stringify({ variants: [] }) });
    }
  }, 60_000);

  it('a trace the app itself records (through its API) replays too, a picked node included', async () => {
    const services = await startAppServices('web');
    try {
      await reset('login');
      const runner = services.manager.connect(device.runnerUrl, { kind: 'demo', name: 'Demo' });
      await services.manager.connectionOf(runner.id).waitUntilConnected(10_000);
      const call = async (method: string, params: unknown) => {
        const reply = await services.api.handle(method, params);
        if (!reply.ok) throw new Error(`${method}: ${reply.error.message}`);
        return reply.result as Record<string, unknown>;
      };
      const frame = await services.manager.observe(runner.id);
      const picked = flattenTree(frame.observation!.viewHierarchy!.hierarchy!).find((f) => f.node['sdk-element-id'] === 'login.submit')!.node;
      await call('recording.start', { deviceId: runner.id });
      await call('device.act', { deviceId: runner.id, action: { action: 'tap', target: { node: picked } } });
      await frames.until(device.adminUrl);
      await call('device.act', { deviceId: runner.id, action: { action: 'tap', target: { id: 'tab.checkout' } } });
      const { lastTrace } = await call('recording.stop', {});

      await reset('login');
      const { code, stdout } = await run('replay', lastTrace as string, '--device', device.runnerUrl, '--json');
      const report = JSON.parse(stdout.join('\n')) as ReplayReport;
      expect(report.steps.map((s) => [s.recorded.selector, s.verdict, s.differences])).toEqual([
        ['node "login.submit"', 'matched', []],
        ['id "tab.checkout"', 'matched', []],
      ]);
      // The picked node's bridge identity is long gone: the element found again on this screen is sent.
      expect(report.steps[0]!.replayed.sent).toBe('picked login.submit');
      expect(code).toBe(0);
    } finally {
      await services.close();
    }
  });

  it('a trace that cannot be read touches no device, and a missing --device is a usage error', async () => {
    const junk = join(dir, 'junk2.parallax-trace');
    await writeFile(junk, 'nothing');
    const unreadable = await run('replay', junk, '--device', 'ws://127.0.0.1:9/ws');
    expect(unreadable.code).toBe(1);
    expect(unreadable.stderr).toHaveLength(1);
    expect(unreadable.stderr[0]).toMatch(/^parallax replay: .*not a zip archive/);
    const usage = await run('replay', loginTrace);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toEqual(['parallax replay: replay needs --device ws://HOST:PORT/ws (a runner) or an AppReveal session URL']);
  });

  it('R-RPL-04, R-RPL-05: a secret is marked in the trace and named; replay asks for it, takes --var or the environment, and never writes it out', async () => {
    const secret = 'correct-horse-battery';
    const { file } = await record('password.parallax-trace', [
      { action: 'sendKeys', target: { id: 'login.password' }, steps: [{ kind: 'type', text: secret }] },
    ]);
    const trace = await openTraceFile(file);
    expect(trace.timeline[0]!.before?.action).toEqual({ kind: 'sendKeys', steps: [{ kind: 'type', secret: true }] });
    expect(JSON.stringify(trace.events)).not.toContain(secret);

    // Not given: refused before any device is touched, naming the variable the exports name.
    const refused = await run('replay', file, '--device', 'ws://127.0.0.1:9/ws', '--json');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toEqual([expect.stringMatching(/give LOGIN_PASSWORD \(in the CLI at the prompt, --var-file FILE or --env NAME/)]);
    const exported = await run('export', file);
    expect(exported.stdout.join('\n')).toContain('${LOGIN_PASSWORD}');

    // Given: typed, the report names the variable and the frames folder holds both sides, neither with the value.
    await reset('login');
    const frames = join(dir, 'frames-password');
    const given = await run('replay', file, '--device', device.runnerUrl, '--json', '--frames', frames, '--var', `LOGIN_PASSWORD=${secret}`);
    expect(given.stderr).toEqual(['types LOGIN_PASSWORD (from --var) at step 1, field “login.password”']);
    expect(given.stdout.join('\n')).not.toContain(secret);
    const report = JSON.parse(given.stdout.join('\n')) as ReplayReport & {
      framesDir: string;
      steps: { files?: Record<string, Record<string, Record<string, string>>> }[];
    };
    expect(report.steps[0]).toMatchObject({ verdict: 'matched', ran: 'yes', replayed: { variable: 'LOGIN_PASSWORD', frames: { before: true, after: true } } });
    const files = report.steps[0]!.files!;
    expect(files['recorded']!['before']).toEqual({ tree: 'step-1-recorded-before.json', screenshot: 'step-1-recorded-before.png' });
    expect(files['replayed']!['after']).toEqual({ tree: 'step-1-replayed-after.json', screenshot: 'step-1-replayed-after.png' });
    const tree = await readFile(join(frames, 'step-1-replayed-after.json'), 'utf8');
    expect(tree).not.toContain(secret);
    expect(await readFile(join(frames, 'step-1-replayed-after.png')).then((b) => b.subarray(1, 4).toString())).toBe('PNG');

    // From the environment only when --env names it: without it the environment is not read.
    process.env['LOGIN_PASSWORD'] = secret;
    try {
      const unasked = await run('replay', file, '--device', device.runnerUrl, '--json');
      expect(unasked.code).toBe(2);
      expect(unasked.stderr).toEqual([expect.stringMatching(/give LOGIN_PASSWORD/)]);
      await reset('login');
      const fromEnv = await run('replay', file, '--device', device.runnerUrl, '--json', '--env', 'LOGIN_PASSWORD');
      expect((JSON.parse(fromEnv.stdout.join('\n')) as ReplayReport).steps[0]!.verdict).toBe('matched');
      expect(fromEnv.stderr).toEqual(['types LOGIN_PASSWORD (from --env) at step 1, field “login.password”']);
    } finally {
      delete process.env['LOGIN_PASSWORD'];
    }
    // A bad --var is a usage error that never echoes the value.
    const bad = await run('replay', file, '--device', device.runnerUrl, '--var', `1BAD=${secret}`);
    expect(bad.code).toBe(2);
    expect(bad.stderr.join('')).not.toContain(secret);
  });

  it('R-TRUST-01, R-TRUST-02: a trace is data, never authority: a field renamed to aws.secret.access.key reads no environment and sends nothing', async () => {
    const { file } = await record('hostile-source.parallax-trace', [
      { action: 'sendKeys', target: { id: 'login.password' }, steps: [{ kind: 'type', text: 'recorded-secret' }] },
    ]);
    const hostile = await rewritten(file, 'hostile-env.parallax-trace', (events) => events.replaceAll('login.password', 'aws.secret.access.key'));
    const planted = 'AKIA-planted-value-never-read';
    process.env['AWS_SECRET_ACCESS_KEY'] = planted;
    try {
      // open says what a replay will ask for, and where it goes, before any replay is run.
      const opened = await run('open', hostile);
      expect(opened.stdout).toContain(
        '  replay asks for AWS_SECRET_ACCESS_KEY (typed at step 1, field “aws.secret.access.key”): at its prompt, --var-file FILE or --env AWS_SECRET_ACCESS_KEY',
      );
      const before = await runnerRequests();
      // No source given, no terminal: refused, the environment not read, the device not touched.
      const refused = await run('replay', hostile, '--device', device.runnerUrl, '--json');
      expect(refused.code).toBe(2);
      expect(refused.stderr).toEqual([expect.stringMatching(/give AWS_SECRET_ACCESS_KEY/)]);
      // A var file that holds other names gives it nothing either.
      const vars = join(dir, 'vars.env');
      await writeFile(vars, '# the QA secrets\nLOGIN_PASSWORD=correct-horse\n');
      const fromFile = await run('replay', hostile, '--device', device.runnerUrl, '--var-file', vars);
      expect(fromFile.code).toBe(2);
      // A name the trace does not type is a usage error, not a value handed to some other field.
      const other = await run('replay', hostile, '--device', device.runnerUrl, '--env', 'HOME');
      expect(other).toMatchObject({ code: 2, stderr: [expect.stringMatching(/--env: the trace types no HOME \(it types AWS_SECRET_ACCESS_KEY\)/)] });
      expect(await runnerRequests()).toEqual(before);
      for (const said of [opened, refused, fromFile, other]) expect(JSON.stringify(said)).not.toContain(planted);

      // Even when the user lists it, the value goes only to the field it was recorded for: that field is
      // not on the screen, so the step is not sent.
      await reset('login');
      const listed = await run('replay', hostile, '--device', device.runnerUrl, '--json', '--env', 'AWS_SECRET_ACCESS_KEY');
      const report = JSON.parse(listed.stdout.join('\n')) as ReplayReport;
      expect(report.steps[0]).toMatchObject({ verdict: 'diverged', ran: 'no' });
      expect(JSON.stringify(listed)).not.toContain(planted);
      const after = await runnerRequests();
      expect(after.request_append_text ?? 0).toBe(0);
      expect(Object.keys(after).filter((k) => /text|type|key/i.test(k))).toEqual([]);
    } finally {
      delete process.env['AWS_SECRET_ACCESS_KEY'];
    }
  });

  it('R-TRUST-01: a secret comes from a var file, from stdin or from the terminal prompt, which names its step and field', async () => {
    const secret = 'prompted-secret-value';
    const { file } = await record('sources.parallax-trace', [
      { action: 'sendKeys', target: { id: 'login.password' }, steps: [{ kind: 'type', text: secret }] },
    ]);
    const vars = join(dir, 'sources.env');
    await writeFile(vars, `OTHER_TRACE_SECRET=unrelated\nLOGIN_PASSWORD=${secret}\n`);
    await reset('login');
    const fromFile = await run('replay', file, '--device', device.runnerUrl, '--var-file', vars);
    expect(fromFile.code).toBe(0);
    expect(fromFile.stdout[0]).toBe('types LOGIN_PASSWORD (from --var-file) at step 1, field “login.password”');

    await reset('login');
    const fromStdin = await runWith({ stdin: `LOGIN_PASSWORD=${secret}\n` }, 'replay', file, '--device', device.runnerUrl, '--var-file', '-');
    expect(fromStdin.code).toBe(0);
    expect(fromStdin.stdout[0]).toBe('types LOGIN_PASSWORD (from stdin) at step 1, field “login.password”');

    await reset('login');
    const asked: string[] = [];
    const prompt = async (question: string) => {
      asked.push(question);
      return secret;
    };
    const fromPrompt = await runWith({ prompt }, 'replay', file, '--device', device.runnerUrl);
    expect(asked).toEqual(['LOGIN_PASSWORD (step 1, field “login.password”): ']);
    expect(fromPrompt.code).toBe(0);
    for (const said of [fromFile, fromStdin, fromPrompt]) expect(JSON.stringify(said)).not.toContain(secret);
    // The help no longer offers --var first, and says what it costs.
    const help = await run('replay', '--help');
    expect(help.stdout.join('\n')).toMatch(/--var NAME=VALUE: on the command line, which the process list shows/);
    expect(help.stdout.join('\n').indexOf('--var-file')).toBeLessThan(help.stdout.join('\n').indexOf('--var NAME'));
  });
});

describe('parallax export', () => {
  it('prints a Maestro flow with the steps by id when XCTest sees the ids', async () => {
    const { code, stdout, stderr } = await run('export', xctestTrace, '--maestro');
    expect(code).toBe(0);
    expect(stderr).toEqual([]);
    const yaml = stdout.join('\n');
    expect(yaml).toMatch(/^appId: '.+'$/m);
    expect(yaml).toContain("- tapOn:\n    id: 'login\\.submit'\n- tapOn:\n    id: 'tab\\.checkout'");
    expect(yaml).toContain('# recorded by the trace CLI test');
  });

  it('R-QA-08: bridge-merged steps use the id XCTest saw of them, a refused step becomes a note, and the notes go to stderr', async () => {
    const { code, stdout, stderr } = await run('export', loginTrace);
    expect(code).toBe(0);
    const yaml = stdout.join('\n');
    // The bridge served these taps, but the trace recorded that XCTest reports the same ids.
    expect(yaml).toContain("- tapOn:\n    id: 'login\\.submit'");
    expect(yaml).toContain("- tapOn:\n    id: 'tab\\.checkout'");
    expect(yaml).toContain('# Parallax: step 2 (tap): not exported: the action failed: element_not_actionable via sdk');
    expect(stderr).toEqual(['note: step 2 (call-2): not exported: the action failed: element_not_actionable via sdk']);
  });

  it('--out writes the file and lists the notes', async () => {
    const out = join(dir, 'flow.yaml');
    const { code, stdout } = await run('export', loginTrace, '--out', out);
    expect(code).toBe(0);
    expect(stdout).toEqual([
      `Wrote the Maestro flow to ${out} (1 note(s))`,
      'note: step 2 (call-2): not exported: the action failed: element_not_actionable via sdk',
    ]);
    expect(await readFile(out, 'utf8')).toContain("- tapOn:\n    id: 'tab\\.checkout'");
  });

  it('R-QA-08: --xcuitest prints the same steps as an XCUITest method, with the same notes', async () => {
    const { code, stdout, stderr } = await run('export', loginTrace, '--xcuitest');
    expect(code).toBe(0);
    const swift = stdout.join('\n');
    expect(swift).toContain('func testRecordedFlow() throws {');
    expect(swift).toContain('app.buttons["login.submit"].tap()');
    expect(swift).toContain('app.buttons["tab.checkout"].tap()');
    expect(swift).toContain('// Parallax: step 2 (tap): not exported: the action failed: element_not_actionable via sdk');
    expect(stderr).toEqual(['note: step 2 (call-2): not exported: the action failed: element_not_actionable via sdk']);
    expect((await run('export', loginTrace, '--xcuitest', '--maestro')).code).toBe(2);
  });
});
describe('parallax compare', () => {
  it('--json on Checkout: web DOM nodes are only in the SDK-backed tree or gain their web identity, and the summary counts them', async () => {
    await reset('checkout');
    const { code, stdout, stderr } = await run('compare', '--device', device.runnerUrl, '--json');
    expect(stderr).toEqual([]);
    expect(code).toBe(0);
    const json = JSON.parse(stdout.join('\n')) as {
      summary: Record<string, number>;
      nodes: { xctest: number; sdk: number };
      pairs: unknown[];
      differences: { class: string; detail: string; sdkNode?: UiNode }[];
      captures: { xctest: { frameContext?: string }; sdk: { frameContext?: string }; sameScreen: boolean | null };
    };
    const counts: Record<string, number> = {};
    for (const d of json.differences) counts[d.class] = (counts[d.class] ?? 0) + 1;
    for (const [cls, n] of Object.entries(json.summary)) expect(counts[cls] ?? 0).toBe(n);

    const web = json.differences.filter((d) => d.sdkNode?.['web-element-id'] !== undefined);
    expect(web.length).toBeGreaterThan(0);
    for (const d of web) expect(['only_sdk', 'identity_added', 'value_changed', 'text_changed', 'geometry_changed']).toContain(d.class);
    const webIdentities = web.filter((d) => d.class === 'identity_added');
    expect(webIdentities.length).toBeGreaterThan(0);
    expect(webIdentities[0]!.detail).toMatch(/^web identity: web-view-id="checkout"/);
    expect(json.summary.identity_added).toBeGreaterThanOrEqual(webIdentities.length);
    expect(json.differences.filter((d) => d.class === 'only_sdk').length).toBe(json.summary.only_sdk);
    expect(json.nodes.sdk).toBeGreaterThan(json.nodes.xctest);
    // Both reads saw the same screen, and say so.
    expect(json.captures.sameScreen).toBe(true);
    expect(json.captures.xctest.frameContext).toBe(json.captures.sdk.frameContext);
  });

  it('prints the summary and one line per difference', async () => {
    await reset('checkout');
    const { code, stdout } = await run('compare', '--device', device.runnerUrl);
    expect(code).toBe(0);
    expect(stdout[0]).toMatch(/XCTest-only \d+ nodes, SDK-backed \d+ nodes \(backend sdk\)$/);
    expect(stdout[1]).toMatch(/^Only in XCTest: \d+ · Only in SDK-backed: \d+ · .* · Identity added: \d+$/);
    expect(stdout.some((l) => /^identity_added +.*sdk 0\.[\d.]+ +web identity:/.test(l))).toBe(true);
  });

  it('a comparison recorded into a trace opens as a step with its summary', async () => {
    await reset('checkout');
    const comparison = await compareNow(connection);
    expect(comparison.sameScreen).toBe(true);
    expect(comparison.stamps.sdk.captureIdentity).toBeDefined();
    const recorder = await TraceRecorder.start({ dir, manifest: { device: { name: 'Demo iPhone', kind: 'demo', url: device.runnerUrl } } });
    await recordComparison(recorder, comparison, 'compare-1');
    const file = await recorder.stop({ outFile: join(dir, 'compare.parallax-trace') });
    const trace = await openTraceFile(file);
    const event = trace.timeline[0]!.comparisons[0]!;
    expect(event.summary).toEqual(comparison.diff.summary);
    expect(await trace.resourceJson(event.diffRef!)).toMatchObject({ summary: comparison.diff.summary, sameScreen: true });
    const { code, stdout } = await run('open', file);
    expect(code).toBe(0);
    expect(stdout.at(-1)).toMatch(new RegExp(`^· {2}comparison +comparison recorded: .*${comparison.diff.summary.identity_added} identity added$`));
  });

  it('an unreachable device is one line and exit code 1', async () => {
    const { code, stderr } = await run('compare', '--device', 'ws://127.0.0.1:9/ws', '--timeout', '500');
    expect(code).toBe(1);
    expect(stderr).toHaveLength(1);
    expect(stderr[0]).toMatch(/^parallax compare: /);
  });
});
