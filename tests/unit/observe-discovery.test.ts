import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { decodeRunnerInbound, type ViewHierarchy } from '@shared/protocol/runner';
import type { BridgeState } from '@shared/protocol/observation';
import {
  CapabilityCache,
  discoverSdk,
  needsCapabilityProbe,
  observationBridgeState,
  OBSERVATION_BRIDGE_FLAG,
  SdkCapabilityQueryError,
  selectBackend,
  type CapabilityProbe,
  type SdkCapabilitiesReply,
  type SdkDiscovery,
} from '@shared/observe';
import { failed } from '../support/results';

const FULL_RUNNER = [
  'request_hierarchy',
  'get_sdk_capabilities',
  'request_sdk_observation',
  'request_sdk_action',
  'request_sdk_web_snapshot',
  'request_sdk_web_action',
];
const APP = 'com.example.app';

const reply = (payload: SdkCapabilitiesReply): CapabilityProbe => ({ ok: true, reply: payload });
const bridge = (state: Record<string, unknown>) => ({ schemaVersion: 1 as const, supportedActions: [] as never[], ...state });

function stateFor(probe: CapabilityProbe | undefined, runnerCommands = FULL_RUNNER): BridgeState {
  return observationBridgeState({ foregroundBundleId: APP, runnerCommands, probe });
}

