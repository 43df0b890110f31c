/**
 * Typed text no read saw the field of (docs/rules.md#r-secret-09, #r-secret-13): the demo's runner with
 * hierarchy reads that show only the application root (`xctest-sparse`) and no SDK (`sdk-absent`), so
 * neither the screen before (there is none: the device was never observed) nor the read after shows the
 * field the keys went into. The trace leaves such text out; so must everything else: the host's history,
 * the timeline's events, the CLI's words and JSON, the exports, the replay's report. And a replay types
 * such a step's text only from the user, and only into a field the step names (docs/rules.md#r-trust-02).
 * Over the demo's real runner port.
 */
import { describe, expect, it } from 'vitest';
import { connectionFor } from '@main/devices/manager';
import { runActionCommand } from '@main/cli/actions';
import { openTraceFile } from '@main/trace/index';
import { describeRequest } from '@shared/act/describe';
import { centerOf } from '@shared/model/node';
import { flattenTree } from '@shared/model/tree';
import type { ActionRequest, Point } from '@shared/protocol/action';
import type { ActionStep } from '@shared/protocol/device';
import type { ReplayReport } from '@shared/trace/replay-report';
import { traceText } from '../support/appreveal-raw';
import { admin, untilQuiet, type DemoStats } from '../support/demo-admin';
import { useHostOverDemo } from '../support/host-over-demo';
import { captureProcessOutput } from '../support/process-output';

const PASSWORD = 'Zq7-Unknown-pw+ &9';
const AT_POINT = 'Zq7-AtPoint-2b';
const CLI_TEXT = 'Zq7-CliUnknown-5c';
const CLI_ENV = 'PARALLAX_TEST_UNKNOWN_TEXT';
// A '-' is in no base64 (a screenshot's text holds any letters and digits by chance).
const MARK = 'Zq7-';
const BLIND = ['xctest-sparse', 'sdk-absent'];

const host = useHostOverDemo();

/** Where `text` holds any of the typed texts (they share MARK). */
const found = (place: string, text: string) =>
  text.includes(MARK) ? [`${place}: …${text.slice(Math.max(0, text.indexOf(MARK) - 60), text.indexOf(MARK) + 20)}…`] : [];

/** Keys the demo's runner was asked to type or set, so far. */
const keyRequests = (stats: DemoStats) => (stats.requests['request_append_text'] ?? 0) + (stats.requests['request_set_text'] ?? 0);

/**
 * The login screen with the password field focused by a connection of its own (the host never sees that
 * read), then the reads made blind. Answers the username field's centre, from the read before the blinding.
 */
async function focusedAndBlind(): Promise<Point> {
  await admin(host.demo.adminUrl, '/reset', { screen: 'login', faults: [] });
  const raw = connectionFor(host.demo.runnerUrl);
  raw.start();
  try {
    await raw.waitUntilConnected(10_000);
    const tapped = await raw.act({ action: 'tap', target: { id: 'login.password' } });
    expect(tapped.result.success).toBe(true);
    const root = tapped.after?.observation?.viewHierarchy?.hierarchy;
    const username = root ? flattenTree(root).find((f) => f.node['resource-id'] === 'login.username')?.node : undefined;
    const point = username ? centerOf(username) : undefined;
    if (!point) throw new Error('the login screen shows no username field');
    await admin(host.demo.adminUrl, '/faults', { add: BLIND });
    await untilQuiet(host.demo.adminUrl);
    return point;
  } finally {
    await raw.close();
  }
}

/** A device of the host's over the blind demo: never observed, so no screen comes before its first step. */
async function blindDevice(): Promise<string> {
  const device = await host.call<{ id: string }>('devices.connect', { url: host.demo.runnerUrl, kind: 'demo', name: 'Blind demo' });
  await host.services.manager.connectionOf(device.id).waitUntilConnected(10_000);
  return device.id;
}

/** Recorded blind: keys that follow the focus (the password field, which this host never read), then keys at a point. */
async function recordBlind(usernameAt: Point): Promise<string> {
  const deviceId = await blindDevice();
  await host.call('recording.start', { deviceId });
  const actions: ActionRequest[] = [
    { action: 'sendKeys', steps: [{ kind: 'type', text: PASSWORD }] },
    { action: 'sendKeys', target: { point: usernameAt }, steps: [{ kind: 'type', text: AT_POINT }] },
  ];
  for (const action of actions) {
    const step = await host.call<ActionStep>('device.act', { deviceId, action });
    expect(step.result, JSON.stringify(step.result)).toMatchObject({ success: true });
  }
  const { lastTrace } = await host.call<{ lastTrace: string }>('recording.stop', {});
  return lastTrace;
}

