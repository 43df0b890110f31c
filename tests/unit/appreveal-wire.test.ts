/**
 * The pure side of "one AppReveal client for every port": elements of every platform onto nodes, tool
 * arguments from each tool's inputSchema, every failure form, the app's identity, both batch forms, the
 * observation's verdict, the App panel's views, per-step app state changes, and the addresses Bonjour
 * may advertise.
 */
import { describe, expect, it } from 'vitest';
import {
  AppRevealElementsReplySchema,
  AppRevealToolFailureSchema,
  identityOf,
  isToolFailure,
  mergeIdentities,
  WireElementSchema,
} from '@shared/protocol/appreveal';
import { AppRevealBatchReplySchema, buildToolArguments, toolSpecOf, type AppState } from '@shared/protocol/appreveal-tools';
import { appRevealElementToUiNode, appRevealObservation, appRevealQuality } from '@shared/observe/appreveal';
import { appReadingView, fieldRows, logRows, networkRows, newerAppState } from '@shared/inspect/app-state';
import { appStateChanges, nothingChanged } from '@shared/trace/app-state';
import { hidesText, nodeFlag } from '@shared/model/node';
import { isEditableNode } from '@shared/model/target';
import { ObservationSchema } from '@shared/protocol/observation';
import { advertisableAddresses } from '@demo/appreveal/server';
import { IOS_ELEMENT, TAURI_EMAIL } from '../support/appreveal-tool-cases';

const node = (raw: unknown) => appRevealElementToUiNode(WireElementSchema.parse(raw));

describe('elements of every platform', () => {
  // Tauri's DOM snapshot (Windows/appreveal-tauri/src/tauri_integration.rs): role, tag, the HTML type
  // attribute as `type`, an actions array, real booleans, no tappable, a frame string plus rect.
  const tauri = (extra: Record<string, unknown>): Record<string, unknown> => {
    // The email field's element, its kind fields (role, tag, type, actions) given by each case.
    const { role: _role, tag: _tag, type: _type, actions: _actions, ...common } = TAURI_EMAIL;
    return { ...common, ...extra };
  };

  it('R-AR-10: a Tauri email input is a clickable, editable text field, not class "email"', () => {
    const email = node(tauri({ role: 'textbox', tag: 'input', type: 'email', actions: ['tap', 'type_text', 'clear_text'] }));
    expect(email).toMatchObject({ className: 'textField', role: 'textfield', clickable: 'true', focusable: 'true', 'resource-id': 'web.main.0' });
    expect(email.extras).toMatchObject({
      'appreveal.tag': 'input',
      'appreveal.role': 'textbox',
      'appreveal.inputType': 'email',
      'appreveal.selector': '#email',
    });
    expect(isEditableNode(email)).toBe(true);
    expect(email.bounds).toEqual({ left: 10, top: 20, right: 210, bottom: 60 });
  });

  it('R-AR-10: a Tauri password input is secret: its value (and a label that is its value) never carried', () => {
    const password = node(tauri({ role: 'textbox', tag: 'input', type: 'password', label: 'hunter22', value: 'hunter22', actions: ['tap', 'type_text'] }));
    expect(password).toMatchObject({ className: 'secureTextField', password: 'true', role: 'textfield' });
    expect(password.value).toBeUndefined();
    expect(password.text).toBeUndefined();
    expect(JSON.stringify(password)).not.toContain('hunter22');
    expect(hidesText(password as Record<string, unknown>)).toBe(true);
  });

  it.each([
    ['a button', { role: 'button', tag: 'button', type: 'submit', actions: ['tap'] }, { className: 'button', role: 'button', clickable: 'true' }],
    ['a link', { role: 'link', tag: 'a', type: null, actions: ['tap'] }, { className: 'link', role: 'link', clickable: 'true' }],
    ['a checkbox', { role: 'checkbox', tag: 'input', type: 'checkbox', actions: ['tap', 'toggle'], value: 'on' }, { className: 'checkbox', checkable: 'true' }],
    ['a select', { role: 'combobox', tag: 'select', type: null, actions: ['tap', 'select'] }, { className: 'picker', role: 'picker' }],
    ['a textarea', { role: 'textbox', tag: 'textarea', type: null, actions: ['tap', 'type_text', 'clear_text'] }, { className: 'textView', role: 'textfield' }],
  ])('R-AR-10: Tauri %s maps to its kind', (_name, fields, expected) => {
    expect(node(tauri(fields))).toMatchObject(expected);
  });

  it('R-AR-10: iOS strings and Flutter booleans give the same node', () => {
    const ios = node(IOS_ELEMENT);
    const flutter = node({ ...IOS_ELEMENT, enabled: true, visible: true, tappable: true, actions: ['tap', 'type', 'clear'] });
    expect(ios).toEqual(flutter);
    expect(ios).toMatchObject({ className: 'textField', role: 'textfield', clickable: 'true', focusable: 'true' });
    // iOS's "tappable": "false" wins over its actions; a label is text, not editable.
    expect(
      node({ id: 'title', type: 'label', label: 'Hi', enabled: 'true', visible: 'true', tappable: 'false', frame: '0,0,10,10', actions: '' }),
    ).toMatchObject({ clickable: 'false', role: 'text' });
    // Flutter's icon button is a button.
    expect(node({ id: 'fab', type: 'floatingActionButton', enabled: true, visible: true, tappable: true, frame: '0,0,56,56', actions: ['tap'] }).role).toBe(
      'button',
    );
  });

  it('R-AR-10: a Tauri get_elements reply (elements, webviews, count) decodes; an element without frame or rect is refused by name', () => {
    const reply = AppRevealElementsReplySchema.parse({
      elements: [tauri({ role: 'button', tag: 'button', actions: ['tap'] })],
      webviews: [{ windowId: 'main', elements: [] }],
      count: 1,
    });
    expect(reply.elements).toHaveLength(1);
    const { frame: _frame, ...withRectOnly } = tauri({ role: 'button', tag: 'button', actions: ['tap'] });
    expect(WireElementSchema.parse(withRectOnly).frame).toEqual({ x: 10, y: 20, width: 200, height: 40 });
    const { frame: _f, rect: _r, ...neither } = tauri({ tag: 'button' });
    const refused = WireElementSchema.safeParse(neither);
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.path).toEqual(['frame']);
  });
});

