import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseJsonLossless, stringifyJsonLossless } from '@shared/protocol/json';
import { ObservationSchema, type Observation } from '@shared/protocol/observation';
import { ViewHierarchySchema, type UiNode, type ViewHierarchy } from '@shared/protocol/runner';
import { ObservationSnapshotSchema, WebSnapshotSchema } from '@shared/protocol/sdk';
import { flattenTree } from '@shared/model/tree';
import { assembleObservation, discoverSdk, type BridgeRead, type ObservationStages, type SdkDiscovery, type WebRead } from '@shared/observe';

const BIG = '18446744073709551615'; // UInt64 max, far above 2^53
const APP = 'com.example.shop';
const RUNNER = [
  'request_hierarchy',
  'get_sdk_capabilities',
  'request_sdk_observation',
  'request_sdk_action',
  'request_sdk_web_snapshot',
  'request_sdk_web_action',
];
const rect = (left: number, top: number, right: number, bottom: number) => ({ left, top, right, bottom });

const here = dirname(fileURLToPath(import.meta.url));
function golden(): ViewHierarchy {
  const recorded = JSON.parse(readFileSync(resolve(here, '../../resources/recordings/settings-tap-general/0008-request_hierarchy_if_stale.json'), 'utf8')) as {
    response: { data: unknown; frameContext: string };
  };
  return ViewHierarchySchema.parse(recorded.response.data);
}

const entry = { webViewId: 'wv-1', url: 'https://shop.example/', allowedOrigins: ['https://shop.example'], contentProcessAvailable: true };
function discovery(bridgeAvailable: boolean, webViews: object[] = [entry]): SdkDiscovery {
  return discoverSdk({
    foregroundBundleId: APP,
    runnerCommands: RUNNER,
    probe: {
      ok: true,
      reply: {
        available: true,
        bundleId: APP,
        observationBridge: bridgeAvailable
          ? { schemaVersion: 1, available: true, supportedActions: ['tap'] }
          : { schemaVersion: 1, available: false, reason: 'NOT_REGISTERED', supportedActions: [] },
        webViewBridge: webViews as never,
      },
    },
  });
}
const failedProbe = discoverSdk({ foregroundBundleId: APP, runnerCommands: RUNNER, probe: { ok: false, kind: 'timeout', message: 'no reply in 5000 ms' } });

function shop(children: UiNode[] = []): ViewHierarchy {
  return {
    updatedAt: 1_791_506_444_198,
    packageName: APP,
    screenWidth: 402,
    screenHeight: 874,
    screenScale: 3,
    rotation: 0,
    windowInfo: { id: 0, type: 1, isActive: true, isFocused: true, bounds: rect(0, 0, 402, 874) },
    insets: { available: true, source: 'uiWindowScene', units: 'points', safeArea: { top: 62, left: 0, bottom: 34, right: 0 } },
    hierarchy: {
      className: 'XCUIApplication',
      bounds: rect(0, 0, 402, 874),
      node: [
        { className: 'UIButton', text: 'Checkout', clickable: 'true', bounds: rect(20, 700, 380, 744) },
        { className: 'WKWebView', bounds: rect(0, 100, 402, 600), node: [{ className: 'UIButton', text: 'Pay', bounds: rect(10, 110, 110, 150) }] },
        ...children,
      ],
    },
  };
}

const bridgeSnapshot = (coordinateSpace = 'screen', captureIdentity: string = BIG) =>
  ObservationSnapshotSchema.parse({
    captureIdentity,
    orientation: 'portrait',
    coordinateSpace,
    bounds: rect(0, 0, 402, 874),
    root: {
      id: 'root',
      role: 'view',
      bounds: rect(0, 0, 402, 874),
      children: [{ id: 'checkout', role: 'button', label: 'Checkout', bounds: rect(20, 700, 380, 744) }],
    },
    capabilities: [],
  });
