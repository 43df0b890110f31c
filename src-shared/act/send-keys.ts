/**
 * sendKeys as a pure state machine (docs/rules.md#r-sendkeys, docs/rules.md#r-sendkeys-dom): which
 * backend each keyboard step takes, and what the command remembers about the field it focused between
 * steps. Plain data in, plain data out.
 *
 * The dispatcher's loop, per step:
 *   plan = planKeyOp(session, op, context)
 *   'observe'    → read the screen, session = observeForSendKeys(session, root), plan again
 *   'sdk' | 'web'→ send, then recordKeyOutcome(session, op, plan, relayOutcome)
 *   'xctest'     → run, then recordKeyOutcome(session, op, plan, runnerOutcome)
 *   'failClosed' → stop
 * recordKeyOutcome answers done, failClosed, or standIn (an XCTest plan to run and record in turn).
 */
import type { FailureReason, ImeAction, SendKeysStep, TargetRecord } from '@shared/protocol/action';
import type { UInt64 } from '@shared/protocol/json';
import type { UiNode } from '@shared/protocol/runner';
import { encodeAutoMobileAction, encodeWebControlAction, type AutoMobileAction, type WebControlAction } from '@shared/protocol/sdk';
import { flattenTree } from '@shared/model/tree';
import { SDK_REQUEST_BUDGET_MS, WEB_ACTION_BUDGET_MS } from './budget';
import { admitBridgeAction, admitWebAction, type BridgeContext } from './context';
import { captureIdentityOf, nodeIdentity, nodeTargetRecord } from '@shared/model/identity';
import type { XctestTap } from './tap';
import { interpretBridgeOutcome, interpretRunnerOutcome, type RelayOutcome, type RunnerOutcome } from './verdict';
import { centerOf } from '@shared/model/node';
import type { FallbackReason } from '@shared/protocol/observation';

export { verifyFocusedTyping, verifyTypedText, type TextVerification } from './verify-text';

// ---- Operations -------------------------------------------------------------------------------------

/** The unit a step becomes: `replace` is a clear followed by text entry. */
export type KeyOp =
  | { readonly op: 'insertText'; readonly text: string }
  | { readonly op: 'clear' }
  | { readonly op: 'ime'; readonly imeAction: ImeAction }
  | { readonly op: 'tab' };

export function expandSendKeysSteps(steps: readonly SendKeysStep[]): KeyOp[] {
  return steps.flatMap((step): KeyOp[] => {
    switch (step.kind) {
      case 'type':
        return [{ op: 'insertText', text: step.text }];
      case 'clear':
        return [{ op: 'clear' }];
      case 'replace':
        return [{ op: 'clear' }, { op: 'insertText', text: step.text }];
      case 'ime':
        return [{ op: 'ime', imeAction: step.imeAction }];
      case 'tab':
        return [{ op: 'tab' }];
    }
  });
}

/** The runner command XCTest uses for an op. */
export type XctestKeyCommand =
  | { readonly command: 'request_append_text'; readonly text: string }
  | { readonly command: 'request_clear_text' }
  | { readonly command: 'request_ime_action'; readonly action: ImeAction }
  | { readonly command: 'request_press_key'; readonly key: 'tab' };

function xctestCommand(op: KeyOp): XctestKeyCommand {
  switch (op.op) {
    case 'insertText':
      return { command: 'request_append_text', text: op.text };
    case 'clear':
      return { command: 'request_clear_text' };
    case 'ime':
      return { command: 'request_ime_action', action: op.imeAction };
    case 'tab':
      return { command: 'request_press_key', key: 'tab' };
  }
}

// ---- Session ----------------------------------------------------------------------------------------

export type FocusedField =
  /** No routable field: no selector, a plain or non-routable field, or forgotten after Tab / IME. */
  | { readonly kind: 'none' }
  | { readonly kind: 'bridge'; readonly elementId: string; readonly captureIdentity: UInt64 }
  | {
      readonly kind: 'web';
      readonly webViewId: string;
      /** Stable for the life of its document. */
      readonly elementId: string;
      readonly documentId: string;
      readonly snapshotId: string;
      /** The element id showed up in another document: the next action fails closed. */
      readonly navigated: boolean;
    }
  /** The bridge or page can no longer serve it: XCTest stands in, reporting `unavailable`. */
  | { readonly kind: 'lost' };

