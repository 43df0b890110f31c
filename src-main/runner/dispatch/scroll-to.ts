/**
 * Scroll searches (docs/rules.md): the one web-view step (src-shared/act/look-for.ts), then XCTest
 * swipes, each followed by reads until the list rests (src-shared/act/scroll-loop.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { z } from 'zod';
import type { ScrollToRequestSchema, LookFor, TargetRecord } from '@shared/protocol/action';
import type { Observation, FallbackReason } from '@shared/protocol/observation';
import type { UiNode } from '@shared/protocol/runner';
import { interpretLookForStep, nodeTargetRecord, planLookFor, PLAIN_XCTEST, SDK, searchAfterWebStep, servedByXctest, type Served } from '@shared/act';
import { findLookFor, resolveScope } from '@shared/act/resolve';
import { runScrollLoop } from '@shared/act/scroll-loop';
import { flattenTree } from '@shared/model/tree';
import { type ActionRun, fail, failWith, ok, selectorRecord, type Outcome, type Read } from './run';

export async function runScrollTo(run: ActionRun, request: z.output<typeof ScrollToRequestSchema>): Promise<Outcome> {
  const lookFor: LookFor = request.lookFor;
  const selector = 'text' in lookFor ? lookFor.text : lookFor.elementId;
  const miss: TargetRecord = { resolvedBy: 'lookFor', selector };
  let read = await run.read('freshRead', false);
  if (!read.root) return { served: PLAIN_XCTEST, ending: fail(run.readFailure(read), false), target: miss };

  const scopeSelector = request.container ?? lookFor.container;
  const search = (root: UiNode | undefined): { found?: UiNode | undefined; scope?: UiNode | undefined } => {
    const scope = resolveScope(scopeSelector, root);
    if (scope === 'notFound') return {};
    return { scope, found: findLookFor(lookFor, scope) };
  };
  const first = await run.timed('resolve', () => search(read.root));
  if (!first.scope)
    return { served: PLAIN_XCTEST, ending: fail('target_not_found', false), target: scopeSelector ? selectorRecord(scopeSelector, 'container') : miss };
  const found = (node: UiNode, served: Served, warnings: readonly string[] = []): Outcome => ({
    served,
    ending: ok,
    target: nodeTargetRecord(node, 'lookFor', { selector }),
    warnings,
  });
  if (first.found) return found(first.found, PLAIN_XCTEST);

  const plan = planLookFor(
    {
      lookFor,
      container: request.container,
      layer: request.layer,
      targetInView: false,
      screen: read.root,
      webSnapshot: run.mergedWebSnapshot(read),
    },
    read.context,
  );

  let fallbackReason: FallbackReason | undefined;
  const searchWarnings: string[] = [];
  if (plan.kind === 'webStep') {
    const relayed = await run.relay('request_sdk_web_action', { webViewId: plan.webViewId, actionJson: plan.actionJson }, run.budgetFor('web', plan.budgetMs));
    const verdict = interpretLookForStep(plan, relayed);
    if (verdict.kind === 'failClosed') {
      await run.observeAfter();
      return { served: SDK, ending: failWith(verdict), target: miss };
    }
    if (verdict.kind === 'settleAndSearch') {
      // The page posts its next snapshot (coalesced to one per 100 ms) after the scroll.
      await run.timed('settle', () => sleep(verdict.waitMs));
      read = await run.observeAfter('reread');
      const again = search(read.root);
      const after = searchAfterWebStep(again.found !== undefined);
      if (after.kind === 'found' && again.found) return found(again.found, SDK);
      if (after.kind === 'swipe') searchWarnings.push(...after.warnings);
    } else {
      fallbackReason = verdict.fallbackReason;
    }
  } else if (plan.kind === 'swipe') {
    fallbackReason = plan.fallbackReason;
  }

  // Swipe with XCTest; after each swipe the list is read until it rests (src-shared/act/scroll-loop.ts).
  const served = servedByXctest(fallbackReason);
  const end = await runScrollLoop<Read>(
    {
      swipe: (at) => {
        const stroke = searchStroke(request.direction, search(at.root).scope ?? at.root, at.observation);
        return run.xctestSwipe({ ...stroke, durationMs: 300, boomerang: false }, at.frameContext);
      },
      read: () => run.read('settleRead', false),
      frameOf: (at) => at.frameContext,
      contentOf: (at) => contentSignature(search(at.root).scope ?? at.root),
      find: (at) => search(at.root).found,
      wait: (ms) => run.timed('settle', () => sleep(ms)),
    },
    read,
    request.maxSwipes,
  );
  // The resting screen, as the UI's next frame (with its screenshot when the device sends them).
  const after = await run.observeAfter('reread');
  if (end.kind === 'found') return found(search(after.root).found ?? end.node, served, searchWarnings);
  if (end.kind === 'failed') return { served, ending: failWith(end.verdict), target: miss, warnings: searchWarnings };
  searchWarnings.push(
    end.why === 'listEnd'
      ? `Not found: the end of the list was reached after ${end.swipes} swipe${end.swipes === 1 ? '' : 's'} ${request.direction} (the last one moved nothing).`
      : `Not found after ${request.maxSwipes} swipes ${request.direction}.`,
  );
  return { served, ending: fail('target_not_found', end.swipes > 0), target: miss, warnings: searchWarnings };
}

/** Where the scope's content sits: text and top edge of each node, so a scroll that moved nothing shows. */
function contentSignature(scope: UiNode | undefined): string {
  if (!scope) return '';
  return flattenTree(scope)
    .map(({ node }) => `${node.text ?? node['content-desc'] ?? ''}@${node.bounds?.top ?? ''},${node.bounds?.left ?? ''}`)
    .join('|');
}
/** A scroll search's stroke: through the middle of the scope, clear of the bars at the screen's edges. */
function searchStroke(
  direction: 'up' | 'down' | 'left' | 'right',
  scope: UiNode | undefined,
  observation: Observation | undefined,
): { x1: number; y1: number; x2: number; y2: number } {
  const width = observation?.screenSize?.width ?? 402;
  const height = observation?.screenSize?.height ?? 874;
  const b = scope?.bounds;
  const left = Math.max(0, b?.left ?? 0);
  const right = Math.min(width, b?.right ?? width);
  const top = Math.max(height * 0.15, b?.top ?? 0);
  const bottom = Math.min(height * 0.85, b?.bottom ?? height);
  const cx = (left + right) / 2;
  const cy = (top + bottom) / 2;
  const dy = (bottom - top) * 0.3;
  const dx = (right - left) * 0.3;
  switch (direction) {
    case 'up':
      return { x1: cx, y1: cy + dy, x2: cx, y2: cy - dy };
    case 'down':
      return { x1: cx, y1: cy - dy, x2: cx, y2: cy + dy };
    case 'left':
      return { x1: cx + dx, y1: cy, x2: cx - dx, y2: cy };
    case 'right':
      return { x1: cx - dx, y1: cy, x2: cx + dx, y2: cy };
  }
}
