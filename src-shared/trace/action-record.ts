/**
 * The trace's action record: the one shape a trace stores an action in, written from a request by
 * `traceActionFor` (the recorder) and read back into a request by `requestFor` (the replay), kept
 * together so the writer and the reader cannot drift apart (docs/protocol.md#p-trace):
 *
 *   action.before  action: the ActionRequest with `action` renamed `kind` and its target (or
 *                          container) slot taken out; sendKeys also carries `text` / `replace` when it
 *                          types one text, which is the form the Maestro export reads; a step whose
 *                          text is left out says `secret: true`, and the action `secretUnknown: true`
 *                          when no read saw the field (it may be a password: docs/rules.md#r-secret-09)
 *                  target: selector  {id} | {text} | {point} as the user gave it (absent for a picked node)
 *                          node      the element's attributes (no children) on the before-screen
 *                          nodeKey   its index path in the before-observation
 *                          point     where it is (the selector's point, or the node's centre)
 *                          xctest    what plain XCTest reported of it (null: only the bridge or DOM did)
 *                  observationRef: the before-screen's ViewHierarchy; screenshotRef: its PNG
 *   action.after   result: the whole ActionResult (backend, fallback and failure reasons, target record)
 */
import { z } from 'zod';
import {
  ActionRequestSchema,
  PointSchema,
  type ActionRequest,
  type ActionResult,
  type Point,
  type SendKeysStep,
  type TargetSelector,
} from '@shared/protocol/action';
import { isRecord } from '@shared/protocol/json';
import { BackendSchema, FallbackReasonSchema } from '@shared/protocol/observation';
import type { UiNode } from '@shared/protocol/runner';
import { resolveTarget } from '@shared/act/resolve';
import { centerOf, hidesText, withoutChildren, XCTEST_TWIN_ATTRIBUTES } from '@shared/model/node';
import { xctestNodeOf } from '@shared/selectors/element';
import { flattenTree } from '@shared/model/tree';
import { describeRequest, keyStepText } from '@shared/act/describe';
import { typedTextSecrecy } from '@shared/act/secret';
import { keySteps } from './export-plan';
import type { TraceAction, TraceActionResult, TraceTarget } from './schema';

/** The parts of a result a replay compares. */
export const ComparedOutcomeSchema = z.object({
  success: z.boolean(),
  backend: BackendSchema.optional(),
  fallbackReason: FallbackReasonSchema.optional(),
  failureReason: z.string().optional(),
});
export type ComparedOutcome = z.infer<typeof ComparedOutcomeSchema>;

/** A selector as the user gave it: never a picked node, which exists only on its own screen. */
export const PlainSelectorSchema = z.union([z.object({ id: z.string() }), z.object({ text: z.string() }), z.object({ point: PointSchema })]);
export type PlainSelector = z.infer<typeof PlainSelectorSchema>;

/** A selector as the report's lines name it: `id "login.submit"`, `text "Sign In"`, `point 12,40`. */
export function selectorText(selector: PlainSelector): string {
  if ('id' in selector) return `id ${JSON.stringify(selector.id)}`;
  if ('text' in selector) return `text ${JSON.stringify(selector.text)}`;
  return `point ${selector.point.x},${selector.point.y}`;
}

export type ActionKind = ActionRequest['action'];

/** Where each action keeps the element it aims at: a tap's target, a swipe's or scroll's container. */
const SLOT: Record<ActionKind, 'target' | 'container'> = {
  tap: 'target',
  longPress: 'target',
  doubleTap: 'target',
  sendKeys: 'target',
  swipe: 'container',
  scrollTo: 'container',
  back: 'target',
  webTool: 'target',
  launch: 'target',
  openLink: 'target',
  assert: 'target',
};

export function isActionKind(kind: string): kind is ActionKind {
  return Object.hasOwn(SLOT, kind);
}

/** Fields the trace adds for its other readers (the Maestro export, the flag); not part of a request. */
const TRACE_ONLY_FIELDS = new Set(['kind', 'text', 'replace', 'xctestOnly', 'secretUnknown']);

/**
 * What the recorder knows besides the before-screen: the read after the action and its result. Both
 * are known when the step is written (SessionRecording writes the before event with the result), so a
 * first step with no screen before it is judged by the field as the device read it after
 * (docs/rules.md#r-secret-09).
 */
export interface TraceActionContext {
  xctestOnly?: boolean;
  after?: UiNode | undefined;
  result?: ActionResult | undefined;
}

