/**
 * A typed secret on an iOS AppReveal app is found nowhere the host keeps or hands on anything
 * (docs/rules.md#r-secret-08). The demo's iOS flavour answers as the Swift framework does, echoes
 * included: `web_type` answers the page script's `{success:true, value:el.value}` (AppReveal
 * iOS/Sources/AppReveal/WebView/DOMSerializer.swift `typeJS`, wrapped in `result` by WebViewTools.swift
 * web_type), the field's whole value, a password input's in clear. A recorded session types a password
 * into the native secure field, one through `web_type` into the web view's password input, and one into
 * a plain field the user marked secret (the type bar's "treat as secret"); the CLI types one more with
 * --json. Then every place is searched for every one of them.
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import { runActionCommand } from '@main/cli/actions';
import { describeRequest } from '@shared/act/describe';
import type { ActionRequest } from '@shared/protocol/action';
import { traceText } from '../support/appreveal-raw';
import { admin } from '../support/demo-admin';
import { useHostOverDemo } from '../support/host-over-demo';
import { captureProcessOutput } from '../support/process-output';

const NATIVE_SECRET = 'Nat1ve-secure-Hx42';
const WEB_SECRET = 'Web-type-echo-Qm93';
const MARKED_SECRET = 'Marked-plain-Zt58';
const CLI_SECRET = 'Cli-json-Rv16';
const SECRETS = [NATIVE_SECRET, WEB_SECRET, MARKED_SECRET, CLI_SECRET];

const host = useHostOverDemo();
const rawTool = host.rawTool;
afterAll(() => {
  vi.restoreAllMocks();
});

const call = (method: string, params: unknown) => host.call(method, params);

/** The web view's password input's selector, as get_dom_interactive names it (read raw: the host's read drops values, not selectors). */
async function passwordSelector(): Promise<string> {
  const reply = await rawTool('get_dom_interactive');
  const inner = JSON.parse(reply.result as string) as { elements: Array<{ type?: string; selector: string }> };
  const input = inner.elements.find((e) => e.type === 'password');
  if (!input) throw new Error(`no password input in ${JSON.stringify(inner)}`);
  return input.selector;
}

describe('R-SECRET-08: the demo’s iOS web_type echoes the field’s value, as DOMSerializer.swift typeJS does', () => {
  it('answers {result: "{\\"success\\":true,\\"value\\":…}"} with the whole value, a password input’s in clear', async () => {
    await admin(host.demo.adminUrl, '/reset', { screen: 'checkout' });
    const selector = await passwordSelector();
    const reply = await rawTool('web_type', { selector, text: 'echo-me' });
    expect(typeof reply.result).toBe('string');
    expect(JSON.parse(reply.result as string)).toEqual({ success: true, value: 'echo-me' });
  });
});

