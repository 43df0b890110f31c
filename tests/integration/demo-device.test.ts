/**
 * The demo device as a peer: runner commands, native screens, the SDK observation bridge, and the
 * runner / XCTest / SDK faults. Talks to the device only over its sockets (ws as a plain client,
 * fetch for /health and /admin); the shared schemas are used only to check what comes back.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PNG } from 'pngjs';
import type { UiNode } from '@shared/protocol/runner';
import { ObservationSnapshotSchema } from '@shared/protocol/sdk';
import { startDemoDevice } from '@demo/index';
import { adminReply, untilQuiet, untilStats } from '../support/demo-admin';
import { RunnerClient, type Msg } from '../support/runner-client';

const STALE = 'Stale frame context; observe a fresh frame before retrying';
const FRAME_CONTEXT = /^[0-9A-F-]{36}:\d+:[0-9a-f]{16}$/;

function nodes(root: UiNode | undefined): UiNode[] {
  if (!root) return [];
  return [root, ...(root.node ?? []).flatMap(nodes)];
}
const byId = (root: UiNode | undefined, id: string) => nodes(root).find((n) => n['resource-id'] === id);
const center = (n: UiNode | undefined) => {
  if (!n?.bounds) throw new Error('node has no bounds');
  return { x: (n.bounds.left + n.bounds.right) / 2, y: (n.bounds.top + n.bounds.bottom) / 2 };
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A delay fault's value that holds its read or action until the test clears the fault (10 min: never reached). */
const HELD_MS = 600_000;

let device: Awaited<ReturnType<typeof startDemoDevice>>;
let client: RunnerClient;

const admin = (path: string, body?: unknown) => adminReply<Msg>(device.adminUrl, path, body);
const setFaults = async (faults: string[]) => expect((await admin('/faults', { faults })).status).toBe(200);
const setScreen = async (screen: string) => expect((await admin('/screen', { screen })).status).toBe(200);
const hierarchy = async () => {
  const reply = await client.request('request_hierarchy');
  expect(reply.success).toBe(true);
  return reply;
};
const observe = async () => {
  const reply = await client.request('request_sdk_observation');
  expect(reply.failure).toBeUndefined();
  return reply.snapshot as Msg;
};
const sdkAction = (action: unknown) => client.request('request_sdk_action', { actionJson: JSON.stringify(action) });

beforeAll(async () => {
  device = await startDemoDevice({ port: 0 });
  client = await RunnerClient.connect(device.runnerUrl);
}, 30_000);

afterAll(async () => {
  client?.close();
  await device?.close();
});

beforeEach(async () => {
  if (client.closed) client = await RunnerClient.connect(device.runnerUrl);
  await setFaults([]);
});

describe('runner socket', () => {
  it('answers /health and opens with connected, then the current hierarchy', async () => {
    const health = await fetch(device.runnerUrl.replace('ws://', 'http://').replace('/ws', '/health'));
    expect(health.status).toBe(200);
    const fresh = await RunnerClient.connect(device.runnerUrl);
    const connected = fresh.pushes[0] as Msg;
    expect(connected.type).toBe('connected');
    expect(connected.supportedFeatures).toContain('display_cutout_info');
    for (const command of [
      'request_hierarchy',
      'request_hierarchy_if_stale',
      'request_screenshot',
      'request_tap_coordinates',
      'request_swipe',
      'request_set_text',
      'request_append_text',
      'request_clear_text',
      'request_ime_action',
      'request_press_key',
      'request_launch_app',
      'get_sdk_capabilities',
      'request_sdk_observation',
      'request_sdk_action',
      'request_sdk_web_snapshot',
      'request_sdk_web_action',
    ])
      expect(connected.supportedCommands).toContain(command);
    const push = await fresh.waitForPush((m) => m.type === 'hierarchy_update');
    expect(push.requestId).toBeUndefined();
    expect(push.frameContext).toMatch(FRAME_CONTEXT);
    fresh.close();
  });

  it('answers garbage frames with typed errors and keeps serving', async () => {
    const notJson = JSON.parse(await client.sendRaw('{{{ not json'));
    expect(notJson).toMatchObject({ type: 'error', success: false });
    expect(notJson.error).toMatch(/invalid_json/);

    const unknown = JSON.parse(await client.sendRaw(JSON.stringify({ type: 'request_teleport', requestId: 'u1' })));
    expect(unknown).toMatchObject({ type: 'error', requestId: 'u1', success: false });

    const badPayload = JSON.parse(await client.sendRaw(JSON.stringify({ type: 'request_tap_coordinates', requestId: 'b1', x: 'left', y: 1, duration: 0 })));
    expect(badPayload).toMatchObject({ type: 'tap_coordinates_result', requestId: 'b1', success: false });
    expect(badPayload.error).toContain('x');

    const notObject = JSON.parse(await client.sendRaw('[1,2,3]'));
    expect(notObject.success).toBe(false);
    const binary = JSON.parse(await client.sendRaw(Buffer.from([1, 2, 3])));
    expect(binary.success).toBe(false);

    expect((await client.request('request_hierarchy')).success).toBe(true);
  });

  it('runner-drop-next drops the connection on the next request, once', async () => {
    await setFaults(['runner-drop-next']);
    const closed = new Promise<void>((resolve) => client.ws.once('close', () => resolve()));
    client.ws.send(JSON.stringify({ type: 'request_hierarchy', requestId: 'dropped' }));
    await closed;
    expect((await admin('/faults')).body.faults).toEqual([]);
    client = await RunnerClient.connect(device.runnerUrl);
    expect((await client.request('request_hierarchy')).success).toBe(true);
  });

  it('runner-garbage answers the next request with non-JSON garbage, once', async () => {
    await setFaults(['runner-garbage']);
    const frame = await client.sendRaw(JSON.stringify({ type: 'request_hierarchy', requestId: 'g1' }));
    expect(() => JSON.parse(frame)).toThrow();
    expect((await client.request('request_hierarchy')).success).toBe(true);
  });
});

