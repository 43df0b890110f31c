/**
 * The one secret rule (docs/rules.md#r-secret): each signal a platform gives, with the form its source
 * sends, and what is no secret.
 */
import { describe, expect, it } from 'vitest';
import { hidesText, isMaskedValue } from '@shared/model/node';
import { keptTyping, scrubTypedText, SECRET_MARK, typedTextIsSecret, typedTextSecrecy, typesWithheldText, withoutTypedText } from '@shared/act/secret';
import { traceActionFor } from '@shared/trace/action-record';
import { appRevealElementToUiNode } from '@shared/observe/appreveal';
import { WireElementSchema } from '@shared/protocol/appreveal';
import { describeRequest } from '@shared/act/describe';
import type { ActionRequest } from '@shared/protocol/action';
import type { UiNode } from '@shared/protocol/runner';

describe('R-SECRET-01: every signal says secret', () => {
  it.each<[string, Record<string, unknown>]>([
    ['a password flag', { password: 'true' }],
    ['XCTest’s secure type', { className: 'XCUIElementTypeSecureTextField' }],
    ['a UIKit secure class', { className: 'UISecureTextField' }],
    ['an AppReveal element kind naming secure', { type: 'secureTextField' }],
    ['inputType password (web bridge, AppReveal DOM element)', { inputType: 'password' }],
    ['a DOM record’s type password (DOMSerializer.swift interactiveJS `el.type = node.type`)', { tag: 'input', type: 'password' }],
    ['autocomplete current-password', { autocomplete: 'current-password' }],
    ['autocomplete with a section and new-password', { autocomplete: 'section-login new-password' }],
    ['autocomplete one-time-code', { autocomplete: 'one-time-code' }],
    ['UIKit textContentType password', { textContentType: 'password' }],
    ['a value of U+2022 bullets only (iOS accessibilityValue of a secure UITextField)', { value: '\u2022\u2022\u2022\u2022\u2022\u2022\u2022' }],
    ['a value of U+25CF bullets only (Chromium, WebKit)', { value: '\u25cf\u25cf\u25cf' }],
    ['a value the bridge redacted', { 'value-redacted': 'true' }],
    ['a web element the bridge redacted', { valueRedacted: true }],
    ['the caller’s sensitive', { sensitive: true }],
    ['an inputType kept in an AppReveal node’s extras', { extras: { 'appreveal.inputType': 'password' } }],
  ])('%s', (_name, fields) => {
    expect(hidesText(fields)).toBe(true);
  });

  it.each<[string, Record<string, unknown>]>([
    ['a plain text field', { className: 'XCUIElementTypeTextField', value: 'bob' }],
    ['a "•••" menu button’s label (a caption, not a value)', { className: 'XCUIElementTypeButton', text: '\u2022\u2022\u2022' }],
    ['a rating of asterisks', { value: '***' }],
    ['autocomplete username', { autocomplete: 'username' }],
    ['a kind named type on a native record (no tag): “password” is no HTML type there', { type: 'password-hint-label' }],
    ['an empty value', { value: '' }],
  ])('no secret: %s', (_name, fields) => {
    expect(hidesText(fields)).toBe(false);
  });

  it('bullets only make a mask; one other character makes text', () => {
    expect(isMaskedValue('\u2022\u2022')).toBe(true);
    expect(isMaskedValue('\u2022a')).toBe(false);
    expect(isMaskedValue('')).toBe(false);
  });

  it('an iOS AppReveal secure field (type textField, value bullets; ElementInventory.swift classifyView) is projected as a secret without its value', () => {
    // ElementInfo.swift: id, type, label, value, enabled, visible, tappable, frame, containerId, actions, idSource;
    // iOS sends its booleans and frame as strings (MCPTools.swift get_elements).
    const element = WireElementSchema.parse({
      id: 'login.password',
      type: 'textField',
      label: 'Password',
      value: '\u2022\u2022\u2022\u2022\u2022\u2022',
      enabled: 'true',
      visible: 'true',
      tappable: 'true',
      frame: '24,300,342,44',
      actions: 'tap,type,clear',
      idSource: 'explicit',
    });
    const node = appRevealElementToUiNode(element);
    expect(node.password).toBe('true');
    expect(node.value).toBeUndefined();
    expect(hidesText(node)).toBe(true);
  });
});