describe('arguments from each tool inputSchema', () => {
  // The properties each server lists for tap_element (iOS MCPTools.swift; Tauri tauri_integration.rs).
  const ios = toolSpecOf({ name: 'tap_element', inputSchema: { type: 'object', properties: { element_id: {}, window_id: {} }, required: ['element_id'] } });
  const tauri = toolSpecOf({ name: 'tap_element', inputSchema: { type: 'object', properties: { id: {}, elementId: {}, selector: {}, window_id: {} } } });
  const tauriCamel = toolSpecOf({ name: 'focus_window', inputSchema: { type: 'object', properties: { windowId: {} } } });

  it('R-AR-19: iOS gets element_id, Tauri id; each the window name it lists', () => {
    expect(buildToolArguments(ios, { element: 'login.submit', window: 'w0' })).toEqual({ ok: true, args: { element_id: 'login.submit', window_id: 'w0' } });
    expect(buildToolArguments(tauri, { element: 'web.main.3', window: 'main' })).toEqual({ ok: true, args: { id: 'web.main.3', window_id: 'main' } });
    expect(buildToolArguments(tauriCamel, { window: 'main' })).toEqual({ ok: true, args: { windowId: 'main' } });
  });

  it('R-AR-19: a schema that lists no properties gets the iOS names', () => {
    expect(buildToolArguments({ name: 'tap_element' }, { element: 'x' })).toEqual({ ok: true, args: { element_id: 'x' } });
  });

  it('R-AR-19: what a tool cannot take fails closed for an action, and is left out where it may be', () => {
    const tapText = toolSpecOf({ name: 'tap_text', inputSchema: { type: 'object', properties: { text: {}, window_id: {} } } });
    expect(buildToolArguments(tapText, { values: { text: 'OK', match_mode: 'exact' }, optional: ['match_mode'] })).toEqual({ ok: true, args: { text: 'OK' } });
    const occurrence = buildToolArguments(tapText, { values: { text: 'OK', occurrence: 1 }, optional: ['match_mode'] });
    expect(occurrence.ok).toBe(false);
    const screen = toolSpecOf({ name: 'get_screen', inputSchema: { type: 'object', properties: {} } });
    expect(buildToolArguments(screen, { window: 'w1', optional: ['window'] })).toEqual({ ok: true, args: {} });
    const strict = buildToolArguments(screen, { window: 'w1' });
    expect(strict).toMatchObject({ ok: false });
    expect(strict.ok ? '' : strict.why).toMatch(/get_screen takes no window argument/);
  });
});

