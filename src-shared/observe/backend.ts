/**
 * Backend selection (docs/rules.md#r-backend-selection): which SDK reads an observe makes. The
 * `ios-sdk-observation-bridge` flag (default on) gates all of them; with it off, or when discovery
 * failed, the observation is XCTest-only and reports no backend.
 */
import type { Strategy } from '@shared/protocol/observation';
import type { UiNode, ViewHierarchy } from '@shared/protocol/runner';
import type { SdkDiscovery } from './discovery';
import { projectVisible } from './projection';
import { outermostWebViewPaths } from './web-merge';

export const OBSERVATION_BRIDGE_FLAG = 'ios-sdk-observation-bridge';
export const OBSERVATION_BRIDGE_FLAG_DEFAULT = true;

export interface BackendSelectionInput {
  /** The `ios-sdk-observation-bridge` flag; absent means its default (on). */
  flagEnabled?: boolean | undefined;
  /** Undefined when no probe result is at hand: treated like a failed probe. */
  discovery: SdkDiscovery | undefined;
  /** The XCTest hierarchy as read; projected here with `strategy` to count the web views on screen. */
  hierarchy: ViewHierarchy | undefined;
  strategy: Strategy;
}

export interface BackendSelection {
  /** Ask the native bridge for a snapshot (request_sdk_observation); its outcome sets backend. */
  readBridge: boolean;
  /** `available`, or why not: `flag_off`, `probe_failed`, or the bridge's unavailable reason. */
  bridgeReason: string;
  /** Make one unnamed web snapshot read (request_sdk_web_snapshot). */
  readWebViews: boolean;
  /** `read`, or why not. */
  webReason: string;
}

export function isBridgeFlagEnabled(flag: boolean | undefined): boolean {
  return flag ?? OBSERVATION_BRIDGE_FLAG_DEFAULT;
}

export function selectBackend(input: BackendSelectionInput): BackendSelection {
  const { hierarchy, strategy } = input;
  const projected = hierarchy && strategy === 'visible' ? projectVisible(hierarchy) : hierarchy;
  return selectBackendFor(input.flagEnabled, input.discovery, projected?.hierarchy);
}

/** selectBackend over a tree the caller already projected (assemble does, and need not do it twice). */
export function selectBackendFor(flagEnabled: boolean | undefined, discovery: SdkDiscovery | undefined, projectedRoot: UiNode | undefined): BackendSelection {
  const off = (reason: string): BackendSelection => ({ readBridge: false, bridgeReason: reason, readWebViews: false, webReason: reason });
  if (!isBridgeFlagEnabled(flagEnabled)) return off('flag_off');
  // A failed probe is not "unavailable": nothing is known, so nothing is read and nothing reported.
  if (!discovery) return off('not_probed');
  if (!discovery.ok) return off('probe_failed');

  const readBridge = discovery.bridge.available;
  const bridgeReason = discovery.bridge.available ? 'available' : discovery.bridge.reason;
  return { readBridge, bridgeReason, ...webSelection(discovery, projectedRoot) };
}

function webSelection(discovery: Extract<SdkDiscovery, { ok: true }>, projectedRoot: UiNode | undefined): Pick<BackendSelection, 'readWebViews' | 'webReason'> {
  const no = (webReason: string) => ({ readWebViews: false, webReason });
  if (!discovery.webSnapshotRelay) return no('no_web_relay');
  // Only a known-empty list rules a read out; an unreported one may still hold a web view.
  if (discovery.webViews !== undefined && discovery.webViews.length === 0) return no('no_registered_web_view');
  if (!projectedRoot) return no('no_hierarchy');
  const onScreen = outermostWebViewPaths(projectedRoot).length;
  // Only one outermost web view can pair with a registration, so any other screen makes no read.
  return onScreen === 1 ? { readWebViews: true, webReason: 'read' } : no(`web_views_on_screen_${onScreen}`);
}