describe('R-SECRET-08, R-SECRET-03: after a recorded session on iOS AppReveal a typed secret is found in 0 places', () => {
  it('timeline events, history, frames, trace, Maestro and XCUITest exports, App panel readings, CLI output and --json, and the process’s logs', async () => {
    await admin(host.demo.adminUrl, '/reset', { screen: 'login' });
    const output = captureProcessOutput();

    const device = host.services.manager.connect(host.demo.appRevealUrl ?? '');
    await host.services.manager.connectionOf(device.id).waitUntilConnected(10_000);
    const events: string[] = [];
    const unsubscribe = host.services.api.subscribe((name, payload) => events.push(`${name} ${JSON.stringify(payload)}`));
    await call('recording.start', { deviceId: device.id });

    // The native secure field (a `textField` whose value reads back as bullets), and a plain field the
    // user marked secret: nothing about the field says so, the request does.
    const native: ActionRequest = { action: 'sendKeys', target: { id: 'login.password' }, steps: [{ kind: 'type', text: NATIVE_SECRET }] };
    const marked: ActionRequest = { action: 'sendKeys', target: { id: 'login.username' }, steps: [{ kind: 'type', text: MARKED_SECRET }], secret: true };
    expect((await call('device.act', { deviceId: device.id, action: native })).result).toMatchObject({ success: true, outcome: 'done' });
    expect((await call('device.act', { deviceId: device.id, action: marked })).result).toMatchObject({ success: true, outcome: 'done' });
    const login = await host.services.manager.observe(device.id);

    // web_type into the web view's password input: its answer carries the value in clear.
    await admin(host.demo.adminUrl, '/screen', { screen: 'checkout' });
    const checkout = await host.services.manager.observe(device.id);
    const selector = await passwordSelector();
    const webTyped = await call('device.webAct', { deviceId: device.id, tool: 'web_type', selector, text: WEB_SECRET });
    expect(webTyped.result).toMatchObject({ success: true, backend: 'appreveal', outcome: 'done' });
    const appState = await call('device.appState', { deviceId: device.id });

    const stopped = await call('recording.stop', {});
    unsubscribe();
    const history = (await call('device.history', { deviceId: device.id })) as unknown as { request: ActionRequest }[];
    expect(history.map((step) => describeRequest(step.request))).toEqual(['type secret', 'type secret', expect.stringMatching(/secret/)]);
    const trace = await traceText(stopped.lastTrace as string);
    expect(trace).toContain('login.password');
    const maestro = await call('trace.exportMaestro', { path: stopped.lastTrace });
    const xcuitest = await call('trace.exportXcuiTest', { path: stopped.lastTrace });
    // The field the user marked secret is a variable the export asks for (R-SECRET-03), like any secret field.
    expect(maestro.yaml as string).toContain('inputText: ${LOGIN_USERNAME}');
    expect((xcuitest as { swift: string }).swift).toContain('environment["LOGIN_USERNAME"]');

    // The CLI against the same app, --json and plain, the text from the environment.
    await admin(host.demo.adminUrl, '/screen', { screen: 'login' });
    const cli: string[] = [];
    const cliOut = { log: (line: string) => cli.push(line), error: (line: string) => cli.push(line) };
    process.env['PARALLAX_TEST_AR_SECRET'] = CLI_SECRET;
    try {
      const url = host.demo.appRevealUrl ?? '';
      expect(await runActionCommand('type', ['--device', url, '--id', 'login.password', '--text-from-env', 'PARALLAX_TEST_AR_SECRET', '--json'], cliOut)).toBe(
        0,
      );
      expect(
        await runActionCommand('type', ['--device', url, '--id', 'login.username', '--text-from-env', 'PARALLAX_TEST_AR_SECRET', '--secret'], cliOut),
      ).toBe(0);
    } finally {
      delete process.env['PARALLAX_TEST_AR_SECRET'];
    }
    output.restore();
    await host.services.manager.disconnect(device.id);

    const places: Record<string, string> = {
      'timeline (API events)': events.join('\n'),
      'host history': JSON.stringify(history),
      'frames read after': JSON.stringify([login, checkout].map((frame) => ({ ...frame, screenshot: undefined }))),
      trace,
      'Maestro export': JSON.stringify(maestro),
      'XCUITest export': JSON.stringify(xcuitest),
      'App panel readings': JSON.stringify(appState),
      'CLI output and --json': cli.join('\n'),
      'host logs (stdout, stderr, console)': output.text(),
    };
    expect(Object.keys(places)).toHaveLength(9);
    // Each place really holds the session: a search of an empty place would find nothing for nothing.
    for (const [place, text] of Object.entries(places)) if (!place.startsWith('host logs')) expect(text.length, place).toBeGreaterThan(0);
    const found = Object.entries(places).flatMap(([place, text]) => SECRETS.filter((secret) => text.includes(secret)).map((secret) => `${place}: ${secret}`));
    expect(found).toEqual([]);
  }, 180_000);
});
