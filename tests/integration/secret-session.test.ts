/**
 * A typed secret exists only in the request to the device (docs/rules.md#r-secret). A session on the
 * demo device over its real sockets, recorded, types a secret into the secure field and another into a
 * plain field the user marked secret, then every place the host keeps or reports anything is searched
 * for both: the API's events, the device's history, the frames read after, the trace (events and every
 * resource), both exports, the CLI's output with and without --json, and everything written to the
 * process's stdout and stderr.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { captureProcessOutput } from '../support/process-output';
import { startDemoDevice } from '@demo/index';
import { startAppServices, type AppServices } from '@main/host/app-services';
import { openTraceFile } from '@main/trace/index';
import { runActionCommand } from '@main/cli/actions';
import { describeRequest } from '@shared/act/describe';
import type { ActionRequest } from '@shared/protocol/action';
import { apiCall } from '../support/api-call';
import { placesHolding } from '../support/secret-places';

const SECURE_TEXT = 'S3cret!pw-into-the-secure-field';
const MARKED_TEXT = 'marked-secret-Q9x7-plain-field';
const CLI_TEXT = 'cli-secret-7Hq2-typed-from-env';
let demo: Awaited<ReturnType<typeof startDemoDevice>>;
let services: AppServices;

beforeAll(async () => {
  demo = await startDemoDevice({ port: 0 });
  services = await startAppServices('web', () => []);
}, 60_000);
afterAll(async () => {
  vi.restoreAllMocks();
  await services?.close();
  await demo?.close();
});

const call = (method: string, params: unknown) => apiCall(services.api, method, params);

describe('R-SECRET-02, R-SECRET-03: a typed secret is found nowhere after a recorded session', () => {
  it('is in no event, history step, frame, trace, export, CLI output or log line; the steps say "type secret" and the exports ask for variables', async () => {
    const output = captureProcessOutput();

    const device = services.manager.connect(demo.runnerUrl, { kind: 'demo', name: 'Demo' });
    await services.manager.connectionOf(device.id).waitUntilConnected(10_000);
    const events: string[] = [];
    const unsubscribe = services.api.subscribe((name, payload) => events.push(`${name} ${JSON.stringify(payload)}`));
    await call('device.observe', { deviceId: device.id });
    await call('recording.start', { deviceId: device.id });

    // The secure field: its type says secret. The username field says nothing; the user marked it.
    const secure: ActionRequest = { action: 'sendKeys', target: { id: 'login.password' }, steps: [{ kind: 'type', text: SECURE_TEXT }] };
    const marked: ActionRequest = { action: 'sendKeys', target: { id: 'login.username' }, steps: [{ kind: 'replace', text: MARKED_TEXT }], secret: true };
    const first = await call('device.act', { deviceId: device.id, action: secure });
    const second = await call('device.act', { deviceId: device.id, action: marked });
    expect((first.result as { success: boolean }).success).toBe(true);
    expect((second.result as { success: boolean }).success).toBe(true);
    // The username field now shows the marked text in clear on the device: a later read is scrubbed of it.
    const observed = await call('device.observe', { deviceId: device.id });
    // The device did get the text (the request carried it): the plain field read back as typed, no warning.
    expect((second.result as { warnings: string[] }).warnings.filter((w) => /read-back/i.test(w))).toEqual([]);
    const stopped = await call('recording.stop', {});
    unsubscribe();

    // What the host kept says what was done without the text.
    const history = (await call('device.history', { deviceId: device.id })) as unknown as { request: ActionRequest }[];
    const steps = history;
    expect(steps.map((step) => describeRequest(step.request))).toEqual(['type secret', 'replace with secret']);

    const opened = await openTraceFile(stopped.lastTrace as string);
    const refs = opened.events.flatMap((event) =>
      Object.entries(event as Record<string, unknown>)
        .filter(([key, value]) => key.endsWith('Ref') && typeof value === 'string' && key !== 'screenshotRef')
        .map(([, value]) => value as string),
    );
    expect(refs.length).toBeGreaterThan(0);
    const trace = [
      JSON.stringify(opened.manifest),
      JSON.stringify(opened.events),
      ...(await Promise.all(refs.map(async (ref) => (await opened.resource(ref)).toString('utf8')))),
    ].join('\n');
    expect(trace).toContain('login.password');
    const maestro = await call('trace.exportMaestro', { path: stopped.lastTrace });
    const xcuitest = await call('trace.exportXcuiTest', { path: stopped.lastTrace });
    // Both secrets are variables the export asks for, never the text.
    expect((maestro.yaml as string).match(/\$\{SECRET_STEP_\d+\}|\$\{[A-Z_0-9]+\}/g)?.length ?? 0).toBeGreaterThanOrEqual(2);

    // The CLI, typing into the secure field and, from the environment, into a field it is told is secret.
    const cli: string[] = [];
    const cliOut = { log: (line: string) => cli.push(line), error: (line: string) => cli.push(line) };
    process.env['PARALLAX_TEST_SECRET'] = CLI_TEXT;
    try {
      expect(
        await runActionCommand('type', ['--device', demo.runnerUrl, '--id', 'login.password', '--text-from-env', 'PARALLAX_TEST_SECRET', '--json'], cliOut),
      ).toBe(0);
      expect(
        await runActionCommand(
          'type',
          ['--device', demo.runnerUrl, '--id', 'login.username', '--text-from-env', 'PARALLAX_TEST_SECRET', '--secret', '--json'],
          cliOut,
        ),
      ).toBe(0);
      expect(
        await runActionCommand('type', ['--device', demo.runnerUrl, '--id', 'login.username', '--text-from-env', 'PARALLAX_TEST_SECRET', '--secret'], cliOut),
      ).toBe(0);
    } finally {
      delete process.env['PARALLAX_TEST_SECRET'];
    }
    output.restore();

    const places: Record<string, string> = {
      'API events': events.join('\n'),
      'device history': JSON.stringify(history),
      'frame read after': JSON.stringify({ ...observed, screenshot: undefined }),
      trace: trace,
      'Maestro export': JSON.stringify(maestro),
      'XCUITest export': JSON.stringify(xcuitest),
      'CLI output': cli.join('\n'),
      logs: output.text(),
    };
    expect(Object.keys(places)).toHaveLength(8);
    expect(placesHolding(places, [SECURE_TEXT, MARKED_TEXT, CLI_TEXT])).toEqual([]);
  }, 120_000);
});