describe('XCTest view of the app', () => {
  it('request_hierarchy reads the Login screen the way XCTest does', async () => {
    await setScreen('login');
    const reply = await hierarchy();
    expect(reply.type).toBe('hierarchy_update');
    expect(reply.frameContext).toMatch(FRAME_CONTEXT);
    const data = reply.data as Msg;
    expect(data).toMatchObject({
      packageName: 'dev.parallax.demo',
      screenWidth: 402,
      screenHeight: 874,
      screenScale: 3,
      pixelWidth: 1206,
      pixelHeight: 2622,
      rotation: 0,
    });
    const root = data.hierarchy as UiNode;
    expect(root.className).toBe('XCUIApplication');
    for (const n of nodes(root)) {
      for (const v of Object.values(n.bounds ?? {})) expect(Number.isInteger(v)).toBe(true);
      for (const flag of ['clickable', 'enabled', 'focused', 'password', 'scrollable', 'selected'] as const) {
        if (n[flag] !== undefined) expect(['true', 'false']).toContain(n[flag]);
      }
    }
    expect(byId(root, 'login.username')).toMatchObject({ className: 'UITextField', role: 'textfield', 'hint-text': 'Email or username' });
    expect(byId(root, 'login.password')).toMatchObject({ className: 'UISecureTextField', password: 'true' });
    expect(byId(root, 'login.submit')).toMatchObject({ className: 'UIButton', text: 'Sign In', clickable: 'true' });
    expect(byId(root, 'login.passkey')).toMatchObject({ className: 'UIButton', enabled: 'false' });
    expect(nodes(root).some((n) => n.className === 'UILabel' && n.text === 'Sign In')).toBe(true);
    // Insets measured from the rendered chrome: status bar + island on top, home indicator below.
    expect(data.insets).toMatchObject({
      available: true,
      units: 'points',
      safeArea: { top: 62, left: 0, bottom: 34, right: 0 },
      displayCutoutInfo: { classification: 'dynamic_island', bounds: [{ left: 138, top: 11, right: 264, bottom: 48 }] },
    });
  });

  it('request_hierarchy_if_stale serves its cache until the screen changes', async () => {
    await setScreen('login');
    await client.request('request_hierarchy');
    const again = await client.request('request_hierarchy_if_stale');
    expect(again.servedFromCache).toBe(true);
    await setScreen('feed');
    const changed = await client.request('request_hierarchy_if_stale');
    expect(changed.servedFromCache).toBe(false);
    expect(changed.frameContext).not.toBe(again.frameContext);
  });

  it('request_screenshot is a 1206 x 2622 PNG stamped with the frame context', async () => {
    await setScreen('login');
    const shot = await client.request('request_screenshot');
    expect(shot).toMatchObject({ type: 'screenshot', success: true, format: 'png', rotation: 0 });
    expect(shot.frameContext).toMatch(FRAME_CONTEXT);
    const png = PNG.sync.read(Buffer.from(shot.data, 'base64'));
    expect([png.width, png.height]).toEqual([1206, 2622]);
  });

  it('a tap at a button centre changes what the next screenshot shows', async () => {
    await admin('/reset', {});
    const before = await hierarchy();
    const submit = center(byId(before.data.hierarchy, 'login.submit'));
    const shot1 = PNG.sync.read(Buffer.from((await client.request('request_screenshot')).data, 'base64'));
    const tap = await client.request('request_tap_coordinates', { x: submit.x, y: submit.y, duration: 0, frameContext: before.frameContext });
    expect(tap).toMatchObject({ type: 'tap_coordinates_result', success: true });
    const shot2 = PNG.sync.read(Buffer.from((await client.request('request_screenshot')).data, 'base64'));
    // The status message appears just below the disabled button (points 454-496 → pixels 1362-1488).
    const rowDiff = (y: number) => {
      let diff = 0;
      for (let x = 0; x < 1206; x++) diff += Math.abs((shot1.data[(y * 1206 + x) * 4] ?? 0) - (shot2.data[(y * 1206 + x) * 4] ?? 0));
      return diff;
    };
    expect(rowDiff(1400)).toBeGreaterThan(10_000);
    const after = await hierarchy();
    expect(byId(after.data.hierarchy, 'login.status')?.text).toBe('Enter a username and a password.');
  });

  it.each(['feed', 'edges'])(
    'R-PERF-05: an unchanged %s screen is answered from the kept capture (a capture draws nothing the probe takes for a change), made smaller with the same pixels',
    async (screen) => {
      // A capture through an emulated 3x session redrew the page and back, and so retired itself.
      await setScreen(screen);
      // Until the screen is still (a screenshot that needed no capture): how long it takes to settle is the
      // machine's load, not the demo's, so no fixed pause stands for it. A demo that captured every time
      // would never get past this loop.
      const captures = async () => Number((((await admin('/stats')).body.picture ?? {}) as Msg).captures);
      let first = await client.request('request_screenshot');
      for (let was = await captures(), tries = 0; ; tries++) {
        first = await client.request('request_screenshot');
        const now = await captures();
        if (now === was) break;
        if (tries === 100) throw new Error(`the ${screen} screen never stood still: every screenshot was a new capture`);
        was = now;
        await sleep(150);
      }
      const kept = ((await admin('/stats')).body.picture ?? {}) as Msg;
      const shots = [];
      for (let i = 0; i < 3; i++) {
        shots.push((await client.request('request_screenshot')).data);
        await sleep(150);
      }
      const after = ((await admin('/stats')).body.picture ?? {}) as Msg;
      expect(after.captures).toBe(kept.captures);
      expect(after.reused).toBe(Number(kept.reused) + 3);
      // The kept capture, made smaller while the screen stays still: the same pixels, never more bytes.
      const pixels = (data: string) => PNG.sync.read(Buffer.from(data, 'base64')).data;
      const firstPixels = pixels(first.data);
      for (const data of shots) {
        expect(data.length).toBeLessThanOrEqual(first.data.length);
        expect(pixels(data).equals(firstPixels)).toBe(true);
      }
      const smaller = async () => ((await client.request('request_screenshot')).data as string).length;
      await expect.poll(smaller, { timeout: 40_000, interval: 200 }).toBeLessThan(first.data.length);
      await setScreen('login');
    },
    60_000,
  );

  it('R-PERF-05: a blinking caret is a change: screenshots of a focused field are captured again and show it blinking', async () => {
    await admin('/reset', {});
    const field = center(byId((await hierarchy()).data.hierarchy, 'login.username'));
    expect((await client.request('request_tap_coordinates', { x: field.x, y: field.y, duration: 0 })).success).toBe(true);
    const before = ((await admin('/stats')).body.picture ?? {}) as Msg;
    const pictures = new Set<string>();
    // Chromium blinks a caret every 500 ms: screenshots taken for a while see it on and off. Taken until they
    // have (at least 12, as many as a loaded machine needs), so a slow capture cannot end the test early.
    for (let i = 0; i < 12 || (pictures.size < 2 && i < 200); i++) {
      pictures.add((await client.request('request_screenshot')).data as string);
      await sleep(200);
    }
    const after = ((await admin('/stats')).body.picture ?? {}) as Msg;
    expect(pictures.size).toBeGreaterThan(1);
    expect(Number(after.captures) - Number(before.captures)).toBeGreaterThan(1);
    await admin('/reset', {});
  }, 90_000);

  it('pushes hierarchy_update when the UI changes, with a new generation', async () => {
    await setScreen('login');
    const before = await hierarchy();
    const generation = Number(before.frameContext.split(':')[1]);
    const feedTab = center(byId(before.data.hierarchy, 'tab.feed'));
    await client.request('request_tap_coordinates', { x: feedTab.x, y: feedTab.y, duration: 0 });
    const push = await client.waitForPush((m) => m.type === 'hierarchy_update' && Number(m.frameContext.split(':')[1]) > generation);
    expect(byId(push.data.hierarchy, 'feed.list')).toBeDefined();
  });

  it('rejects a gesture whose frame context is stale, without touching the screen', async () => {
    await setScreen('login');
    const old = await hierarchy();
    await setScreen('feed');
    await setScreen('login');
    const submit = center(byId(old.data.hierarchy, 'login.submit'));
    const fresh = await hierarchy();
    const tap = await client.request('request_tap_coordinates', { x: submit.x, y: submit.y, duration: 0, frameContext: old.frameContext });
    expect(tap).toMatchObject({ success: false, error: STALE });
    const swipe = await client.request('request_swipe', { x1: 200, y1: 600, x2: 200, y2: 300, duration: 100, frameContext: old.frameContext });
    expect(swipe).toMatchObject({ type: 'swipe_result', success: false, error: STALE });
    expect((await hierarchy()).frameContext).toBe(fresh.frameContext);
  });

  it('types for real: set, append and clear text, secure fields read as bullets', async () => {
    await admin('/reset', {});
    const set = await client.request('request_set_text', { text: 'alice', resourceId: 'login.username' });
    expect(set).toMatchObject({ type: 'set_text_result', success: true });
    const append = await client.request('request_append_text', { text: '@example.com', resourceId: 'login.username' });
    expect(append).toMatchObject({ type: 'append_text_result', success: true });
    await client.request('request_set_text', { text: 'hunter2', resourceId: 'login.password' });
    let root = (await hierarchy()).data.hierarchy;
    expect(byId(root, 'login.username')?.text).toBe('alice@example.com');
    expect(byId(root, 'login.password')).toMatchObject({ text: '•••••••', focused: 'true' });
    const clear = await client.request('request_clear_text', { resourceId: 'login.username' });
    expect(clear).toMatchObject({ type: 'clear_text_result', success: true });
    root = (await hierarchy()).data.hierarchy;
    expect(byId(root, 'login.username')?.text).toBe('Email or username');
    const missing = await client.request('request_set_text', { text: 'x', resourceId: 'no.such.field' });
    expect(missing).toMatchObject({ success: false, error: 'Element not found: no.such.field' });
  });

  it('IME actions and key presses go to the focused field; without one they fail', async () => {
    await admin('/reset', {});
    const none = await client.request('request_set_text', { text: 'x' });
    expect(none).toMatchObject({ success: false, error: 'No focused text field' });
    expect((await client.request('request_ime_action', { action: 'done' })).success).toBe(false);

    await client.request('request_set_text', { text: 'carol', resourceId: 'login.username' });
    const next = await client.request('request_ime_action', { action: 'next' });
    expect(next).toMatchObject({ type: 'ime_action_result', success: true });
    let root = (await hierarchy()).data.hierarchy;
    expect(byId(root, 'login.password')?.focused).toBe('true');
    await client.request('request_set_text', { text: 'pw' });
    const go = await client.request('request_ime_action', { action: 'go' });
    expect(go.success).toBe(true);
    root = (await hierarchy()).data.hierarchy;
    expect(byId(root, 'login.status')?.text).toBe('Signed in as carol');

    const key = await client.request('request_press_key', { key: 'tab', modifiers: [] });
    expect(key).toMatchObject({ type: 'press_key_result', success: true });
    // The runner's RequestPressKey declares `modifiers: [String]` non-optional (RequestPressKey.swift:6):
    // a key press without it does not decode there, so the demo refuses it too.
    const unmodified = await client.request('request_press_key', { key: 'tab' } as never);
    expect(unmodified.success).toBe(false);
    const bad = await client.request('request_press_key', { key: 'hyperspace', modifiers: [] });
    expect(bad).toMatchObject({ success: false, error: 'Unsupported key: hyperspace' });
  });

  it('a long press is held for its duration and differs from a tap', async () => {
    await setScreen('edges');
    const flag = center(byId((await hierarchy()).data.hierarchy, 'edges.flag'));
    await client.request('request_tap_coordinates', { x: flag.x, y: flag.y, duration: 700 });
    expect(byId((await hierarchy()).data.hierarchy, 'edges.flag')?.value).toBe('long-pressed');
  });

  it('Feed: a long list with content above and below, scrolled by a real swipe, tab bar last', async () => {
    await admin('/reset', { screen: 'feed' });
    const root = (await hierarchy()).data.hierarchy as UiNode;
    const list = byId(root, 'feed.list') as UiNode;
    expect(list).toMatchObject({ className: 'UICollectionView', scrollable: 'true' });
    const cells = (list.node ?? []).filter((n) => n.className === 'UICollectionViewCell');
    expect(cells.some((c) => (c.bounds?.top ?? 0) < (list.bounds?.top ?? 0))).toBe(true);
    expect(cells.some((c) => (c.bounds?.bottom ?? 0) > 874)).toBe(true);
    // Traversal order: the tab bar comes after the list.
    const order = nodes(root).map((n) => n['resource-id']);
    expect(order.indexOf('Tab Bar')).toBeGreaterThan(order.indexOf('feed.list'));
    const firstId = cells[0]?.['resource-id'];

    const swipe = await client.request('request_swipe', { x1: 200, y1: 650, x2: 200, y2: 250, duration: 200 });
    expect(swipe).toMatchObject({ type: 'swipe_result', success: true });
    // The fling's scroll has been read (no change waiting) before the list is read again.
    await untilQuiet(device.adminUrl);
    const after = byId((await hierarchy()).data.hierarchy, 'feed.list') as UiNode;
    expect(after.node?.[0]?.['resource-id']).not.toBe(firstId);
  });

  it('request_launch_app relaunches the demo app cold and refuses other bundles', async () => {
    await setScreen('login');
    await client.request('request_set_text', { text: 'dave', resourceId: 'login.username' });
    const other = await client.request('request_launch_app', { bundleId: 'com.apple.Preferences' });
    expect(other).toMatchObject({ type: 'launch_app_result', success: false });
    const launch = await client.request('request_launch_app', { bundleId: 'dev.parallax.demo', coldBoot: true });
    expect(launch).toMatchObject({ type: 'launch_app_result', success: true });
    expect(byId((await hierarchy()).data.hierarchy, 'login.username')?.text).toBe('Email or username');
  });

  it('Edges: controls overlap the status bar, the Dynamic Island and the home indicator', async () => {
    await setScreen('edges');
    const reply = await hierarchy();
    const root = reply.data.hierarchy as UiNode;
    const island = reply.data.insets.displayCutoutInfo.bounds[0];
    const close = byId(root, 'edges.close')?.bounds;
    const underIsland = byId(root, 'edges.island')?.bounds;
    const home = byId(root, 'edges.home')?.bounds;
    expect(close && close.top < 62).toBe(true);
    expect(underIsland && underIsland.top < island.bottom && underIsland.left < island.right && underIsland.right > island.left).toBe(true);
    expect(home && home.bottom > 874 - 34).toBe(true);
  });

  it('R-STR-09: Hostile (Bluesky-class): the regular read degrades to the application root, the raw read fails with kAXErrorIllegalArgument; the SDK bridge describes every control', async () => {
    await setScreen('hostile');
    const visible = await client.request('request_hierarchy');
    expect(visible).toMatchObject({ type: 'hierarchy_update', success: true });
    expect(visible.data.hierarchy.className).toBe('XCUIApplication');
    expect(visible.data.hierarchy.node ?? []).toHaveLength(0);
    const reply = await client.request('request_hierarchy', { disableAllFiltering: true });
    expect(reply).toMatchObject({ type: 'hierarchy_update', success: false });
    expect(reply.error).toContain('kAXErrorIllegalArgument');
    expect(reply.data).toBeUndefined();
    const snapshot = await observe();
    const ids = JSON.stringify(snapshot.root);
    for (const id of ['hostile.like', 'hostile.repost', 'hostile.share', 'hostile.reply', 'hostile.notify', 'hostile.post.send', 'tab.login'])
      expect(ids).toContain(`"${id}"`);
    // The screen still works: a tap on "Like" through the bridge changes it.
    const accepted = await sdkAction({ tap: { observationIdentity: Number(snapshot.captureIdentity), elementId: 'hostile.like' } });
    expect(accepted.result.status).toBe('accepted');
  });

  it('Checkout: the web view appears as XCTest leaves with labels and values, no DOM ids', async () => {
    await setScreen('checkout');
    const root = (await hierarchy()).data.hierarchy as UiNode;
    const webView = nodes(root).find((n) => n.className === 'WKWebView') as UiNode;
    expect(webView).toBeDefined();
    const leaves = nodes(webView).slice(1);
    expect(leaves.length).toBeGreaterThan(10);
    expect(leaves.every((n) => n['resource-id'] === undefined)).toBe(true);
    expect(leaves.find((n) => n['content-desc'] === 'Email' || n.text === 'Email')).toBeDefined();
    expect(leaves.find((n) => n.className === 'UISecureTextField')).toBeDefined();
    // Content below the fold is reported with off-screen bounds.
    expect(leaves.some((n) => (n.bounds?.top ?? 0) > 874)).toBe(true);
  });
});