describe('every form of tool failure', () => {
  it.each([
    ['iOS {"error"}', { error: 'Element not found: x' }, 'Element not found: x'],
    ['Tauri {success:false, error}', { success: false, target: 'webview_dom', action: 'tap_element', error: 'target_not_found' }, 'target_not_found'],
    ['iOS DOM fallback {success:false} without error', { success: false, target: 'webview_dom' }, 'the app answered "success": false without saying why'],
  ])('R-AR-07: %s is a failure with the app’s message', (_name, value, message) => {
    expect(isToolFailure(value)).toBe(true);
    expect(AppRevealToolFailureSchema.parse(value).error).toBe(message);
  });

  it('R-AR-07: a success is not a failure', () => {
    expect(isToolFailure({ success: true, element_id: 'x' })).toBe(false);
    expect(isToolFailure({ elements: [] })).toBe(false);
    expect(isToolFailure({ error: null })).toBe(false);
  });
});

describe('the app’s identity', () => {
  it('R-AR-20: from iOS launch_context, Tauri launch_context, Tauri device_info’s app; "unknown" is no version', () => {
    expect(identityOf({ bundleId: 'com.x', version: '2.0', build: '7', platform: 'iOS', deviceName: 'iPhone' })).toEqual({
      bundleId: 'com.x',
      version: '2.0',
      build: '7',
      platform: 'iOS',
      deviceName: 'iPhone',
    });
    expect(identityOf({ bundleId: 'serve', appName: 'serve', version: 'unknown', platform: 'Windows', frameworkType: 'tauri' })).toEqual({
      bundleId: 'serve',
      appName: 'serve',
      platform: 'Windows',
      frameworkType: 'tauri',
    });
    expect(identityOf({ app: { bundleId: 'dev.tauri', appName: 'Tauri app' }, os: {} })).toEqual({ bundleId: 'dev.tauri', appName: 'Tauri app' });
    expect(identityOf({ status: 'ok', port: 1, auth: 'session-token', discovery: 'manual' })).toEqual({});
    expect(identityOf('nope')).toEqual({});
    expect(mergeIdentities({ version: '1' }, { bundleId: 'a', version: '2' }, { appName: 'A' })).toEqual({ version: '1', bundleId: 'a', appName: 'A' });
  });
});

describe('batch, in each platform’s form', () => {
  it('R-AR-21: iOS results are JSON strings without success; an error entry is a failure', () => {
    const items = AppRevealBatchReplySchema.parse({
      results: [
        { index: 0, tool: 'get_state', result: '{"screen":"login"}' },
        { index: 1, tool: 'nope', error: 'Tool not found' },
        { index: 2, error: 'Invalid action format' },
      ],
      count: 3,
    });
    expect(items).toEqual([
      { index: 0, tool: 'get_state', ok: true, value: { screen: 'login' } },
      { index: 1, tool: 'nope', ok: false, error: 'Tool not found' },
      { index: 2, ok: false, error: 'Invalid action format' },
    ]);
  });

  it('R-AR-21: Tauri results are objects with success, and no count', () => {
    const items = AppRevealBatchReplySchema.parse({
      results: [
        { index: 0, tool: 'launch_context', success: true, result: { bundleId: 'serve' } },
        { index: 1, tool: 'x', success: false, error: 'Tool not found: x' },
      ],
    });
    expect(items).toEqual([
      { index: 0, tool: 'launch_context', ok: true, value: { bundleId: 'serve' } },
      { index: 1, tool: 'x', ok: false, error: 'Tool not found: x' },
    ]);
  });
});

