/**
 * Compare through the API, against the demo device over its real sockets: on Checkout and
 * Hostile, what the bridge and the web view add to the SDK-backed tree is classified against the
 * XCTest-only read of the same moment, the diff's keys name nodes of the frames the API returns, and a
 * comparison saved into a recording comes back from the trace whole.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { intersectionOverUnion, type DiffClass } from '@shared/compare/diff';
import {
  ComparisonViewSchema,
  RecordingStatusSchema,
  TraceOpenedSchema,
  TraceResourceSchema,
  type TraceResource,
  type ApiEvent,
  type ComparisonView,
} from '@shared/api/api';
import type { Frame } from '@shared/protocol/device';
import type { UiNode } from '@shared/protocol/runner';
import { nodeSource, xctestTwinOf } from '@shared/model/node';
import { pairIndex, shownDifferences, shownSummary, summaryText } from '@shared/compare/sides';
import { elementTypeOf } from '@shared/selectors';
import { indexTree, nodeAtKey, type FlatNode } from '@shared/model/tree';
import { failed } from '../support/results';
import { useHostOverDemo } from '../support/host-over-demo';

const host = useHostOverDemo();
const handle = (method: string, params: unknown) => host.handle(method, params);
const call = (method: string, params: unknown) => host.call<unknown>(method, params);
let deviceId: string;

beforeAll(async () => {
  deviceId = host.services.manager.connect(host.demo.runnerUrl, { kind: 'demo', name: 'Demo' }).id;
  await host.services.manager.connectionOf(deviceId).waitUntilConnected(10_000);
}, 60_000);

async function setScreen(screen: string): Promise<void> {
  const response = await fetch(`${host.demo.adminUrl}/screen`, { method: 'POST', body: JSON.stringify({ screen }) });
  expect(response.status, await response.text()).toBe(200);
}

/** How long a comparison may take to show what it waits for: a ceiling that only catches a hang, far past a loaded machine's need. */
const COMPARE_CEILING_MS = 60_000;
/** A test that compares until ready: the ceiling above, and room for the rest of the test. */
const COMPARING = { timeout: COMPARE_CEILING_MS + 60_000 };

/**
 * Compares until the SDK-backed read has merged what `ready` waits for and both reads saw one screen:
 * a web page posts its first snapshot a moment after the screen shows it, and later still on a busy
 * machine. Past the ceiling it throws, saying what was still missing.
 */
async function compareWhen(ready: (sdk: Frame) => boolean): Promise<ComparisonView> {
  const deadline = Date.now() + COMPARE_CEILING_MS;
  for (;;) {
    const view = ComparisonViewSchema.parse(await call('device.compare', { deviceId }));
    if (ready(view.sdk) && view.sameScreen === true) return view;
    if (Date.now() > deadline) {
      const sources = JSON.stringify(view.sdk.observation?.sources ?? null);
      throw new Error(`device.compare: not ready after ${COMPARE_CEILING_MS} ms (sameScreen ${String(view.sameScreen)}, SDK-backed sources ${sources})`);
    }
    await new Promise((r) => setTimeout(r, 150));
  }
}

const bridgeMerged = (frame: Frame) => frame.observation?.sources.bridge?.status === 'merged';
const webMerged = (frame: Frame) => bridgeMerged(frame) && frame.observation?.sources.web?.status === 'merged';

const treeOf = (frame: Frame) => indexTree(frame.observation?.viewHierarchy?.hierarchy);
const addedBySdk = (flat: FlatNode) => nodeSource(flat.node) !== 'xctest';
const labelOf = (node: UiNode) => (node['content-desc'] ?? node.text ?? '').trim();

/**
 * Whether the XCTest-only tree holds this node in any form: the same accessibility identifier, or the
 * same label over most of the same box. Judged here without the diff, so the test does not grade the
 * diff by its own answers.
 */