describe('XCTest faults', () => {
  it('xctest-ax-error fails every read, xctest-sparse returns only the root, xctest-slow grinds', async () => {
    await setScreen('login');
    await setFaults(['xctest-ax-error']);
    const failed = await client.request('request_hierarchy');
    expect(failed.success).toBe(false);
    expect(failed.error).toContain('kAXErrorIllegalArgument');

    await setFaults(['xctest-sparse']);
    const sparse = await hierarchy();
    expect(sparse.data.hierarchy.className).toBe('XCUIApplication');
    expect(sparse.data.hierarchy.node).toBeUndefined();

    // The grind is a gate the test opens, not a clock: held far past anything here (10 min), the read is
    // still out once the device has it and the test has taken another round trip, and it answers as soon as
    // the fault is cleared, long before its time is up.
    await setFaults([`xctest-slow=${HELD_MS}`]);
    let answered = false;
    const slow = client.request('request_hierarchy').then((reply) => ((answered = true), reply));
    await untilStats(device.adminUrl, 'grinding the read', (stats) => stats.busy > 0);
    await admin('/stats');
    expect(answered).toBe(false);
    await setFaults([]);
    expect((await slow).success).toBe(true);
  });
});

describe('SDK capabilities', () => {
  it('reports both bridges, and copes with old, absent, unregistered and malformed ones', async () => {
    const caps = await client.request('get_sdk_capabilities');
    expect(caps).toMatchObject({ type: 'sdk_capabilities_result', success: true, available: true, bundleId: 'dev.parallax.demo' });
    expect(caps.observationBridge).toEqual({
      schemaVersion: 1,
      available: true,
      supportedActions: ['back', 'clearText', 'insertText', 'longPress', 'scroll', 'swipe', 'tap'],
    });
    expect(caps.webViewBridge[0]).toMatchObject({ webViewId: 'checkout', allowedOrigins: ['https://checkout.parallax.test'], contentProcessAvailable: true });
    expect([...caps.capabilities].sort()).toEqual(caps.capabilities);

    await setFaults(['sdk-too-old']);
    const old = await client.request('get_sdk_capabilities');
    expect(old).toMatchObject({ success: true, available: true });
    expect(old.observationBridge).toBeUndefined();
    expect(old.webViewBridge).toBeUndefined();

    await setFaults(['bridge-unregistered']);
    const unregistered = await client.request('get_sdk_capabilities');
    expect(unregistered.observationBridge).toEqual({ schemaVersion: 1, available: false, reason: 'NOT_REGISTERED', supportedActions: [] });

    await setFaults(['bridge-malformed']);
    const malformed = await client.request('get_sdk_capabilities');
    expect(malformed.success).toBe(true);
    expect(malformed.observationBridge).toBeUndefined();
    expect(malformed.webViewBridge).toHaveLength(1);

    await setFaults(['sdk-absent']);
    const absent = await client.request('get_sdk_capabilities');
    expect(absent).toMatchObject({ success: true, available: false, capabilities: [] });
  });
});

