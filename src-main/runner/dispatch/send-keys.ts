/**
 * sendKeys (docs/rules.md): the focus tap, then each keyboard step through the bridge, the web view or
 * XCTest as the pure state machine (src-shared/act/send-keys.ts) plans it, and the read-back.
 */
import type { z } from 'zod';
import type { SendKeysRequestSchema, Point, TargetRecord, TargetSelector } from '@shared/protocol/action';
import type { RunnerCommand, UiNode } from '@shared/protocol/runner';
import {
  expandSendKeysSteps,
  failKeyCommand,
  nodeTargetRecord,
  observeForSendKeys,
  pointTargetRecord,
  planKeyOp,
  PLAIN_XCTEST,
  recordKeyOutcome,
  SDK,
  startSendKeys,
  summarizeSendKeys,
  verifyFocusedTyping,
  verifyTypedText,
  type BridgeContext,
  type Ending,
  type KeyOp,
  type KeyStepResult,
  type Served,
  type SendKeysFocus,
  type SendKeysSession,
  type TextVerification,
  type XctestKeyCommand,
  type XctestTap,
} from '@shared/act';
import { findSameField, resolveTarget } from '@shared/act/resolve';
import { centerOf, hidesText } from '@shared/model/node';
import { isEditableNode } from '@shared/model/target';
import { type ActionRun, fail, failWith, ok, servedBeforeSending, XCTEST_COMMAND_TIMEOUT_MS, type Outcome, type Read } from './run';

export async function runSendKeys(run: ActionRun, request: z.output<typeof SendKeysRequestSchema>): Promise<Outcome> {
  let read: Read | undefined;
  let focus: SendKeysFocus | undefined;
  let focusPoint: Point | undefined;
  let resolvedWarnings: readonly string[] = [];
  let pointTarget: TargetRecord | undefined;

  if (request.target) {
    read = await run.read('freshRead', false);
    const resolution = await run.timed('resolve', () => resolveTarget(request.target as TargetSelector, read?.root, { preferEditable: true }));
    const notFound = run.unresolved(read, resolution, request.target);
    if (notFound) return notFound;
    if (resolution.kind === 'point') {
      focusPoint = resolution.point;
      pointTarget = pointTargetRecord(resolution.point, resolution.found);
    } else if (resolution.kind === 'node') {
      resolvedWarnings = resolution.warnings;
      focus = { node: resolution.node, resolvedBy: resolution.resolvedBy === 'point' ? 'node' : resolution.resolvedBy, selector: resolution.selector };
      if (resolution.unrevalidated) {
        focusPoint = resolution.unrevalidated.counterpart ? centerOf(resolution.unrevalidated.counterpart) : undefined;
        if (!focusPoint) return { served: PLAIN_XCTEST, ending: fail('target_not_found', false), target: nodeTargetRecord(resolution.node, 'node') };
      }
    }
  }

  let context: BridgeContext = read?.context ?? { flagEnabled: !run.xctestOnly };
  const start = startSendKeys(focus, context);
  let session: SendKeysSession = start.session;
  const target: TargetRecord = pointTarget ?? start.target;
  if (session.failed) {
    return {
      served: servedBeforeSending(focus),
      ending: fail(session.failed.failureReason, session.failed.mayHaveRun, session.failed.deviceMessage),
      target,
      warnings: resolvedWarnings,
    };
  }

  // The focus tap stays on XCTest (R-KEY-03), so an XCTest stand-in finds the field focused as usual.
  const focusTap: XctestTap | undefined = start.focusTap
    ? { ...start.focusTap, ...(focusPoint ?? {}) }
    : focusPoint
      ? { ...focusPoint, durationMs: 0, taps: 1 }
      : undefined;
  if (focusTap) {
    const verdict = await run.xctestTap(focusTap, read?.frameContext, 'focusTap');
    if (verdict.kind === 'failClosed') {
      if (run.actionSent) await run.observeAfter();
      return { served: PLAIN_XCTEST, ending: failWith(verdict), target, warnings: resolvedWarnings };
    }
  }

  // Read-back: the whole value the field should show, while the command still knows the field. A target
  // that is no field (a label: a tap on a web <label> focuses its input, and XCUIElement.typeText types
  // into the focused element) leaves the keys to keyboard focus, so they are read back from the focused
  // field, as src-shared/act/secret.ts judges their secrecy (docs/rules.md#r-act-08).
  const aimedAtField = focus !== undefined && isEditableNode(focus.node);
  let expected = focus && aimedAtField ? initialText(focus.node) : undefined;
  let verifiable = true;
  let readsSinceFocus = 0;

  for (const op of expandSendKeysSteps(request.steps)) {
    let plan = planKeyOp(session, op, context);
    if (plan.via === 'observe') {
      // The read after the focus tap: the capture (or snapshot) the first bridge action must name.
      const fresh = await run.read(readsSinceFocus === 0 ? 'readAfterFocus' : 'reread', false);
      readsSinceFocus++;
      context = fresh.context;
      session = observeForSendKeys(session, fresh.root);
      plan = planKeyOp(session, op, context);
      if (plan.via === 'observe') plan = { via: 'failClosed', failureReason: 'invalid_action', mayHaveRun: false };
    }
    let step: KeyStepResult;
    if (plan.via === 'failClosed') {
      session = failKeyCommand(session, plan);
      break;
    } else if (plan.via === 'xctest') {
      step = await keyStep(run, session, op, plan);
    } else {
      const budgetMs = run.budgetFor(plan.via, plan.budgetMs);
      if (budgetMs <= 0) {
        // Nothing is sent that could not be waited for: a request cut short could run unseen.
        run.warnings.push('The 5 s SDK budget of this command was spent before this step; it was not sent.');
        session = failKeyCommand(session, { failureReason: 'timeout', mayHaveRun: false });
        break;
      }
      const outcome =
        plan.via === 'sdk'
          ? await run.relay('request_sdk_action', { actionJson: plan.actionJson }, budgetMs)
          : await run.relay('request_sdk_web_action', { webViewId: plan.webViewId, actionJson: plan.actionJson }, budgetMs);
      step = recordKeyOutcome(session, op, plan, outcome);
      if (step.kind === 'standIn') step = await keyStep(run, step.session, op, step.plan);
    }
    session = step.session;
    if (step.kind === 'failClosed') break;
    expected = nextExpected(expected, op);
    if (op.op === 'ime' || op.op === 'tab') verifiable = false;
  }

  const after = run.actionSent ? await run.observeAfter() : undefined;
  const summary = summarizeSendKeys(session);
  const served: Served =
    summary.backend === 'sdk' ? SDK : summary.backend === 'xctest' ? { backend: 'xctest', fallbackReason: summary.fallbackReason } : PLAIN_XCTEST;
  const warnings = [...resolvedWarnings, ...summary.warnings];
  if (session.failed) return { served, ending: fail(session.failed.failureReason, session.failed.mayHaveRun, session.failed.deviceMessage), target, warnings };

  let ending: Ending = ok;
  const typed = request.steps.some((s) => s.kind !== 'ime' && s.kind !== 'tab');
  if (verifiable && expected !== undefined && after && (aimedAtField || !focus)) {
    const field = focus ? findSameField(focus.node, after.root) : after.observation?.focusedElement?.node;
    const verification = await run.timed('verify', () => verifyField(expected as string, field));
    if (verification.status === 'mismatch') {
      warnings.push(`Read-back shows "${verification.actual}", expected "${expected}".`);
      ending = fail('text_mismatch', true);
    } else if (verification.status === 'unverifiable') {
      warnings.push(`The typed text could not be read back (${verification.reason}).`);
    }
  } else if (typed && verifiable && !aimedAtField && after) {
    // Keys that followed keyboard focus: checked against the field that has focus now (R-ACT-06).
    const ops = expandSendKeysSteps(request.steps).filter(
      (op): op is Extract<KeyOp, { op: 'insertText' | 'clear' }> => op.op === 'insertText' || op.op === 'clear',
    );
    const field = after.observation?.focusedElement?.node;
    const verification = await run.timed('verify', () => verifyFocusedTyping(ops, field));
    if (verification.status === 'mismatch') {
      warnings.push(`The focused field shows "${verification.actual}", which does not end with what was typed: the keys may have gone elsewhere.`);
    } else if (verification.status === 'unverifiable') {
      warnings.push(
        `The typed text could not be read back (${verification.reason === 'field_not_found' ? 'no field has keyboard focus after it' : verification.reason}).`,
      );
    }
  } else if (typed && !verifiable) {
    warnings.push('The typed text was not read back: Tab or an IME action moved focus after it.');
  } else if (typed && after) {
    // A secret field reads back as nothing or a mask: say so rather than "unknown".
    warnings.push(
      focus && hidesText(focus.node)
        ? 'The typed text could not be read back (secure_field).'
        : 'The typed text was not read back: what the field held before is unknown.',
    );
  }
  return { served, ending, target, warnings };
}

