/**
 * The redaction of iOS AppReveal's clear-text reads (docs/rules.md#r-secret-06, #r-secret-07), on the
 * shapes AppReveal's Swift source writes (UnlikeOtherAI/AppReveal iOS/Sources/AppReveal):
 * Elements/ElementInventory.swift:136-160 dumpNode (`class`, `frame`, …, `accessibilityValue`, and for a
 * UITextField `text`, `placeholder`, `isEditing`), :71-87 ElementInfo for get_elements, and
 * WebView/DOMSerializer.swift:76-95 interactiveJS (`tag`, `rect`, `selector`, `type`, `value`, …).
 */
import { describe, expect, it } from 'vitest';
import { domElementHidesText, redactDomInteractive, redactViewTree, secretElementIds, viewHidesText, webControlsOf } from '@shared/observe/appreveal-redact';

/** A UITextField as dumpNode writes it (ElementInventory.swift:136-162). */
const textFieldView = (extra: Record<string, unknown>) => ({
  class: 'UITextField',
  frame: '24,300,354,44',
  hidden: false,
  alpha: 1,
  userInteraction: true,
  depth: 6,
  placeholder: 'Password',
  isEditing: false,
  ...extra,
});

describe('R-SECRET-06: get_view_tree views', () => {
  it('a secure UITextField: its accessibilityValue of bullets in the same view takes its text out', () => {
    const views = [textFieldView({ accessibilityId: 'login.password', accessibilityValue: '•••••••', text: 'hunter2' })];
    const [out] = redactViewTree(views) as Array<Record<string, unknown>>;
    expect(out).not.toHaveProperty('text');
    expect(out).toMatchObject({ textRedacted: true, accessibilityValue: '•••••••', placeholder: 'Password' });
  });

  it("an empty secure field reads no bullets: get_elements' bullets for the same id say secret (across replies)", () => {
    const inventory = [
      {
        id: 'login.password',
        type: 'textField',
        value: '•••••••',
        enabled: 'true',
        visible: 'true',
        tappable: 'true',
        frame: '24,300,354,44',
        actions: 'tap,type,clear',
      },
      {
        id: 'login.username',
        type: 'textField',
        value: 'bob',
        enabled: 'true',
        visible: 'true',
        tappable: 'true',
        frame: '24,240,354,44',
        actions: 'tap,type,clear',
      },
    ];
    const ids = secretElementIds(inventory);
    expect([...ids]).toEqual(['login.password']);
    const out = redactViewTree(
      [textFieldView({ accessibilityId: 'login.password', text: 'hunter2' }), textFieldView({ accessibilityId: 'login.username', text: 'bob' })],
      ids,
    );
    expect(out).toEqual([expect.not.objectContaining({ text: expect.anything() }), expect.objectContaining({ text: 'bob' })]);
  });

  it('isSecureTextEntry, a secure class or a password content type, where a port writes one, say secret too', () => {
    expect(viewHidesText(textFieldView({ isSecureTextEntry: true, text: 'x' }))).toBe(true);
    expect(viewHidesText(textFieldView({ class: 'UISecureTextField', text: 'x' }))).toBe(true);
    expect(viewHidesText(textFieldView({ textContentType: 'password', text: 'x' }))).toBe(true);
  });

  it('a plain field, a label, and a "•••" button title stay as they are (the same object)', () => {
    const views = [
      textFieldView({ accessibilityId: 'login.username', text: 'bob' }),
      { class: 'UILabel', frame: '0,0,10,10', hidden: false, alpha: 1, userInteraction: false, depth: 3, text: 'Welcome', font: 'SF 17' },
      { class: 'UIButton', frame: '0,0,10,10', hidden: false, alpha: 1, userInteraction: true, depth: 3, title: '•••', enabled: true },
    ];
    const out = redactViewTree(views);
    out.forEach((view, i) => expect(view).toBe(views[i]));
  });
});