describe('Discovery: the bridge state per foreground app', () => {
  it('R-DISC-04: an available bridge reports its schema version and sorted action kinds', () => {
    const probe = reply({
      success: true,
      available: true,
      bundleId: APP,
      observationBridge: { schemaVersion: 1, available: true, supportedActions: ['tap', 'scroll', 'insertText'] },
    });
    expect(stateFor(probe)).toEqual({ available: true, schemaVersion: 1, supportedActions: ['insertText', 'scroll', 'tap'] });
  });

  const table: { rule: string; name: string; probe: CapabilityProbe; commands?: string[]; expected: Extract<BridgeState, { available: false }>['reason'] }[] = [
    {
      rule: 'R-DISC-05',
      name: 'NOT_REGISTERED: the SDK is present, but no bridge is registered',
      probe: reply({ available: true, bundleId: APP, observationBridge: { ...bridge({ available: false, reason: 'NOT_REGISTERED' }) } as never }),
      expected: 'NOT_REGISTERED',
    },
    {
      rule: 'R-DISC-06',
      name: 'SDK_TOO_OLD: an SDK that answers without a bridge object predates discovery',
      probe: reply({ available: true, bundleId: APP, capabilities: ['x'] }),
      expected: 'SDK_TOO_OLD',
    },
    {
      rule: 'R-DISC-07',
      name: 'SDK_UNAVAILABLE: a reply with available false and no bridge object (the app does not embed the SDK)',
      probe: reply({ success: true, available: false, capabilities: [] }),
      expected: 'SDK_UNAVAILABLE',
    },
    {
      rule: 'R-DISC-07',
      name: 'SDK_UNAVAILABLE: a reply with available false and no bridge object for another bundle',
      probe: reply({ success: true, available: false, bundleId: 'com.other.app' }),
      expected: 'SDK_UNAVAILABLE',
    },
    {
      rule: 'R-DISC-07',
      name: 'SDK_UNAVAILABLE: a reply for another bundle never answers for this one, even with an available bridge',
      probe: reply({ available: true, bundleId: 'com.other.app', observationBridge: bridge({ available: true }) as never }),
      expected: 'SDK_UNAVAILABLE',
    },
    {
      rule: 'R-DISC-08',
      name: 'MALFORMED_RESPONSE: the bridge object does not match the schema',
      probe: reply({
        available: true,
        bundleId: APP,
        observationBridge: { schemaVersion: 1, available: false, reason: 'MALFORMED_RESPONSE', supportedActions: [] },
      }),
      expected: 'MALFORMED_RESPONSE',
    },
    {
      rule: 'R-DISC-08',
      name: 'MALFORMED_RESPONSE: an SDK that declares the observationBridge capability but whose bridge object the runner dropped as malformed',
      probe: reply({ success: true, available: true, bundleId: APP, capabilities: ['frameMetrics', 'observationBridge', 'webViewBridge'] }),
      expected: 'MALFORMED_RESPONSE',
    },
    {
      rule: 'R-DISC-09',
      name: 'UNKNOWN: a reason written by a newer SDK',
      probe: reply({ available: true, bundleId: APP, observationBridge: { schemaVersion: 1, available: false, reason: 'UNKNOWN', supportedActions: [] } }),
      expected: 'UNKNOWN',
    },
    {
      rule: 'R-DISC-06',
      name: 'SDK_TOO_OLD: a runner that lists get_sdk_capabilities but not the relay commands',
      probe: reply({ available: true, bundleId: APP, observationBridge: bridge({ available: true }) as never }),
      commands: ['request_hierarchy', 'get_sdk_capabilities'],
      expected: 'SDK_TOO_OLD',
    },
  ];
  for (const row of table) {
    it(`${row.rule}: ${row.name}`, () => {
      expect(stateFor(row.probe, row.commands)).toEqual({ available: false, reason: row.expected });
    });
  }

  it('R-DISC-06: a runner that does not list get_sdk_capabilities is SDK_TOO_OLD without a probe', () => {
    const commands = ['request_hierarchy', 'request_tap_coordinates'];
    expect(needsCapabilityProbe(commands)).toBe(false);
    expect(stateFor(undefined, commands)).toEqual({ available: false, reason: 'SDK_TOO_OLD' });
  });

  it('R-DISC-08: a malformed bridge object decoded from the wire reads as MALFORMED_RESPONSE, not a failed reply', () => {
    const decoded = decodeRunnerInbound(
      JSON.stringify({
        type: 'sdk_capabilities_result',
        requestId: 'c',
        success: true,
        available: true,
        bundleId: APP,
        observationBridge: { schemaVersion: 7 },
      }),
    );
    if (!decoded.ok) throw decoded.error;
    expect(stateFor(reply(decoded.value as SdkCapabilitiesReply))).toEqual({ available: false, reason: 'MALFORMED_RESPONSE' });
  });

  it('R-DISC-07: the recorded Settings reply (available false, no bridge) is SDK_UNAVAILABLE', () => {
    const file = resolve(dirname(fileURLToPath(import.meta.url)), '../../resources/recordings/settings-tap-general/0004-get_sdk_capabilities.json');
    const recorded = JSON.parse(readFileSync(file, 'utf8')) as { response: unknown };
    const decoded = decodeRunnerInbound(JSON.stringify(recorded.response));
    if (!decoded.ok) throw decoded.error;
    expect(stateFor(reply(decoded.value as SdkCapabilitiesReply))).toEqual({ available: false, reason: 'SDK_UNAVAILABLE' });
  });

  const failures: { name: string; probe: CapabilityProbe | undefined; kind: string }[] = [
    { name: 'a timeout', probe: { ok: false, kind: 'timeout', message: 'no reply in 5000 ms' }, kind: 'timeout' },
    { name: 'no reply (the connection closed)', probe: { ok: false, kind: 'no_reply', message: 'socket closed' }, kind: 'no_reply' },
    { name: 'a runner-level failure (success: false)', probe: reply({ success: false, error: 'busy' }), kind: 'runner_failure' },
    { name: 'no probe result at all', probe: undefined, kind: 'no_reply' },
  ];
  for (const row of failures) {
    it(`R-DISC-10: a failed probe (${row.name}) throws SdkCapabilityQueryError, never unavailable`, () => {
      expect(() => stateFor(row.probe)).toThrow(SdkCapabilityQueryError);
      const discovery = discoverSdk({ foregroundBundleId: APP, runnerCommands: FULL_RUNNER, probe: row.probe });
      expect(discovery.ok).toBe(false);
      expect(failed(discovery).kind).toBe(row.kind);
    });
  }

  it('R-WEB-02: registered web views come with the discovery; an app without the SDK has none', () => {
    const entry = { webViewId: 'wv1', allowedOrigins: ['https://a.example'], contentProcessAvailable: true };
    const withWeb = discoverSdk({
      foregroundBundleId: APP,
      runnerCommands: FULL_RUNNER,
      probe: reply({
        available: true,
        bundleId: APP,
        observationBridge: bridge({ available: false, reason: 'NOT_REGISTERED' }) as never,
        webViewBridge: [entry],
      }),
    });
    expect(withWeb).toMatchObject({ ok: true, webViews: [entry], webSnapshotRelay: true });
    const noSdk = discoverSdk({ foregroundBundleId: APP, runnerCommands: FULL_RUNNER, probe: reply({ available: false }) });
    expect(noSdk).toMatchObject({ ok: true, webViews: [] });
  });
});

