/**
 * Parallax against the demo app speaking as each real AppReveal server (docs/rules.md#r-ar-25): the
 * Tauri crate with its UI tools (DOM-shaped elements, `id` arguments, no screenshot), and an app that
 * registers only the tools every server has (Tauri's example shape). Observe shows what each offers, the
 * app's identity comes from launch_context, actions name their arguments as each tool's schema does, and
 * a recording keeps what the app's read-only tools said after each step, which reopens offline.
 */
import { nodeTitleText } from '@shared/model/title';
import { describe, expect, it } from 'vitest';
import type { AppRevealConnection } from '@main/appreveal/connection';
import { openTraceView, traceResource } from '@main/trace/view';
import type { UiNode } from '@shared/protocol/runner';
import { useConnectedDemo } from '../support/host-over-demo';

const all = (root: UiNode | undefined): UiNode[] => (root ? [root, ...(root.node ?? []).flatMap(all)] : []);

describe('the Tauri flavour', () => {
  const tauri = useConnectedDemo({ demo: { screen: 'login', appRevealFlavor: 'tauri' }, via: 'appreveal', connectTimeoutMs: 10_000 });

  it('R-AR-10, R-AR-24: observe reads the DOM-shaped elements as their kinds, with the app’s own verdict and no screenshot', async () => {
    const frame = await tauri.connection.observe({});
    const nodes = all(frame.observation?.viewHierarchy?.hierarchy);
    const username = nodes.find((n) => n.extras?.['appreveal.selector'] === '[data-testid="login.username"]');
    expect(username).toMatchObject({ className: 'textField', role: 'textfield', clickable: 'true', 'resource-id': expect.stringMatching(/^web\.main\.\d+$/) });
    const password = nodes.find((n) => n.extras?.['appreveal.selector'] === '[data-testid="login.password"]');
    expect(password).toMatchObject({ className: 'secureTextField', password: 'true' });
    expect(frame.observation?.quality).toEqual({ verdict: 'healthy', reason: 'appreveal_elements' });
    expect(frame.observation?.backend).toBe('appreveal');
    expect(frame.screenshot).toBeNull();
    expect(frame.screenshotError).toMatch(/did not register the screenshot tool/);
    expect(frame.appReveal?.screen).toMatchObject({ screenKey: 'login', frameworkType: 'tauri' });
    expect(frame.appReveal?.identity).toMatchObject({ bundleId: 'dev.parallax.demo', frameworkType: 'tauri', appName: 'Parallax Demo' });
  });

  it('R-AR-19: a tap and typing reach the Tauri tools by `id`, and the step carries the app state after it', async () => {
    const frame = await tauri.connection.observe({});
    const username = all(frame.observation?.viewHierarchy?.hierarchy).find((n) => n.extras?.['appreveal.selector'] === '[data-testid="login.username"]');
    const id = username?.['resource-id'] ?? '';
    const typed = await tauri.connection.act({ action: 'sendKeys', target: { id }, steps: [{ kind: 'type', text: 'grace' }] });
    expect(typed.result).toMatchObject({ success: true, backend: 'appreveal', requestsSent: 1 });
    const state = typed.after?.appReveal?.app?.readings.find((r) => r.tool === 'get_state');
    expect((state?.value as { fields: Record<string, string> }).fields['login.username']).toBe('grace');
    const logs = typed.after?.appReveal?.app?.readings.find((r) => r.tool === 'get_logs');
    expect(JSON.stringify(logs?.value)).toContain('typed 5 characters into login.username');
    expect(JSON.stringify(logs?.value)).not.toContain('grace');

    const tab = all(typed.after?.observation?.viewHierarchy?.hierarchy).find((n) => n.extras?.['appreveal.selector'] === '[data-testid="tab.feed"]');
    const tapped = await tauri.connection.act({ action: 'tap', target: { node: { ...tab, node: undefined } as UiNode } });
    expect(tapped.result.success).toBe(true);
    // R-UI-TITLE: the step names the picked element as its tree row does, never by the app's made-up id alone.
    expect(tapped.result.target).toMatchObject({ resolvedBy: 'node', title: nodeTitleText(tab!) });
    expect(tapped.result.target.title).toMatch(/"Feed"/);
    expect(tapped.after?.appReveal?.screen?.screenKey).toBe('feed');
    const back = await tauri.connection.act({ action: 'tap', target: { id: 'web.main.9999' } });
    // Tauri's {success:false, error:"target_not_found"}: the app answered and did nothing.
    expect(back.result).toMatchObject({ success: false, failureReason: 'appreveal_tool_error', mayHaveRun: false });
  });
});