describe('the verdict of an AppReveal observation', () => {
  const element = WireElementSchema.parse({ id: 'a', type: 'button', enabled: true, visible: true, frame: '0,0,10,10', actions: ['tap'] });

  it('R-AR-24: never xctest_tree: the app’s own list, none, no tool, or a failed read', () => {
    expect(appRevealQuality({ kind: 'read', elements: [element] })).toEqual({ verdict: 'healthy', reason: 'appreveal_elements' });
    expect(appRevealQuality({ kind: 'read', elements: [] })).toEqual({ verdict: 'sparse', reason: 'appreveal_no_elements' });
    expect(appRevealQuality({ kind: 'not_offered' })).toEqual({ verdict: 'sparse', reason: 'appreveal_elements_not_offered' });
    expect(appRevealQuality({ kind: 'failed', message: 'x' })).toEqual({ verdict: 'sparse', reason: 'appreveal_elements_failed' });
  });

  it('R-AR-24: backend appreveal, the app identity as the active window, and each failed read as an appreveal error', () => {
    const observation = appRevealObservation({
      strategy: 'visible',
      now: 1000,
      elements: { kind: 'failed', message: 'get_elements failed: boom' },
      identity: { bundleId: 'serve' },
      readErrors: [{ tool: 'get_screen', message: 'nope' }],
    });
    expect(ObservationSchema.safeParse(observation).success).toBe(true);
    expect(observation).toMatchObject({
      backend: 'appreveal',
      quality: { verdict: 'sparse', reason: 'appreveal_elements_failed' },
      activeWindow: { bundleId: 'serve' },
    });
    expect(observation.errors.map((e) => [e.stage, e.message])).toEqual([
      ['appreveal', 'get_elements: get_elements failed: boom'],
      ['appreveal', 'get_screen: nope'],
    ]);
    expect(observation.quality.reason).not.toBe('xctest_tree');
  });
});

describe('the App panel’s views', () => {
  it('R-AR-22: network calls in the iOS form (strings) and a Tauri provider’s (numbers) give the same table', () => {
    const ios = networkRows({ calls: [{ id: '1', method: 'GET', url: 'https://x.test/a', statusCode: '200', duration: '0.123s', error: '' }], count: 1 });
    const tauri = networkRows({ calls: [{ id: '1', method: 'GET', url: 'https://x.test/a', status: 200, durationMs: 123 }], limit: 50 });
    expect(ios).toEqual([{ id: '1', method: 'GET', url: 'https://x.test/a', status: '200', duration: '123 ms', error: '' }]);
    expect(tauri).toEqual(ios);
    expect(networkRows({ calls: [{ method: 'POST', url: 'u', statusCode: 'nil', duration: 'nil', error: 'offline' }] })).toEqual([
      { id: '', method: 'POST', url: 'u', status: '', duration: '', error: 'offline' },
    ]);
  });

  it('R-AR-22: logs and recent errors are lists; navigation is a route and its stack; anything else is name/value rows', () => {
    expect(logRows({ logs: [{ timestamp: '2026-01-01T10:00:00Z', subsystem: 'app', category: 'ui', level: 'info', message: 'hi' }], count: 1 })).toEqual([
      { time: '2026-01-01T10:00:00Z', level: 'info', source: 'app · ui', message: 'hi' },
    ]);
    expect(logRows({ errors: [{ timestamp: 't', domain: 'NSURLErrorDomain', message: 'offline' }] }, 'errors')).toEqual([
      { time: 't', level: 'error', source: 'NSURLErrorDomain', message: 'offline' },
    ]);
    expect(
      appReadingView({ tool: 'get_navigation_stack', ok: true, value: { currentRoute: 'login', navigationStack: ['home', 'login'], presentedModals: [] } }),
    ).toEqual({
      kind: 'navigation',
      current: 'login',
      stack: ['home', 'login'],
      modals: [],
    });
    expect(appReadingView({ tool: 'get_state', ok: true, value: { screen: 'login', form: { email: 'a@b' }, tags: ['x'] } })).toEqual({
      kind: 'fields',
      rows: [
        { name: 'screen', value: 'login' },
        { name: 'form.email', value: 'a@b' },
        { name: 'tags.0', value: 'x' },
      ],
      truncated: false,
    });
    expect(appReadingView({ tool: 'get_logs', ok: false, error: 'timed out' })).toEqual({ kind: 'failed', message: 'timed out' });
    expect(appReadingView({ tool: 'get_state', ok: true, value: {} })).toEqual({ kind: 'empty' });
    expect(fieldRows({ a: Array.from({ length: 10 }, (_, i) => i) }, 4)).toMatchObject({ truncated: true });
  });

  it('R-AR-22: the newer reading wins (a step’s over the panel’s last read)', () => {
    const older: AppState = { readAt: 1, readings: [] };
    const newer: AppState = { readAt: 2, readings: [] };
    expect(newerAppState(older, newer)).toBe(newer);
    expect(newerAppState(newer, older)).toBe(newer);
    expect(newerAppState(undefined, older)).toBe(older);
  });
});