function xctestSees(xctest: readonly FlatNode[], node: UiNode): boolean {
  const id = node['resource-id'];
  const label = labelOf(node);
  const sameFrame = (x: UiNode) => JSON.stringify(x.bounds) === JSON.stringify(node.bounds);
  return xctest.some(({ node: x }) => {
    if (id && x['resource-id'] === id) return true;
    // An element with nothing to name it by (a web view, an anonymous image) is the one of its type in its frame.
    if (sameFrame(x) && elementTypeOf(x) === elementTypeOf(node) && elementTypeOf(x) !== 'Other' && !x['resource-id'] && labelOf(x) === '') return true;
    return label !== '' && labelOf(x) === label && !!x.bounds && !!node.bounds && intersectionOverUnion(x.bounds, node.bounds) >= 0.5;
  });
}

function classesOf(view: ComparisonView, sdkKey: string): DiffClass[] {
  return view.diff.differences.filter((d) => d.sdkKey === sdkKey).map((d) => d.class);
}

/** What holds for any comparison the API returns: the diff speaks of the frames it came with. */
function expectConsistent(view: ComparisonView): void {
  const xctest = treeOf(view.xctest);
  const sdk = treeOf(view.sdk);
  expect(view.diff.nodes).toEqual({ xctest: xctest.nodes.length, sdk: sdk.nodes.length });
  const xRoot = view.xctest.observation?.viewHierarchy?.hierarchy;
  const sRoot = view.sdk.observation?.viewHierarchy?.hierarchy;
  if (!xRoot || !sRoot) throw new Error('a comparison without both trees');
  for (const pair of view.diff.pairs) {
    expect(nodeAtKey(xRoot, pair.xctestKey), pair.xctestKey).toBeDefined();
    expect(nodeAtKey(sRoot, pair.sdkKey), pair.sdkKey).toBeDefined();
  }
  for (const d of view.diff.differences) {
    if (d.xctestKey !== undefined) expect(xctest.byKey.has(d.xctestKey), d.xctestKey).toBe(true);
    if (d.sdkKey !== undefined) expect(sdk.byKey.has(d.sdkKey), d.sdkKey).toBe(true);
  }
  // Each node pairs at most once, and a node that pairs is never "only" on one side.
  const xPaired = new Set(view.diff.pairs.map((p) => p.xctestKey));
  const sPaired = new Set(view.diff.pairs.map((p) => p.sdkKey));
  expect(xPaired.size).toBe(view.diff.pairs.length);
  expect(sPaired.size).toBe(view.diff.pairs.length);
  for (const d of view.diff.differences) {
    if (d.class === 'only_sdk') expect(sPaired.has(d.sdkKey!), d.sdkKey).toBe(false);
    if (d.class === 'only_xctest') expect(xPaired.has(d.xctestKey!), d.xctestKey).toBe(false);
  }
  // Every node is either paired or named as only on its side, except the two halves of one element
  // the merge keeps side by side (a bridge node beside the XCTest node it describes): the bridge node
  // is named by its added identity, the XCTest copy by nothing, as the same element again.
  const onlyX = view.diff.differences.filter((d) => d.class === 'only_xctest').length;
  const onlyS = view.diff.differences.filter((d) => d.class === 'only_sdk').length;
  expect(xPaired.size + onlyX).toBe(xctest.nodes.length);
  const named = new Set(view.diff.differences.map((d) => d.sdkKey));
  const beside = sdk.nodes.filter((flat) => !sPaired.has(flat.key) && !view.diff.differences.some((d) => d.class === 'only_sdk' && d.sdkKey === flat.key));
  for (const flat of beside) {
    const bridgeHalf = xctestTwinOf(flat.node)?.kind === 'kept' && named.has(flat.key);
    const xctestHalf =
      nodeSource(flat.node) === 'xctest' &&
      sdk.nodes.some((other) => xctestTwinOf(other.node)?.kind === 'kept' && JSON.stringify(other.node.bounds) === JSON.stringify(flat.node.bounds));
    expect(bridgeHalf || xctestHalf, `${flat.key} is neither paired, only in SDK-backed, nor half of a kept pair`).toBe(true);
  }
  expect(sPaired.size + onlyS + beside.length).toBe(sdk.nodes.length);
  // The summary counts the differences, class by class.
  for (const [cls, count] of Object.entries(view.diff.summary)) {
    expect(view.diff.differences.filter((d) => d.class === cls).length, cls).toBe(count);
  }
  // The XCTest-only read is what plain XCTest sees, without a picture; the one screenshot rides on the SDK-backed read.
  expect(xctest.nodes.filter(addedBySdk)).toEqual([]);
  expect(view.xctest.screenshot).toBeNull();
  expect(view.sdk.screenshot?.format).toBe('png');
  expect(view.stamps.xctest.frameContext).toBe(view.stamps.sdk.frameContext);
}

