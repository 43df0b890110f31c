/**
 * The demo's iOS AppReveal as the Swift framework writes its replies, over its real port, and Parallax
 * reading that form (docs/rules.md#r-ar-27, #r-secret-05). The shapes come from AppReveal's own source
 * (UnlikeOtherAI/AppReveal, iOS/Sources/AppReveal):
 *  - Elements/ElementInfo.swift:8-23: `ElementType`, the only element types there are;
 *  - Elements/ElementInventory.swift:88-104 `classifyView` (a UITextField of any kind is `textField`, a
 *    UITextView is a UIScrollView and so `scrollView`), :75 `value: view.accessibilityValue` (a secure
 *    field's value is bullets), :106-118 `availableActions`;
 *  - MCPServer/MCPTools.swift get_elements: every field a string (`"true"`/`"false"`, `"x,y,w,h"` of
 *    Int(...), actions joined by ","), the list under `elements` beside `screenKey`.
 * Then a recorded session types a password into the native secure field and one into the web view's
 * password input, and every place the host keeps or hands on anything is searched for both.
 */
import { describe, expect, it } from 'vitest';
import type { ActionRequest } from '@shared/protocol/action';
import type { UiNode } from '@shared/protocol/runner';
import { traceText } from '../support/appreveal-raw';
import { admin } from '../support/demo-admin';
import { useHostOverDemo } from '../support/host-over-demo';
import { parseAppRevealSessionUrl } from '@shared/protocol/appreveal';

/** ElementInfo.swift:8-23, in its order. */
const ELEMENT_TYPES = [
  'button',
  'textField',
  'label',
  'image',
  'toggle',
  'slider',
  'stepper',
  'picker',
  'scrollView',
  'tableView',
  'collectionView',
  'cell',
  'navigationBar',
  'tabBar',
  'other',
];
/** The keys MCPTools.swift get_elements writes for each element (`[String: String]`); inputType is the demo's web controls'. */
const ELEMENT_KEYS = ['id', 'type', 'label', 'value', 'enabled', 'visible', 'tappable', 'frame', 'actions', 'idSource'];

const NATIVE_SECRET = 'N4tive-secure-Zq81';
const WEB_SECRET = 'W3b-password-Kp27';

const host = useHostOverDemo();
const rawTool = host.rawTool;

type WireElement = Record<string, unknown>;
const rawElements = async () => (await rawTool('get_elements')).elements as WireElement[];
const byId = (elements: WireElement[], id: string) => elements.find((e) => e.id === id);

function all(root: UiNode | undefined): UiNode[] {
  if (!root) return [];
  return [root, ...(root.node ?? []).flatMap(all)];
}