describe('R-SECRET-13: what the trace leaves out, nothing else keeps', () => {
  it('R-SECRET-13: text typed where no read saw the field is in no history step, event, trace, export, CLI line or JSON, report or log; the step says "type secret"', async () => {
    const usernameAt = await focusedAndBlind();
    const output = captureProcessOutput();
    const events: string[] = [];
    const unsubscribe = host.services.api.subscribe((name, payload) => events.push(`${name} ${JSON.stringify(payload)}`));
    const cli: string[] = [];
    const cliJson: string[] = [];
    let history: ActionStep[] = [];
    let lastTrace = '';
    try {
      lastTrace = await recordBlind(usernameAt);
      const deviceId = host.services.manager.list().at(-1)!.id;
      history = await host.call<ActionStep[]>('device.history', { deviceId });
      await host.call('devices.disconnect', { deviceId });

      // The CLI has no screen before an action either: text it types blind is no more shown than the host's.
      process.env[CLI_ENV] = CLI_TEXT;
      const out = (into: string[]) => ({ log: (line: string) => into.push(line), error: (line: string) => into.push(line) });
      expect(await runActionCommand('type', ['--device', host.demo.runnerUrl, '--text-to-type', CLI_TEXT], out(cli))).toBe(0);
      expect(await runActionCommand('type', ['--device', host.demo.runnerUrl, '--text-from-env', CLI_ENV, '--json'], out(cliJson))).toBe(0);
    } finally {
      delete process.env[CLI_ENV];
      unsubscribe();
      output.restore();
    }

    // The path under test: the trace could not classify either text (no read saw the field: before each
    // step there is no screen, or only the application root a blind read shows).
    const opened = await openTraceFile(lastTrace);
    const befores = opened.events.filter((e) => e.type === 'action.before') as { action: Record<string, unknown>; observationRef?: string }[];
    expect(befores.map((e) => e.action['secretUnknown'])).toEqual([true, true]);
    // What the host kept says what was done, and that the text is withheld; the timeline shows these words.
    expect(history.map((step) => describeRequest(step.request))).toEqual(['type secret', 'type secret']);
    expect(history.map((step) => step.request)).toMatchObject([
      { secret: true, secretUnknown: true },
      { secret: true, secretUnknown: true },
    ]);
    const timelineSteps = events.filter((e) => e.startsWith('device.action ')).map((e) => JSON.parse(e.slice('device.action '.length)) as ActionStep);
    expect(timelineSteps.map((step) => describeRequest(step.request))).toEqual(['type secret', 'type secret']);
    const maestro = await host.call<{ yaml: string }>('trace.exportMaestro', { path: lastTrace });
    const xcuitest = await host.call<{ swift: string }>('trace.exportXcuiTest', { path: lastTrace });
    // The exports keep the steps, typing the variable when one is passed (r-secret-09), unchanged.
    expect(maestro.yaml).toMatch(/- inputText: '\$\{typeof SECRET_STEP_1 === ''undefined'' \? '''' : SECRET_STEP_1\}'/);

    const places: Record<string, string> = {
      'timeline (API events)': events.join('\n'),
      'host history': JSON.stringify(history),
      'recorded trace': await traceText(lastTrace),
      'Maestro export': maestro.yaml,
      'XCUITest export': xcuitest.swift,
      'CLI words': cli.join('\n'),
      'CLI JSON': cliJson.join('\n'),
      'host logs (stdout, stderr, console)': output.text(),
    };
    // Something to search: the CLI said what it did, its JSON is a result.
    expect(cli.join('\n')).toMatch(/^type .*: ok/);
    expect(JSON.parse(cliJson.join('\n'))).toMatchObject({ success: true });
    const where = Object.entries(places).flatMap(([place, text]) => found(place, text));
    console.log(`R-SECRET-13 figures: text typed where no read saw the field searched for in ${Object.keys(places).length} places, found in ${where.length}`);
    expect(where).toEqual([]);
  }, 180_000);
});

describe('R-TRUST-02: a step the trace could not classify is replayed only with the user’s value, only into a field it names', () => {
  it('R-TRUST-02: without the values nothing is read or sent; with them, neither the keys that followed the focus nor those at a bare point are sent, blind or seeing', async () => {
    const usernameAt = await focusedAndBlind();
    const lastTrace = await recordBlind(usernameAt);
    for (const device of host.services.manager.list()) await host.call('devices.disconnect', { deviceId: device.id });
    const opened = await host.call<{ variables: { name: string; field?: string }[] }>('trace.open', { path: lastTrace });
    const names = opened.variables.map((v) => v.name);
    expect(names).toEqual(['SECRET_STEP_1', 'SECRET_STEP_2']);
    const deviceId = await blindDevice();
    const keysBefore = keyRequests(await untilQuiet(host.demo.adminUrl));

    // A trace is data: the text is the user's to give, and a replay not given it touches nothing.
    const refused = await host.handle('trace.replay', { deviceId, path: lastTrace, stopOnDivergence: false });
    expect(refused).toMatchObject({ ok: false, error: { code: 'replay_variables' } });
    expect(keyRequests(await untilQuiet(host.demo.adminUrl))).toBe(keysBefore);

    const GIVEN = 'Zq7-Given-by-user';
    const variables = Object.fromEntries(names.map((name) => [name, GIVEN]));
    const replay = () => host.call<ReplayReport>('trace.replay', { deviceId, path: lastTrace, stopOnDivergence: false, variables });
    const blind = await replay();
    // The password field has the focus on the device; the trace names no field for either step.
    await admin(host.demo.adminUrl, '/faults', { remove: BLIND });
    await untilQuiet(host.demo.adminUrl);
    const seeing = await replay();
    for (const report of [blind, seeing]) {
      expect(
        report.steps.map((step) => [step.ran, step.replayed.variable]),
        JSON.stringify(report.steps.map((step) => step.differences)),
      ).toEqual([
        ['no', 'SECRET_STEP_1'],
        ['no', 'SECRET_STEP_2'],
      ]);
      expect(report.steps.map((step) => step.notes.find((note) => note.startsWith('not sent: ')))).toEqual([
        expect.stringMatching(/SECRET_STEP_1 is typed only into the field it was recorded for/),
        expect.stringMatching(/SECRET_STEP_2 is typed only into the field it was recorded for/),
      ]);
      expect(JSON.stringify(report)).not.toContain(MARK);
    }
    expect(keyRequests(await untilQuiet(host.demo.adminUrl))).toBe(keysBefore);
    await host.call('devices.disconnect', { deviceId });
  }, 180_000);
});

describe('R-SECRET-14: a request as the host kept it is not sent again', () => {
  it('R-SECRET-14: device.act with a withheld request (secret, its text emptied) is refused, nothing sent: it would type nothing, or clear the field', async () => {
    await admin(host.demo.adminUrl, '/reset', { screen: 'login', faults: [] });
    const deviceId = await blindDevice();
    try {
      const keysBefore = keyRequests(await untilQuiet(host.demo.adminUrl));
      for (const action of [
        { action: 'sendKeys', target: { id: 'login.password' }, secret: true, steps: [{ kind: 'type', text: '' }] },
        { action: 'sendKeys', target: { id: 'login.password' }, secret: true, secretUnknown: true, steps: [{ kind: 'replace', text: '' }] },
      ]) {
        const reply = await host.handle('device.act', { deviceId, action });
        expect(reply).toMatchObject({ ok: false, error: { code: 'bad_request', message: expect.stringMatching(/withheld.*type it again/) } });
      }
      expect(keyRequests(await untilQuiet(host.demo.adminUrl))).toBe(keysBefore);
      // A secret with its text, or keys with no text at all, still go.
      const typed = await host.call<ActionStep>('device.act', {
        deviceId,
        action: { action: 'sendKeys', target: { id: 'login.password' }, secret: true, steps: [{ kind: 'type', text: 'Zq7-Given' }] },
      });
      expect(typed.result).toMatchObject({ success: true });
    } finally {
      await host.call('devices.disconnect', { deviceId });
    }
  }, 120_000);
});