describe('SDK observation bridge', () => {
  it('serves snapshots whose identity moves with every capture', async () => {
    await setScreen('login');
    const a = await observe();
    expect(ObservationSnapshotSchema.safeParse(a).success).toBe(true);
    expect(a).toMatchObject({ orientation: 'portrait', coordinateSpace: 'screen', bounds: { left: 0, top: 0, right: 402, bottom: 874 } });
    const b = await observe();
    expect(BigInt(b.captureIdentity)).toBe(BigInt(a.captureIdentity) + 1n);
    expect(JSON.stringify(b.root)).toContain('"login.submit"');
  });

  it('accepts a tap and answers with the next observation identity', async () => {
    await admin('/reset', {});
    const snap = await observe();
    const reply = await sdkAction({ tap: { observationIdentity: Number(snap.captureIdentity), elementId: 'login.submit' } });
    expect(reply).toMatchObject({ type: 'sdk_action_result', success: true, available: true, result: { status: 'accepted' } });
    expect(BigInt(reply.result.nextObservationIdentity)).toBe(BigInt(snap.captureIdentity) + 1n);
    expect(byId((await hierarchy()).data.hierarchy, 'login.status')).toBeDefined();

    const typed = await sdkAction({
      insertText: { observationIdentity: Number(reply.result.nextObservationIdentity), elementId: 'login.username', text: 'erin' },
    });
    expect(typed.result.status).toBe('accepted');
    expect(byId((await hierarchy()).data.hierarchy, 'login.username')?.text).toBe('erin');
    const cleared = await sdkAction({ clearText: { observationIdentity: Number(typed.result.nextObservationIdentity), elementId: 'login.username' } });
    expect(cleared.result.status).toBe('accepted');
    expect(byId((await hierarchy()).data.hierarchy, 'login.username')?.text).toBe('Email or username');
  });

  it('scrolls the feed by a content-offset delta', async () => {
    await admin('/reset', { screen: 'feed' });
    const snap = await observe();
    const list = JSON.stringify(snap.root);
    expect(list).toContain('"feed.list"');
    const reply = await sdkAction({ scroll: { observationIdentity: Number(snap.captureIdentity), elementId: 'feed.list', delta: { x: 0, y: 720 } } });
    expect(reply.result.status).toBe('accepted');
    const after = await observe();
    expect(JSON.stringify(after.root)).toContain('"feed.cell.19"');
  });

  it('rejects in spec order: unsupported, stale, unknown, not actionable', async () => {
    await setScreen('login');
    const snap = await observe();
    const id = Number(snap.captureIdentity);
    const reason = async (action: unknown) => (await sdkAction(action)).result.reason;
    expect(await reason({ drag: { observationIdentity: id, elementId: 'login.submit', end: { x: 1, y: 1 }, durationMs: 100 } })).toBe('unsupported_action');
    expect(await reason({ pinch: { observationIdentity: id - 1, elementId: 'nope', scale: 2, durationMs: 100 } })).toBe('unsupported_action');
    expect(await reason({ tap: { observationIdentity: id - 1, elementId: 'login.submit' } })).toBe('stale_observation');
    expect(await reason({ tap: { observationIdentity: id, elementId: 'no.such.element' } })).toBe('unknown_element');
    expect(await reason({ tap: { observationIdentity: id, elementId: 'login.passkey' } })).toBe('element_not_actionable');
    expect(await reason({ insertText: { observationIdentity: id, elementId: 'login.submit', text: 'x' } })).toBe('element_not_actionable');
  });

  it('action_in_flight, and the executor: action_queue_overloaded, action_cancelled', async () => {
    // The executor holds the action until the test clears bridge-action-slow (a gate the test opens; its
    // 10 min is a ceiling never reached), and the action is budgeted for that long, so nothing here races a
    // timer. The test acts once the executor has the action, as the device's own count says: the runner
    // command, its SDK request and the executor's action are all running (busy 3).
    const heldAction = (snap: Msg) =>
      client.request(
        'request_sdk_action',
        { actionJson: JSON.stringify({ tap: { observationIdentity: Number(snap.captureIdentity), elementId: 'login.submit' } }), timeoutMs: 60_000 },
        90_000,
      );
    const executing = () => untilStats(device.adminUrl, 'running the held action', (stats) => stats.busy === 3);
    await setScreen('login');
    await untilQuiet(device.adminUrl);
    await setFaults([`bridge-action-slow=${HELD_MS}`]);
    let snap = await observe();
    const first = heldAction(snap);
    await executing();
    const second = await sdkAction({ tap: { observationIdentity: Number(snap.captureIdentity), elementId: 'login.submit' } });
    expect(second.result).toMatchObject({ status: 'rejected', reason: 'action_in_flight', durationMs: 0 });
    await setFaults([]);
    expect((await first).result.status).toBe('accepted');

    // The app resigns active while the executor holds the action: it is cancelled once let go.
    await setFaults([`bridge-action-slow=${HELD_MS}`]);
    snap = await observe();
    const cancelled = heldAction(snap);
    await executing();
    await setFaults(['app-inactive']);
    expect((await cancelled).result).toMatchObject({ status: 'cancelled', reason: 'action_cancelled' });

    // The fault makes the executor answer any reason for an otherwise valid action.
    for (const rejection of [
      'unsupported_action',
      'stale_observation',
      'unknown_element',
      'element_not_actionable',
      'action_in_flight',
      'action_queue_overloaded',
      'action_cancelled',
    ]) {
      await setFaults([`bridge-reject=${rejection}`]);
      snap = await observe();
      const reply = await sdkAction({ tap: { observationIdentity: Number(snap.captureIdentity), elementId: 'login.submit' } });
      const status = rejection === 'action_cancelled' ? 'cancelled' : 'rejected';
      expect(reply).toMatchObject({ available: true, result: { status, reason: rejection, durationMs: 0 } });
    }
  });

  it("R-CMD-13, R-CMD-14: answers in the SDK's Swift form, a host's own reason verbatim, and in the {success} form under bridge-success-form", async () => {
    await setScreen('login');
    await setFaults(['bridge-reject=unsupported_gesture']);
    let snap = await observe();
    const host = await sdkAction({ tap: { observationIdentity: Number(snap.captureIdentity), elementId: 'login.submit' } });
    expect(host.result).toEqual({ status: 'rejected', reason: 'unsupported_gesture', durationMs: 0 });
    await setFaults(['bridge-success-form']);
    snap = await observe();
    const accepted = await sdkAction({ tap: { observationIdentity: Number(snap.captureIdentity), elementId: 'login.submit' } });
    expect(accepted.result).toMatchObject({ success: true });
    expect(accepted.result).not.toHaveProperty('status');
    await setFaults(['bridge-success-form', 'bridge-reject=stale_observation']);
    snap = await observe();
    const refused = await sdkAction({ tap: { observationIdentity: Number(snap.captureIdentity), elementId: 'login.submit' } });
    expect(refused.result).toEqual({ success: false, reason: 'stale_observation' });
  });

  it('typed failures: invalid_action, bridge_unavailable, app_not_active, bad_reply', async () => {
    await setScreen('login');
    expect(await client.request('request_sdk_action', {})).toMatchObject({ available: true, failure: 'invalid_action' });
    expect(await client.request('request_sdk_action', { actionJson: '{"tap":' })).toMatchObject({ available: true, failure: 'invalid_action' });
    expect(await client.request('request_sdk_action', { actionJson: '{"javascript":{"source":"alert(1)"}}' })).toMatchObject({ failure: 'invalid_action' });

    const before = (await admin('/stats')).body.sdkRequests['POST /observation/action'] ?? 0;
    await setFaults(['bridge-unregistered']);
    expect(await client.request('request_sdk_observation')).toMatchObject({ available: false, failure: 'bridge_unavailable' });
    expect(await sdkAction({ tap: { observationIdentity: 1, elementId: 'login.submit' } })).toMatchObject({ available: false, failure: 'bridge_unavailable' });
    await setFaults(['sdk-absent']);
    expect(await client.request('request_sdk_observation')).toMatchObject({ available: false, failure: 'bridge_unavailable' });
    await setFaults(['sdk-too-old']);
    expect(await client.request('request_sdk_observation')).toMatchObject({ available: false, failure: 'bridge_unavailable' });
    await setFaults(['bridge-malformed']);
    expect(await sdkAction({ tap: { observationIdentity: 1, elementId: 'login.submit' } })).toMatchObject({ available: false, failure: 'bridge_unavailable' });
    // Nothing was sent to the SDK for any of them.
    expect((await admin('/stats')).body.sdkRequests['POST /observation/action'] ?? 0).toBe(before);

    await setFaults(['app-inactive']);
    expect(await client.request('request_sdk_observation')).toMatchObject({ available: true, failure: 'app_not_active' });
    expect(await sdkAction({ tap: { observationIdentity: 1, elementId: 'login.submit' } })).toMatchObject({ available: true, failure: 'app_not_active' });
  });

  it('bad_reply after the 2 s budget; a timed-out action is available:true and may still run', async () => {
    // The SDK's delays are far past the 2 s budget, so the answers below cannot depend on the machine's load:
    // a runner that waited for the SDK would answer the observation successfully (after 20 s), and the action's
    // reply would come after its effect instead of before it.
    await admin('/reset', {});
    await setFaults(['bridge-slow=20000']);
    expect(await client.request('request_sdk_observation')).toMatchObject({ available: true, failure: 'bad_reply' });

    // The executor holds the action until the test clears the fault: the reply comes before its effect on
    // any machine, and the effect after the gate opens.
    await setFaults([`bridge-action-slow=${HELD_MS}`]);
    const snap = await observe();
    const timedOut = await sdkAction({ tap: { observationIdentity: Number(snap.captureIdentity), elementId: 'login.submit' } });
    expect(timedOut).toMatchObject({ available: true, failure: 'bad_reply' });
    expect(byId((await hierarchy()).data.hierarchy, 'login.status')).toBeUndefined();
    // The executor still runs it after the runner gave up.
    await setFaults([]);
    await expect.poll(async () => byId((await hierarchy()).data.hierarchy, 'login.status'), { timeout: 30_000, interval: 200 }).toBeDefined();
  }, 40_000);

  it('bridge-coordinate-space=window reports window-relative bounds', async () => {
    await setScreen('login');
    const screen = await observe();
    await setFaults(['bridge-coordinate-space=window']);
    const window = await observe();
    expect(window.coordinateSpace).toBe('window');
    const find = (node: Msg, id: string): Msg | undefined => (node.id === id ? node : node.children.map((c: Msg) => find(c, id)).find(Boolean));
    expect(find(window.root, 'login.submit')?.bounds.top).toBe(find(screen.root, 'login.submit')!.bounds.top - 62);
  });

  it('capture identities above 2^53 go out and come back digit for digit', async () => {
    await setScreen('login');
    await setFaults(['capture-identity-base=18446744073709551000']);
    const { raw } = await client.requestRaw('request_sdk_observation');
    expect(raw).toContain('"captureIdentity":18446744073709551000');
    // The action names the identity as bare digits, as a Swift client would.
    const actionJson = '{"tap":{"observationIdentity":18446744073709551000,"elementId":"login.submit"}}';
    const reply = await client.requestRaw('request_sdk_action', { actionJson });
    expect(reply.msg.result?.status).toBe('accepted');
    expect(reply.raw).toContain('"nextObservationIdentity":18446744073709551001');
    // What a float would have made of it is not a UInt64 at all.
    const rounded = '{"tap":{"observationIdentity":18446744073709551616,"elementId":"login.submit"}}';
    expect(await client.request('request_sdk_action', { actionJson: rounded })).toMatchObject({ failure: 'invalid_action' });
    const stale = '{"tap":{"observationIdentity":18446744073709551000,"elementId":"login.submit"}}';
    expect((await client.request('request_sdk_action', { actionJson: stale })).result.reason).toBe('stale_observation');
  });
});

describe('admin endpoint', () => {
  it('switches screens, validates faults and counts requests per command', async () => {
    expect((await admin('/faults', { faults: ['no-such-fault'] })).status).toBe(400);
    expect((await admin('/faults', { faults: ['xctest-slow=abc'] })).status).toBe(400);
    expect((await admin('/faults', { add: ['web-redact'] })).body.faults).toEqual(['web-redact']);
    expect((await admin('/faults', { remove: ['web-redact'] })).body.faults).toEqual([]);
    expect((await admin('/screen', { screen: 'nowhere' })).status).toBe(400);
    await setScreen('feed');
    expect((await admin('/screen')).body.screen).toBe('feed');
    const before = (await admin('/stats')).body.requests.request_screenshot ?? 0;
    await client.request('request_screenshot');
    const stats = (await admin('/stats')).body;
    expect(stats.requests.request_screenshot).toBe(before + 1);
    expect(stats.frameContext).toMatch(FRAME_CONTEXT);
  });
});