describe('R-AR-27: the iOS flavour writes get_elements as MCPTools.swift does', () => {
  it('every element: only ElementType’s types, every field a string, frames of integers, actions joined by ","', async () => {
    await admin(host.demo.adminUrl, '/reset', { screen: 'login' });
    for (const screen of ['login', 'feed', 'checkout', 'edges']) {
      await admin(host.demo.adminUrl, '/screen', { screen });
      const reply = await rawTool('get_elements');
      expect(reply.screenKey).toBe(screen);
      const elements = reply.elements as WireElement[];
      expect(elements.length).toBeGreaterThan(0);
      for (const element of elements) {
        expect(ELEMENT_TYPES, `${String(element.id)} on ${screen}`).toContain(element.type);
        for (const key of ELEMENT_KEYS) expect(typeof element[key], `${key} of ${String(element.id)}`).toBe('string');
        expect(Object.keys(element).filter((key) => !ELEMENT_KEYS.includes(key) && key !== 'inputType')).toEqual([]);
        for (const flag of ['enabled', 'visible', 'tappable']) expect(['true', 'false']).toContain(element[flag]);
        expect(element.frame).toMatch(/^-?\d+,-?\d+,\d+,\d+$/);
        expect(element.actions).toMatch(/^((tap|type|clear|scroll)(,(tap|type|clear|scroll))*)?$/);
      }
    }
  });

  it('a secure UITextField is a textField whose value is one bullet per character typed, never the text', async () => {
    await admin(host.demo.adminUrl, '/reset', { screen: 'login' });
    expect(byId(await rawElements(), 'login.password')).toMatchObject({ type: 'textField', value: '', actions: 'tap,type,clear' });
    expect(await rawTool('type_text', { text: 'hunter2', element_id: 'login.password' })).toMatchObject({ success: true });
    const elements = await rawElements();
    expect(byId(elements, 'login.password')).toMatchObject({ type: 'textField', label: 'Password', value: '\u2022'.repeat(7) });
    expect(JSON.stringify(elements)).not.toContain('hunter2');
  });

  it('typing with no element goes to the first responder (InteractionEngine.swift type: UIResponder.currentFirstResponder)', async () => {
    await admin(host.demo.adminUrl, '/reset', { screen: 'login' });
    // Nothing has focus yet: "Element not editable: current responder".
    expect(await rawTool('type_text', { text: 'x' })).toEqual({ error: 'Element not editable: current responder' });
    await rawTool('tap_element', { element_id: 'login.username' });
    expect(await rawTool('type_text', { text: 'ada' })).toMatchObject({ success: true, text: 'ada' });
    expect(byId(await rawElements(), 'login.username')).toMatchObject({ value: 'ada' });
  });

  it('the web view’s controls carry their HTML type as inputType: a password input is a textField, a checkbox a toggle that takes no text', async () => {
    await admin(host.demo.adminUrl, '/reset', { screen: 'checkout' });
    const web = (await rawElements()).filter((e) => e.idSource === 'dom');
    const password = web.find((e) => e.label === 'Account password');
    expect(password).toMatchObject({ type: 'textField', inputType: 'password', actions: 'tap,type,clear', value: '' });
    const terms = web.find((e) => e.inputType === 'checkbox');
    expect(terms).toMatchObject({ type: 'toggle', actions: 'tap' });
    expect(web.find((e) => e.label === 'Place order')).toMatchObject({ type: 'button', actions: 'tap' });
  });
});

describe('R-AR-27, R-SECRET-05: Parallax reads that form, and a password typed into it is found nowhere', () => {
  it('the bulleted textField and the inputType-password input are secrets; the checkbox is not offered for typing; neither text reaches any record', async () => {
    await admin(host.demo.adminUrl, '/reset', { screen: 'login' });
    const device = host.services.manager.connect(host.demo.appRevealUrl ?? '');
    await host.services.manager.connectionOf(device.id).waitUntilConnected(10_000);
    const events: string[] = [];
    const unsubscribe = host.services.api.subscribe((name, payload) => events.push(`${name} ${JSON.stringify(payload)}`));
    const call = async (method: string, params: unknown): Promise<Record<string, unknown>> => {
      const reply = await host.services.api.handle(method, params);
      if (!reply.ok) throw new Error(`${method}: ${reply.error.message}`);
      return reply.result as Record<string, unknown>;
    };
    await call('recording.start', { deviceId: device.id });

    // Native: the type says `textField`, the field says nothing more until its value reads back as bullets.
    const native: ActionRequest = { action: 'sendKeys', target: { id: 'login.password' }, steps: [{ kind: 'type', text: NATIVE_SECRET }] };
    const typed = await call('device.act', { deviceId: device.id, action: native });
    expect(typed.result).toMatchObject({ success: true, backend: 'appreveal' });
    const login = await host.services.manager.observe(device.id);
    const field = all(login.observation?.viewHierarchy?.hierarchy).find((n) => n['resource-id'] === 'login.password');
    expect(field).toMatchObject({ className: 'textField', role: 'textfield', password: 'true' });
    expect(field?.value).toBeUndefined();

    // Web: the password input is known by its inputType only (the bridge sends no value for it).
    await admin(host.demo.adminUrl, '/screen', { screen: 'checkout' });
    const checkout = await host.services.manager.observe(device.id);
    const nodes = all(checkout.observation?.viewHierarchy?.hierarchy);
    const webPassword = nodes.find((n) => n.extras?.['appreveal.inputType'] === 'password');
    expect(webPassword).toMatchObject({ className: 'textField', password: 'true', focusable: 'true' });
    const terms = nodes.find((n) => n.extras?.['appreveal.inputType'] === 'checkbox');
    expect(terms).toMatchObject({ className: 'toggle', role: 'switch', checkable: 'true' });
    expect(terms?.focusable).toBeUndefined();
    const web: ActionRequest = { action: 'sendKeys', target: { id: webPassword?.['resource-id'] ?? '' }, steps: [{ kind: 'type', text: WEB_SECRET }] };
    const webTyped = await call('device.act', { deviceId: device.id, action: web });
    expect(webTyped.result).toMatchObject({ success: true, backend: 'appreveal' });

    const stopped = await call('recording.stop', {});
    unsubscribe();
    const history = await call('device.history', { deviceId: device.id });
    const trace = await traceText(stopped.lastTrace as string);
    expect(trace).toContain('login.password');
    const maestro = await call('trace.exportMaestro', { path: stopped.lastTrace });
    const xcuitest = await call('trace.exportXcuiTest', { path: stopped.lastTrace });
    const places: Record<string, string> = {
      'API events (the timeline)': events.join('\n'),
      'device history': JSON.stringify(history),
      'frames read after': JSON.stringify([login, checkout].map((frame) => ({ ...frame, screenshot: undefined }))),
      trace,
      'Maestro export': JSON.stringify(maestro),
      'XCUITest export': JSON.stringify(xcuitest),
    };
    const found = Object.entries(places).flatMap(([place, text]) =>
      [NATIVE_SECRET, WEB_SECRET].filter((secret) => text.includes(secret)).map((secret) => `${place}: ${secret}`),
    );
    expect(found).toEqual([]);
    await host.services.manager.disconnect(device.id);
  }, 120_000);
});