export interface SendKeysSession {
  readonly field: FocusedField;
  /** An observation was read since the focus tap. */
  readonly readSinceFocus: boolean;
  /** A bridge or web action of this command has been sent. */
  readonly bridgeActionSent: boolean;
  /** An accepted action gave no nextObservationIdentity, so the bridge's current capture is unknown. */
  readonly captureUnknown: boolean;
  /** The gate for setValue: this command cleared the field through the web view, and nothing typed since. */
  readonly clearedThroughWeb: boolean;
  readonly usedSdk: boolean;
  /** XCTest steps with no fallback reason (plain XCTest, or following keyboard focus). */
  readonly usedPlainXctest: boolean;
  /** In the order they happened. */
  readonly fallbackReasons: readonly FallbackReason[];
  readonly completedOps: number;
  readonly failed?: KeyFailure | undefined;
}

/** Why the command stopped; the device's own words when it gave any. */
export interface KeyFailure {
  readonly failureReason: FailureReason;
  readonly mayHaveRun: boolean;
  readonly deviceMessage?: string | undefined;
}

/**
 * A step that failed after earlier ones ran (a replace whose clear was done): the command as a whole has
 * changed the field, so it may have run whatever the failing step's own answer says (docs/rules.md#r-act-01).
 */
function commandFailure(session: SendKeysSession, verdict: KeyFailure): KeyFailure {
  return {
    failureReason: verdict.failureReason,
    mayHaveRun: verdict.mayHaveRun || session.completedOps > 0,
    ...(verdict.deviceMessage !== undefined ? { deviceMessage: verdict.deviceMessage } : {}),
  };
}

export interface SendKeysFocus {
  readonly node: UiNode;
  readonly resolvedBy: 'id' | 'text' | 'node';
  readonly selector?: string | undefined;
  readonly fromCache?: boolean | undefined;
}

export interface SendKeysStart {
  readonly session: SendKeysSession;
  /** The focus tap, always XCTest, so an XCTest stand-in finds the field focused as usual. Absent without a selector. */
  readonly focusTap?: XctestTap | undefined;
  readonly target: TargetRecord;
}

const FRESH: Omit<SendKeysSession, 'field'> = {
  readSinceFocus: false,
  bridgeActionSent: false,
  captureUnknown: false,
  clearedThroughWeb: false,
  usedSdk: false,
  usedPlainXctest: false,
  fallbackReasons: [],
  completedOps: 0,
};

const WEB_TEXT_ROLES = new Set(['input', 'textarea']);

/** Starts a command. Without `focus` (no selector) keys follow keyboard focus through XCTest. */
export function startSendKeys(focus: SendKeysFocus | undefined, context: BridgeContext): SendKeysStart {
  if (!focus) return { session: { ...FRESH, field: { kind: 'none' } }, target: { resolvedBy: 'keyboardFocus' } };

  const target = nodeTargetRecord(focus.node, focus.resolvedBy, {
    ...(focus.selector !== undefined ? { selector: focus.selector } : {}),
    ...(focus.fromCache ? { fromCache: true } : {}),
  });
  const point = centerOf(focus.node);
  if (!point) {
    const failed = { failureReason: 'target_without_bounds' as const, mayHaveRun: false };
    return { session: { ...FRESH, field: { kind: 'none' }, failed }, target };
  }
  const focusTap: XctestTap = { x: point.x, y: point.y, durationMs: 0, taps: 1 };
  const start = (field: FocusedField): SendKeysStart => ({ session: { ...FRESH, field }, focusTap, target });

  if (!context.flagEnabled || focus.fromCache) return start({ kind: 'none' });
  const identity = nodeIdentity(focus.node);
  switch (identity.kind) {
    case 'none':
      return start({ kind: 'none' });
    case 'incomplete': {
      // Typing through XCTest into a node marked as bridge-served but unaddressable is no allowed fallback.
      const failed = { failureReason: 'invalid_action' as const, mayHaveRun: false };
      return { session: { ...FRESH, field: { kind: 'none' }, failed }, target };
    }
    case 'bridge':
      return start({ kind: 'bridge', ...identity.bridge });
    case 'web': {
      const { webViewId, elementId, snapshotId, documentId, webRole } = identity.web;
      // contenteditable and other DOM editors ignore an assigned value; without a document id a
      // navigation cannot be told from the same page. Both stay plain XCTest.
      const routable = documentId !== undefined && webRole !== undefined && WEB_TEXT_ROLES.has(webRole.toLowerCase());
      return start(routable ? { kind: 'web', webViewId, elementId, documentId, snapshotId, navigated: false } : { kind: 'none' });
    }
  }
}

