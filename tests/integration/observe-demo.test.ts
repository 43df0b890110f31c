/**
 * One observe pass end to end: `Observer` over a real `RunnerClient` against the demo device, with the
 * device's faults standing in for the misbehaving apps, runners and SDKs the rules cover. One device for
 * the whole file (it costs a Chromium); each test starts from no faults and takes a fresh connection
 * where what it checks depends on what discovery cached.
 *
 * Request counts come from the device's admin stats, so "no read was sent" is checked where the reads
 * land, not inferred from the observation.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { startDemoDevice, type DemoDeviceHandle } from '@demo/index';
import { RunnerClient } from '@main/runner/client';
import { Observer } from '@main/runner/observer';
import type { ObserveOptions } from '@main/connection/connection';
import { nodeAtKey } from '@shared/model/tree';
import { isWebView } from '@shared/model/node';
import { elementTypeOf } from '@shared/model/element-type';
import { ObservationSchema, type LayoutWarning, type Observation } from '@shared/protocol/observation';
import type { HierarchyUpdate, HierarchyUpdateReply, UiNode } from '@shared/protocol/runner';
import { admin as demoAdmin } from '../support/demo-admin';

type Stats = { requests: Record<string, number>; sdkRequests: Record<string, number>; captureIdentity: string | null };

const BUNDLE = 'dev.parallax.demo';
const SCREEN = { width: 402, height: 874 };
/** The demo's iPhone 17 safe area: 62 pt under the status bar, 34 pt over the home indicator. */
const SAFE = { top: 62, bottom: 34 };
const BIG_IDENTITY = '18446744073709551000'; // above 2^53: a JS number would round it

let device: DemoDeviceHandle;
let opened: { close(): Promise<void> }[] = [];

const admin = <T = Record<string, unknown>>(path: string, body?: unknown) => demoAdmin<T>(device.adminUrl, path, body);
const setFaults = (faults: string[]) => admin('/faults', { faults });
const setScreen = (screen: string) => admin('/screen', { screen });
const stats = () => admin<Stats>('/stats');

/** What the device received between `before` and now, per runner command. */
async function sentSince(before: Stats): Promise<(command: string) => number> {
  const after = await stats();
  return (command) => (after.requests[command] ?? 0) - (before.requests[command] ?? 0);
}

async function connect(url = device.runnerUrl): Promise<RunnerClient> {
  const client = new RunnerClient(url, { reconnectInitialMs: 50, reconnectMaxMs: 200 });
  client.start();
  opened.push(client);
  await client.waitUntilConnected(10_000);
  return client;
}

/** A new connection and a new Observer: nothing cached from another test. */
async function freshObserver(url?: string): Promise<{ client: RunnerClient; observer: Observer }> {
  const client = await connect(url);
  return { client, observer: new Observer(client) };
}

/** One observe, decoded with the schema every other boundary uses. */
async function observe(observer: Observer, options: ObserveOptions = {}, pushed?: HierarchyUpdate): Promise<Observation> {
  const frame = await observer.observe({ screenshot: false, ...options }, pushed);
  return ObservationSchema.parse(frame.observation);
}

async function observeFresh(options: ObserveOptions = {}): Promise<Observation> {
  return observe((await freshObserver()).observer, options);
}

// ---- Tree helpers ----------------------------------------------------------------------------------

function all(root: UiNode | undefined): UiNode[] {
  if (!root) return [];
  return [root, ...(root.node ?? []).flatMap(all)];
}
const treeOf = (o: Observation) => o.viewHierarchy?.hierarchy;
const sourceOf = (n: UiNode) => n.extras?.['sdk.source'] ?? 'xctest';
const fromBridge = (o: Observation) => all(treeOf(o)).filter((n) => sourceOf(n) === 'sdkBridge');
const fromWeb = (o: Observation) => all(treeOf(o)).filter((n) => sourceOf(n) === 'sdkWebBridge');
const fromXctest = (o: Observation) => all(treeOf(o)).filter((n) => sourceOf(n) === 'xctest');
const find = (nodes: UiNode[], id: string) => nodes.find((n) => n['resource-id'] === id);
const isLeaf = (n: UiNode) => (n.node ?? []).length === 0;
const sameBounds = (a: UiNode, b: UiNode) =>
  !!a.bounds &&
  !!b.bounds &&
  a.bounds.left === b.bounds.left &&
  a.bounds.top === b.bounds.top &&
  a.bounds.right === b.bounds.right &&
  a.bounds.bottom === b.bounds.bottom;
const contains = (outer: UiNode['bounds'], inner: UiNode['bounds']) =>
  !!outer && !!inner && inner.left >= outer.left && inner.top >= outer.top && inner.right <= outer.right && inner.bottom <= outer.bottom;

/** The nodes on the path from the root to `key`, root first. */
function pathTo(root: UiNode, key: string): UiNode[] {
  const parts = key.split('.');
  return parts.map((_, i) => nodeAtKey(root, parts.slice(0, i + 1).join('.'))).filter((n): n is UiNode => n !== undefined);
}