const bridgeRead = (coordinateSpace?: string): BridgeRead => ({ kind: 'reply', reply: { available: true, snapshot: bridgeSnapshot(coordinateSpace) } });
const webRead = (failure?: string): WebRead => ({
  kind: 'reply',
  reply: {
    available: true,
    webViews: [entry],
    ...(failure
      ? { failure: failure as never }
      : {
          snapshot: WebSnapshotSchema.parse({
            snapshotId: 's9',
            documentId: 'd1',
            elements: [{ id: 'pay', role: 'button', label: 'Pay', bounds: [10, 10, 100, 40], enabled: true, visible: true, focused: true }],
          }),
        }),
  },
});

function observe(over: Partial<ObservationStages>): Observation {
  const observation = assembleObservation({
    strategy: 'visible',
    now: 5,
    hierarchy: { ok: true, hierarchy: shop(), frameContext: 'E:1:abc' },
    discovery: discovery(true),
    ...over,
  });
  // Every observation the pipeline builds is one the schema accepts.
  const checked = ObservationSchema.safeParse(observation);
  if (!checked.success) throw new Error(JSON.stringify(checked.error.issues.slice(0, 3)));
  return observation;
}
const nodes = (o: Observation) => flattenTree(o.viewHierarchy!.hierarchy!).map((f) => f.node);

describe('the observation object', () => {
  it('R-OBJ-01, R-OBJ-02, R-OBJ-04: the golden Settings screen assembles into a valid observation: screen, window, tree, quality, stamps', () => {
    const o = observe({
      hierarchy: { ok: true, hierarchy: golden(), frameContext: '946BF959-8722-4080-BE15-4E9A2148C58C:75:b3ace3af9b894ed3' },
      discovery: discoverSdk({
        foregroundBundleId: 'com.apple.Preferences',
        runnerCommands: RUNNER,
        probe: { ok: true, reply: { success: true, available: false, capabilities: [] } },
      }),
      timings: { xctest: 162, discovery: 2 },
    });
    expect(o).toMatchObject({
      updatedAt: 1791506444198,
      updatedAtSource: 'device',
      screenSize: { width: 402, height: 874, scale: 3 },
      activeWindow: { bundleId: 'com.apple.Preferences', window: { isActive: true } },
      quality: { verdict: 'healthy', reason: 'xctest_tree' },
      strategy: 'visible',
      layoutWarnings: { scope: 'full', warnings: [] },
      errors: [],
      frameContext: '946BF959-8722-4080-BE15-4E9A2148C58C:75:b3ace3af9b894ed3',
      bridge: { available: false, reason: 'SDK_UNAVAILABLE' },
      timings: { xctest: 162, discovery: 2 },
    });
    expect(nodes(o).some((n) => n.className === 'UISearchBar')).toBe(true);
    // No registered bridge: XCTest-only, and neither backend field.
    expect(o.backend).toBeUndefined();
    expect(o.fallbackReason).toBeUndefined();
  });

  it('R-OBJ-01: the server clock stands in when the device states no updatedAt', () => {
    const { updatedAt: _drop, ...noTime } = shop();
    expect(observe({ hierarchy: { ok: true, hierarchy: noTime } })).toMatchObject({ updatedAt: 5, updatedAtSource: 'server' });
  });

  it('R-LAY-01, R-LAY-06: layoutWarnings is always present under its one key, computed on the merged tree', () => {
    const o = observe({ hierarchy: { ok: true, hierarchy: shop([{ className: 'UILabel', text: 'Clock', bounds: rect(16, 20, 80, 70) }]) } });
    expect(o.layoutWarnings.warnings).toEqual([expect.objectContaining({ side: 'top', overflowPx: 42, insetPx: 62, caption: 'Clock' })]);
    expect(o.viewHierarchy && flattenTree(o.viewHierarchy.hierarchy!).find((f) => f.key === o.layoutWarnings.warnings[0]!.nodeKey)?.node.text).toBe('Clock');
  });

  it('R-ERR-01: partial failures — a failing stage adds to errors and never loses the other stages’ data', () => {
    const broken: BridgeRead = { kind: 'reply', reply: { snapshot: { ...bridgeSnapshot(), root: { id: 'r', role: 'x', bounds: rect(0, 0, 1, 1) } as never } } };
    const o = observe({ bridge: broken, web: webRead() });
    expect(o.errors).toEqual([expect.objectContaining({ stage: 'bridge', code: 'internal_error' })]);
    expect(o.viewHierarchy).toBeDefined();
    expect(o.sources.web).toMatchObject({ status: 'merged' });
    expect(o.screenSize).toEqual({ width: 402, height: 874, scale: 3 });
  });

  it('R-OBJ-08: timings carry the caller’s per-stage figures and, with a clock, the pure stages', () => {
    let t = 0;
    const o = observe({ timings: { xctest: 90, bridge: 40 }, bridge: bridgeRead(), clock: () => (t += 1) });
    expect(o.timings).toMatchObject({ xctest: 90, bridge: 40 });
    for (const stage of ['projection', 'merge', 'layout', 'assemble']) expect(o.timings[stage]).toBeGreaterThan(0);
  });

  it('decision: the focused element prefers XCTest’s fresh read over a snapshot’s focus', () => {
    const focusedLeaf = shop([{ className: 'UITextField', 'resource-id': 'native', focused: 'true', bounds: rect(20, 620, 380, 660) }]);
    const o = observe({ hierarchy: { ok: true, hierarchy: focusedLeaf }, discovery: discovery(false), web: webRead() });
    expect(o.focusedElement).toMatchObject({ source: 'xctest', node: { 'resource-id': 'native' } });
    // With no XCTest leaf to replace, the DOM element is attached as is and keeps its own focus.
    const bare = shop();
    bare.hierarchy!.node![1] = { className: 'WKWebView', bounds: rect(0, 100, 402, 600) };
    const onlyWeb = observe({ hierarchy: { ok: true, hierarchy: bare }, discovery: discovery(false), web: webRead() });
    expect(onlyWeb.focusedElement).toMatchObject({ source: 'sdkWebBridge', node: { 'web-element-id': 'pay' } });
  });
});