/**
 * Before the first bridge or web action, if nothing was read since focus, the screen is read once: any
 * capture moves the bridge's current observation, and the bridge rejects an action naming an older one.
 */
export function needsFreshRead(session: SendKeysSession): boolean {
  const routed = session.field.kind === 'bridge' || session.field.kind === 'web';
  return routed && ((!session.bridgeActionSent && !session.readSinceFocus) || session.captureUnknown);
}

/** Takes the identities of an observation the command read (the merged tree, or undefined when the read failed). */
export function observeForSendKeys(session: SendKeysSession, root: UiNode | undefined): SendKeysSession {
  const read = { ...session, readSinceFocus: true };
  const field = session.field;
  const beforeFirstAction = !session.bridgeActionSent;

  if (field.kind === 'bridge') {
    const capture = captureIdentityOf(root);
    if (capture !== undefined) return { ...read, captureUnknown: false, field: { ...field, captureIdentity: capture } };
    // No bridge node merged: the bridge did not answer. With no usable capture to name, it is unavailable.
    return beforeFirstAction || session.captureUnknown ? { ...read, field: { kind: 'lost' } } : read;
  }

  if (field.kind === 'web') {
    const shown = root
      ? flattenTree(root)
          .map(({ node }) => nodeIdentity(node))
          .flatMap((id) => (id.kind === 'web' && id.web.webViewId === field.webViewId && id.web.elementId === field.elementId ? [id.web] : []))
      : [];
    const sameDocument = shown.find((w) => w.documentId === field.documentId);
    if (sameDocument) return { ...read, field: { ...field, snapshotId: sameDocument.snapshotId } };
    // Element ids restart per document: the same id in another (or an unnamed) document is another element.
    if (shown.length > 0) return { ...read, field: { ...field, navigated: true } };
    return beforeFirstAction ? { ...read, field: { kind: 'lost' } } : read;
  }

  return read;
}

// ---- Planning ---------------------------------------------------------------------------------------

export type XctestKeyPlan = {
  readonly via: 'xctest';
  readonly command: XctestKeyCommand;
  /** Absent when XCTest is simply the backend (no routable field), not a stand-in. */
  readonly fallbackReason?: FallbackReason | undefined;
};

export type KeyPlan =
  /** Read the screen, pass it to observeForSendKeys, then plan the same op again. */
  | { readonly via: 'observe' }
  | {
      readonly via: 'sdk';
      readonly action: AutoMobileAction;
      readonly actionJson: string;
      readonly budgetMs: number;
      readonly standIn: XctestKeyCommand;
    }
  | {
      readonly via: 'web';
      readonly webViewId: string;
      readonly action: WebControlAction;
      readonly actionJson: string;
      readonly budgetMs: number;
      readonly standIn: XctestKeyCommand;
    }
  | XctestKeyPlan
  | { readonly via: 'failClosed'; readonly failureReason: FailureReason; readonly mayHaveRun: boolean };