/** The one outermost web view (XCTest's WKWebView, or the bridge node it folded into: R-OBS-09) and the nodes under it. */
function webView(o: Observation): UiNode {
  const views = all(treeOf(o)).filter((n) => isWebView(n) && sourceOf(n) !== 'sdkWebBridge');
  expect(views).toHaveLength(1);
  return views[0]!;
}

/** The XCTest tree as an xctestOnly observe of the same screen reports it: the reference for "left unchanged". */
async function xctestOnlyTree(): Promise<UiNode | undefined> {
  return treeOf(await observeFresh({ xctestOnly: true }));
}

/** Observes until `ready` holds: the web page posts its snapshot a moment after a (re)load. */
async function observeUntil(observer: Observer, ready: (o: Observation) => boolean, options: ObserveOptions = {}, timeoutMs = 8_000): Promise<Observation> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const observation = await observe(observer, options);
    if (ready(observation) || Date.now() > deadline) return observation;
    await new Promise((r) => setTimeout(r, 100));
  }
}
const webMerged = (o: Observation) => o.sources.web?.status === 'merged';

// ---- A runner in the middle ------------------------------------------------------------------------

/**
 * A WebSocket proxy in front of the device: forwards both ways, records what the client sent, and
 * swallows the commands named in `silence` (never forwarded, never answered), which is how a runner
 * that never answers one command looks to the client.
 */
