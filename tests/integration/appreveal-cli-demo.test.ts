/**
 * AppReveal's own CLI against the demo (docs/rules.md#r-ar-25): exactly the calls its inspect, snapshot,
 * find, tap and type commands make (appreveal-cli.ts), checked for what the CLI needs of each reply. The
 * demo in the iOS flavour serves all of it; in the Tauri flavour it fails where the real Tauri crate
 * fails the CLI (object batch results, no `element_id`), which is that crate's shape, not a demo bug.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoDevice, type DemoDeviceHandle } from '@demo/index';
import { AppRevealCli, CLI_TOOLS, cliToolsServed, CliError } from '../support/appreveal-cli';

describe('AppReveal CLI against the iOS-flavoured demo', () => {
  let device: DemoDeviceHandle;
  let cli: AppRevealCli;
  beforeAll(async () => {
    device = await startDemoDevice({ port: 0, screen: 'login' });
    cli = new AppRevealCli(device.appRevealUrl ?? '');
  }, 60_000);
  afterAll(async () => {
    await device?.close();
  });

  it('R-AR-25: serves every tool the CLI calls', async () => {
    expect(await cliToolsServed(device.appRevealUrl ?? '')).toEqual({ served: [...CLI_TOOLS], missing: [] });
  });

  it('R-AR-25: inspect: initialize without params, launch_context, tools/list, device_info', async () => {
    const inspected = await cli.inspect(true);
    expect(cli.sent.slice(0, 4).map((s) => s.tool ?? s.method)).toEqual(['initialize', 'launch_context', 'tools/list', 'device_info']);
    expect(inspected.initialize).toMatchObject({ serverInfo: { name: 'AppReveal' }, protocolVersion: '2025-06-18' });
    expect(inspected.launchContext).toMatchObject({ bundleId: 'dev.parallax.demo', platform: 'iOS', deviceName: expect.any(String) });
    expect(inspected.deviceInfo).toMatchObject({ appName: 'Parallax Demo', bundleId: 'dev.parallax.demo' });
  });

  it('R-AR-25: snapshot: one batch, results as JSON strings, the elements and the labelled views', async () => {
    const snapshot = await cli.snapshot(500);
    expect(snapshot.launchContext).toMatchObject({ bundleId: 'dev.parallax.demo' });
    expect(snapshot.screen).toMatchObject({ screenKey: 'login' });
    expect(snapshot.elementCount).toBeGreaterThan(10);
    const username = snapshot.elements.find((e) => e.id === 'login.username');
    expect(username).toMatchObject({
      type: 'textField',
      enabled: 'true',
      actions: expect.stringContaining('type'),
      frame: expect.stringMatching(/^\d+,\d+,\d+,\d+$/),
    });
    expect(snapshot.elements.some((e) => e.source === 'view_tree')).toBe(true);
  });

  it('R-AR-25: find ranks by the string fields; tap taps by element_id; type types by element_id', async () => {
    const [best] = await cli.find('login.submit');
    expect(best).toMatchObject({ score: 120, element: { id: 'login.submit' } });

    await cli.type('ada', 'login.username');
    expect(cli.sent.at(-1)).toEqual({ method: 'tools/call', tool: 'type_text', arguments: { text: 'ada', element_id: 'login.username' } });
    // Without --element, into the first responder: the field just typed into.
    await cli.type('x');
    expect(((await cli.call('get_state')) as { fields: Record<string, string> }).fields['login.username']).toBe('adax');

    await cli.tap('tab.feed', 'id');
    expect(cli.sent.at(-1)).toEqual({ method: 'tools/call', tool: 'tap_element', arguments: { element_id: 'tab.feed' } });
    expect(await cli.call('get_screen')).toMatchObject({ screenKey: 'feed' });
    await cli.tap('tab.login', 'id');
  });
});

describe('AppReveal CLI against the Tauri-flavoured demo', () => {
  let device: DemoDeviceHandle;
  let cli: AppRevealCli;
  beforeAll(async () => {
    device = await startDemoDevice({ port: 0, screen: 'login', appRevealFlavor: 'tauri' });
    cli = new AppRevealCli(device.appRevealUrl ?? '');
  }, 60_000);
  afterAll(async () => {
    await device?.close();
  });

  it('R-AR-25: serves the CLI’s tools but get_view_tree, as the Tauri crate', async () => {
    expect(await cliToolsServed(device.appRevealUrl ?? '')).toEqual({ served: CLI_TOOLS.filter((t) => t !== 'get_view_tree'), missing: ['get_view_tree'] });
  });

  it('R-AR-25: inspect works; snapshot finds no elements, because the batch results are objects', async () => {
    const inspected = await cli.inspect(true);
    expect(inspected.launchContext).toMatchObject({ frameworkType: 'tauri', bundleId: 'dev.parallax.demo', appName: 'Parallax Demo' });
    const snapshot = await cli.snapshot();
    expect(snapshot.elementCount).toBe(0);
    // The elements are there; the CLI does not read Tauri's batch form.
    expect(((await cli.call('get_elements')) as { elements: unknown[] }).elements.length).toBeGreaterThan(5);
  });

  it('R-AR-25: tap and type fail as against the real crate: no element_id, and type_text needs a target', async () => {
    await expect(cli.tap('Sign in')).rejects.toThrow(CliError);
    await expect(cli.call('tap_element', { element_id: 'web.main.0' })).rejects.toThrow(
      /MCP error -32603: Invalid params: Missing required string argument: id/,
    );
    await expect(cli.type('x')).rejects.toThrow(/MCP error -32603: Invalid params: Missing required string argument: id/);
  });
});