describe('Observe: backend and fallbackReason on the observation', () => {
  it('R-OBS-06: a merged bridge snapshot reports backend sdk and stamps its capture identity', () => {
    const o = observe({ bridge: bridgeRead() });
    expect(o).toMatchObject({ backend: 'sdk', captureIdentity: BIG, sources: { bridge: { status: 'merged', nodes: 2, leaves: 1 } } });
    expect(o.fallbackReason).toBeUndefined();
    expect(nodes(o).filter((n) => n.text === 'Checkout')).toHaveLength(0); // the XCTest duplicate is gone
    expect(nodes(o).find((n) => n['sdk-element-id'] === 'checkout')).toMatchObject({ 'content-desc': 'Checkout' });
  });

  it('R-OBS-06: a coordinateSpace other than screen is not merged: backend xctest, fallbackReason unavailable, tree unchanged', () => {
    const o = observe({ bridge: bridgeRead('window') });
    expect(o).toMatchObject({
      backend: 'xctest',
      fallbackReason: 'unavailable',
      sources: { bridge: { status: 'not_merged', reason: 'coordinate_space_window' } },
    });
    expect(o.captureIdentity).toBeUndefined();
    expect(nodes(o).some((n) => n['sdk-element-id'] !== undefined)).toBe(false);
  });

  it('R-OBS-06: a registered bridge that did not answer reports backend xctest, fallbackReason unavailable, and the error', () => {
    for (const bridge of [{ kind: 'timeout' } as BridgeRead, undefined]) {
      const o = observe({ bridge });
      expect(o).toMatchObject({ backend: 'xctest', fallbackReason: 'unavailable' });
      expect(o.errors).toEqual([expect.objectContaining({ stage: 'bridge', code: 'bridge_no_answer' })]);
    }
  });

  it('R-DISC-14: decision: a relay timeout leaves the discovery result available; a timed-out probe gives it no available at all', () => {
    // Seed 000: `available` is false only for bridge_unavailable, and a daemon-side relay timeout reports
    // available: true. A bridge read that timed out says nothing against the probe: the observation's bridge
    // stays available (this read fell back), never "unavailable".
    const timedOut = observe({ bridge: { kind: 'timeout' } as BridgeRead });
    expect(timedOut.bridge).toMatchObject({ available: true });
    expect(timedOut).toMatchObject({ backend: 'xctest', fallbackReason: 'unavailable' });
    // A probe that timed out is no answer (R-DISC-10): no bridge object, so neither available true nor false.
    const probe = observe({ discovery: failedProbe });
    expect(probe.bridge).toBeUndefined();
    expect(probe.errors).toEqual([expect.objectContaining({ stage: 'discovery', code: 'capability_query_failed' })]);
  });

  it('R-OBS-07: a failed discovery probe reports neither backend nor fallbackReason, and says why in errors', () => {
    const o = observe({ discovery: failedProbe, bridge: bridgeRead(), web: webRead() });
    expect(o.backend).toBeUndefined();
    expect(o.fallbackReason).toBeUndefined();
    expect(o.bridge).toBeUndefined();
    expect(o.errors).toEqual([expect.objectContaining({ stage: 'discovery', code: 'capability_query_failed' })]);
    expect(nodes(o).some((n) => n.extras?.['sdk.source'] !== undefined)).toBe(false);
  });

  it('R-SEL-02: with the flag off, the observation carries neither field even when reads were handed in', () => {
    const o = observe({ flagEnabled: false, bridge: bridgeRead(), web: webRead() });
    expect(o.backend).toBeUndefined();
    expect(o.fallbackReason).toBeUndefined();
    expect(o.sources).toEqual({ bridge: { status: 'not_read', reason: 'flag_off' }, web: { status: 'not_read', reason: 'flag_off' } });
  });

  it('R-SEL-02: an app with no registered bridge carries neither field', () => {
    const o = observe({ discovery: discovery(false, []), bridge: bridgeRead() });
    expect(o.backend).toBeUndefined();
    expect(o.sources.bridge).toEqual({ status: 'not_read', reason: 'NOT_REGISTERED' });
  });

  it('R-OWV-16: a web merge reports backend sdk when the native bridge set none', () => {
    const o = observe({ discovery: discovery(false), web: webRead() });
    expect(o).toMatchObject({ backend: 'sdk', webSnapshotId: 's9', sources: { web: { status: 'merged', nodes: 1, leaves: 1 } } });
    expect(o.fallbackReason).toBeUndefined();
  });

  it('R-OWV-16: a web merge keeps the backend the native bridge already set', () => {
    const o = observe({ bridge: { kind: 'timeout' }, web: webRead() });
    expect(o).toMatchObject({ backend: 'xctest', fallbackReason: 'unavailable', sources: { web: { status: 'merged' } } });
  });

  it('R-OWV-02: a reply that cannot be read (bad_reply) is logged and the observation stays XCTest-only', () => {
    const o = observe({ discovery: discovery(false), web: webRead('bad_reply') });
    expect(o.backend).toBeUndefined();
    expect(o.errors).toEqual([expect.objectContaining({ stage: 'web', code: 'web_failure', failure: 'bad_reply' })]);
    expect(nodes(o).some((n) => n['web-element-id'] !== undefined)).toBe(false);
  });

  it('R-OWV-15: no snapshot yet is a state, not an error; the web view keeps its XCTest nodes', () => {
    const o = observe({ discovery: discovery(false), web: webRead('no_snapshot') });
    expect(o.errors).toEqual([]);
    expect(o.sources.web).toEqual({ status: 'not_merged', reason: 'no_snapshot' });
  });
});

