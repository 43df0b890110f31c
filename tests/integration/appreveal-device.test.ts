/**
 * Issue 7's AppReveal gaps through the API (demo device, DeviceManager, the shared API service): the
 * window an observe reads, navigate_back as a recorded step, and the web view's bounded tools.
 */
import { inspect } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startDemoDevice, type DemoDeviceHandle } from '@demo/index';
import { DEMO_WINDOW_ID } from '@demo/appreveal/app';
import { createApiService, type ApiService } from '@main/host/api';
import { DeviceManager } from '@main/devices/manager';
import type { WebControls } from '@shared/api/api';
import type { ActionStep, Frame } from '@shared/protocol/device';
import { admin as demoAdmin } from '../support/demo-admin';

let device: DemoDeviceHandle;
let manager: DeviceManager;
let api: ApiService;
let appRevealId: string;
let runnerId: string;
const steps: ActionStep[] = [];

const admin = (path: string, body: unknown) => demoAdmin(device.adminUrl, path, body);

async function call<T>(method: string, params: unknown): Promise<T> {
  const reply = await api.handle(method, params);
  if (!reply.ok) throw Object.assign(new Error(reply.error.message), { code: reply.error.code });
  return reply.result as T;
}

async function failure(method: string, params: unknown): Promise<{ code: string; message: string }> {
  const reply = await api.handle(method, params);
  if (reply.ok) throw new Error(`${method} succeeded`);
  return reply.error;
}

const screenKey = async () => (await call<Frame>('device.observe', { deviceId: appRevealId })).appReveal?.screen?.screenKey;

beforeAll(async () => {
  const quiet = (['log', 'info', 'warn', 'error', 'debug'] as const).map((m) => vi.spyOn(console, m).mockImplementation((...a: unknown[]) => void inspect(a)));
  try {
    device = await startDemoDevice({ port: 0 });
  } finally {
    for (const spy of quiet) spy.mockRestore();
  }
  if (!device.appRevealUrl) throw new Error('no AppReveal');
  manager = new DeviceManager();
  api = createApiService({ manager }, { host: 'web', version: 'test' });
  manager.on('action', (step) => steps.push(step));
  appRevealId = manager.connect(device.appRevealUrl).id;
  runnerId = manager.connect(device.runnerUrl).id;
  await manager.connectionOf(appRevealId).waitUntilConnected(10_000);
  await manager.connectionOf(runnerId).waitUntilConnected(10_000);
}, 60_000);

afterAll(async () => {
  await manager?.closeAll();
  await device?.close();
});

beforeEach(async () => {
  await admin('/reset', { screen: 'login' });
  steps.length = 0;
});

describe('observe with a window', () => {
  it('reads the window the picker names, and an unknown window is a clear error', async () => {
    const frame = await call<Frame>('device.observe', { deviceId: appRevealId, windowId: DEMO_WINDOW_ID });
    expect(frame.appReveal?.windows.map((w) => w.id)).toEqual([DEMO_WINDOW_ID]);
    expect(frame.observation?.viewHierarchy?.hierarchy).toBeTruthy();
    expect(frame.screenshot?.format).toBe('png');
    const error = await failure('device.observe', { deviceId: appRevealId, windowId: 'window-9' });
    expect(error).toMatchObject({ code: 'appreveal_tool_error' });
    expect(error.message).toMatch(/window-9/);
    // A runner ignores it.
    expect((await call<Frame>('device.observe', { deviceId: runnerId, windowId: 'window-9' })).observation).toBeTruthy();
  });
});

describe('navigate_back', () => {
  it('Back after switching tabs returns to the previous screen, recorded as an appreveal step', async () => {
    expect(await screenKey()).toBe('login');
    const tab = await call<ActionStep>('device.act', { deviceId: appRevealId, action: { action: 'tap', target: { id: 'tab.checkout' } } });
    expect(tab.result.success).toBe(true);
    expect(await screenKey()).toBe('checkout');
    const back = await call<ActionStep>('device.navigateBack', { deviceId: appRevealId });
    expect(back.request).toEqual({ action: 'back' });
    expect(back.result).toMatchObject({ success: true, backend: 'appreveal', requestsSent: 1 });
    expect(back.after?.appReveal?.screen?.screenKey).toBe('login');
    expect(await screenKey()).toBe('login');
    expect(steps.map((s) => s.request.action)).toEqual(['tap', 'back']);
  });

  it('nothing to go back to: iOS AppReveal says success and the screen stays; a runner is not offered it', async () => {
    // InteractionEngine.swift navigateBack: popViewController at a navigation root pops nothing and throws
    // nothing, so MCPTools.swift navigate_back answers {"success": true} (docs/protocol.md#p-ar-ios-errors).
    const back = await call<ActionStep>('device.navigateBack', { deviceId: appRevealId });
    expect(back.result).toMatchObject({ success: true, backend: 'appreveal' });
    expect(await screenKey()).toBe('login');
    expect((await failure('device.navigateBack', { deviceId: runnerId })).code).toBe('not_offered');
    expect(steps).toHaveLength(1);
  });

  it("a runner's dispatcher fails a back action closed with nothing sent", async () => {
    const step = await call<ActionStep>('device.act', { deviceId: runnerId, action: { action: 'back' } });
    expect(step.result).toMatchObject({ success: false, failureReason: 'no_back_form', mayHaveRun: false, requestsSent: 0 });
  });
});

describe('web view tools', () => {
  it('lists the checkout form without values, and web_click / web_type are recorded steps', async () => {
    await admin('/screen', { screen: 'checkout' });
    const web = await call<WebControls>('device.webControls', { deviceId: appRevealId });
    expect(web.tools).toEqual(['web_click', 'web_type']);
    const name = web.controls.find((c) => c.selector === '#name');
    expect(name).toMatchObject({ tag: 'input', type: 'text', label: 'Full name', editable: true });
    const password = web.controls.find((c) => c.selector === '#password');
    expect(password).toMatchObject({ type: 'password', editable: true });
    expect(JSON.stringify(web)).not.toMatch(/"value"/);
    const submit = web.controls.find((c) => c.selector === '#place-order');
    expect(submit).toMatchObject({ tag: 'button', editable: false });

    const typed = await call<ActionStep>('device.webAct', { deviceId: appRevealId, tool: 'web_type', selector: '#name', text: 'Grace' });
    expect(typed.result).toMatchObject({ success: true, backend: 'appreveal' });
    await call<ActionStep>('device.webAct', { deviceId: appRevealId, tool: 'web_click', selector: '#terms' });
    const click = await call<ActionStep>('device.webAct', { deviceId: appRevealId, tool: 'web_click', selector: '#place-order' });
    expect(click.request).toEqual({ action: 'webTool', tool: 'web_click', selector: '#place-order' });
    expect(click.result).toMatchObject({ success: true, backend: 'appreveal', target: { selector: '#place-order' } });
    expect(steps.map((s) => s.request.action)).toEqual(['webTool', 'webTool', 'webTool']);

    const missing = await call<ActionStep>('device.webAct', { deviceId: appRevealId, tool: 'web_click', selector: '#nothing-here' });
    expect(missing.result).toMatchObject({ success: false, failureReason: 'appreveal_tool_error' });
    expect((await failure('device.webAct', { deviceId: appRevealId, tool: 'web_type', selector: '#name' })).code).toBe('bad_request');
    expect((await failure('device.webControls', { deviceId: runnerId })).code).toBe('not_offered');
  });
});