describe('Discovery: the capability cache under a generation binding', () => {
  const ok = (bundleId: string): SdkDiscovery =>
    discoverSdk({
      foregroundBundleId: bundleId,
      runnerCommands: FULL_RUNNER,
      probe: reply({ available: true, bundleId, observationBridge: bridge({ available: true }) as never }),
    });

  it('R-DISC-03: a probe answered for one foreground app never answers for another', () => {
    const cache = new CapabilityCache();
    expect(cache.set({ bundleId: 'a', generation: 1 }, ok('a'))).toBe(true);
    expect(cache.get({ bundleId: 'a', generation: 1 })).toBeDefined();
    expect(cache.get({ bundleId: 'b', generation: 1 })).toBeUndefined();
    // The same bundle in a later generation (relaunched, or switched away and back) is probed again.
    expect(cache.get({ bundleId: 'a', generation: 2 })).toBeUndefined();
  });

  it('R-DISC-03: a late reply for an older generation is not stored over the current one', () => {
    const cache = new CapabilityCache();
    cache.advance({ bundleId: 'b', generation: 2 });
    expect(cache.set({ bundleId: 'a', generation: 1 }, ok('a'))).toBe(false);
    expect(cache.set({ bundleId: 'b', generation: 2 }, ok('b'))).toBe(true);
    expect(cache.set({ bundleId: 'a', generation: 1 }, ok('a'))).toBe(false);
    expect(cache.get({ bundleId: 'b', generation: 2 })).toBeDefined();
  });

  it('R-DISC-03: a failed probe is never cached as an answer, and a discovery for another bundle is refused', () => {
    const cache = new CapabilityCache();
    const failed = discoverSdk({ foregroundBundleId: 'a', runnerCommands: FULL_RUNNER, probe: { ok: false, kind: 'timeout', message: 't' } });
    expect(cache.set({ bundleId: 'a', generation: 1 }, failed)).toBe(false);
    expect(cache.set({ bundleId: 'a', generation: 1 }, ok('b'))).toBe(false);
    expect(cache.get({ bundleId: 'a', generation: 1 })).toBeUndefined();
  });

  it('R-DISC-03: advancing to a new foreground app drops the old entry', () => {
    const cache = new CapabilityCache();
    cache.set({ bundleId: 'a', generation: 1 }, ok('a'));
    cache.advance({ bundleId: 'b', generation: 2 });
    expect(cache.get({ bundleId: 'a', generation: 1 })).toBeUndefined();
  });
});

