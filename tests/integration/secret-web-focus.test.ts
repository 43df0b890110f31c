/**
 * A password typed into a web page's password field with no target (a finger's tap on the field, then
 * keys that follow keyboard focus) is a secret (docs/rules.md#r-secret-01). On iOS the WKWebView is the
 * first responder while its DOM input has focus, and the native bridge reports it so: the web view that
 * holds the field must not make the keys plain. Over the demo's real sockets, recorded; the history, the
 * events, the trace and both exports are searched for the text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoDevice } from '@demo/index';
import { startAppServices, type AppServices } from '@main/host/app-services';
import { openTraceFile } from '@main/trace/index';
import { describeRequest } from '@shared/act/describe';
import { flattenTree } from '@shared/model/tree';
import { centerOf } from '@shared/model/node';
import type { ActionRequest, ActionResult } from '@shared/protocol/action';
import type { ObservedFrame } from '@shared/protocol/device';
import { apiCall } from '../support/api-call';
import { placesHolding } from '../support/secret-places';

const PASSWORD = 'W3b-pw!typed-into-the-page-4Kz';
let demo: Awaited<ReturnType<typeof startDemoDevice>>;
let services: AppServices;

beforeAll(async () => {
  demo = await startDemoDevice({ port: 0, screen: 'checkout' });
  services = await startAppServices('web', () => []);
}, 60_000);
afterAll(async () => {
  await services?.close();
  await demo?.close();
});

const call = (method: string, params: unknown) => apiCall(services.api, method, params);

describe('R-SECRET-01: keys that follow focus into a web password field are a secret', () => {
  it('the field a finger tapped in the page decides: "type secret" in the history, the text in no event, trace or export', async () => {
    const device = services.manager.connect(demo.runnerUrl, { kind: 'demo', name: 'Demo' });
    await services.manager.connectionOf(device.id).waitUntilConnected(10_000);
    const events: string[] = [];
    const unsubscribe = services.api.subscribe((name, payload) => events.push(`${name} ${JSON.stringify(payload)}`));
    const frame = (await call('device.observe', { deviceId: device.id })) as unknown as ObservedFrame;
    const root = frame.observation?.viewHierarchy?.hierarchy;
    const field = root && flattenTree(root).find((f) => f.node['web-role'] === 'input' && f.node['content-desc'] === 'Account password')?.node;
    expect(field, 'the checkout page shows its password input').toBeDefined();
    await call('recording.start', { deviceId: device.id });

    const tap: ActionRequest = { action: 'tap', target: { point: centerOf(field!)! } };
    const keys: ActionRequest = { action: 'sendKeys', steps: [{ kind: 'type', text: PASSWORD }] };
    const tapped = (await call('device.act', { deviceId: device.id, action: tap })).result as ActionResult;
    const typed = (await call('device.act', { deviceId: device.id, action: keys })).result as ActionResult;
    expect(tapped).toMatchObject({ success: true, outcome: 'done' });
    expect(typed).toMatchObject({ success: true, outcome: 'done', target: { resolvedBy: 'keyboardFocus' } });
    const stopped = await call('recording.stop', {});
    unsubscribe();

    const history = (await call('device.history', { deviceId: device.id })) as unknown as { request: ActionRequest }[];
    expect(history.map((step) => describeRequest(step.request)).at(-1)).toBe('type secret');

    const opened = await openTraceFile(stopped.lastTrace as string);
    const maestro = await call('trace.exportMaestro', { path: stopped.lastTrace });
    const xcuitest = await call('trace.exportXcuiTest', { path: stopped.lastTrace });
    const places: Record<string, string> = {
      'API events': events.join('\n'),
      'device history': JSON.stringify(history),
      'trace events': JSON.stringify(opened.events),
      'Maestro export': JSON.stringify(maestro),
      'XCUITest export': JSON.stringify(xcuitest),
    };
    expect(placesHolding(places, [PASSWORD])).toEqual([]);
  }, 120_000);
});