const field = (id: string, extra: Partial<UiNode> = {}): UiNode => ({
  'resource-id': id,
  className: 'XCUIElementTypeTextField',
  role: 'textfield',
  bounds: { left: 0, top: 0, right: 100, bottom: 40 },
  ...extra,
});
const screen = (...children: UiNode[]): UiNode => ({
  className: 'XCUIElementTypeApplication',
  bounds: { left: 0, top: 0, right: 390, bottom: 844 },
  node: children,
});

describe('R-SECRET-01: the read-back signal and the request', () => {
  const request: ActionRequest = { action: 'sendKeys', target: { id: 'pin' }, steps: [{ kind: 'type', text: '4711' }] };

  it('a field no signal calls secret before, that reads back as bullets after, is a secret', () => {
    expect(typedTextIsSecret(request, { before: screen(field('pin')) })).toBe(false);
    expect(typedTextIsSecret(request, { before: screen(field('pin')), after: screen(field('pin', { value: '\u2022\u2022\u2022\u2022' })) })).toBe(true);
  });

  it('typing with no target reads the focused field', () => {
    const keys: ActionRequest = { action: 'sendKeys', steps: [{ kind: 'type', text: 'x' }] };
    expect(typedTextIsSecret(keys, { before: screen(field('a', { focused: 'true', password: 'true' })) })).toBe(true);
    expect(typedTextIsSecret(keys, { before: screen(field('a', { focused: 'true' })) })).toBe(false);
  });

  it('the request’s own secret (the type bar’s "treat as secret") decides whatever the field says', () => {
    expect(typedTextIsSecret({ ...request, secret: true } as ActionRequest, { before: screen(field('pin')) })).toBe(true);
  });

  it('what the host keeps types nothing and says so; other text that quoted it is scrubbed', () => {
    const kept = withoutTypedText(request);
    expect(JSON.stringify(kept)).not.toContain('4711');
    expect(describeRequest(kept)).toBe('type secret');
    const web = withoutTypedText({ action: 'webTool', tool: 'web_type', selector: '#pw', text: 'hunter22' });
    expect(JSON.stringify(web)).not.toContain('hunter22');
    expect(describeRequest(web)).toBe('web type secret into #pw');
    const warnings = { warnings: ['Read-back shows "", expected "4711".'] };
    expect(scrubTypedText(warnings, ['4711'])).toEqual({ warnings: [`Read-back shows "", expected "${SECRET_MARK}".`] });
    const clean = { a: ['b'] };
    expect(scrubTypedText(clean, ['4711'])).toBe(clean);
  });
});

describe('R-SECRET-13: one rule for what every place keeps of a typing', () => {
  const keys: ActionRequest = { action: 'sendKeys', steps: [{ kind: 'type', text: 'maybe-a-pw' }] };

  it('R-SECRET-13: text no read saw the field of is withheld as the trace withholds it, and says it is unknown, not secret', () => {
    const kept = keptTyping(keys, { after: screen() });
    expect(kept.secrecy).toBe('unknown');
    expect(kept.withheld).toEqual(['maybe-a-pw']);
    expect(JSON.stringify(kept.request)).not.toContain('maybe-a-pw');
    expect(kept.request).toMatchObject({ secret: true, secretUnknown: true });
    // Kept and read again (the recorder writes the trace from the kept request): still unknown, not a known secret.
    expect(typedTextSecrecy(kept.request)).toBe('unknown');
    expect(traceActionFor(kept.request, undefined).action).toMatchObject({ secretUnknown: true, steps: [{ kind: 'type', secret: true }] });
    // The app's own words that quote the text are scrubbed of it by the same list.
    const echoed = { deviceMessage: 'typed maybe-a-pw into the first responder' };
    expect(scrubTypedText(echoed, kept.withheld)).toEqual({ deviceMessage: `typed ${SECRET_MARK} into the first responder` });
  });

  it('R-SECRET-13: a secret is kept as a secret, a plain field’s text as typed, a web control no read saw withheld too', () => {
    const secret = keptTyping(keys, { after: screen(field('a', { focused: 'true', password: 'true' })) });
    expect(secret).toMatchObject({ secrecy: 'secret', withheld: ['maybe-a-pw'], request: { secret: true } });
    expect(secret.request).not.toHaveProperty('secretUnknown');
    expect(typedTextSecrecy(secret.request)).toBe('secret');
    const plain = keptTyping(keys, { after: screen(field('a', { focused: 'true' })) });
    expect(plain).toEqual({ secrecy: 'plain', request: keys, withheld: [] });
    const web = keptTyping({ action: 'webTool', tool: 'web_type', selector: '#q', text: 'maybe-a-pw' });
    expect(web).toMatchObject({ secrecy: 'unknown', withheld: ['maybe-a-pw'], request: { secret: true, secretUnknown: true } });
    expect(JSON.stringify(web.request)).not.toContain('maybe-a-pw');
  });
});