describe('an app with only the always-present tools (Tauri’s example shape)', () => {
  const always = useConnectedDemo({
    demo: { screen: 'login', appRevealFlavor: 'tauri', appRevealTools: 'always' },
    via: 'appreveal',
    connectTimeoutMs: 10_000,
    managed: { dirPrefix: 'flavors' },
  });

  it('R-AR-20, R-AR-24: observe still shows a frame: no element tree (said so), no screenshot, the app named by launch_context', async () => {
    const summary = always.manager.list().find((d) => d.id === always.deviceId);
    expect(summary).toMatchObject({ kind: 'appreveal', state: 'connected', bundleId: 'dev.parallax.demo' });
    expect([...(summary?.supportedCommands ?? [])].sort()).toEqual(['batch', 'device_info', 'get_state', 'launch_context']);
    const frame = await always.manager.observe(always.deviceId);
    expect(frame.observation?.quality).toEqual({ verdict: 'sparse', reason: 'appreveal_elements_not_offered' });
    expect(frame.observation?.viewHierarchy?.hierarchy?.node ?? []).toEqual([]);
    expect(frame.observation?.activeWindow?.bundleId).toBe('dev.parallax.demo');
    expect(frame.screenshot).toBeNull();
    expect(frame.appReveal).toMatchObject({ screen: null, windows: [], identity: { bundleId: 'dev.parallax.demo', platform: 'Linux' } });
  });

  it('R-AR-22: the read-only tools it has are read, and only those', async () => {
    const connection = always.manager.connectionOf(always.deviceId) as AppRevealConnection;
    const state = await connection.appState();
    expect(state.readings.map((r) => [r.tool, r.ok])).toEqual([
      ['get_state', true],
      ['device_info', true],
      ['launch_context', true],
    ]);
    expect(state.readings.find((r) => r.tool === 'launch_context')?.value).toMatchObject({ bundleId: 'dev.parallax.demo', frameworkType: 'tauri' });
  });

  it('R-AR-22: a recording keeps what the app said after each step, only what changed, and reopens offline', async () => {
    await always.recording.start(always.deviceId);
    // No UI tools: each action fails closed, nothing sent, yet the app state is read after it.
    const first = await always.manager.act(always.deviceId, { action: 'tap', target: { point: { x: 10, y: 10 } } });
    expect(first.result).toMatchObject({ success: false, failureReason: 'appreveal_unknown_tool', mayHaveRun: false, requestsSent: 0 });
    await always.manager.act(always.deviceId, { action: 'back' });
    const status = await always.recording.stop();
    const opened = await openTraceView(status.lastTrace ?? '');
    expect(opened.manifest.app).toEqual({ bundleId: 'dev.parallax.demo', name: 'Parallax Demo', version: '1.0' });
    expect(opened.steps).toHaveLength(2);
    const [one, two] = opened.steps;
    expect(one?.appStateRef).toMatch(/^sha256:/);
    const firstState = await traceResource(opened.path, one?.appStateRef ?? '', 'appState');
    expect(firstState.kind === 'appState' && firstState.appState.changed.map((r) => r.tool)).toEqual(['get_state', 'device_info', 'launch_context']);
    const secondState = await traceResource(opened.path, two?.appStateRef ?? '', 'appState');
    // Nothing the app reports changed between the two refused actions.
    expect(secondState.kind === 'appState' && secondState.appState).toMatchObject({
      changed: [],
      unchanged: ['get_state', 'device_info', 'launch_context'],
      removed: [],
    });
    // The trace never holds the session token.
    const token = new URL(always.demo.appRevealUrl ?? '').searchParams.get('appreveal_session_token') ?? '';
    expect(JSON.stringify(firstState)).not.toContain(token);
  });
});