describe('Backend selection', () => {
  const webView = { className: 'WKWebView', bounds: { left: 0, top: 100, right: 400, bottom: 700 } };
  const screen = (children: object[]): ViewHierarchy => ({
    screenWidth: 400,
    screenHeight: 800,
    hierarchy: { className: 'XCUIApplication', bounds: { left: 0, top: 0, right: 400, bottom: 800 }, node: children },
  });
  const entry = { webViewId: 'wv1', allowedOrigins: [], contentProcessAvailable: true };
  const discovery = (state: Record<string, unknown>, webViews?: object[]): SdkDiscovery =>
    discoverSdk({
      foregroundBundleId: APP,
      runnerCommands: FULL_RUNNER,
      probe: reply({ available: true, bundleId: APP, observationBridge: bridge(state) as never, webViewBridge: webViews as never }),
    });

  it(`R-SEL-01: the ${OBSERVATION_BRIDGE_FLAG} flag defaults on and routes to a registered bridge`, () => {
    expect(selectBackend({ discovery: discovery({ available: true }), hierarchy: screen([]), strategy: 'visible' })).toMatchObject({
      readBridge: true,
      bridgeReason: 'available',
    });
  });

  it('R-SEL-01: with the flag off, observe is XCTest-only (no bridge read, no web read)', () => {
    const sel = selectBackend({ flagEnabled: false, discovery: discovery({ available: true }, [entry]), hierarchy: screen([webView]), strategy: 'visible' });
    expect(sel).toMatchObject({ readBridge: false, readWebViews: false, bridgeReason: 'flag_off' });
  });

  it('R-SEL-02: an app with no registered bridge is XCTest-only for the native bridge', () => {
    expect(selectBackend({ discovery: discovery({ available: false, reason: 'NOT_REGISTERED' }), hierarchy: screen([]), strategy: 'visible' })).toMatchObject({
      readBridge: false,
      bridgeReason: 'NOT_REGISTERED',
    });
  });

  it('R-OBS-07: a failed discovery probe makes no read at all', () => {
    const failed = discoverSdk({ foregroundBundleId: APP, runnerCommands: FULL_RUNNER, probe: { ok: false, kind: 'timeout', message: 't' } });
    expect(selectBackend({ discovery: failed, hierarchy: screen([webView]), strategy: 'visible' })).toEqual({
      readBridge: false,
      bridgeReason: 'probe_failed',
      readWebViews: false,
      webReason: 'probe_failed',
    });
  });

  it('R-OWV-01: exactly one outermost WKWebView on screen → one web snapshot read', () => {
    const sel = selectBackend({
      discovery: discovery({ available: false, reason: 'NOT_REGISTERED' }, [entry]),
      hierarchy: screen([webView]),
      strategy: 'visible',
    });
    expect(sel).toMatchObject({ readWebViews: true, webReason: 'read' });
  });

  it('R-OWV-01: any other screen makes no read (none, two, or one scrolled off screen)', () => {
    const d = discovery({ available: true }, [entry]);
    expect(selectBackend({ discovery: d, hierarchy: screen([]), strategy: 'visible' }).readWebViews).toBe(false);
    expect(selectBackend({ discovery: d, hierarchy: screen([webView, { ...webView }]), strategy: 'visible' }).readWebViews).toBe(false);
    const offscreen = { ...webView, bounds: { left: 0, top: 900, right: 400, bottom: 1500 } };
    expect(selectBackend({ discovery: d, hierarchy: screen([offscreen]), strategy: 'visible' })).toMatchObject({
      readWebViews: false,
      webReason: 'web_views_on_screen_0',
    });
  });

  it('R-OWV-01: a nested WKWebView does not count; only outermost ones do', () => {
    const nested = { ...webView, node: [{ ...webView }] };
    expect(selectBackend({ discovery: discovery({ available: true }, [entry]), hierarchy: screen([nested]), strategy: 'visible' }).readWebViews).toBe(true);
  });

  it('R-OWV-01: an app known to register no web view is not asked', () => {
    expect(selectBackend({ discovery: discovery({ available: true }, []), hierarchy: screen([webView]), strategy: 'visible' })).toMatchObject({
      readWebViews: false,
      webReason: 'no_registered_web_view',
    });
  });
});