/**
 * The check: every node the bridge or the web view adds that XCTest cannot see is "only in
 * SDK-backed"; one XCTest sees too is paired and gains the identity the bridge or web view gave it.
 * Returns the unseen ones.
 */
function expectAddedNodesClassified(view: ComparisonView): FlatNode[] {
  const xctest = treeOf(view.xctest).nodes;
  const added = treeOf(view.sdk).nodes.filter(addedBySdk);
  expect(added.length).toBeGreaterThan(0);
  const unseen = added.filter((flat) => !xctestSees(xctest, flat.node));
  for (const flat of unseen) expect(classesOf(view, flat.key), `${flat.key} ${flat.node['resource-id'] ?? labelOf(flat.node)}`).toEqual(['only_sdk']);
  for (const flat of added) {
    const classes = classesOf(view, flat.key);
    expect(classes.includes('only_sdk') || classes.includes('identity_added'), `${flat.key} ${classes.join()}`).toBe(true);
  }
  // Nothing XCTest itself reported is missing from the XCTest-only read of the same moment.
  for (const d of view.diff.differences.filter((x) => x.class === 'only_sdk')) {
    expect(nodeSource(treeOf(view.sdk).byKey.get(d.sdkKey!)!.node), d.sdkKey).not.toBe('xctest');
  }
  return unseen;
}

/** Shows `screen`, compares it once `ready` holds, and checks what holds on every screen; returns the unseen added nodes. */
async function compareScreen(screen: string, ready: (sdk: Frame) => boolean): Promise<{ view: ComparisonView; unseen: FlatNode[] }> {
  await setScreen(screen);
  const view = await compareWhen(ready);
  expect(ready(view.sdk)).toBe(true);
  expect(view.sameScreen).toBe(true);
  expectConsistent(view);
  return { view, unseen: expectAddedNodesClassified(view) };
}

