/**
 * Discovery (docs/rules.md#r-discovery): what a `get_sdk_capabilities` probe says about the foreground
 * app's observation bridge and web views. The network read belongs to the main process; this module only
 * interprets its outcome, so the rules are testable as a table.
 */
import type { BridgeState } from '@shared/protocol/observation';
import type { SdkCapabilitiesPayload, WebViewBridgeEntry } from '@shared/protocol/sdk';

export const CAPABILITIES_COMMAND = 'get_sdk_capabilities';
/** The native relay: observe needs the snapshot command, actions need the action command. */
export const BRIDGE_RELAY_COMMANDS = ['request_sdk_observation', 'request_sdk_action'] as const;
export const WEB_SNAPSHOT_COMMAND = 'request_sdk_web_snapshot';
/** The SDK capability (in /health's `capabilities`) of an SDK that serves the observationBridge object. */
export const OBSERVATION_BRIDGE_CAPABILITY = 'observationBridge';

/** The decoded reply (runner envelope fields that matter here, plus the capability payload). */
export type SdkCapabilitiesReply = SdkCapabilitiesPayload & { success?: boolean | undefined; error?: string | null | undefined };

/** What came back from the probe. A reply that never arrived is not a reply. */
export type CapabilityProbe = { ok: true; reply: SdkCapabilitiesReply } | { ok: false; kind: 'timeout' | 'no_reply' | 'transport'; message: string };

export type CapabilityQueryFailure = 'timeout' | 'no_reply' | 'transport' | 'runner_failure';

/**
 * A probe that failed. R-DISC-10: thrown (or returned) instead of an unavailable state, so a timeout is
 * never mistaken for a missing bridge.
 */
export class SdkCapabilityQueryError extends Error {
  override readonly name = 'SdkCapabilityQueryError';

  constructor(
    readonly kind: CapabilityQueryFailure,
    readonly bundleId: string,
    detail: string,
  ) {
    super(`get_sdk_capabilities for ${bundleId} failed (${kind}): ${detail}`);
  }
}

export interface SdkDiscoveryInput {
  /** The foreground app the probe is meant to answer for. */
  foregroundBundleId: string;
  /** The runner's `connected.supportedCommands`. */
  runnerCommands: readonly string[];
  /** Absent when no probe was sent (see needsCapabilityProbe). */
  probe?: CapabilityProbe | undefined;
}

export type SdkDiscovery =
  | {
      ok: true;
      bundleId: string;
      bridge: BridgeState;
      /**
       * The app's registered web views, in registration order. `undefined` means not reported (an SDK
       * from before web views, or a list the runner dropped as malformed); `[]` means known to be none.
       */
      webViews: WebViewBridgeEntry[] | undefined;
      /** Whether the runner can relay a web snapshot read at all. */
      webSnapshotRelay: boolean;
    }
  | { ok: false; bundleId: string; error: SdkCapabilityQueryError };

function relays(runnerCommands: readonly string[]) {
  return {
    capabilities: runnerCommands.includes(CAPABILITIES_COMMAND),
    bridge: BRIDGE_RELAY_COMMANDS.every((command) => runnerCommands.includes(command)),
    webSnapshot: runnerCommands.includes(WEB_SNAPSHOT_COMMAND),
  };
}

/**
 * Whether a probe can tell anything: a runner without the capability command, or with no relay command
 * to use afterwards, predates the bridge, and the answer is SDK_TOO_OLD without asking.
 */
export function needsCapabilityProbe(runnerCommands: readonly string[]): boolean {
  const r = relays(runnerCommands);
  return r.capabilities && (r.bridge || r.webSnapshot);
}

const unavailable = (reason: Exclude<BridgeState, { available: true }>['reason']): BridgeState => ({ available: false, reason });

export function discoverSdk(input: SdkDiscoveryInput): SdkDiscovery {
  const { foregroundBundleId: bundleId, runnerCommands, probe } = input;
  const relay = relays(runnerCommands);
  const known = (bridge: BridgeState, webViews: WebViewBridgeEntry[] | undefined): SdkDiscovery => ({
    ok: true,
    bundleId,
    bridge,
    webViews,
    webSnapshotRelay: relay.webSnapshot,
  });

  if (!needsCapabilityProbe(runnerCommands)) return known(unavailable('SDK_TOO_OLD'), undefined);
  if (!probe) {
    return { ok: false, bundleId, error: new SdkCapabilityQueryError('no_reply', bundleId, 'no probe result') };
  }
  if (!probe.ok) return { ok: false, bundleId, error: new SdkCapabilityQueryError(probe.kind, bundleId, probe.message) };

  const { reply } = probe;
  // A runner-level failure (busy, internal error) tells nothing about the bridge: a failed probe.
  if (reply.success === false) {
    return { ok: false, bundleId, error: new SdkCapabilityQueryError('runner_failure', bundleId, reply.error ?? 'success: false') };
  }
  // A reply for another app never answers for this one.
  if (reply.bundleId !== undefined && reply.bundleId !== bundleId) return known(unavailable('SDK_UNAVAILABLE'), []);

  const sdkAnswered = reply.available === true;
  // With no SDK answering, the app does not embed it (or the runner is not connected to it): no web views either.
  const webViews = reply.webViewBridge ?? (sdkAnswered ? undefined : []);
  // A runner that cannot relay bridge requests predates the bridge, whatever the SDK says.
  if (!relay.bridge) return known(unavailable('SDK_TOO_OLD'), webViews);

  const bridge = reply.observationBridge;
  if (bridge === undefined) {
    if (!sdkAnswered) return known(unavailable('SDK_UNAVAILABLE'), webViews);
    // The runner drops a malformed bridge object rather than fail the reply (R-DISC-11), so a missing
    // object from an SDK that declares the capability was malformed, not absent; without the
    // declaration the SDK predates discovery.
    return known(unavailable(reply.capabilities?.includes(OBSERVATION_BRIDGE_CAPABILITY) ? 'MALFORMED_RESPONSE' : 'SDK_TOO_OLD'), webViews);
  }
  if (bridge.available) {
    return known({ available: true, schemaVersion: bridge.schemaVersion, supportedActions: [...bridge.supportedActions].sort() }, webViews);
  }
  // An unavailable bridge object without a reason is not something this client can name.
  return known(unavailable(bridge.reason ?? 'UNKNOWN'), webViews);
}

/**
 * The bridge spec's `getObservationBridgeStateForIos(appId)` (R-DISC-04, R-DISC-10): the bridge state, or
 * a thrown SdkCapabilityQueryError when the probe failed.
 */
export function observationBridgeState(input: SdkDiscoveryInput): BridgeState {
  const discovery = discoverSdk(input);
  if (!discovery.ok) throw discovery.error;
  return discovery.bridge;
}