async function startProxy(silence: readonly string[] = []): Promise<{ url: string; sent: Record<string, unknown>[]; close(): Promise<void> }> {
  const server: Server = createServer();
  const wss = new WebSocketServer({ server });
  const sent: Record<string, unknown>[] = [];
  const sockets = new Set<WebSocket>();
  wss.on('connection', (downstream) => {
    const upstream = new WebSocket(device.runnerUrl);
    sockets.add(downstream).add(upstream);
    const queued: string[] = [];
    upstream.on('open', () => queued.splice(0).forEach((frame) => upstream.send(frame)));
    upstream.on('message', (data) => downstream.readyState === WebSocket.OPEN && downstream.send(data.toString()));
    upstream.on('close', () => downstream.close());
    downstream.on('close', () => upstream.close());
    downstream.on('message', (data) => {
      const text = data.toString();
      const message = JSON.parse(text) as Record<string, unknown>;
      sent.push(message);
      if (silence.includes(String(message.type))) return;
      if (upstream.readyState === WebSocket.OPEN) upstream.send(text);
      else queued.push(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxy = {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/ws`,
    sent,
    close: async () => {
      for (const socket of sockets) socket.terminate();
      wss.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  opened.push(proxy);
  return proxy;
}

// ---- Lifecycle -------------------------------------------------------------------------------------

beforeAll(async () => {
  device = await startDemoDevice({ port: 0 });
}, 30_000);

afterAll(async () => {
  await device?.close();
});

beforeEach(async () => {
  await setFaults([]);
  await setScreen('login');
});

afterEach(async () => {
  const closing = opened.reverse();
  opened = [];
  for (const item of closing) await item.close();
});

// ---- Discovery -------------------------------------------------------------------------------------

describe('Discovery', () => {
  const reasons: { rule: string; fault: string; reason: string }[] = [
    { rule: 'R-DISC-05', fault: 'bridge-unregistered', reason: 'NOT_REGISTERED' },
    { rule: 'R-DISC-06', fault: 'sdk-too-old', reason: 'SDK_TOO_OLD' },
    { rule: 'R-DISC-07', fault: 'sdk-absent', reason: 'SDK_UNAVAILABLE' },
    { rule: 'R-DISC-08', fault: 'bridge-malformed', reason: 'MALFORMED_RESPONSE' },
  ];
  for (const { rule, fault, reason } of reasons) {
    it(`${rule}: ${reason} (${fault}) — XCTest only, no bridge read, neither backend field`, async () => {
      await setFaults([fault]);
      const before = await stats();
      const observation = await observeFresh();
      const sent = await sentSince(before);

      expect(observation.bridge).toEqual({ available: false, reason });
      expect(sent('get_sdk_capabilities')).toBe(1);
      expect(sent('request_sdk_observation')).toBe(0);
      // For an app with no registered bridge observe carries neither field (docs/rules.md#r-sel-02).
      expect(observation.backend).toBeUndefined();
      expect(observation.fallbackReason).toBeUndefined();
      expect(observation.sources.bridge).toEqual({ status: 'not_read', reason });
      expect(fromBridge(observation)).toHaveLength(0);
      expect(observation.errors).toEqual([]);
      expect(treeOf(observation)).toEqual(await xctestOnlyTree());
    });
  }

  it('R-DISC-10: a probe the runner never answers is an error, never unavailable, and carries neither backend nor fallbackReason', async () => {
    const proxy = await startProxy(['get_sdk_capabilities']);
    const { observer } = await freshObserver(proxy.url);
    const before = await stats();
    const observation = await observe(observer);
    const sent = await sentSince(before);

    expect(proxy.sent.filter((m) => m.type === 'get_sdk_capabilities')).toHaveLength(1);
    expect(observation.errors).toEqual([expect.objectContaining({ stage: 'discovery', code: 'capability_query_failed' })]);
    expect(observation.bridge).toBeUndefined();
    expect(observation.backend).toBeUndefined();
    expect(observation.fallbackReason).toBeUndefined();
    expect(observation.sources.bridge).toEqual({ status: 'not_read', reason: 'probe_failed' });
    expect(sent('request_sdk_observation')).toBe(0);
    // The XCTest data is all there.
    expect(treeOf(observation)).toEqual(await xctestOnlyTree());

    // A failure is never cached as an answer: the next observe asks again.
    await observe(observer);
    expect(proxy.sent.filter((m) => m.type === 'get_sdk_capabilities')).toHaveLength(2);
  });

  it('R-DISC-03: the cache — a second observe of the same app sends no second get_sdk_capabilities', async () => {
    const { observer } = await freshObserver();
    const before = await stats();
    const first = await observe(observer);
    const second = await observe(observer);
    const sent = await sentSince(before);

    expect(sent('get_sdk_capabilities')).toBe(1);
    expect(sent('request_sdk_observation')).toBe(2);
    expect(first.bridge).toEqual(second.bridge);
    expect(second.bridge).toMatchObject({ available: true, schemaVersion: 1 });
  });

  it('R-DISC-03: a reconnect probes again (a new connection may be a relaunched app)', async () => {
    const { client, observer } = await freshObserver();
    await observe(observer);
    const before = await stats();

    // The device closes the socket on the next request; the client reconnects on its own.
    await setFaults(['runner-drop-next']);
    const reconnected = new Promise<void>((resolve) => client.on('state', (state) => state === 'connected' && resolve()));
    await expect(client.request('request_hierarchy', {})).rejects.toMatchObject({ code: 'disconnected' });
    await reconnected;
    await observe(observer);
    await observe(observer);
    const sent = await sentSince(before);

    expect(sent('get_sdk_capabilities')).toBe(1);
  });

  it('R-DISC-03: another foreground app probes again, and a reply for one app never answers for another', async () => {
    const { client, observer } = await freshObserver();
    await observe(observer);
    const read = (await client.request('request_hierarchy', {})) as HierarchyUpdateReply;
    const other: HierarchyUpdate = { type: 'hierarchy_update', data: { ...read.data!, packageName: 'com.example.other' }, timestamp: Date.now() };

    const before = await stats();
    const otherApp = await observe(observer, {}, other);
    const afterOther = await sentSince(before);
    // The SDK that answers is the demo app's: for the other app that is no SDK at all.
    expect(afterOther('get_sdk_capabilities')).toBe(1);
    expect(otherApp.activeWindow?.bundleId).toBe('com.example.other');
    expect(otherApp.bridge).toEqual({ available: false, reason: 'SDK_UNAVAILABLE' });
    expect(afterOther('request_sdk_observation')).toBe(0);
    expect(fromBridge(otherApp)).toHaveLength(0);

    const back = await observe(observer);
    const afterBack = await sentSince(before);
    expect(afterBack('get_sdk_capabilities')).toBe(2);
    expect(back.activeWindow?.bundleId).toBe(BUNDLE);
    expect(back.backend).toBe('sdk');
  });

  it('decision: a bridge read that answers bridge_unavailable contradicts the cached probe, which is probed again in the same observe', async () => {
    const { observer } = await freshObserver();
    expect((await observe(observer)).backend).toBe('sdk');
    await setFaults(['bridge-unregistered']);
    const before = await stats();
    const observation = await observe(observer);
    const sent = await sentSince(before);

    expect(sent('get_sdk_capabilities')).toBe(1);
    expect(observation.bridge).toEqual({ available: false, reason: 'NOT_REGISTERED' });
    expect(observation.backend).toBeUndefined();
    expect(observation.fallbackReason).toBeUndefined();
    expect(observation.errors).toEqual([]);
  });

  it('decision: an unavailable answer is probed again once it is older than the recheck interval (a bridge may register later)', async () => {
    let offset = 0;
    const client = await connect();
    const observer = new Observer(client, () => performance.now() + offset);
    await setFaults(['bridge-unregistered']);
    expect((await observe(observer)).bridge).toEqual({ available: false, reason: 'NOT_REGISTERED' });
    await setFaults([]);

    const before = await stats();
    expect((await observe(observer)).bridge).toEqual({ available: false, reason: 'NOT_REGISTERED' });
    expect((await sentSince(before))('get_sdk_capabilities')).toBe(0);

    offset += 60_000;
    const later = await observe(observer);
    expect((await sentSince(before))('get_sdk_capabilities')).toBe(1);
    expect(later.bridge).toMatchObject({ available: true });
    expect(later.backend).toBe('sdk');
  });
});

// ---- Backend selection -----------------------------------------------------------------------------

describe('Backend selection', () => {
  it('R-SEL-01: flag off (xctestOnly) — no probe, no bridge or web read, neither backend field', async () => {
    await setScreen('checkout');
    const before = await stats();
    const observation = await observeFresh({ xctestOnly: true });
    const sent = await sentSince(before);

    expect(sent('get_sdk_capabilities')).toBe(0);
    expect(sent('request_sdk_observation')).toBe(0);
    expect(sent('request_sdk_web_snapshot')).toBe(0);
    expect(observation.backend).toBeUndefined();
    expect(observation.fallbackReason).toBeUndefined();
    expect(observation.bridge).toBeUndefined();
    expect(observation.sources).toEqual({ bridge: { status: 'not_read', reason: 'flag_off' }, web: { status: 'not_read', reason: 'flag_off' } });
    expect(fromBridge(observation).length + fromWeb(observation).length).toBe(0);
  });
});

// ---- Observe: the native bridge --------------------------------------------------------------------

describe('Observe', () => {
  it('R-OBS-02: on Login the bridge snapshot is merged in place under the XCUIApplication node, backend sdk', async () => {
    const observation = await observeFresh();
    const root = treeOf(observation)!;

    expect(observation.backend).toBe('sdk');
    expect(observation.fallbackReason).toBeUndefined();
    expect(root.className).toBe('XCUIApplication');
    expect(sourceOf(root)).toBe('xctest');
    // The bridge's own root is the application again: its children take its place, not a second app node.
    expect(all(root).filter((n) => /^(application|XCUIApplication)$/i.test(n.className ?? ''))).toEqual([root]);
    expect(root.node!.map((n) => [n['resource-id'], sourceOf(n)])).toContainEqual(['screen.login', 'sdkBridge']);
    expect(root.node!.map((n) => [n['resource-id'], sourceOf(n)])).toContainEqual(['Tab Bar', 'sdkBridge']);
    expect(observation.sources.bridge).toMatchObject({ status: 'merged', reason: 'merged' });
  });

  it('R-OBS-03: bridge nodes map id → resource-id and test-tag, label → content-desc, value → text, role → class; enabled nodes are clickable', async () => {
    const { client, observer } = await freshObserver();
    await client.request('request_set_text', { resourceId: 'login.username', text: 'jane' });
    try {
      const observation = await observe(observer);
      const bridge = fromBridge(observation);
      const identity = observation.captureIdentity;
      expect(identity).toMatch(/^\d+$/);

      expect(find(bridge, 'login.submit')).toMatchObject({
        'resource-id': 'login.submit',
        'test-tag': 'login.submit',
        'content-desc': 'Sign In',
        className: 'button',
        clickable: 'true',
        'sdk-element-id': 'login.submit',
        'sdk-capture-identity': identity,
        extras: { 'sdk.source': 'sdkBridge' },
      });
      expect(find(bridge, 'login.username')).toMatchObject({ text: 'jane', 'content-desc': 'Username', className: 'textField', role: 'textfield' });
      // A secure field's text never leaves the app.
      expect(find(bridge, 'login.password')).toMatchObject({ className: 'secureTextField', role: 'textfield' });
      const passkey = find(bridge, 'login.passkey')!;
      expect(passkey.enabled).toBe('false');
      expect(passkey.clickable).toBeUndefined();
      for (const node of bridge) expect(node['sdk-capture-identity']).toBe(identity);
    } finally {
      await client.request('request_clear_text', { resourceId: 'login.username' });
    }
  });

  it('R-OBS-05: XCTest leaves with the same bounds and the same label or id as a bridge node are removed as duplicates', async () => {
    const observation = await observeFresh();
    const bridge = fromBridge(observation);
    // Leaves as XCTest read them: a container whose children all went is not one (and stays).
    const readLeaves = new Set(
      all(await xctestOnlyTree())
        .filter(isLeaf)
        .map((n) => n['view-id']),
    );
    const leaves = fromXctest(observation).filter((n) => readLeaves.has(n['view-id']));

    expect(observation.sources.bridge?.leaves).toBeGreaterThan(0);
    for (const leaf of leaves) {
      const twin = bridge.find(
        (b) =>
          sameBounds(b, leaf) &&
          ((leaf['resource-id'] !== undefined && leaf['resource-id'] === b['sdk-element-id']) ||
            (b['content-desc'] !== undefined && (b['content-desc'] === leaf.text || b['content-desc'] === leaf['content-desc']))),
      );
      expect(twin, `XCTest leaf ${leaf['resource-id'] ?? leaf.text} kept next to its bridge twin`).toBeUndefined();
    }
    // The controls are there once each, from the bridge.
    for (const id of ['login.username', 'login.password', 'login.submit', 'login.passkey', 'tab.feed']) {
      expect(
        all(treeOf(observation))
          .filter((n) => n['resource-id'] === id)
          .map(sourceOf),
      ).toEqual(['sdkBridge']);
    }
  });

  it('R-OBS-06: a snapshot in window coordinates (bridge-coordinate-space=window) is not merged — backend xctest, fallbackReason unavailable', async () => {
    await setFaults(['bridge-coordinate-space=window']);
    const before = await stats();
    const observation = await observeFresh();

    expect((await sentSince(before))('request_sdk_observation')).toBe(1);
    expect(observation.backend).toBe('xctest');
    expect(observation.fallbackReason).toBe('unavailable');
    expect(observation.sources.bridge).toEqual({ status: 'not_merged', reason: 'coordinate_space_window' });
    expect(observation.captureIdentity).toBeUndefined();
    expect(fromBridge(observation)).toHaveLength(0);
    expect(treeOf(observation)).toEqual(await xctestOnlyTree());
  });

  it('R-OBS-01, R-ERR-01: a bridge slower than its 2 s budget (bridge-slow=20000) — xctest/unavailable, an error entry, and all the XCTest data', async () => {
    // The bridge answers only after 20 s: an observe that waited for it would merge the bridge, so the fallback
    // below shows the 2 s budget gave up, whatever the machine's load.
    await setFaults(['bridge-slow=20000']);
    const observation = await observeFresh();

    expect(observation.backend).toBe('xctest');
    expect(observation.fallbackReason).toBe('unavailable');
    expect(observation.errors).toEqual([expect.objectContaining({ stage: 'bridge', code: expect.stringMatching(/^bridge_(no_answer|failure)$/) })]);
    expect(fromBridge(observation)).toHaveLength(0);
    expect(observation.quality).toEqual({ verdict: 'healthy', reason: 'xctest_tree' });
    await setFaults([]);
    expect(treeOf(observation)).toEqual(await xctestOnlyTree());
  });

  it('R-WIRE-10: a capture identity above 2^53 (capture-identity-base) stays exact, digit for digit, on the observation and every bridge node', async () => {
    await setFaults([`capture-identity-base=${BIG_IDENTITY}`]);
    const observation = await observeFresh();

    expect((await stats()).captureIdentity).toBe(BIG_IDENTITY);
    expect(observation.captureIdentity).toBe(BIG_IDENTITY);
    const bridge = fromBridge(observation);
    expect(bridge.length).toBeGreaterThan(5);
    for (const node of bridge) expect(node['sdk-capture-identity']).toBe(BIG_IDENTITY);
  });
});

// ---- Observe: web views ----------------------------------------------------------------------------

describe('Observe: one element, one row', () => {
  /** Nodes of different sources with the same frame and the same element type: one element shown twice. */
  const twice = (root: UiNode | undefined) => {
    const seen = new Map<string, string>();
    const out: string[] = [];
    for (const n of all(root)) {
      if (!n.bounds || n === root) continue;
      const key = `${n.bounds.left},${n.bounds.top},${n.bounds.right},${n.bounds.bottom}/${elementTypeOf(n)}`;
      const other = seen.get(key);
      if (other !== undefined && other !== sourceOf(n)) out.push(key);
      seen.set(key, sourceOf(n));
    }
    return out;
  };
  for (const screen of ['login', 'feed', 'checkout', 'hostile', 'edges']) {
    it(`R-OBS-09: on every demo screen each element is one row in the merged view, as reported in raw and XCTest only (${screen})`, async () => {
      await setScreen(screen);
      const { observer } = await freshObserver();
      const visible = await observe(observer, { strategy: 'visible' });
      const raw = await observe(observer, { strategy: 'raw' });
      const xctestOnly = await observe(observer, { xctestOnly: true });
      expect(visible.backend).toBe('sdk');
      expect(twice(treeOf(visible))).toEqual([]);
      // Of XCTest's own nodes, the merged view keeps only what no bridge node describes (here: the application).
      expect(fromXctest(visible).map((n) => n.className)).toEqual(['XCUIApplication']);
      // XCTest only and raw show everything as reported.
      expect(fromXctest(xctestOnly).length).toBe(all(treeOf(xctestOnly)).length);
      if (screen !== 'hostile') expect(fromXctest(raw).length).toBeGreaterThan(1);
    });
  }
});

describe('Observe: web views', () => {
  beforeEach(async () => {
    await setScreen('checkout');
  });

  it('R-OWV-04: on Checkout the snapshot merges under its WKWebView with its web identity, backend sdk', async () => {
    const { observer } = await freshObserver();
    const observation = await observeUntil(observer, webMerged);
    const view = webView(observation);
    const web = fromWeb(observation);

    expect(observation.sources.web).toMatchObject({ status: 'merged', reason: 'merged' });
    expect(observation.backend).toBe('sdk');
    expect(observation.webSnapshotId).toMatch(/^s\d+$/);
    expect(web.length).toBeGreaterThan(10);
    // Each DOM node sits under the web view.
    expect(all(view).filter((n) => sourceOf(n) === 'sdkWebBridge')).toHaveLength(web.length);
    for (const node of web) {
      expect(node).toMatchObject({
        'web-view-id': 'checkout',
        'web-snapshot-id': observation.webSnapshotId,
        'web-element-id': expect.stringMatching(/^e\d+$/),
        'web-document-id': expect.any(String),
        'web-origin': 'https://checkout.parallax.test',
        'web-role': expect.any(String),
      });
    }
    const placeOrder = web.find((n) => n['content-desc'] === 'Place order' || n.text === 'Place order')!;
    expect(placeOrder).toMatchObject({ 'web-role': 'button', clickable: 'true' });
    const payLater = web.find((n) => n['content-desc'] === 'Pay later' || n.text === 'Pay later')!;
    expect(payLater.enabled).toBe('false');
  });

  it('R-OWV-09: text inputs and textarea report role textfield, a checkbox does not', async () => {
    const observation = await observeUntil((await freshObserver()).observer, webMerged);
    const web = fromWeb(observation);
    const byLabel = (label: string, role: string) => web.find((n) => n['content-desc'] === label && n['web-role'] === role);

    for (const label of ['Full name', 'Email', 'Account password']) expect(byLabel(label, 'input')?.role).toBe('textfield');
    expect(byLabel('Delivery notes', 'textarea')?.role).toBe('textfield');
    const terms = byLabel('I agree to the terms', 'checkbox')!;
    expect(terms).toBeDefined();
    expect(terms.role).not.toBe('textfield');
  });

  it('R-OWV-07: a password input reports value-redacted, never its value as text', async () => {
    const observation = await observeUntil((await freshObserver()).observer, webMerged);
    const password = fromWeb(observation).find((n) => n['content-desc'] === 'Account password' && n['web-role'] === 'input')!;
    expect(password['value-redacted']).toBe('true');
    expect(password.password).toBe('true');
  });

  it('R-OWV-07: with redactText on (web-redact) every value is value-redacted, not text', async () => {
    await setFaults(['web-redact']);
    const observation = await observeUntil(
      (await freshObserver()).observer,
      (o) => webMerged(o) && fromWeb(o).some((n) => n['content-desc'] === 'Shipping' && n['value-redacted'] === 'true'),
    );
    const valued = fromWeb(observation).filter((n) => ['input', 'select', 'textarea', 'textbox', 'checkbox'].includes(n['web-role'] ?? ''));
    expect(valued.length).toBeGreaterThanOrEqual(6);
    for (const node of valued) expect(node['value-redacted'], node['content-desc']).toBe('true');
    const shipping = valued.find((n) => n['web-role'] === 'select')!;
    // The DOM value ("standard") never appears; only what XCTest itself read may.
    expect(all(treeOf(observation)).some((n) => n.text === 'standard' || n.value === 'standard')).toBe(false);
    expect(shipping['value-redacted']).toBe('true');
  });

  it('R-WEB-09: a button hidden by CSS is not emitted; elements below the web view are dropped', async () => {
    const observation = await observeUntil((await freshObserver()).observer, webMerged);
    const view = webView(observation);
    const tree = all(treeOf(observation));

    expect(tree.some((n) => n['content-desc'] === 'Apply coupon' || n.text === 'Apply coupon')).toBe(false);
    for (const label of ['Payment', 'Returns', 'Contact support']) {
      expect(
        tree.some((n) => n['content-desc'] === label || n.text === label),
        label,
      ).toBe(false);
    }
    for (const node of all(view).slice(1)) expect(contains(view.bounds, node.bounds), JSON.stringify(node.bounds)).toBe(true);
    // What lies below the fold is said on the web view instead.
    expect(view.extras?.hiddenContentBelow).toBe('true');
  });

  it('R-OWV-06: an id that occurs twice (web-duplicate-id) is dropped, both elements', async () => {
    await setFaults(['web-duplicate-id']);
    const { observer } = await freshObserver();
    const observation = await observeUntil(
      observer,
      (o) => webMerged(o) && !fromWeb(o).some((n) => n['content-desc'] === 'Email' && n['web-role'] === 'input'),
    );
    const web = fromWeb(observation);
    const ids = web.map((n) => n['web-element-id']);

    expect(new Set(ids).size).toBe(ids.length);
    expect(web.some((n) => n['content-desc'] === 'Full name' && n['web-role'] === 'input')).toBe(false);
    expect(web.some((n) => n['content-desc'] === 'Email' && n['web-role'] === 'input')).toBe(false);
    // Their XCTest leaves stay, without a web identity.
    const leaves = all(webView(observation)).filter((n) => sourceOf(n) === 'xctest' && n.role === 'textfield');
    expect(leaves.map((n) => n.text)).toEqual(expect.arrayContaining(['Jane Appleseed', 'jane@example.com']));
  });

  it('R-OWV-03: two web views on screen (web-two-webviews) make no read and merge nothing', async () => {
    await setFaults(['web-two-webviews']);
    const { observer } = await freshObserver();
    const before = await stats();
    const observation = await observe(observer);

    expect((await sentSince(before))('request_sdk_web_snapshot')).toBe(0);
    expect(observation.sources.web).toEqual({ status: 'not_read', reason: 'web_views_on_screen_2' });
    expect(fromWeb(observation)).toHaveLength(0);
    expect(all(treeOf(observation)).filter(isWebView)).toHaveLength(2);
  });

  for (const [fault, reason] of [
    ['web-process-terminated', 'web_process_unavailable'],
    ['web-disallowed-origin', 'disallowed_origin'],
  ] as const) {
    it(`R-OWV-15: a web view without a usable snapshot (${fault}) keeps only its XCTest nodes`, async () => {
      await setFaults([fault]);
      const observation = await observe((await freshObserver()).observer);

      expect(observation.sources.web).toEqual({ status: 'not_merged', reason });
      expect(fromWeb(observation)).toHaveLength(0);
      expect(observation.webSnapshotId).toBeUndefined();
      // A state of the page, not a failure of the read.
      expect(observation.errors).toEqual([]);
      // The native bridge still merged.
      expect(observation.backend).toBe('sdk');
    });
  }

  it('R-OWV-01, R-WEB-04: one unnamed snapshot read on Checkout, none on the other screens', async () => {
    const proxy = await startProxy();
    const { observer } = await freshObserver(proxy.url);
    for (const screen of ['checkout', 'login', 'feed', 'hostile', 'edges'] as const) {
      await setScreen(screen);
      const before = await stats();
      await observe(observer);
      const sent = await sentSince(before);
      expect(sent('request_sdk_web_snapshot'), screen).toBe(screen === 'checkout' ? 1 : 0);
    }
    const reads = proxy.sent.filter((m) => m.type === 'request_sdk_web_snapshot');
    expect(reads).toHaveLength(1);
    expect(reads[0]!.webViewId).toBeUndefined();
  });
});

// ---- Strategies and quality (docs/rules.md#r-strategies) --------------------------------------------

describe('strategies and quality', () => {
  it('R-STR-01, R-STR-05: on Feed raw has more nodes; visible marks hidden content above and below on the list and keeps the tab bar', async () => {
    await setScreen('feed');
    const { observer } = await freshObserver();
    const visible = await observe(observer, { strategy: 'visible' });
    const raw = await observe(observer, { strategy: 'raw' });

    expect(visible.strategy).toBe('visible');
    expect(raw.strategy).toBe('raw');
    expect(all(treeOf(raw)).length).toBeGreaterThan(all(treeOf(visible)).length);
    expect(fromXctest(raw).length).toBeGreaterThan(fromXctest(visible).length);
    // The rows the list keeps laid out just above and below its frame: raw has them, visible does not.
    for (const cell of ['feed.cell.8', 'feed.cell.20']) {
      expect(find(fromXctest(raw), cell), cell).toBeDefined();
      expect(find(fromXctest(visible), cell), cell).toBeUndefined();
    }

    // R-OBS-09: visible folds the XCTest list into the bridge's, which carries the projection's marks.
    expect(find(fromXctest(visible), 'feed.list')).toBeUndefined();
    const list = find(all(treeOf(visible)), 'feed.list')!;
    expect(list.extras).toMatchObject({ hiddenContentAbove: 'true', hiddenContentBelow: 'true', 'sdk.source': 'sdkBridge' });
    expect(find(fromXctest(raw), 'feed.list')!.extras?.hiddenContentAbove).toBeUndefined();
    // The tab bar comes after the list in traversal order and is part of the visible UI.
    const tree = all(treeOf(visible));
    expect(tree.some((n) => n.className === 'UITabBar' || n.className === 'tabBar')).toBe(true);
    for (const tab of ['tab.login', 'tab.feed', 'tab.checkout', 'tab.hostile', 'tab.edges']) expect(find(tree, tab), tab).toBeDefined();
  });

  it('R-QUA-03: Hostile (XCTest sparse, bridge complete) — visible is recovered with the bridge’s controls', async () => {
    await setScreen('hostile');
    const observation = await observeFresh({ strategy: 'visible' });

    expect(observation.quality).toEqual({ verdict: 'recovered', reason: 'sdk_bridge_supplied_controls' });
    expect(fromXctest(observation)).toHaveLength(1);
    const controls = fromBridge(observation).filter((n) => n.clickable === 'true' && n.className === 'button');
    expect(controls.length).toBeGreaterThan(5);
    expect(observation.backend).toBe('sdk');
    expect(observation.errors).toEqual([]);
  });

  it('R-STR-09: Hostile raw — the AX serialization failure is preserved as an error, never an empty screen', async () => {
    await setScreen('hostile');
    const observation = await observeFresh({ strategy: 'raw' });

    expect(observation.errors).toEqual([
      expect.objectContaining({ stage: 'xctest', code: 'ax_failure', message: expect.stringContaining('kAXErrorIllegalArgument') }),
    ]);
    expect(observation.quality).toEqual({ verdict: 'sparse', reason: 'ax_failure' });
    expect(observation.viewHierarchy).toBeUndefined();
  });

  it('R-QUA-02: xctest-sparse on Login — recovered with the bridge, sparse without it', async () => {
    await setFaults(['xctest-sparse']);
    const recovered = await observeFresh();
    expect(recovered.quality).toEqual({ verdict: 'recovered', reason: 'sdk_bridge_supplied_controls' });
    expect(find(fromBridge(recovered), 'login.submit')).toBeDefined();

    const xctestOnly = await observeFresh({ xctestOnly: true });
    expect(xctestOnly.quality).toEqual({ verdict: 'sparse', reason: 'application_root_only' });
    expect(all(treeOf(xctestOnly))).toHaveLength(1);

    await setFaults(['xctest-sparse', 'bridge-unregistered']);
    expect((await observeFresh()).quality).toEqual({ verdict: 'sparse', reason: 'application_root_only' });
  });
});

// ---- Layout warnings (R-LAY-01 to R-LAY-09) ---------------------------------------------------------

describe('layoutWarnings', () => {
  /** The overlap of a node with the unsafe strip on its side, as R-LAY-03 defines overflowPx. */
  const expectedOverflow = (w: LayoutWarning) => {
    const b = w.bounds;
    if (w.side === 'top') return Math.min(b.bottom, SAFE.top) - Math.max(b.top, 0);
    if (w.side === 'bottom') return Math.min(b.bottom, SCREEN.height) - Math.max(b.top, SCREEN.height - SAFE.bottom);
    return undefined;
  };

  it('R-LAY-02: Edges reports the controls at the top, on the cutout and at the bottom, with overflowPx and insetPx', async () => {
    await setScreen('edges');
    const observation = await observeFresh();
    const warnings = observation.layoutWarnings.warnings;
    const of = (caption: string, side: string) => warnings.find((w) => w.caption === caption && w.side === side);

    expect(observation.layoutWarnings.scope).toBe('full');
    expect(of('edges.close', 'top')).toMatchObject({ severity: 'error', region: 'statusBar', overflowPx: 36, insetPx: SAFE.top });
    expect(of('edges.flag', 'top')).toMatchObject({ severity: 'error', overflowPx: 36, insetPx: SAFE.top });
    // The Dynamic Island is 138..264 x 11..48: a button at 16..52 reaches 32 pt into it, 48 pt from the top edge.
    expect(of('edges.island', 'cutout')).toMatchObject({ severity: 'error', region: 'displayCutout', overflowPx: 32, insetPx: 48 });
    expect(of('edges.home', 'bottom')).toMatchObject({ severity: 'error', region: 'homeIndicator', overflowPx: 28, insetPx: SAFE.bottom });
    // The full-screen backdrop is intentional edge-to-edge content.
    expect(warnings.filter((w) => w.caption === 'edges.backdrop').map((w) => [w.severity, w.advisory])).toEqual(
      expect.arrayContaining([['advisory', 'edgeToEdgeBackground']]),
    );
    for (const w of warnings) {
      const expected = expectedOverflow(w);
      if (expected !== undefined) expect(w.overflowPx, `${w.caption} ${w.side}`).toBe(expected);
      expect(nodeAtKey(treeOf(observation)!, w.nodeKey)?.bounds).toEqual(w.bounds);
    }
    // Errors first.
    expect(warnings[0]!.severity).toBe('error');
  });

  it('R-LAY-05: on Feed the list rows under the status bar and over the home indicator are scrollable content, advisory', async () => {
    await setScreen('feed');
    const observation = await observeFresh();
    const root = treeOf(observation)!;
    const inList = (w: LayoutWarning) =>
      pathTo(root, w.nodeKey)
        .slice(0, -1)
        .some((n) => n['resource-id'] === 'feed.list');
    const rows = observation.layoutWarnings.warnings.filter(inList);

    expect(rows.some((w) => w.side === 'top')).toBe(true);
    expect(rows.some((w) => w.side === 'bottom')).toBe(true);
    for (const w of rows) expect([w.caption, w.side, w.severity]).toEqual([w.caption, w.side, 'advisory']);
    expect(rows.filter((w) => w.side === 'top' && w.advisory === 'scrollableContent').length).toBeGreaterThan(0);
  });

  it('R-LAY-03: every top and bottom finding reaches exactly as far into the inset strip as its frame does (the tab bar included)', async () => {
    for (const screen of ['login', 'feed', 'checkout'] as const) {
      await setScreen(screen);
      const observation = await observeFresh();
      for (const w of observation.layoutWarnings.warnings) {
        expect(w.insetPx).toBe(w.side === 'top' ? SAFE.top : w.side === 'bottom' ? SAFE.bottom : w.insetPx);
        const expected = expectedOverflow(w);
        if (expected !== undefined) expect(w.overflowPx, `${screen} ${w.caption} ${w.side}`).toBe(expected);
      }
      // Only frames that really reach into the strips are findings.
      for (const w of observation.layoutWarnings.warnings.filter((x) => x.side === 'bottom')) {
        expect(w.bounds.bottom).toBeGreaterThan(SCREEN.height - SAFE.bottom);
      }
    }
  });
});
