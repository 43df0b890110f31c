/**
 * swipeOn routing (docs/rules.md#r-swipeon): a bridge container scrolls through the bridge, a screen
 * swipe on a screen that carries bridge nodes swipes through it, and the display fence is checked right
 * before whichever dispatch runs. Other fallbacks and fail-closed results follow tapOn (verdict.ts).
 */
import { DEFAULT_SWIPE_DURATION_MS, type FailureReason, type Point, type ScreenEdge, type TargetRecord } from '@shared/protocol/action';
import type { UiNode } from '@shared/protocol/runner';
import { encodeAutoMobileAction, type AutoMobileAction } from '@shared/protocol/sdk';
import { swipeBudgetMs } from './budget';
import { admitBridgeAction, type BridgeContext } from './context';
import type { DisplayFence } from './display-fence';
import { captureIdentityOf, nodeIdentity, nodeTargetRecord } from '@shared/model/identity';
import type { FallbackReason } from '@shared/protocol/observation';

export interface Stroke {
  readonly start: Point;
  readonly end: Point;
}

export interface SwipeInput {
  /** The stroke XCTest would run, in screen points. */
  readonly stroke: Stroke;
  readonly durationMs?: number | undefined;
  readonly edge?: ScreenEdge | undefined;
  readonly boomerang?: boolean | undefined;
  /** Named or auto-targeted; absent for a screen swipe. */
  readonly container?: { readonly node: UiNode; readonly resolvedBy: 'container' | 'autoContainer' } | undefined;
  /** The merged observation the swipe was resolved against. */
  readonly screen?: UiNode | undefined;
  /** Resolved from a cached hierarchy read, which carries no bridge identity. */
  readonly fromCache?: boolean | undefined;
  /** The display the stroke was computed for. */
  readonly fence: DisplayFence;
}

/** request_swipe. */
export interface XctestSwipe {
  readonly x1: number;
  readonly y1: number;
  readonly x2: number;
  readonly y2: number;
  readonly durationMs: number;
  readonly boomerang: boolean;
}

export interface FenceStep {
  readonly step: 'checkDisplayFence';
  readonly expected: DisplayFence;
}

export interface XctestSwipePlan {
  readonly via: 'xctest';
  /** Absent for plain XCTest and edge swipes: no backend fields. */
  readonly fallbackReason?: FallbackReason | undefined;
  readonly steps: readonly [FenceStep, { readonly step: 'xctestSwipe'; readonly swipe: XctestSwipe }];
  readonly target: TargetRecord;
}

export interface BridgeSwipePlan {
  readonly via: 'sdk';
  readonly steps: readonly [
    FenceStep,
    { readonly step: 'sdkAction'; readonly action: AutoMobileAction; readonly actionJson: string; readonly budgetMs: number },
  ];
  /** A bridge scroll has no timed stroke. */
  readonly durationIgnored: boolean;
  readonly warnings: readonly string[];
  readonly target: TargetRecord;
  readonly standIn: XctestSwipePlan;
}

export type SwipePlan =
  | BridgeSwipePlan
  | XctestSwipePlan
  | { readonly via: 'failClosed'; readonly failureReason: FailureReason; readonly mayHaveRun: false; readonly target: TargetRecord };

export const DURATION_IGNORED_WARNING = 'The bridge scrolls by content offset and has no timed stroke, so durationMs was ignored.';

export function routeSwipe(input: SwipeInput, context: BridgeContext): SwipePlan {
  const { stroke, container } = input;
  const durationMs = input.durationMs ?? DEFAULT_SWIPE_DURATION_MS;
  const fence: FenceStep = { step: 'checkDisplayFence', expected: input.fence };
  const screenCapture = captureIdentityOf(input.screen);
  const target: TargetRecord = container
    ? nodeTargetRecord(container.node, container.resolvedBy, input.fromCache ? { fromCache: true } : {})
    : { resolvedBy: 'screen', ...(screenCapture !== undefined && !input.fromCache ? { captureIdentity: screenCapture } : {}) };
  const xctest = (fallbackReason?: FallbackReason): XctestSwipePlan => ({
    via: 'xctest',
    ...(fallbackReason ? { fallbackReason } : {}),
    steps: [
      fence,
      {
        step: 'xctestSwipe',
        swipe: { x1: stroke.start.x, y1: stroke.start.y, x2: stroke.end.x, y2: stroke.end.y, durationMs, boomerang: input.boomerang ?? false },
      },
    ],
    target,
  });

  // Edge swipes reach system UI the bridge cannot see: XCTest, no backend.
  if (input.edge !== undefined || !context.flagEnabled || input.fromCache) return xctest();

  let action: AutoMobileAction;
  let durationIgnored = false;
  if (container) {
    const identity = nodeIdentity(container.node);
    if (identity.kind === 'incomplete') return { via: 'failClosed', failureReason: 'invalid_action', mayHaveRun: false, target };
    // Web view scrolling is not used by swipeOn yet (R-WEB-17), so a DOM container stays on XCTest.
    if (identity.kind !== 'bridge') return xctest();
    const { elementId, captureIdentity: observationIdentity } = identity.bridge;
    // The change in content offset: start minus end, so swiping up gives a positive y.
    const delta = { x: stroke.start.x - stroke.end.x, y: stroke.start.y - stroke.end.y };
    action = { scroll: { observationIdentity, elementId, delta } };
    durationIgnored = true;
  } else {
    if (screenCapture === undefined) return xctest();
    action = { swipe: { observationIdentity: screenCapture, start: stroke.start, end: stroke.end, durationMs } };
  }

  if (input.boomerang) return xctest('unsupported');
  const admission = admitBridgeAction(context, container ? 'scroll' : 'swipe');
  if (admission !== 'send') return xctest(admission);

  return {
    via: 'sdk',
    steps: [fence, { step: 'sdkAction', action, actionJson: encodeAutoMobileAction(action), budgetMs: swipeBudgetMs(durationMs) }],
    durationIgnored,
    warnings: durationIgnored && input.durationMs !== undefined ? [DURATION_IGNORED_WARNING] : [],
    target,
    standIn: xctest(),
  };
}