export function planKeyOp(session: SendKeysSession, op: KeyOp, context: BridgeContext): KeyPlan {
  if (session.failed) return { via: 'failClosed', ...session.failed };
  const field = session.field;
  const command = xctestCommand(op);
  const xctest = (fallbackReason?: FallbackReason): KeyPlan => ({ via: 'xctest', command, ...(fallbackReason ? { fallbackReason } : {}) });

  switch (field.kind) {
    case 'none':
      return xctest();
    case 'lost':
      return xctest('unavailable');
    case 'bridge': {
      // IME actions and Tab have no native bridge form.
      if (op.op === 'ime' || op.op === 'tab') return xctest('unsupported');
      const kind = op.op === 'insertText' ? 'insertText' : 'clearText';
      const admission = admitBridgeAction(context, kind);
      if (admission !== 'send') return xctest(admission);
      if (needsFreshRead(session)) return { via: 'observe' };
      const { elementId, captureIdentity: observationIdentity } = field;
      const action: AutoMobileAction =
        op.op === 'insertText' ? { insertText: { observationIdentity, elementId, text: op.text } } : { clearText: { observationIdentity, elementId } };
      return { via: 'sdk', action, actionJson: encodeAutoMobileAction(action), budgetMs: SDK_REQUEST_BUDGET_MS, standIn: command };
    }
    case 'web': {
      if (field.navigated) return { via: 'failClosed', failureReason: 'document_changed', mayHaveRun: false };
      const action = webFormOf(op, field, session.clearedThroughWeb);
      if (!action) return xctest('unsupported');
      if (admitWebAction(context, field.webViewId) !== 'send') return xctest('unavailable');
      if (needsFreshRead(session)) return { via: 'observe' };
      return {
        via: 'web',
        webViewId: field.webViewId,
        action,
        actionJson: encodeWebControlAction(action),
        budgetMs: WEB_ACTION_BUDGET_MS,
        standIn: command,
      };
    }
  }
}

/** The web view's bounded action for an op, or undefined when it has none (XCTest, `unsupported`). */
function webFormOf(op: KeyOp, field: { snapshotId: string; elementId: string }, clearedThroughWeb: boolean): WebControlAction | undefined {
  const target = { snapshotId: field.snapshotId, elementId: field.elementId };
  switch (op.op) {
    case 'clear':
      return { clear: target };
    case 'insertText':
      // setValue replaces the value, so it stands for typing only into a field the web view just cleared;
      // typing that appends at the caret has no web form.
      return clearedThroughWeb ? { setValue: { ...target, text: op.text } } : undefined;
    case 'ime':
      // IME done submits the field's form; the other IME actions have no web form.
      return op.imeAction === 'done' ? { submit: target } : undefined;
    case 'tab':
      return undefined;
  }
}

// ---- Recording --------------------------------------------------------------------------------------

export type KeyStepResult =
  | { readonly kind: 'done'; readonly session: SendKeysSession }
  /** Run this through XCTest, then record its outcome with recordKeyOutcome. */
  | { readonly kind: 'standIn'; readonly session: SendKeysSession; readonly plan: XctestKeyPlan }
  | ({ readonly kind: 'failClosed'; readonly session: SendKeysSession } & KeyFailure);

type DispatchedKeyPlan = Extract<KeyPlan, { via: 'sdk' | 'web' }>;

export function recordKeyOutcome(session: SendKeysSession, op: KeyOp, plan: DispatchedKeyPlan, outcome: RelayOutcome): KeyStepResult;
export function recordKeyOutcome(session: SendKeysSession, op: KeyOp, plan: XctestKeyPlan, outcome: RunnerOutcome): KeyStepResult;
export function recordKeyOutcome(
  session: SendKeysSession,
  op: KeyOp,
  plan: DispatchedKeyPlan | XctestKeyPlan,
  outcome: RelayOutcome | RunnerOutcome,
): KeyStepResult {
  if (plan.via === 'xctest') return recordXctest(session, op, plan, outcome as RunnerOutcome);

  const verdict = interpretBridgeOutcome(plan, outcome as RelayOutcome);
  const sent = { ...session, bridgeActionSent: true };
  switch (verdict.kind) {
    case 'fallback': {
      // Nothing ran; after bridge_unavailable the rest of the command goes straight to XCTest.
      const next = verdict.fallbackReason === 'unavailable' ? { ...sent, field: { kind: 'lost' } as const } : sent;
      return { kind: 'standIn', session: next, plan: { via: 'xctest', command: verdict.standIn, fallbackReason: verdict.fallbackReason } };
    }
    case 'failClosed': {
      const failed = commandFailure(session, verdict);
      return { kind: 'failClosed', ...failed, session: { ...sent, usedSdk: true, failed } };
    }
    case 'done': {
      const accepted: SendKeysSession = { ...sent, usedSdk: true, completedOps: session.completedOps + 1 };
      return { kind: 'done', session: afterAccepted(accepted, op, plan, verdict.nextObservationIdentity) };
    }
  }
}