describe('device.compare', COMPARING, () => {
  it('Hostile: XCTest cannot read the screen; every control the bridge supplies is only in the SDK-backed tree', async () => {
    const { view, unseen } = await compareScreen('hostile', bridgeMerged);

    const onlySdkIds = view.diff.differences.filter((d) => d.class === 'only_sdk').map((d) => treeOf(view.sdk).byKey.get(d.sdkKey!)!.node['resource-id']);
    for (const id of ['hostile.like', 'hostile.repost', 'hostile.share', 'hostile.reply', 'hostile.notify', 'hostile.post.send', 'tab.checkout']) {
      expect(onlySdkIds).toContain(id);
    }
    // XCTest saw the application and nothing in it, so everything else on screen is unseen by it.
    expect(treeOf(view.xctest).nodes).toHaveLength(1);
    expect(unseen).toHaveLength(treeOf(view.sdk).nodes.filter(addedBySdk).length);
    expect(view.diff.summary.only_sdk).toBe(unseen.length);
    expect(view.diff.summary.only_xctest).toBe(0);
  });

  it('Checkout: web controls XCTest also reads gain their web identity; the web control hidden from accessibility and the bridge views XCTest cannot match are only in the SDK-backed tree', async () => {
    const { view, unseen } = await compareScreen('checkout', webMerged);
    expect(unseen.length).toBeGreaterThan(0);
    expect(unseen.length).toBeLessThanOrEqual(view.diff.summary.only_sdk);

    const sdk = treeOf(view.sdk);
    const web = sdk.nodes.filter((flat) => nodeSource(flat.node) === 'sdkWebBridge');
    const placeOrder = web.find((flat) => labelOf(flat.node) === 'Place order');
    expect(placeOrder).toBeDefined();
    const unseenKeys = new Set(unseen.map((flat) => flat.key));
    for (const flat of web) {
      const classes = view.diff.differences.filter((d) => d.sdkKey === flat.key).map((d) => d.class);
      if (unseenKeys.has(flat.key)) {
        expect(classes, flat.key).toEqual(['only_sdk']);
      } else {
        const identity = view.diff.differences.find((d) => d.sdkKey === flat.key && d.class === 'identity_added');
        expect(identity?.detail, flat.key).toMatch(/^web identity: web-view-id="checkout"/);
      }
    }
    // The chat launcher sits in an aria-hidden subtree: accessibility, and so XCTest, never sees it;
    // the page's DOM snapshot does, so only the SDK-backed tree has it.
    const chat = web.filter((flat) => labelOf(flat.node) === 'Chat');
    expect(chat).toHaveLength(1);
    expect(unseenKeys.has(chat[0]!.key)).toBe(true);
    // The bridge's own web view element is the XCTest WKWebView again: its identity is added, nothing more.
    const webView = sdk.nodes.find((flat) => flat.node.className === 'webView')!;
    expect(classesOf(view, webView.key)).toEqual(['identity_added']);
  });

  it('R-QA-12: an unchanged Checkout counts only what differs: the chat launcher XCTest cannot see, and identities added, one per element', async () => {
    const { view } = await compareScreen('checkout', webMerged);
    const sdk = treeOf(view.sdk);
    // Each DOM element merged over an XCTest leaf is one difference of one class.
    for (const flat of sdk.nodes.filter((f) => nodeSource(f.node) === 'sdkWebBridge')) {
      const classes = classesOf(view, flat.key);
      expect(classes.length, `${flat.key} ${labelOf(flat.node)}: ${classes.join()}`).toBe(1);
    }
    expect(view.diff.summary).toMatchObject({ only_xctest: 0, text_changed: 0, value_changed: 0, geometry_changed: 0, only_sdk: 1 });
    const onlySdk = view.diff.differences.find((d) => d.class === 'only_sdk')!;
    expect(labelOf(sdk.byKey.get(onlySdk.sdkKey!)!.node)).toBe('Chat');
    // Hiding "identity added" leaves what XCTest cannot see, and the summary says so.
    expect(shownDifferences(view.diff, { hideIdentityAdded: true })).toEqual([onlySdk]);
    expect(summaryText(shownSummary(view.diff.summary, { hideIdentityAdded: true }))).toBe('1 only in SDK-backed');
    // Every identity added leads from the SDK-backed node to an XCTest node.
    const index = pairIndex(view.diff.pairs, view.diff.differences);
    for (const d of view.diff.differences.filter((x) => x.class === 'identity_added')) expect(index.sdk.get(d.sdkKey!)).toBe(d.xctestKey);
  });

  it('an AppReveal app is refused: it has only its own view of the screen, nothing to set beside it', async () => {
    expect(host.demo.appRevealUrl).toBeDefined();
    const app = host.services.manager.connect(host.demo.appRevealUrl!, { name: 'Demo app' }).id;
    try {
      await host.services.manager.connectionOf(app).waitUntilConnected(10_000);
      const reply = await handle('device.compare', { deviceId: app });
      expect(reply).toMatchObject({ ok: false, error: { code: 'compare_failed', message: expect.stringMatching(/AppReveal app has only its own view/) } });
    } finally {
      await host.services.manager.disconnect(app);
    }
  });

  it('an unknown device is not_found', async () => {
    const reply = await handle('device.compare', { deviceId: 'device-none' });
    expect(reply.ok).toBe(false);
    expect(failed(reply).code).toBe('not_found');
  });
});