export async function keyStep(
  run: ActionRun,
  session: SendKeysSession,
  op: KeyOp,
  plan: Extract<ReturnType<typeof planKeyOp>, { via: 'xctest' }>,
): Promise<KeyStepResult> {
  const { command, payload } = keyPayload(plan.command);
  return recordKeyOutcome(session, op, plan, await run.runner(plan.fallbackReason ? 'standIn' : 'xctest', command, payload, XCTEST_COMMAND_TIMEOUT_MS));
}

/** What a field shows before typing, when that can be known: an empty field reads as its placeholder or label. */
function initialText(node: UiNode): string | undefined {
  const shown = node.text ?? node.value;
  if (shown === undefined) return node['value-redacted'] === 'true' ? undefined : '';
  if (node.password === 'true') return undefined;
  if (shown === node['hint-text'] || shown === node['content-desc']) return '';
  return shown;
}

/** A secure field the bridge reports without its value (it never leaves the app) cannot be read back. */
function verifyField(expected: string, node: UiNode | undefined): TextVerification {
  if (node && node.text === undefined && node.value === undefined && hidesText(node)) {
    return { status: 'unverifiable', reason: 'secure_field' };
  }
  return verifyTypedText(expected, node);
}

function keyPayload(command: XctestKeyCommand): { command: RunnerCommand; payload: Record<string, unknown> } {
  switch (command.command) {
    case 'request_append_text':
      return { command: command.command, payload: { text: command.text } };
    case 'request_clear_text':
      return { command: command.command, payload: {} };
    case 'request_ime_action':
      return { command: command.command, payload: { action: command.action } };
    case 'request_press_key':
      return { command: command.command, payload: { key: command.key, modifiers: [] } };
  }
}

function nextExpected(expected: string | undefined, op: KeyOp): string | undefined {
  switch (op.op) {
    case 'insertText':
      return expected === undefined ? undefined : expected + op.text;
    case 'clear':
      return '';
    default:
      return expected;
  }
}
