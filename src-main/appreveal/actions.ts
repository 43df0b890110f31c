/**
 * Actions on an AppReveal device (docs/rules.md#r-ar-14): each ActionRequest maps onto the tools the app
 * registered, with arguments named as each tool's inputSchema names them (the client builds them). What
 * has no AppReveal form fails closed with that reason and nothing sent; every answer the app gave that
 * says it did not do it is `mayHaveRun: false` (docs/rules.md#r-ar-07); nothing is retried.
 */
import { ActionRequestSchema, type ActionRequest, type ActionResult, type FailureReason, type TargetSelector } from '@shared/protocol/action';
import { AppRevealError, type AppRevealClient } from './client';

type Outcome = { ok: true; warnings?: string[] } | { ok: false; reason: FailureReason; mayHaveRun: boolean; warnings: string[] };

export async function actThroughAppReveal(client: AppRevealClient, input: unknown): Promise<ActionResult> {
  const request = ActionRequestSchema.parse(input);
  const started = performance.now();
  let requestsSent = 0;
  const call = async (run: () => Promise<unknown>): Promise<void> => {
    requestsSent++;
    try {
      await run();
    } catch (error) {
      // Refused before the wire (no such tool listed, or arguments it cannot take): nothing was sent.
      if (error instanceof AppRevealError && (error.code === 'no_form' || (error.code === 'unknown_tool' && error.details.rpcCode === undefined)))
        requestsSent--;
      throw error;
    }
  };
  let outcome: Outcome;
  try {
    outcome = await perform(client, request, call);
  } catch (error) {
    outcome = failureOf(error);
  }
  const result: ActionResult = {
    success: outcome.ok,
    backend: 'appreveal',
    warnings: outcome.warnings ?? [],
    target: targetRecord(request),
    timings: { dispatch: performance.now() - started },
    requestsSent,
  };
  if (!outcome.ok) {
    result.failureReason = outcome.reason;
    result.mayHaveRun = outcome.mayHaveRun;
  }
  return result;
}

async function perform(client: AppRevealClient, request: ActionRequest, call: (run: () => Promise<unknown>) => Promise<void>): Promise<Outcome> {
  switch (request.action) {
    case 'tap':
      await call(() => tap(client, request.target));
      return { ok: true };
    case 'longPress':
    case 'doubleTap':
      return noForm(`AppReveal has no ${request.action === 'longPress' ? 'long press' : 'double tap'} tool`);
    case 'sendKeys': {
      const id = request.target && 'id' in request.target ? request.target.id : undefined;
      for (const step of request.steps) {
        if (step.kind === 'type') await call(() => client.typeText(step.text, id));
        else if (step.kind === 'clear' || step.kind === 'replace') {
          if (!id) return noForm('clear_text needs an element id');
          await call(() => client.clearText(id));
          if (step.kind === 'replace') await call(() => client.typeText(step.text, id));
        } else return noForm(`AppReveal has no tool for ${step.kind === 'tab' ? 'Tab' : `the IME action ${step.imeAction}`}`);
      }
      return { ok: true };
    }
    case 'swipe': {
      // AppReveal scrolls a container by direction; a finger moving up scrolls the content down.
      const dy = request.end.y - request.start.y;
      const dx = request.end.x - request.start.x;
      const direction = Math.abs(dy) >= Math.abs(dx) ? (dy < 0 ? 'down' : 'up') : dx < 0 ? 'right' : 'left';
      const container = request.container && 'id' in request.container ? request.container.id : undefined;
      await call(() => client.scroll(direction, container));
      return { ok: true, warnings: ['AppReveal scrolls by direction: the stroke’s length and duration are not used'] };
    }
    case 'back':
      if (!client.has('navigate_back')) return noForm('this app did not register navigate_back');
      await call(() => client.navigateBack());
      return { ok: true };
    case 'webTool': {
      if (!client.has(request.tool)) return noForm(`this app did not register ${request.tool}`);
      if (request.tool === 'web_click') await call(() => client.webClick(request.selector));
      else {
        if (request.text === undefined) return noForm('web_type needs the text to type');
        const text = request.text;
        await call(() => client.webType(request.selector, text));
      }
      return { ok: true };
    }
    case 'assert':
      // Checked by the connection on its own read (AppRevealConnection.assertOn): no tool acts.
      return noForm('an assertion is checked on a read, not sent as a tool');
    case 'launch':
      return { ok: false, reason: 'no_lifecycle_form', mayHaveRun: false, warnings: ['AppReveal runs inside the app: it cannot launch or relaunch it'] };
    case 'openLink':
      if (!client.has('open_deeplink')) return noForm('this app did not register open_deeplink');
      await call(() => client.openDeeplink(request.url));
      return { ok: true };
    case 'scrollTo':
      if (!('elementId' in request.lookFor)) return noForm('scroll_to_element takes an element id, not text');
      await call(() => client.scrollToElement((request.lookFor as { elementId: string }).elementId));
      return { ok: true };
  }
}

function tap(client: AppRevealClient, target: TargetSelector): Promise<unknown> {
  if ('id' in target) return client.tapElement(target.id);
  if ('text' in target) return client.tapText(target.text);
  if ('point' in target) return client.tapPoint(target.point.x, target.point.y);
  const id = target.node['resource-id'];
  if (id) return client.tapElement(id);
  const b = target.node.bounds;
  if (!b) throw new AppRevealError('tool_error', 'the picked element has no id and no bounds');
  return client.tapPoint((b.left + b.right) / 2, (b.top + b.bottom) / 2);
}

function noForm(why: string): Outcome {
  return { ok: false, reason: 'appreveal_unknown_tool', mayHaveRun: false, warnings: [why] };
}

function failureOf(error: unknown): Outcome {
  if (!(error instanceof AppRevealError)) return { ok: false, reason: 'appreveal_unreachable', mayHaveRun: true, warnings: [(error as Error).message] };
  // The message already lists an ambiguous tap_text's candidates.
  const warnings = [error.message];
  switch (error.code) {
    case 'tool_error':
      return { ok: false, reason: 'appreveal_tool_error', mayHaveRun: false, warnings };
    case 'unknown_tool':
    case 'no_form':
      // The app does not have the tool, or the tool cannot take what this action must name: nothing sent.
      return { ok: false, reason: 'appreveal_unknown_tool', mayHaveRun: false, warnings };
    case 'unauthorized':
    case 'forbidden_origin':
      return { ok: false, reason: 'appreveal_unauthorized', mayHaveRun: false, warnings };
    case 'timeout':
      return { ok: false, reason: 'timeout', mayHaveRun: true, warnings };
    // unreachable: the request or its answer was lost; bad_reply: an answer that cannot be read, which
    // may come after the tool ran. Either way it may have run, and it is never sent again.
    default:
      return { ok: false, reason: 'appreveal_unreachable', mayHaveRun: true, warnings };
  }
}

function targetRecord(request: ActionRequest): ActionResult['target'] {
  if (request.action === 'webTool') return { resolvedBy: 'screen', selector: request.selector };
  const target = 'target' in request ? request.target : undefined;
  if (!target) return { resolvedBy: request.action === 'scrollTo' ? 'lookFor' : 'screen' };
  if ('id' in target) return { resolvedBy: 'id', selector: target.id };
  if ('text' in target) return { resolvedBy: 'text', selector: target.text };
  if ('point' in target) return { resolvedBy: 'point', point: target.point };
  return { resolvedBy: 'node', ...(target.node.bounds ? { bounds: target.node.bounds } : {}) };
}