describe('recording.saveComparison', COMPARING, () => {
  it('refuses without a recording, then lands in the recording and comes back whole from trace.open', async () => {
    await setScreen('hostile');
    const view = await compareWhen(bridgeMerged);

    const refused = await handle('recording.saveComparison', { comparisonId: view.comparisonId });
    expect(refused.ok).toBe(false);
    if (!refused.ok)
      expect(refused.error).toMatchObject({ code: 'recording_state', message: expect.stringMatching(/nothing is being recorded: start a recording/) });

    const events: ApiEvent[] = [];
    const unsubscribe = host.services.api.subscribe((event) => events.push(event));
    try {
      await call('recording.start', { deviceId });
      const saved = RecordingStatusSchema.parse(await call('recording.saveComparison', { comparisonId: view.comparisonId }));
      // R-RPL-08: a comparison is counted as one, not as a step, as the reopened trace counts it.
      expect(saved).toMatchObject({ recording: true, deviceId, steps: 0, comparisons: 1 });
      expect(events.filter((e) => e === 'recording.changed').length).toBeGreaterThanOrEqual(2);
    } finally {
      unsubscribe();
    }
    const stopped = RecordingStatusSchema.parse(await call('recording.stop', {}));
    expect(stopped.lastTrace).toMatch(/\.parallax-trace$/);
    const path = stopped.lastTrace!;

    const opened = TraceOpenedSchema.parse(await call('trace.open', { path }));
    expect(opened.comparisons).toHaveLength(1);
    const comparison = opened.comparisons[0]!;
    expect(comparison.summary).toEqual(view.diff.summary);
    const resource = async (ref: string | undefined, as: TraceResource['kind']) => TraceResourceSchema.parse(await call('trace.resource', { path, ref, as }));

    const diff = await resource(comparison.diffRef, 'comparison');
    expect(diff).toEqual({ kind: 'comparison', comparison: { ...view.diff, stamps: view.stamps, sameScreen: view.sameScreen } });
    const nodesIn = async (ref: string) => {
      const observation = await resource(ref, 'hierarchy');
      if (observation.kind !== 'hierarchy') throw new Error(`${ref} is not a recorded screen`);
      return indexTree(observation.hierarchy.hierarchy).nodes.length;
    };
    // A resource asked for as what it is not is refused by name, not passed on.
    await expect(call('trace.resource', { path, ref: comparison.diffRef, as: 'hierarchy' })).rejects.toThrow(/not a recorded screen/);
    expect(await nodesIn(comparison.xctestObservationRef)).toBe(view.diff.nodes.xctest);
    expect(await nodesIn(comparison.sdkObservationRef)).toBe(view.diff.nodes.sdk);
    const shot = await resource(comparison.screenshotRef, 'png');
    expect(shot).toEqual({ kind: 'png', dataBase64: view.sdk.screenshot!.dataBase64 });
  });

  it('refuses a comparison of another device than the one recorded', async () => {
    // The same demo device under another address is another device to the host.
    const other = host.services.manager.connect(host.demo.runnerUrl.replace('127.0.0.1', 'localhost'), { kind: 'demo', name: 'Other' }).id;
    expect(other).not.toBe(deviceId);
    await host.services.manager.connectionOf(other).waitUntilConnected(10_000);
    const view = ComparisonViewSchema.parse(await call('device.compare', { deviceId: other }));
    expect(view.deviceId).toBe(other);
    await call('recording.start', { deviceId });
    try {
      const refused = await handle('recording.saveComparison', { comparisonId: view.comparisonId });
      expect(refused.ok).toBe(false);
      expect(failed(refused)).toMatchObject({ code: 'recording_state', message: expect.stringContaining(`not of ${other}`) });
      expect(RecordingStatusSchema.parse(await call('recording.status', {})).steps).toBe(0);
    } finally {
      await call('recording.stop', {}).catch(() => undefined);
      await host.services.manager.disconnect(other);
    }
  });

  it('an unknown comparisonId is not_found', async () => {
    const reply = await handle('recording.saveComparison', { comparisonId: 'no-such-comparison' });
    expect(reply.ok).toBe(false);
    if (!reply.ok) {
      expect(reply.error.code).toBe('not_found');
      expect(reply.error.message).toContain('no-such-comparison');
    }
  });
});
