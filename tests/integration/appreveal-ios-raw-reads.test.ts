/**
 * The two reads of iOS AppReveal that quote a secret in clear, over the demo's real port, and Parallax
 * taking it out before anything it holds sees it (docs/rules.md#r-secret-06, #r-secret-07). From
 * AppReveal's own source (UnlikeOtherAI/AppReveal, iOS/Sources/AppReveal):
 *  - Elements/ElementInventory.swift:160 dumpNode: `node["text"] = textField.text ?? ""` for every
 *    UITextField, a secure one too; :152 `accessibilityValue` (bullets for a secure field); no
 *    isSecureTextEntry key anywhere in the reply;
 *  - WebView/DOMSerializer.swift:85 interactiveJS: `if (node.value) el.value = node.value.substring(0, 200)`,
 *    a password input's too; :83 the HTML type as `type`.
 * A recorded session types a password into each, the host reads both trees, and every place it keeps or
 * hands on anything is searched for both secrets.
 */
import { describe, expect, it } from 'vitest';
import { AppRevealConnection } from '@main/appreveal/connection';
import type { ActionRequest } from '@shared/protocol/action';
import { traceText } from '../support/appreveal-raw';
import { admin } from '../support/demo-admin';
import { useHostOverDemo } from '../support/host-over-demo';

const NATIVE_SECRET = 'Tr33-secure-Vq40';
const WEB_SECRET = 'D0m-password-Hx93';

type Rec = Record<string, unknown>;

const host = useHostOverDemo();
const rawTool = host.rawTool;

describe('R-SECRET-06, R-SECRET-07: get_view_tree and get_dom_interactive quote a typed password; Parallax keeps it nowhere', () => {
  it('the demo sends both in clear as the Swift source does; the host reads both trees, records, exports, and the secrets are in 0 places', async () => {
    await admin(host.demo.adminUrl, '/reset', { screen: 'login' });
    const device = host.services.manager.connect(host.demo.appRevealUrl ?? '');
    const connection = host.services.manager.connectionOf(device.id);
    if (!(connection instanceof AppRevealConnection)) throw new Error("the demo's AppReveal URL made no AppReveal connection");
    await connection.waitUntilConnected(10_000);
    const events: string[] = [];
    const unsubscribe = host.services.api.subscribe((name, payload) => events.push(`${name} ${JSON.stringify(payload)}`));
    const call = async (method: string, params: unknown): Promise<Rec> => {
      const reply = await host.services.api.handle(method, params);
      if (!reply.ok) throw new Error(`${method}: ${reply.error.message}`);
      return reply.result as Rec;
    };
    await call('recording.start', { deviceId: device.id });

    const native: ActionRequest = { action: 'sendKeys', target: { id: 'login.password' }, steps: [{ kind: 'type', text: NATIVE_SECRET }] };
    expect((await call('device.act', { deviceId: device.id, action: native })).result).toMatchObject({ success: true });

    // The wire, as ElementInventory.swift:152,160 writes it: the text in clear beside bullets.
    const rawViews = (await rawTool('get_view_tree', { max_depth: 50 })).views as Rec[];
    const rawField = rawViews.find((v) => v.accessibilityId === 'login.password');
    expect(rawField).toMatchObject({ text: NATIVE_SECRET, accessibilityValue: '•'.repeat(NATIVE_SECRET.length) });
    expect(rawField).toHaveProperty('class', 'UITextField');
    expect(rawField).not.toHaveProperty('isSecureTextEntry');
    const username = rawViews.find((v) => v.accessibilityId === 'login.username');
    expect(username).toHaveProperty('text');

    // What the host's client hands on: the same views, the secure field's text out, the rest intact.
    const views = (await connection.client.getViewTree(50)) as Rec[];
    expect(views).toHaveLength(rawViews.length);
    const field = views.find((v) => v.accessibilityId === 'login.password');
    expect(field).toMatchObject({ textRedacted: true, accessibilityValue: '•'.repeat(NATIVE_SECRET.length) });
    expect(field).not.toHaveProperty('text');
    expect(views.find((v) => v.accessibilityId === 'login.username')).toHaveProperty('text', username?.text);

    await admin(host.demo.adminUrl, '/screen', { screen: 'checkout' });
    const checkout = await host.services.manager.observe(device.id);
    const webPassword = (checkout.observation?.viewHierarchy?.hierarchy ? [checkout.observation.viewHierarchy.hierarchy] : [])
      .flatMap(function walk(n): (typeof n)[] {
        return [n, ...(n.node ?? []).flatMap(walk)];
      })
      .find((n) => n.extras?.['appreveal.inputType'] === 'password');
    const web: ActionRequest = { action: 'sendKeys', target: { id: webPassword?.['resource-id'] ?? '' }, steps: [{ kind: 'type', text: WEB_SECRET }] };
    expect((await call('device.act', { deviceId: device.id, action: web })).result).toMatchObject({ success: true });

    // The wire, as DOMSerializer.swift:83,85 writes it: `type: password` and the value in clear.
    const rawDom = JSON.parse((await rawTool('get_dom_interactive')).result as string) as { elements: Rec[] };
    expect(rawDom.elements.find((e) => e.selector === '#password')).toMatchObject({ tag: 'input', type: 'password', value: WEB_SECRET });
    const dom = (await connection.client.getDomInteractive()) as { elements: Rec[] };
    expect(dom.elements.find((e) => e.selector === '#password')).toMatchObject({ type: 'password', valueRedacted: true });
    expect(dom.elements.find((e) => e.selector === '#password')).not.toHaveProperty('value');
    const controls = await call('device.webControls', { deviceId: device.id });

    const stopped = await call('recording.stop', {});
    unsubscribe();
    const history = await call('device.history', { deviceId: device.id });
    const trace = await traceText(stopped.lastTrace as string);
    const places: Record<string, string> = {
      'API events (the timeline)': events.join('\n'),
      'device history': JSON.stringify(history),
      'view tree read by the host': JSON.stringify(views),
      'DOM read by the host': JSON.stringify(dom),
      'web controls (JSON output)': JSON.stringify(controls),
      'frame read after': JSON.stringify({ ...checkout, screenshot: undefined }),
      trace,
      'Maestro export': JSON.stringify(await call('trace.exportMaestro', { path: stopped.lastTrace })),
      'XCUITest export': JSON.stringify(await call('trace.exportXcuiTest', { path: stopped.lastTrace })),
    };
    const found = Object.entries(places).flatMap(([place, text]) =>
      [NATIVE_SECRET, WEB_SECRET].filter((secret) => text.includes(secret)).map((secret) => `${place}: ${secret}`),
    );
    expect(found).toEqual([]);
    await host.services.manager.disconnect(device.id);
  }, 120_000);
});
