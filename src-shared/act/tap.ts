/**
 * tapOn routing (docs/rules.md#r-tapon, docs/rules.md#r-tapon-dom): a target with a bridge identity is
 * tapped through the bridge, one with a web identity is clicked through its web view, and XCTest stands
 * in only where a rule allows it (R-TAP-04, R-TDOM-02, R-TDOM-03).
 */
import type { FailureReason, Point, TargetRecord } from '@shared/protocol/action';
import type { UiNode } from '@shared/protocol/runner';
import { encodeAutoMobileAction, encodeWebControlAction, type AutoMobileAction, type WebControlAction } from '@shared/protocol/sdk';
import { SDK_REQUEST_BUDGET_MS, WEB_ACTION_BUDGET_MS } from './budget';
import { admitBridgeAction, admitWebAction, type BridgeContext } from './context';
import { nodeIdentity, nodeTargetRecord } from '@shared/model/identity';
import { centerOf } from '@shared/model/node';
import type { FallbackReason } from '@shared/protocol/observation';

export { interpretBridgeOutcome } from './verdict';

export type TapGesture = { readonly kind: 'tap' } | { readonly kind: 'longPress'; readonly durationMs: number } | { readonly kind: 'doubleTap' };

export type TapTarget =
  | {
      readonly kind: 'node';
      readonly node: UiNode;
      readonly resolvedBy: 'id' | 'text' | 'node';
      readonly selector?: string | undefined;
      /** Resolved from a cached hierarchy read, which is XCTest-only (R-OWV-19). */
      readonly fromCache?: boolean | undefined;
    }
  /** A point is tapped where it is (docs/rules.md#r-tap-10); `found` names what a finger hits there. */
  | { readonly kind: 'point'; readonly point: Point; readonly found?: UiNode | undefined };

/** request_tap_coordinates, once or twice. */
export interface XctestTap {
  readonly x: number;
  readonly y: number;
  /** 0 is a tap; more is a press. */
  readonly durationMs: number;
  readonly taps: 1 | 2;
}

export type TapRoute =
  | {
      readonly via: 'sdk';
      readonly action: AutoMobileAction;
      /** What goes out as actionJson, identities digit for digit. */
      readonly actionJson: string;
      readonly budgetMs: number;
      readonly target: TargetRecord;
      readonly standIn: XctestTap;
    }
  | {
      readonly via: 'web';
      readonly webViewId: string;
      readonly action: WebControlAction;
      readonly actionJson: string;
      readonly budgetMs: number;
      readonly target: TargetRecord;
      readonly standIn: XctestTap;
    }
  | {
      readonly via: 'xctest';
      /** Absent for plain XCTest (flag off, no bridge, no identity): such a result carries no backend fields. */
      readonly fallbackReason?: FallbackReason | undefined;
      readonly tap: XctestTap;
      readonly target: TargetRecord;
    }
  | { readonly via: 'failClosed'; readonly failureReason: FailureReason; readonly mayHaveRun: false; readonly target: TargetRecord };

/**
 * A point tap names the node found there by its label, title, frame and source, and no identity: the device was
 * asked to touch the point, not the element, and the record says what was sent.
 */
export function pointTargetRecord(point: Point, found: UiNode | undefined): TargetRecord {
  if (!found) return { resolvedBy: 'point', point };
  const { label, title, bounds, source } = nodeTargetRecord(found, 'point');
  return { resolvedBy: 'point', point, ...(source ? { source } : {}), ...(bounds ? { bounds } : {}), ...(label ? { label } : {}), ...(title ? { title } : {}) };
}

function xctestTap(point: Point, gesture: TapGesture): XctestTap {
  return {
    x: point.x,
    y: point.y,
    durationMs: gesture.kind === 'longPress' ? gesture.durationMs : 0,
    taps: gesture.kind === 'doubleTap' ? 2 : 1,
  };
}

export function routeTap(target: TapTarget, gesture: TapGesture, context: BridgeContext): TapRoute {
  if (target.kind === 'point') {
    return { via: 'xctest', tap: xctestTap(target.point, gesture), target: pointTargetRecord(target.point, target.found) };
  }
  const record = nodeTargetRecord(target.node, target.resolvedBy, {
    ...(target.selector !== undefined ? { selector: target.selector } : {}),
    ...(target.fromCache ? { fromCache: true } : {}),
  });
  const point = centerOf(target.node);
  if (!point) return { via: 'failClosed', failureReason: 'target_without_bounds', mayHaveRun: false, target: record };
  const tap = xctestTap(point, gesture);
  const plain: TapRoute = { via: 'xctest', tap, target: record };
  const standIn = (fallbackReason: FallbackReason): TapRoute => ({ via: 'xctest', fallbackReason, tap, target: record });

  // Flag off, or a cached read: XCTest only, with neither backend field.
  if (!context.flagEnabled || target.fromCache) return plain;

  const identity = nodeIdentity(target.node);
  switch (identity.kind) {
    case 'none':
      return plain;
    case 'incomplete':
      return { via: 'failClosed', failureReason: 'invalid_action', mayHaveRun: false, target: record };
    case 'bridge': {
      if (gesture.kind === 'doubleTap') return standIn('unsupported');
      const admission = admitBridgeAction(context, gesture.kind);
      if (admission !== 'send') return standIn(admission);
      const { elementId, captureIdentity: observationIdentity } = identity.bridge;
      const action: AutoMobileAction =
        gesture.kind === 'tap'
          ? { tap: { observationIdentity, elementId } }
          : { longPress: { observationIdentity, elementId, durationMs: gesture.durationMs } };
      return {
        via: 'sdk',
        action,
        actionJson: encodeAutoMobileAction(action),
        // The press itself runs before the bridge can answer, so it is added to the request budget.
        budgetMs: SDK_REQUEST_BUDGET_MS + tap.durationMs,
        target: record,
        standIn: tap,
      };
    }
    case 'web': {
      // A long press or a double tap has no web form.
      if (gesture.kind !== 'tap') return standIn('unsupported');
      const { webViewId, snapshotId, elementId } = identity.web;
      if (admitWebAction(context, webViewId) !== 'send') return standIn('unavailable');
      const action: WebControlAction = { click: { snapshotId, elementId } };
      return {
        via: 'web',
        webViewId,
        action,
        actionJson: encodeWebControlAction(action),
        budgetMs: WEB_ACTION_BUDGET_MS,
        target: record,
        standIn: tap,
      };
    }
  }
}