describe('strategies and quality on the observation', () => {
  it('R-STR-09: a real AX failure is preserved as an error (ax_failure), not an empty tree', () => {
    const o = observe({
      hierarchy: { ok: true, hierarchy: { error: 'Failed to get snapshot: kAXErrorIllegalArgument', screenWidth: 402, screenHeight: 874 } },
      bridge: bridgeRead(),
    });
    expect(o.viewHierarchy).toBeUndefined();
    expect(o.quality).toEqual({ verdict: 'sparse', reason: 'ax_failure' });
    expect(o.errors).toEqual([expect.objectContaining({ stage: 'xctest', code: 'ax_failure' })]);
    expect(o.screenSize).toEqual({ width: 402, height: 874 });
  });

  it('R-QUA-02: an application root alone is sparse (application_root_only), and recovered when the bridge supplied the controls', () => {
    const rootOnly: ViewHierarchy = { ...shop(), hierarchy: { className: 'XCUIApplication', bounds: rect(0, 0, 402, 874) } };
    expect(observe({ hierarchy: { ok: true, hierarchy: rootOnly }, discovery: discovery(false, []) }).quality).toEqual({
      verdict: 'sparse',
      reason: 'application_root_only',
    });
    expect(observe({ hierarchy: { ok: true, hierarchy: rootOnly }, bridge: bridgeRead() }).quality).toEqual({
      verdict: 'recovered',
      reason: 'sdk_bridge_supplied_controls',
    });
  });

  it('R-ERR-01: no hierarchy at all still yields an observation with the error', () => {
    const o = observe({ hierarchy: { ok: false, kind: 'timeout', message: 'no hierarchy in 10 s' } });
    expect(o).toMatchObject({
      quality: { verdict: 'sparse', reason: 'hierarchy_unavailable' },
      errors: [expect.objectContaining({ stage: 'xctest', code: 'hierarchy_unavailable' })],
    });
    expect(o.sources.bridge).toEqual({ status: 'not_merged', reason: 'no_hierarchy' });
    expect(o.backend).toBeUndefined();
  });

  it('R-STR-08: raw carries the whole tree, offscreen nodes included', () => {
    const offscreen = shop([{ className: 'UILabel', 'resource-id': 'below', text: 'x', bounds: rect(0, 2000, 100, 2040) }]);
    expect(nodes(observe({ strategy: 'raw', hierarchy: { ok: true, hierarchy: offscreen } })).some((n) => n['resource-id'] === 'below')).toBe(true);
    expect(nodes(observe({ strategy: 'visible', hierarchy: { ok: true, hierarchy: offscreen } })).some((n) => n['resource-id'] === 'below')).toBe(false);
  });

  it('R-STR-08, R-OBJ-02: raw too large to carry is an explicit error; the rest of the observation survives', () => {
    const o = observe({ strategy: 'raw', rawMaxBytes: 300, bridge: bridgeRead() });
    expect(o.viewHierarchy).toBeUndefined();
    expect(o.errors).toEqual([expect.objectContaining({ stage: 'projection', code: 'raw_too_large' })]);
    expect(o).toMatchObject({ screenSize: { width: 402 }, insets: { available: true }, quality: { verdict: 'healthy' } });
  });
});

