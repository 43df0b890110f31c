/**
 * swipeOn (docs/rules.md): a container or screen swipe through the bridge where the routing core
 * (src-shared/act/swipe.ts) allows it, else XCTest, with the display fence checked right before dispatch.
 */
import type { z } from 'zod';
import type { SwipeRequestSchema } from '@shared/protocol/action';
import type { UiNode } from '@shared/protocol/runner';
import {
  checkDisplayFence,
  displayFenceOf,
  interpretBridgeOutcome,
  PLAIN_XCTEST,
  routeSwipe,
  SDK,
  servedByXctest,
  type DisplayFence,
  type Served,
} from '@shared/act';
import { flattenTree } from '@shared/model/tree';
import { resolveTarget, scrollableAt, type Resolution } from '@shared/act/resolve';
import { twinWithIdentity } from '@shared/model/target';
import { type ActionRun, fail, failWith, ok, selectorRecord, type Outcome } from './run';

export async function runSwipe(run: ActionRun, request: z.output<typeof SwipeRequestSchema>, plannedFor: DisplayFence | undefined): Promise<Outcome> {
  const expectedDisplay = plannedFor ?? run.device.latestDisplay;
  const read = await run.read('freshRead', false);
  const current = read.observation?.viewHierarchy ? displayFenceOf(read.observation.viewHierarchy) : {};

  let container: { node: UiNode; resolvedBy: 'container' | 'autoContainer' } | undefined;
  const containerFound = await run.timed('resolve', () => {
    if (request.container) {
      const selector = request.container;
      const node = 'point' in selector ? scrollableAt(read.root, selector.point) : nodeOf(resolveTarget(selector, read.root));
      if (!node) return false;
      container = { node: twinOf(node, read.root), resolvedBy: 'container' };
    } else if (request.autoTarget) {
      const node = scrollableAt(read.root, request.start);
      if (node) container = { node, resolvedBy: 'autoContainer' };
    }
    return true;
  });
  if (!containerFound && request.container) {
    const reason = read.root ? 'target_not_found' : run.readFailure(read);
    return { served: PLAIN_XCTEST, ending: fail(reason, false), target: selectorRecord(request.container, 'container') };
  }

  const plan = routeSwipe(
    {
      stroke: { start: request.start, end: request.end },
      durationMs: request.durationMs,
      edge: request.edge,
      boomerang: request.boomerang,
      container,
      screen: read.root,
      fence: expectedDisplay ?? current,
    },
    read.context,
  );
  if (plan.via === 'failClosed') return { served: SDK, ending: fail(plan.failureReason, plan.mayHaveRun), target: plan.target };

  const served: Served = plan.via === 'sdk' ? SDK : servedByXctest(plan.fallbackReason);
  // The stroke as the user gave it must lie on the screen, whichever backend carries it (R-TAP-11).
  const off = run.offScreen([request.start, request.end]);
  if (off) return { served, ending: failWith(off), target: plan.target };
  const fence = checkDisplayFence(plan.steps[0].expected, current);
  if (fence.kind === 'failClosed') return { served, ending: fail(fence.failureReason, fence.mayHaveRun), target: plan.target };

  let outcome: Outcome;
  if (plan.via === 'xctest') {
    const verdict = await run.xctestSwipe(plan.steps[1].swipe, read.frameContext);
    outcome = {
      served: servedByXctest(plan.fallbackReason),
      ending: verdict.kind === 'done' ? ok : failWith(verdict),
      target: plan.target,
    };
  } else {
    const step = plan.steps[1];
    const relayed = await run.relay('request_sdk_action', { actionJson: step.actionJson }, step.budgetMs);
    const verdict = interpretBridgeOutcome({ via: 'sdk', standIn: plan.standIn }, relayed);
    if (verdict.kind === 'done') {
      outcome = { served: { backend: 'sdk', durationIgnored: plan.durationIgnored }, ending: ok, target: plan.target, warnings: plan.warnings };
    } else if (verdict.kind === 'fallback') {
      const standIn = await run.xctestSwipe(verdict.standIn.steps[1].swipe, read.frameContext);
      outcome = {
        served: servedByXctest(verdict.fallbackReason),
        ending: standIn.kind === 'done' ? ok : failWith(standIn),
        target: plan.target,
      };
    } else {
      outcome = { served: SDK, ending: failWith(verdict), target: plan.target, warnings: plan.warnings };
    }
  }
  if (run.actionSent) await run.observeAfter();
  return outcome;
}

function nodeOf(resolution: Resolution): UiNode | undefined {
  return resolution.kind === 'node' ? resolution.node : undefined;
}

function twinOf(node: UiNode, root: UiNode | undefined): UiNode {
  return root ? (twinWithIdentity(flattenTree(root), { node })?.node ?? node) : node;
}