describe('app state per recorded step', () => {
  const state = (readAt: number, logs: string[], screen = 'login'): AppState => ({
    readAt,
    readings: [
      { tool: 'get_state', ok: true, value: { screen } },
      { tool: 'get_logs', ok: true, value: { logs } },
      { tool: 'device_info', ok: true, value: { bundleId: 'x', screen: { width: 1, height: 2 } } },
    ],
  });

  it('R-AR-22: the first step keeps every reading; later ones only what changed, and what stopped answering', () => {
    const first = appStateChanges(undefined, state(1, []));
    expect(first.changed.map((r) => r.tool)).toEqual(['get_state', 'get_logs', 'device_info']);
    const second = appStateChanges(state(1, []), state(2, ['tap a']));
    expect(second).toEqual({
      readAt: 2,
      changed: [{ tool: 'get_logs', ok: true, value: { logs: ['tap a'] } }],
      unchanged: ['get_state', 'device_info'],
      removed: [],
    });
    // Key order is not a change.
    const reordered: AppState = { readAt: 3, readings: [{ tool: 'device_info', ok: true, value: { screen: { height: 2, width: 1 }, bundleId: 'x' } }] };
    const third = appStateChanges(state(2, ['tap a']), reordered);
    expect(third.changed).toEqual([]);
    expect(third.removed).toEqual(['get_state', 'get_logs']);
    expect(nothingChanged(appStateChanges(state(1, []), state(2, [])))).toBe(true);
  });
});

describe('Bonjour advertises where it listens', () => {
  const interfaces = {
    lo: [{ address: '127.0.0.1', family: 'IPv4', internal: true, netmask: '255.0.0.0', mac: '00:00:00:00:00:00', cidr: '127.0.0.1/8' }],
    eth0: [
      { address: '192.0.2.7', family: 'IPv4', internal: false, netmask: '255.255.255.0', mac: '02:00:00:00:00:01', cidr: '192.0.2.7/24' },
      { address: 'fe80::1', family: 'IPv6', internal: false, netmask: 'ffff:ffff:ffff:ffff::', mac: '02:00:00:00:00:01', cidr: 'fe80::1/64', scopeid: 2 },
      {
        address: '2001:db8::7',
        family: 'IPv6',
        internal: false,
        netmask: 'ffff:ffff:ffff:ffff::',
        mac: '02:00:00:00:00:01',
        cidr: '2001:db8::7/64',
        scopeid: 0,
      },
    ],
  } as unknown as Parameters<typeof advertisableAddresses>[1];

  it.each([
    ['loopback only: loopback only, never the LAN address', '127.0.0.1', ['127.0.0.1']],
    ['one LAN address: that one', '192.0.2.7', ['192.0.2.7']],
    ['every IPv4 interface (0.0.0.0): each IPv4 address, loopback last', '0.0.0.0', ['192.0.2.7', '127.0.0.1']],
    ['every interface (::): routable IPv6 too, never link-local', '::', ['192.0.2.7', '2001:db8::7', '127.0.0.1']],
  ])('R-AR-26: %s', (_name, host, expected) => {
    expect(advertisableAddresses(host, interfaces)).toEqual(expected);
  });
});

describe('node flags stay as every layer reads them', () => {
  it('R-AR-11: a Tauri node is clickable by nodeFlag', () => {
    expect(
      nodeFlag(node({ id: 'web.main.1', tag: 'button', role: 'button', enabled: true, visible: true, frame: '0,0,1,1', actions: ['tap'] }), 'clickable'),
    ).toBe(true);
  });
});