/**
 * The action and target record of an action.before event. `beforeRoot` is the screen the user was
 * looking at; the target is resolved on it with the dispatcher's own rules, so the node recorded is the
 * one the dispatcher would pick there.
 */
export function traceActionFor(
  request: ActionRequest,
  beforeRoot: UiNode | undefined,
  options: TraceActionContext = {},
): { action: TraceAction; target?: TraceTarget } {
  const slot = SLOT[request.action];
  const { action: kind, ...rest } = request as ActionRequest & Record<string, unknown>;
  const selector = rest[slot] as TargetSelector | undefined;
  delete rest[slot];
  const action: TraceAction = { kind, ...rest, ...(options.xctestOnly ? { xctestOnly: true } : {}) };
  // Whether the typed text is a secret, from every read there is (docs/rules.md#r-secret-09): the
  // request (the user or the host said so), the field before, the field after, the result.
  const secrecy = typedTextSecrecy(request, { before: beforeRoot, after: options.after, result: options.result });
  // No read saw the field: the text may be a password, so it is left out, and the step says why.
  if (secrecy === 'unknown') action['secretUnknown'] = true;
  // A web_type into a secret control keeps its text out as a sendKeys does (docs/rules.md#r-secret).
  if (request.action === 'webTool' && secrecy !== 'plain') {
    delete action['text'];
    action['secret'] = true;
  }

  let target: TraceTarget | undefined;
  if (selector) {
    target = {};
    let node: UiNode | undefined;
    // The node of the before-screen the target is: where the exports look for its selectors.
    let onScreen: UiNode | undefined;
    if ('node' in selector) {
      node = selector.node;
      // A picked node arrives as a copy: found again on the before-screen by its identity, as the dispatcher finds it.
      const resolved = beforeRoot ? resolveTarget(selector, beforeRoot) : undefined;
      if (resolved?.kind === 'node' && !resolved.unrevalidated) onScreen = resolved.node;
    } else {
      target.selector = { ...selector };
      const resolved = beforeRoot ? resolveTarget(selector, beforeRoot, { preferEditable: kind === 'sendKeys' }) : undefined;
      if (resolved?.kind === 'node') node = onScreen = resolved.node;
    }
    if (onScreen && beforeRoot) {
      const found = flattenTree(beforeRoot).find((f) => f.node === onScreen);
      if (found) target.nodeKey = found.key;
    }
    if (node) {
      target.node = withoutChildren(node);
      target.xctest = xctestRecord(node);
    }
    const point = 'point' in selector ? selector.point : node ? centerOf(node) : undefined;
    if (point) target.point = point;
  }

  if (request.action === 'sendKeys') {
    // A field no read saw may be a password: fail closed (`secretUnknown`, docs/rules.md#r-secret-09).
    const secret = secrecy !== 'plain';
    // The text is left out and the step says so (docs/rules.md#r-rpl-04): a replay asks for it by name.
    const steps = request.steps.map((step) => (secret && 'text' in step ? { kind: step.kind, secret: true } : step));
    action['steps'] = steps;
    const texts = request.steps.filter((s) => s.kind === 'type' || s.kind === 'replace');
    const only = texts.length === 1 ? texts[0] : undefined;
    if (only && 'text' in only && !secret) {
      action['text'] = only.text;
      if (only.kind === 'replace') action['replace'] = true;
    }
  }
  return target ? { action, target } : { action };
}

/** What XCTest reported of `node` (its twin's attributes for a merged node), or null when it reported nothing. */
function xctestRecord(node: UiNode): Record<string, string> | null {
  const seen = xctestNodeOf(node);
  if (!seen) return null;
  const out: Record<string, string> = {};
  // A secret field's value stays out of the trace whatever XCTest showed of it (docs/rules.md#r-secret).
  const secret = hidesText(node) || hidesText(seen);
  for (const name of XCTEST_TWIN_ATTRIBUTES) {
    if (secret && name === 'value') continue;
    const value: unknown = (seen as Record<string, unknown>)[name];
    if (typeof value === 'string') out[name] = value;
  }
  return out;
}

export function outcomeOf(result: TraceActionResult | ActionResult): ComparedOutcome {
  return {
    success: result.success,
    ...(result.backend !== undefined ? { backend: result.backend } : {}),
    ...(result.fallbackReason !== undefined ? { fallbackReason: result.fallbackReason } : {}),
    ...(result.failureReason !== undefined ? { failureReason: result.failureReason } : {}),
  };
}