describe('R-SECRET-07: get_dom_interactive elements', () => {
  /** An element as interactiveJS writes it (DOMSerializer.swift:76-95). */
  const el = (extra: Record<string, unknown>) => ({ tag: 'input', rect: { x: 16, y: 200, w: 370, h: 44 }, selector: '#password', ...extra });

  it("a password input (type, a port's inputType, or an autocomplete hint) loses its value and text", () => {
    const answer = {
      elements: [el({ id: 'password', type: 'password', value: 'hunter2' }), el({ selector: '#name', id: 'name', type: 'text', value: 'Ada' })],
      count: 2,
    };
    const out = redactDomInteractive(answer) as { elements: Array<Record<string, unknown>>; count: number };
    expect(out.count).toBe(2);
    expect(out.elements[0]).toEqual({
      tag: 'input',
      rect: { x: 16, y: 200, w: 370, h: 44 },
      selector: '#password',
      id: 'password',
      type: 'password',
      valueRedacted: true,
    });
    expect(out.elements[1]).toBe(answer.elements[1]);
    expect(domElementHidesText(el({ inputType: 'password', value: 'x' }))).toBe(true);
    expect(domElementHidesText(el({ type: 'text', autocomplete: 'current-password', value: 'x' }))).toBe(true);
    expect(domElementHidesText(el({ type: 'checkbox', checked: true }))).toBe(false);
  });

  it('a bare list (the Tauri form) is redacted alike; anything else is left as it came', () => {
    const out = redactDomInteractive([el({ type: 'password', value: 'hunter2' })]) as Array<Record<string, unknown>>;
    expect(out[0]).not.toHaveProperty('value');
    expect(redactDomInteractive('not a list')).toBe('not a list');
  });
});

describe('R-SECRET-04: the web controls list, decoded once from get_dom_interactive (DOMSerializer.swift interactiveJS)', () => {
  const control = (extra: Record<string, unknown>) => ({ tag: 'input', selector: '#f', rect: { x: 0, y: 0, width: 10, height: 10 }, ...extra });

  it('a password control, by type, inputType, autofill hint, bullets or a redaction, is secret and carries no value or text', () => {
    const answer = {
      elements: [
        control({ selector: '#a', type: 'password', value: 'hunter2', text: 'hunter2' }),
        control({ selector: '#b', inputType: 'password', value: 'hunter2' }),
        control({ selector: '#c', type: 'text', autocomplete: 'current-password', value: 'hunter2' }),
        control({ selector: '#d', type: 'text', value: '•••••••' }),
        control({ selector: '#e', type: 'text', valueRedacted: true }),
      ],
    };
    for (const shape of [answer, answer.elements, redactDomInteractive(answer)]) {
      const controls = webControlsOf(shape);
      expect(controls.map((c) => [c.selector, c.secret])).toEqual([
        ['#a', true],
        ['#b', true],
        ['#c', true],
        ['#d', true],
        ['#e', true],
      ]);
      expect(JSON.stringify(controls)).not.toContain('hunter2');
    }
  });

  it('a plain field is editable and keeps its label; a checkbox, radio or submit is not offered for typing; no selector or tag: left out', () => {
    const controls = webControlsOf([
      control({ selector: '#user', type: 'text', label: 'User name', value: 'bob' }),
      control({ selector: '#remember', type: 'checkbox' }),
      control({ selector: '#go', type: 'submit', text: 'Sign in' }),
      { tag: 'textarea', selector: '#note' },
      { tag: 'input' },
      { selector: '#x' },
      'not an element',
    ]);
    expect(controls).toEqual([
      { selector: '#user', tag: 'input', type: 'text', label: 'User name', editable: true },
      { selector: '#remember', tag: 'input', type: 'checkbox', editable: false },
      { selector: '#go', tag: 'input', type: 'submit', text: 'Sign in', editable: false },
      { selector: '#note', tag: 'textarea', editable: true },
    ]);
    expect(webControlsOf('not a list')).toEqual([]);
  });
});
