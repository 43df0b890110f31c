/**
 * Typed secrets (docs/rules.md#r-secret). Whether the text an action types is a secret, from every
 * signal there is: the request's own `secret` (the type bar's "treat as secret"), the field's declared
 * type, input type, autofill hint or masked value (model/node.ts `hidesText`, the one rule), and a
 * read-back that shows bullets where text was typed. Once any says so, the text exists only in the
 * request that carries it to the device: `withoutTypedText` is the request as everything else keeps it
 * (the host's history and events, the trace, the CLI's JSON), and `scrubTypedText` takes the text out
 * of whatever else a step carries (a warning, the app's words, a tree that shows the field's value).
 */
import type { ActionRequest, ActionResult, TargetSelector } from '@shared/protocol/action';
import type { UiNode } from '@shared/protocol/runner';
import { hidesText, isMaskedValue } from '@shared/model/node';
import { focusedElement } from '@shared/observe/focus';
import { flattenTree } from '@shared/model/tree';
import { isEditableNode } from '@shared/model/target';
import { APPREVEAL_EXTRAS } from '@shared/observe/appreveal';
import { resolveTarget } from './resolve';

/** The non-empty texts a request types (sendKeys type / replace steps, web_type's text). */
export function typedTexts(request: ActionRequest): string[] {
  if (request.action === 'sendKeys') return request.steps.flatMap((step) => ('text' in step && step.text !== '' ? [step.text] : []));
  if (request.action === 'webTool' && request.text !== undefined && request.text !== '') return [request.text];
  return [];
}

/** Whether a request the host keeps has had its typed text taken out (it says `secret` and types nothing). */
export function isWithheld(request: ActionRequest): boolean {
  return (request.action === 'sendKeys' || request.action === 'webTool') && request.secret === true && typedTexts(request).length === 0;
}

/**
 * Whether a request is one the host kept in place of a typed text (`secret`, and a type or replace step,
 * or a web_type, with its text taken out): sent again it would type nothing, or clear the field, so
 * nothing takes it as a request to send (docs/rules.md#r-secret-14).
 */
export function typesWithheldText(request: ActionRequest): boolean {
  if ((request.action !== 'sendKeys' && request.action !== 'webTool') || request.secret !== true) return false;
  if (request.action === 'webTool') return request.tool === 'web_type' && (request.text === undefined || request.text === '');
  return request.steps.some((step) => (step.kind === 'type' || step.kind === 'replace') && step.text === '');
}

export interface SecretContext {
  /** The tree the action was aimed at (the before frame). */
  before?: UiNode | undefined;
  /** The tree read after it: where a field that shows bullets for what was typed says "secret". */
  after?: UiNode | undefined;
  /** The result: which field the device says it typed into. */
  result?: ActionResult | undefined;
}

/**
 * Whether the text `request` types is a secret. The field is found as the dispatcher finds it (the
 * request's target on the before tree, editable preferred; else the focused field; else the id the
 * result names), and any of these says secret: the request, the field before, the field after (its
 * value now bullets), the focused field after. A request that types nothing is no secret.
 */
export function typedTextIsSecret(request: ActionRequest, context: SecretContext = {}): boolean {
  if (request.action !== 'sendKeys' && request.action !== 'webTool') return false;
  if (request.secret === true) return true;
  if (typedTexts(request).length === 0) return false;
  // The device's own read of the field it typed into said secret (docs/rules.md#r-secret-08).
  if (context.result?.target.secret === true) return true;
  const target = request.action === 'sendKeys' ? request.target : undefined;
  if (request.action === 'webTool') {
    // A web control is named by the CSS selector the app gave (AppReveal's DOM tools): its node carries it.
    const controls = [context.before, context.after].flatMap((root) => (root ? webControls(root, request.selector) : []));
    return controls.some((control) => hidesText(control));
  }
  const fields = [...fieldsIn(context.before, target, context.result), ...fieldsIn(context.after, target, context.result)];
  if (fields.some((field) => hidesText(field))) return true;
  // The read-back signal: what was typed shows as bullets in the field it went into.
  return (
    context.after !== undefined && fieldsIn(context.after, target, context.result).some((field) => isMaskedValue(field.value) || isMaskedValue(field.text))
  );
}

/**
 * What is known of the text `request` types (docs/rules.md#r-secret-09): `secret` when any signal says
 * so; `plain` when a read saw the field it went into (a picked node's copy, the field on the tree before
 * or after, the focused field, the control a web_type named) and no signal said secret; `unknown` when
 * no read saw it at all (the first step of a recording with no screen before it and no read after), where
 * a writer that must not keep a secret fails closed and says why.
 */
export type TypedTextSecrecy = 'secret' | 'plain' | 'unknown';

export function typedTextSecrecy(request: ActionRequest, context: SecretContext = {}): TypedTextSecrecy {
  // A request the host kept (`keptTyping`) says what was known when its text was taken out.
  if (isWithheld(request) && (request.action === 'sendKeys' || request.action === 'webTool') && request.secretUnknown === true) return 'unknown';
  if (typedTextIsSecret(request, context)) return 'secret';
  if ((request.action !== 'sendKeys' && request.action !== 'webTool') || typedTexts(request).length === 0) return 'plain';
  if (request.action === 'webTool') {
    const seen = [context.before, context.after].some((root) => root !== undefined && webControls(root, request.selector).length > 0);
    return seen ? 'plain' : 'unknown';
  }
  const seen = fieldsIn(context.before, request.target, context.result).length + fieldsIn(context.after, request.target, context.result).length > 0;
  return seen ? 'plain' : 'unknown';
}