describe('R-SECRET-01: keys aimed at something that is no field go where the focus is', () => {
  // A tap on a label leaves the first responder as it was (XCUIElement.typeText types into the focused
  // element), so the keys of a step aimed at the label by point or text went into the focused field.
  const label: UiNode = { className: 'XCUIElementTypeStaticText', text: 'Password', bounds: { left: 0, top: 100, right: 100, bottom: 120 } };
  const focusedSecure = field('login.password', {
    className: 'XCUIElementTypeSecureTextField',
    focused: 'true',
    bounds: { left: 0, top: 130, right: 100, bottom: 170 },
  });

  it('R-SECRET-01: typed at a point on a label while a secure field has the focus: a secret', () => {
    const atLabel: ActionRequest = { action: 'sendKeys', target: { point: { x: 50, y: 110 } }, steps: [{ kind: 'type', text: 'pw-at-label' }] };
    expect(typedTextSecrecy(atLabel, { after: screen(label, focusedSecure) })).toBe('secret');
    expect(typedTextSecrecy(atLabel, { before: screen(label, focusedSecure) })).toBe('secret');
  });

  it('R-SECRET-01: typed at a label found by its text while a secure field has the focus: a secret; a plain focused field keeps it plain', () => {
    const byText: ActionRequest = { action: 'sendKeys', target: { text: 'Password' }, steps: [{ kind: 'type', text: 'pw-at-label' }] };
    expect(typedTextSecrecy(byText, { after: screen(label, focusedSecure) })).toBe('secret');
    const plainFocused = field('login.username', { focused: 'true', bounds: { left: 0, top: 130, right: 100, bottom: 170 } });
    expect(typedTextSecrecy(byText, { after: screen(label, plainFocused) })).toBe('plain');
  });
});

describe('R-SECRET-14: a request as the host kept it is known for one', () => {
  it('R-SECRET-14: every kept typing (type, replace, both, web_type; secret or unknown) is one; a request with its text, a clear, an empty Replace without secret are not', () => {
    const forms: ActionRequest[] = [
      { action: 'sendKeys', target: { id: 'pw' }, steps: [{ kind: 'type', text: 'hunter2' }] },
      { action: 'sendKeys', target: { id: 'pw' }, steps: [{ kind: 'replace', text: 'hunter2' }] },
      { action: 'sendKeys', target: { id: 'pw' }, steps: [{ kind: 'clear' }, { kind: 'type', text: 'hunter2' }, { kind: 'tab' }] },
      { action: 'webTool', tool: 'web_type', selector: '#pw', text: 'hunter2' },
    ];
    for (const form of forms) {
      expect(typesWithheldText(withoutTypedText(form))).toBe(true);
      expect(typesWithheldText(withoutTypedText(form, 'unknown'))).toBe(true);
      // The request that carries the text to the device, secret or not, goes.
      expect(typesWithheldText(form)).toBe(false);
      expect(typesWithheldText({ ...form, secret: true } as ActionRequest)).toBe(false);
    }
    expect(typesWithheldText({ action: 'sendKeys', steps: [{ kind: 'clear' }], secret: true })).toBe(false);
    expect(typesWithheldText({ action: 'sendKeys', steps: [{ kind: 'replace', text: '' }] })).toBe(false);
    expect(typesWithheldText({ action: 'webTool', tool: 'web_click', selector: '#go', secret: true })).toBe(false);
  });
});
