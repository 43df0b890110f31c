/**
 * What the dispatcher knows about the foreground app's bridges when it routes an action, and the one
 * question routing asks of it: may this action kind be sent, and if not, which fallback applies.
 */
import type { BridgeActionKind, ObservationBridgeState, WebViewBridgeEntry } from '@shared/protocol/sdk';

export interface BridgeContext {
  /** The ios-sdk-observation-bridge feature flag (default on). Off: XCTest only, no backend fields. */
  readonly flagEnabled: boolean;
  /**
   * Discovery for the foreground app, cached under its generation binding. Undefined when the probe
   * failed or was not made: a failed probe is never "unavailable" (docs/rules.md#r-disc-10, R-TAP-09).
   */
  readonly observationBridge?: ObservationBridgeState | undefined;
  /** The web views /health lists (webViewBridge); undefined when not known. */
  readonly webViews?: readonly Pick<WebViewBridgeEntry, 'webViewId'>[] | undefined;
}

/**
 * - `send`: dispatch; when discovery is unknown the runner checks /health itself and answers
 *   bridge_unavailable having sent nothing, so sending is safe and the reply decides.
 * - `unavailable` / `unsupported`: XCTest stands in with that fallback reason, nothing is sent.
 */
export type Admission = 'send' | 'unavailable' | 'unsupported';

export function admitBridgeAction(context: BridgeContext, kind: BridgeActionKind): Admission {
  const state = context.observationBridge;
  if (state === undefined) return 'send';
  if (!state.available) return 'unavailable';
  // The SDK checks supportedActions first and would answer unsupported_action; the cached state is the
  // same declaration (under the same generation), so asking would only cost a round trip.
  return state.supportedActions.includes(kind) ? 'send' : 'unsupported';
}

export function admitWebAction(context: BridgeContext, webViewId: string): Admission {
  const listed = context.webViews;
  if (listed === undefined) return 'send';
  return listed.some((w) => w.webViewId === webViewId) ? 'send' : 'unavailable';
}