/** The field(s) of `root` the typing went to, by every way the request and result name one. */
function fieldsIn(root: UiNode | undefined, target: TargetSelector | undefined, result: ActionResult | undefined): UiNode[] {
  const out: UiNode[] = [];
  if (target && 'node' in target) out.push(target.node);
  if (!root) return out;
  if (target) {
    const resolved = resolveTarget(target, root, { preferEditable: true });
    const aimed = resolved.kind === 'node' ? resolved.node : resolved.kind === 'point' ? resolved.found : undefined;
    if (aimed) out.push(aimed);
    // Aimed at no field (a label, a point on nothing): the focus tap leaves the first responder as it
    // was, and XCUIElement.typeText types into the focused element, so the keys went there.
    if (!aimed || !isEditableNode(aimed)) {
      const focused = focusedElement(root);
      if (focused) out.push(focused.node);
    }
  } else {
    const focused = focusedElement(root);
    if (focused) out.push(focused.node);
  }
  const id = result?.target.elementId ?? result?.target.webElementId;
  if (id !== undefined && id !== '') {
    const resolved = resolveTarget({ id }, root, { preferEditable: true });
    if (resolved.kind === 'node') out.push(resolved.node);
  }
  return out;
}

/** The nodes of `root` that stand for the web control `selector` names (AppReveal's DOM elements keep it). */
function webControls(root: UiNode, selector: string): UiNode[] {
  return flattenTree(root)
    .map((flat) => flat.node)
    .filter((node) => node.extras?.[APPREVEAL_EXTRAS.selector] === selector);
}

/**
 * The request as the host keeps and reports it when its text is withheld: `secret`, every text emptied,
 * and `secretUnknown` when no read saw the field (so the trace written from it still says so).
 */
export function withoutTypedText(request: ActionRequest, secrecy: Exclude<TypedTextSecrecy, 'plain'> = 'secret'): ActionRequest {
  const unknown = secrecy === 'unknown' ? { secretUnknown: true } : {};
  if (request.action === 'sendKeys') {
    return { ...request, secret: true, ...unknown, steps: request.steps.map((step) => ('text' in step ? { ...step, text: '' } : step)) };
  }
  if (request.action === 'webTool') {
    const { text: _text, ...rest } = request;
    return { ...rest, secret: true, ...unknown };
  }
  return request;
}

/** A typing as everything but the request to the device keeps it (docs/rules.md#r-secret-13). */
export interface KeptTyping {
  secrecy: TypedTextSecrecy;
  /** The request as history, events, the trace and the CLI keep it: its texts taken out unless `plain`. */
  request: ActionRequest;
  /** The texts taken out (none when `plain`): what every other thing the action left is scrubbed of. */
  withheld: string[];
}

/**
 * The one rule for where typed text may appear besides the request to the device (docs/rules.md#r-secret-13):
 * a text that is a secret, or that no read let Parallax classify (`unknown`, which the trace leaves out:
 * docs/rules.md#r-secret-09), is withheld from the host's history and events (the timeline), the trace,
 * the CLI's words and JSON, and so from every report and export made of them. Everything deciding that
 * asks here, so none keeps what another leaves out.
 */
export function keptTyping(request: ActionRequest, context: SecretContext = {}): KeptTyping {
  const secrecy = typedTextSecrecy(request, context);
  if (secrecy === 'plain') return { secrecy, request, withheld: [] };
  return { secrecy, request: isWithheld(request) ? request : withoutTypedText(request, secrecy), withheld: typedTexts(request) };
}

/**
 * The request as an action in flight shows it (the host's actionStarted / actionProgress events, the
 * timeline's pending row): no typed text at all. Whether a text is a secret is known only once the field
 * reads back (an iOS AppReveal secure field is a plain `textField` until its value shows bullets), so
 * before the result nothing quotes it (docs/rules.md#r-secret-05).
 */
export function inFlightRequest(request: ActionRequest): ActionRequest {
  return typedTexts(request).length === 0 ? request : withoutTypedText(request);
}

/** The mark a secret's text becomes where some other text quoted it. */
export const SECRET_MARK = '‹secret›';

/**
 * `value` with every occurrence of each text replaced by SECRET_MARK, in every string and key, deep; the
 * same object when nothing held one (so a clean frame is not copied).
 */
export function scrubTypedText<T>(value: T, texts: readonly string[]): T {
  const wanted = [...new Set(texts.filter((t) => t !== ''))].sort((a, b) => b.length - a.length);
  if (wanted.length === 0) return value;
  const scrub = (item: unknown): unknown => {
    if (typeof item === 'string') {
      let out = item;
      for (const text of wanted) if (out.includes(text)) out = out.split(text).join(SECRET_MARK);
      return out;
    }
    if (Array.isArray(item)) {
      let changed = false;
      const next = item.map((entry) => {
        const scrubbed = scrub(entry);
        if (scrubbed !== entry) changed = true;
        return scrubbed;
      });
      return changed ? next : item;
    }
    if (item !== null && typeof item === 'object') {
      let changed = false;
      const next: Record<string, unknown> = {};
      for (const [key, entry] of Object.entries(item)) {
        const k = scrub(key) as string;
        const scrubbed = scrub(entry);
        if (scrubbed !== entry || k !== key) changed = true;
        next[k] = scrubbed;
      }
      return changed ? next : item;
    }
    return item;
  };
  return scrub(value) as T;
}