function describeOutcome(o: ComparedOutcome): string {
  return o.success ? 'succeeded' : `failed (${o.failureReason ?? 'no reason given'})`;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

function readPoint(value: unknown): Point | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { x, y } = value as Record<string, unknown>;
  return typeof x === 'number' && typeof y === 'number' && Number.isFinite(x) && Number.isFinite(y) ? { x, y } : undefined;
}

/**
 * The element's attributes as recorded: the target's node copy, else a picked node kept as the
 * selector itself (a writer that stores the request's selector as is).
 */
function recordedNode(target: TraceTarget | undefined): Record<string, unknown> | undefined {
  if (target?.node) return target.node;
  const picked = target?.selector?.['node'];
  return isRecord(picked) ? picked : undefined;
}

/** The user's own selector as one line for the report. */
export function recordedSelectorText(target: TraceTarget | undefined): string | undefined {
  const selector = target?.selector;
  if (selector) {
    const id = str(selector['id']);
    if (id !== undefined) return selectorText({ id });
    const text = str(selector['text']);
    if (text !== undefined) return selectorText({ text });
    const point = readPoint(selector['point']);
    if (point) return selectorText({ point });
  }
  const node = recordedNode(target);
  if (node) {
    const name = str(node['resource-id']) ?? str(node['content-desc']) ?? str(node['text']);
    return `node ${name !== undefined ? JSON.stringify(name) : (str(node['className']) ?? 'picked')}`;
  }
  const point = target?.point;
  return point ? selectorText({ point }) : undefined;
}

/**
 * The selectors to try, in order. The user's own selector comes first, whatever its kind, so a replay
 * asks for what the user asked for; after it, what the trace knows about the element, id before text.
 * A point is tried only when the trace knows no id or text: a point hits whatever is there now, so
 * falling back to it after the element's id and text went missing would act blind.
 */
export function candidatesFor(target: TraceTarget | undefined): PlainSelector[] {
  const selector = target?.selector ?? {};
  const node = recordedNode(target) ?? {};
  const id = str(selector['id']);
  const text = str(selector['text']);
  const point = readPoint(selector['point']);
  const list: PlainSelector[] = [];
  const add = (s: PlainSelector) => {
    if (!list.some((t) => JSON.stringify(t) === JSON.stringify(s))) list.push(s);
  };
  if (id !== undefined) add({ id });
  if (text !== undefined) add({ text });
  if (point) add({ point });
  if (!point) {
    const nodeId = str(node['resource-id']);
    const nodeText = str(node['content-desc']) ?? str(node['text']);
    if (nodeId !== undefined) add({ id: nodeId });
    if (nodeText !== undefined) add({ text: nodeText });
    const bounds = node['bounds'];
    const at = target?.point ?? (isRecord(bounds) ? centerOf({ bounds } as UiNode) : undefined);
    if (list.length === 0 && at) add({ point: at });
  }
  return list;
}

/** Why a recorded action cannot be sent again at all, whatever its target resolves to. */
export function unreplayable(action: TraceAction): string | undefined {
  if (!isActionKind(action.kind)) return `the action kind ${JSON.stringify(action.kind)} cannot be replayed`;
  return undefined;
}

/** A relaunch starts the app over (docs/rules.md#r-life-02): the screen it was recorded on does not matter. */
export function startsOver(action: TraceAction): boolean {
  return action.kind === 'launch' && action['relaunch'] === true;
}

/**
 * The launch a recording began with ("Record from launch", docs/rules.md#r-life-05): the first action,
 * when it is a launch. Its bundle id (if it named one) is the app a "relaunch first" replay relaunches.
 */
export function recordedLaunch(steps: readonly { kind: string; before?: { action: TraceAction } | undefined }[]): { bundleId?: string } | undefined {
  const first = steps.find((s) => s.kind === 'action');
  const action = first?.before?.action;
  if (!action || action.kind !== 'launch') return undefined;
  return typeof action['bundleId'] === 'string' ? { bundleId: action['bundleId'] } : {};
}

/**
 * Whether a recorded sendKeys types text the trace does not hold: a type or replace step without its
 * text (marked `secret: true` since it is; an older writer left the text out alone).
 */
export function typesSecret(action: TraceAction): boolean {
  if (action.kind !== 'sendKeys' || !Array.isArray(action['steps'])) return false;
  return (action['steps'] as unknown[]).some((s) => {
    const step = isRecord(s) ? s : {};
    return (step['kind'] === 'type' || step['kind'] === 'replace') && typeof step['text'] !== 'string';
  });
}