describe('capture identities above 2^53 stay exact through the pipeline', () => {
  it('R-WIRE-10: a UInt64 capture identity survives decode → merge → observation → lossless JSON → decode, digit for digit', () => {
    const wire = `{"captureIdentity":${BIG},"orientation":"portrait","coordinateSpace":"screen","bounds":{"left":0,"top":0,"right":402,"bottom":874},"root":{"id":"checkout","role":"button","label":"Checkout","bounds":{"left":20,"top":700,"right":380,"bottom":744}},"capabilities":[]}`;
    const snapshot = ObservationSnapshotSchema.parse(parseJsonLossless(wire));
    const o = observe({ bridge: { kind: 'reply', reply: { available: true, snapshot } } });
    expect(o.captureIdentity).toBe(BIG);
    const text = stringifyJsonLossless(o);
    expect(text).toContain(`"captureIdentity":${BIG}`);
    expect(text).toContain(`"sdk-capture-identity":"${BIG}"`);
    const back = ObservationSchema.parse(parseJsonLossless(text));
    expect(back.captureIdentity).toBe(BIG);
    expect(flattenTree(back.viewHierarchy!.hierarchy!).find((f) => f.node['sdk-element-id'] === 'checkout')!.node['sdk-capture-identity']).toBe(BIG);
    // A JS number could not have held it.
    expect(String(Number(BIG))).not.toBe(BIG);
  });
});
