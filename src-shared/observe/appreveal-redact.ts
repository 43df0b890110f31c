/**
 * AppReveal's raw reads that quote a field's text in clear (docs/rules.md#r-secret-06, #r-secret-07),
 * redacted as they are decoded, before any frame, observation, history, trace or JSON holds them.
 *
 * - iOS `get_view_tree` writes every UITextField's `text: textField.text` (UnlikeOtherAI/AppReveal
 *   iOS/Sources/AppReveal/Elements/ElementInventory.swift:160), a secure one too: it has no secure class
 *   and no isSecureTextEntry key. What the same reply says is `accessibilityValue` (line 152), bullets for
 *   a secure field; what another reply says is `get_elements`' `value` (line 75) for the same
 *   `accessibilityId`, bullets as well.
 * - iOS `get_dom_interactive` writes `value: node.value` for every control (WebView/DOMSerializer.swift:85),
 *   a password input's too; its HTML type is `type` (line 83), a port may write `inputType`.
 * Secrecy is the one rule, model/node.ts `hidesText`, asked of every signal in reach.
 */
import { hidesText } from '@shared/model/node';
import type { WebControl } from '@shared/protocol/appreveal';

type Rec = Record<string, unknown>;

function isRec(value: unknown): value is Rec {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The element ids a `get_elements` reply calls secret (bullets for a value, a password input type). */
export function secretElementIds(elements: readonly unknown[]): Set<string> {
  const out = new Set<string>();
  for (const element of elements) {
    if (isRec(element) && typeof element.id === 'string' && element.id !== '' && hidesText(element)) out.add(element.id);
  }
  return out;
}

/** Whether one `get_view_tree` view holds a secret's text, from its own keys and the inventory's ids. */
export function viewHidesText(view: Rec, secretIds: ReadonlySet<string> = new Set()): boolean {
  const id = view.accessibilityId;
  if (typeof id === 'string' && secretIds.has(id)) return true;
  if (view.isSecureTextEntry === true || view.isSecureTextEntry === 'true' || view.secureTextEntry === true) return true;
  return hidesText({
    ...(typeof view.class === 'string' ? { className: view.class } : {}),
    value: view.accessibilityValue,
    ...(view.textContentType !== undefined ? { textContentType: view.textContentType } : {}),
  });
}

/** The views of a `get_view_tree` reply with a secret field's `text` taken out (`textRedacted: true`). */
export function redactViewTree(views: readonly unknown[], secretIds: ReadonlySet<string> = new Set()): unknown[] {
  return views.map((view) => {
    if (!isRec(view) || !('text' in view) || !viewHidesText(view, secretIds)) return view;
    const { text: _text, ...rest } = view;
    return { ...rest, textRedacted: true };
  });
}

/** Whether one `get_dom_interactive` element is a password control (type / inputType / autocomplete). */
export function domElementHidesText(element: Rec): boolean {
  return hidesText({
    tag: element.tag ?? 'input',
    type: element.type,
    inputType: element.inputType,
    autocomplete: element.autocomplete,
    value: element.value,
    valueRedacted: element.valueRedacted,
  });
}

/**
 * A `get_dom_interactive` answer (`{elements}` or a bare list) with every password control's `value` and
 * `text` taken out (`valueRedacted: true`); anything else is returned as it came.
 */
export function redactDomInteractive(answer: unknown): unknown {
  const redact = (list: unknown[]): unknown[] =>
    list.map((element) => {
      if (!isRec(element) || !domElementHidesText(element)) return element;
      const { value: _value, text: _text, ...rest } = element;
      return { ...rest, valueRedacted: true };
    });
  if (Array.isArray(answer)) return redact(answer);
  if (isRec(answer) && Array.isArray(answer.elements)) return { ...answer, elements: redact(answer.elements) };
  return answer;
}

const MAX_WEB_TEXT = 100;
const NOT_TYPED_INTO = ['checkbox', 'radio', 'submit', 'button', 'reset', 'file', 'image', 'hidden', 'range', 'color'];

function short(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.replace(/\s+/g, ' ').trim();
  return text === '' ? undefined : text.slice(0, MAX_WEB_TEXT);
}

/**
 * One `get_dom_interactive` element as a web control: only the fields a picker needs, and never a value
 * (a password's above all). iOS's interactive script writes the HTML type as `type`
 * (iOS/Sources/AppReveal/WebView/DOMSerializer.swift interactiveJS: `if (node.type) el.type = node.type`);
 * a port that writes `inputType` is read the same. Secret by the one rule (docs/rules.md#r-secret-04):
 * a password input, a password autofill hint, a masked or redacted value; its text is not carried either.
 */
export function webControlOf(raw: unknown): WebControl | undefined {
  if (!isRec(raw)) return undefined;
  const selector = typeof raw.selector === 'string' ? raw.selector.slice(0, 500) : undefined;
  const tag = short(raw.tag)?.toLowerCase();
  if (!selector || !tag) return undefined;
  const type = short(raw.type)?.toLowerCase() ?? short(raw.inputType)?.toLowerCase();
  const label = short(raw.label) ?? short(raw.ariaLabel) ?? short(raw.placeholder) ?? short(raw.name);
  const secret = domElementHidesText({ ...raw, tag, type });
  const text = secret ? undefined : short(raw.text);
  const editable = tag === 'textarea' || (tag === 'input' && !NOT_TYPED_INTO.includes(type ?? 'text'));
  return {
    ...(secret ? { secret: true } : {}),
    selector,
    tag,
    ...(type ? { type } : {}),
    ...(label ? { label } : {}),
    ...(text ? { text } : {}),
    ...(raw.disabled === true ? { disabled: true } : {}),
    editable,
  };
}

/** A `get_dom_interactive` answer (`{elements}` or a bare list) as web controls, decoded once for every reader. */
export function webControlsOf(answer: unknown): WebControl[] {
  const list = Array.isArray(answer) ? answer : isRec(answer) && Array.isArray(answer.elements) ? answer.elements : [];
  return list.map(webControlOf).filter((control): control is WebControl => control !== undefined);
}