/** The recorded sendKeys with `value` typed where the trace left a secret out; the record itself is not changed. */
export function withSecret(action: TraceAction, value: string): TraceAction {
  if (!Array.isArray(action['steps'])) return action;
  const steps = (action['steps'] as unknown[]).map((s) => {
    if (!isRecord(s) || (s['kind'] !== 'type' && s['kind'] !== 'replace') || typeof s['text'] === 'string') return s;
    const { secret: _secret, ...rest } = s;
    return { ...rest, text: value };
  });
  return { ...action, steps };
}

/** The request to send: the recorded action with its target slot filled by the resolved selector. */
export function requestFor(action: TraceAction, selector: TargetSelector | undefined): { ok: true; request: ActionRequest } | { ok: false; why: string } {
  const kind = action.kind as ActionKind;
  const body: Record<string, unknown> = { action: kind };
  for (const [key, value] of Object.entries(action)) if (!TRACE_ONLY_FIELDS.has(key)) body[key] = value;
  if (selector) body[SLOT[kind]] = selector;
  const parsed = ActionRequestSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, why: `the recorded ${kind} is not a valid action (${issue ? `${issue.path.join('.') || 'action'}: ${issue.message}` : 'invalid'})` };
  }
  return { ok: true, request: parsed.data };
}

/**
 * The recorded outcome against the replayed one (docs/rules.md#r-rpl-03): another result (success,
 * failure reason) is a difference; another backend or fallback is only a note, since which backend
 * serves a step is the device's choice and the screen says whether it did the same.
 */
export function compareOutcomes(recorded: ComparedOutcome, replayed: ComparedOutcome): { differences: string[]; notes: string[] } {
  const differences: string[] = [];
  const notes: string[] = [];
  if (recorded.backend !== replayed.backend) notes.push(`backend: recorded ${recorded.backend ?? 'none'}, replayed ${replayed.backend ?? 'none'}`);
  if (recorded.fallbackReason !== replayed.fallbackReason) {
    notes.push(`fallback: recorded ${recorded.fallbackReason ?? 'none'}, replayed ${replayed.fallbackReason ?? 'none'}`);
  }
  if (recorded.success !== replayed.success || recorded.failureReason !== replayed.failureReason) {
    differences.push(`other outcome: recorded ${describeOutcome(recorded)}, replayed ${describeOutcome(replayed)}`);
  }
  return { differences, notes };
}

/**
 * What a replayed assertion says against the recorded one (docs/rules.md#r-asrt-03, #r-asrt-04). One
 * that held when recorded and fails now is a divergence naming both values. One recorded failing
 * (the recording kept a false assertion: a QA engineer's known bug) matches a replay that fails the
 * same way, with the same detail; failing otherwise names both details. One that holds now where the
 * recording failed is another outcome, which `compareOutcomes` already says.
 */
export function assertionDifferences(recorded: (Pick<TraceActionResult, 'success'> & { warnings?: unknown }) | undefined, replayed: ActionResult): string[] {
  if (replayed.success) return [];
  const now = replayed.warnings[0];
  if (now === undefined) return [];
  if (!recorded || recorded.success) return [`the assertion does not hold: ${now}`];
  const was = Array.isArray(recorded.warnings) && typeof recorded.warnings[0] === 'string' ? recorded.warnings[0] : undefined;
  return was === undefined || was === now ? [] : [`the assertion fails otherwise: recorded "${was}", replayed "${now}"`];
}

/** A recorded assertion that did not hold: its target not being found is what the recording shows, not a divergence. */
export function recordedFailedAssertion(kind: string, recorded: Pick<TraceActionResult, 'success'> | undefined): boolean {
  return kind === 'assert' && recorded?.success === false;
}

/** Stands in a target slot only so a recorded action parses for its description; never sent. */
const DESCRIBE_ONLY: TargetSelector = { point: { x: 0, y: 0 } };

/**
 * The recorded action in the live timeline's words (`describeRequest`: "type “alice”, IME next",
 * "swipe up 288 pt · 300 ms", "long press 800 ms"), a text the trace does not hold as "secret"
 * (docs/rules.md#r-rpl-08).
 */
export function recordedActionText(action: TraceAction): string {
  if (action.kind === 'sendKeys') {
    const steps = keySteps(action).map((k) =>
      'secret' in k ? (k.kind === 'replace' ? 'replace with secret' : 'type secret') : keyStepText(k as SendKeysStep),
    );
    return steps.length > 0 ? steps.join(', ') : 'sendKeys';
  }
  if (!isActionKind(action.kind)) return action.kind;
  const built = requestFor(action, DESCRIBE_ONLY);
  return built.ok ? describeRequest(built.request) : action.kind;
}