/**
 * `tap_point` and its `coordinate_hint` (issue 24, docs/rules.md#r-ar-27). AppReveal's iOS source has no
 * such argument: MCPServer/MCPTools.swift `tap_point` declares `x`, `y` (numbers) and `window_id`, requires
 * `x` and `y`, reads only those (`params?["x"]?.doubleValue`, `params?["y"]?.doubleValue`,
 * `params?["window_id"]?.stringValue`), calls `InteractionEngine.shared.tap(point:windowId:)` and answers
 * `{"success": true, "x": x, "y": y}`, or `{"error": "x and y are required numeric coordinates"}`. An
 * argument it does not read (a hint) changes nothing. So Parallax sends `{x, y}` and the demo answers so.
 */
describe('R-AR-27: tap_point as MCPTools.swift declares and answers it (no coordinate_hint in the source)', () => {
  it('R-AR-27: the demo lists tap_point with x, y, window_id only; answers {success, x, y}; ignores a hint; refuses a missing coordinate in the source’s words', async () => {
    await admin(host.demo.adminUrl, '/reset', { screen: 'login' });
    const session = parseAppRevealSessionUrl(host.demo.appRevealUrl ?? '');
    const listed = (await (
      await fetch(session.baseUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${session.token ?? ''}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      })
    ).json()) as { result: { tools: Array<{ name: string; inputSchema: { properties: Record<string, unknown>; required?: string[] } }> } };
    const tapPoint = listed.result.tools.find((t) => t.name === 'tap_point');
    expect(Object.keys(tapPoint?.inputSchema.properties ?? {}).sort()).toEqual(['window_id', 'x', 'y']);
    expect(tapPoint?.inputSchema.required).toEqual(['x', 'y']);

    // MCPTools.swift get_elements writes a frame as "x,y,width,height" of Int(...).
    const [fx, fy, fw, fh] = String(byId(await rawElements(), 'login.username')?.frame)
      .split(',')
      .map(Number) as [number, number, number, number];
    const centre = { x: fx + fw / 2, y: fy + fh / 2 };
    expect(await rawTool('tap_point', centre)).toEqual({ success: true, ...centre });
    // The tap landed on the field: it is the first responder, so keys with no element go into it.
    expect(await rawTool('type_text', { text: 'ada' })).toMatchObject({ success: true });
    expect(byId(await rawElements(), 'login.username')).toMatchObject({ value: 'ada' });
    // A hint is an argument the handler never reads: the same answer, the same tap.
    expect(await rawTool('tap_point', { ...centre, coordinate_hint: 'window' })).toEqual({ success: true, ...centre });
    // MCPRouter.swift checks no argument; the handler's guard answers, in its words (not "y required").
    expect(await rawTool('tap_point', { x: centre.x })).toEqual({ error: 'x and y are required numeric coordinates' });
    expect(await rawTool('tap_point', { x: centre.x, y: 'here' })).toEqual({ error: 'x and y are required numeric coordinates' });
    // The same for scroll's guard: `ScrollDirection(rawValue:)` fails for a missing direction too.
    expect(await rawTool('scroll', {})).toEqual({ error: 'Invalid direction' });
  });

  it('R-AR-27: Parallax’s tap at a point reaches the app as tap_point at that point and the field it hit takes the keys', async () => {
    await admin(host.demo.adminUrl, '/reset', { screen: 'login' });
    const device = host.services.manager.connect(host.demo.appRevealUrl ?? '');
    try {
      await host.services.manager.connectionOf(device.id).waitUntilConnected(10_000);
      const login = await host.services.manager.observe(device.id);
      const field = all(login.observation?.viewHierarchy?.hierarchy).find((n) => n['resource-id'] === 'login.username');
      const bounds = field?.bounds as { left: number; top: number; right: number; bottom: number } | undefined;
      expect(bounds).toBeDefined();
      const { left, top, right, bottom } = bounds!;
      const point = { x: Math.round((left + right) / 2), y: Math.round((top + bottom) / 2) };
      const tapped = await host.call<{ result: Record<string, unknown> }>('device.act', { deviceId: device.id, action: { action: 'tap', target: { point } } });
      expect(tapped.result).toMatchObject({ success: true, backend: 'appreveal' });
      expect(await rawTool('type_text', { text: 'bob' })).toMatchObject({ success: true });
      expect(byId(await rawElements(), 'login.username')).toMatchObject({ value: 'bob' });
    } finally {
      await host.call('devices.disconnect', { deviceId: device.id });
    }
  });
});