function afterAccepted(session: SendKeysSession, op: KeyOp, plan: DispatchedKeyPlan, next: UInt64 | undefined): SendKeysSession {
  const field = session.field;
  if (plan.via === 'sdk' && field.kind === 'bridge') {
    // The bridge took a capture after the action; naming anything older would be rejected as stale.
    return next !== undefined ? { ...session, field: { ...field, captureIdentity: next } } : { ...session, captureUnknown: true };
  }
  if (op.op === 'ime') return forget(session);
  if (op.op === 'clear') return { ...session, clearedThroughWeb: true };
  return { ...session, clearedThroughWeb: false };
}

function recordXctest(session: SendKeysSession, op: KeyOp, plan: XctestKeyPlan, outcome: RunnerOutcome): KeyStepResult {
  const verdict = interpretRunnerOutcome(outcome);
  const used: SendKeysSession = plan.fallbackReason
    ? { ...session, fallbackReasons: [...session.fallbackReasons, plan.fallbackReason] }
    : { ...session, usedPlainXctest: true };
  if (verdict.kind === 'failClosed') {
    const failed = commandFailure(session, verdict);
    return { kind: 'failClosed', ...failed, session: { ...used, failed } };
  }
  // XCTest typed at the caret or cleared natively: the web view's clear no longer describes the field.
  const done: SendKeysSession = { ...used, clearedThroughWeb: false, completedOps: session.completedOps + 1 };
  return { kind: 'done', session: op.op === 'ime' || op.op === 'tab' ? forget(done) : done };
}

/**
 * Records a failClosed plan (the command stops there). A field the bridge or a web view served names the
 * SDK as its backend even when the failure was decided before sending.
 */
export function failKeyCommand(session: SendKeysSession, failure: KeyFailure): SendKeysSession {
  if (session.failed) return session;
  const routed = session.field.kind === 'bridge' || session.field.kind === 'web';
  return { ...session, usedSdk: session.usedSdk || routed, failed: commandFailure(session, failure) };
}

/** Tab and IME actions can move focus or leave the page: later text follows keyboard focus through XCTest. */
function forget(session: SendKeysSession): SendKeysSession {
  return { ...session, field: { kind: 'none' }, clearedThroughWeb: false, captureUnknown: false };
}

// ---- Command summary --------------------------------------------------------------------------------

export interface SendKeysSummary {
  readonly backend?: 'sdk' | 'xctest' | undefined;
  readonly fallbackReason?: FallbackReason | undefined;
  readonly warnings: readonly string[];
}

/** Backend fields of the whole command: one that used both the bridge and XCTest reports the fallback. */
export function summarizeSendKeys(session: SendKeysSession): SendKeysSummary {
  const [first, ...rest] = session.fallbackReasons;
  const warnings: string[] = [];
  if (first !== undefined) {
    const other = rest.find((r) => r !== first);
    if (other) warnings.push(`XCTest also stood in for another step (fallbackReason: ${other}).`);
    return { backend: 'xctest', fallbackReason: first, warnings };
  }
  if (session.usedSdk && session.usedPlainXctest) {
    warnings.push('After Tab or an IME action the field was forgotten; later text followed keyboard focus through XCTest.');
    return { backend: 'xctest', warnings };
  }
  return session.usedSdk ? { backend: 'sdk', warnings } : { warnings };
}
