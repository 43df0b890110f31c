/**
 * tapOn (docs/rules.md): a tap, long press or double tap on the target the fresh read resolves,
 * through the bridge or the web view when the target carries their identity, else XCTest, with the
 * stand-in and fail-closed rules of the routing core (src-shared/act/tap.ts).
 */
import { z } from 'zod';
import { DoubleTapRequestSchema, LongPressRequestSchema, TapRequestSchema, type Point, type TargetRecord } from '@shared/protocol/action';
import { interpretBridgeOutcome, nodeIdentity, routeTap, SDK, servedByXctest, type TapGesture, type TapTarget, type XctestTap } from '@shared/act';
import { resolveTarget, type Resolution } from '@shared/act/resolve';
import { centerOf } from '@shared/model/node';
import type { FallbackReason } from '@shared/protocol/observation';
import { type ActionRun, fail, failWith, ok, servedBeforeSending, type Outcome } from './run';

export const TapLikeRequestSchema = z.discriminatedUnion('action', [TapRequestSchema, LongPressRequestSchema, DoubleTapRequestSchema]);

export async function runTap(run: ActionRun, request: z.output<typeof TapLikeRequestSchema>): Promise<Outcome> {
  const gesture: TapGesture =
    request.action === 'tap' ? { kind: 'tap' } : request.action === 'longPress' ? { kind: 'longPress', durationMs: request.durationMs } : { kind: 'doubleTap' };
  const read = await run.read('freshRead', false);
  const resolution = await run.timed('resolve', () => resolveTarget(request.target, read.root));
  const notFound = run.unresolved(read, resolution, request.target);
  if (notFound) return notFound;
  const resolved = resolution as Exclude<Resolution, { kind: 'notFound' }>;

  const target: TapTarget =
    resolved.kind === 'point'
      ? { kind: 'point', point: resolved.point, found: resolved.found }
      : { kind: 'node', node: resolved.node, resolvedBy: resolved.resolvedBy === 'point' ? 'node' : resolved.resolvedBy, selector: resolved.selector };
  const route = routeTap(target, gesture, read.context);
  const record: TargetRecord = route.target;
  const warnings = resolved.kind === 'node' ? resolved.warnings : [];
  const unrevalidated = resolved.kind === 'node' ? resolved.unrevalidated : undefined;

  /** XCTest touching for the bridge: only the element as the fresh read shows it. */
  const standIn = async (tap: XctestTap, fallbackReason: FallbackReason | undefined): Promise<Outcome> => {
    const served = servedByXctest(fallbackReason);
    let point: Point | undefined = { x: tap.x, y: tap.y };
    if (unrevalidated) point = unrevalidated.counterpart ? centerOf(unrevalidated.counterpart) : undefined;
    if (!point) {
      run.warnings.push('XCTest could stand in, but the fresh read does not show the picked element, so nothing was touched.');
      return { served, ending: fail('target_not_found', false), target: record, warnings };
    }
    const verdict = await run.xctestTap({ ...tap, ...point }, read.frameContext, fallbackReason ? 'standIn' : 'xctest');
    return { served, ending: verdict.kind === 'done' ? ok : failWith(verdict), target: record, warnings };
  };

  let outcome: Outcome;
  switch (route.via) {
    case 'failClosed':
      return { served: servedBeforeSending(target), ending: fail(route.failureReason, route.mayHaveRun), target: record, warnings };
    case 'xctest': {
      const plain = route.fallbackReason === undefined && target.kind === 'node' && nodeIdentity(target.node).kind === 'none';
      outcome = await standIn(route.tap, route.fallbackReason ?? (plain ? run.readFellBack(read) : undefined));
      break;
    }
    case 'sdk':
    case 'web': {
      const outcomeOf =
        route.via === 'sdk'
          ? await run.relay('request_sdk_action', { actionJson: route.actionJson }, run.budgetFor('sdk', route.budgetMs))
          : await run.relay('request_sdk_web_action', { webViewId: route.webViewId, actionJson: route.actionJson }, run.budgetFor('web', route.budgetMs));
      const verdict = interpretBridgeOutcome(route, outcomeOf);
      if (verdict.kind === 'done') outcome = { served: SDK, ending: ok, target: record, warnings };
      else if (verdict.kind === 'fallback') outcome = await standIn(verdict.standIn, verdict.fallbackReason);
      else outcome = { served: SDK, ending: failWith(verdict), target: record, warnings };
      break;
    }
  }
  if (run.actionSent) await run.observeAfter();
  return outcome;
}