/**
 * Issue 24, "What must be true" 4: every step's tool is checked before the first is sent. AppReveal has
 * no Tab or IME tool (MCPTools.swift registers type_text and clear_text only for keys), so a type
 * followed by Tab or Done must not type and then fail as "not run": the action is refused whole.
 */
describe('R-AR-14: a sendKeys whose later step has no AppReveal tool sends nothing', () => {
  it('R-AR-14: type then Tab, and type then the IME action, on the iOS flavour: refused, not run, the field still empty', async () => {
    await admin(host.demo.adminUrl, '/reset', { screen: 'login' });
    const device = host.services.manager.connect(host.demo.appRevealUrl ?? '');
    try {
      await host.services.manager.connectionOf(device.id).waitUntilConnected(10_000);
      const forms: ActionRequest[] = [
        { action: 'sendKeys', target: { id: 'login.username' }, steps: [{ kind: 'type', text: 'ada' }, { kind: 'tab' }] },
        {
          action: 'sendKeys',
          target: { id: 'login.username' },
          steps: [
            { kind: 'type', text: 'ada' },
            { kind: 'ime', imeAction: 'done' },
          ],
        },
      ];
      for (const action of forms) {
        const step = await host.call<{ result: Record<string, unknown> }>('device.act', { deviceId: device.id, action });
        expect(step.result).toMatchObject({ success: false, mayHaveRun: false, failureReason: 'appreveal_unknown_tool', outcome: 'refused' });
        expect(String((step.result.warnings as string[] | undefined)?.join(' '))).toMatch(/AppReveal has no tool for (Tab|the IME action)/);
        expect(byId(await rawElements(), 'login.username')).toMatchObject({ value: '' });
      }
    } finally {
      await host.call('devices.disconnect', { deviceId: device.id });
    }
  });
});
