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
const found = (place: string, text: string) => (text.includes(MARK) ? [`${place}: …${text.slice(Math.max(0, text.indexOf(MARK) - 60), text.indexOf(MARK) + 20)}…`] : []);

/** Keys the demo's runner was asked to type or set, so far. */
const keyRequests = (stats: DemoStats) => (stats.requests['request_append_text'] ?? 0) + (stats.requests['request_set_text'] ?? 0);

/**
 * The login screen with the password field focused by a connection of its own (the host never sees that
 * read), then the reads made blind. Answers the username field's centre, from the read before the blinding.
 */
async function focusedAndBlind(): Promise<Point> {
  await admin(host.demo.adminUrl, '/reset', { screen: 'login' });
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
      const device = await host.call<{ id: string }>('devices.connect', { url: host.demo.runnerUrl, kind: 'demo', name: 'Blind demo' });
      await host.services.manager.connectionOf(device.id).waitUntilConnected(10_000);
      await host.call('recording.start', { deviceId: device.id });
      // Keys that follow the focus (the password field, which this host never read), then keys at a point.
      const actions: ActionRequest[] = [
        { action: 'sendKeys', steps: [{ kind: 'type', text: PASSWORD }] },
        { action: 'sendKeys', target: { point: usernameAt }, steps: [{ kind: 'type', text: AT_POINT }] },
      ];
      for (const action of actions) {
        const step = await host.call<ActionStep>('device.act', { deviceId: device.id, action });
        expect(step.result, JSON.stringify(step.result)).toMatchObject({ success: true });
      }
      lastTrace = (await host.call<{ lastTrace: string }>('recording.stop', {})).lastTrace;
      history = await host.call<ActionStep[]>('device.history', { deviceId: device.id });
      await host.call('devices.disconnect', { deviceId: device.id });

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

    // The path under test: the trace could not classify either text (no read saw the field: the first
    // step has no screen before it, the second only the application root the blind read showed).
    const opened = await openTraceFile(lastTrace);
    const befores = opened.events.filter((e) => e.type === 'action.before') as { action: Record<string, unknown>; observationRef?: string }[];
    expect(befores.map((e) => e.action['secretUnknown'])).toEqual([true, true]);
    expect(befores[0]).not.toHaveProperty('observationRef');
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
