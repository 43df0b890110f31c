/**
 * Parallax reading get_elements as AppReveal's iOS framework writes it (docs/rules.md#r-ar-27). Each
 * element below is in the form of MCPTools.swift get_elements (UnlikeOtherAI/AppReveal,
 * iOS/Sources/AppReveal/MCPServer/MCPTools.swift: a `[String: String]` of id, type, label, value,
 * enabled / visible / tappable as "true" / "false", frame as "Int,Int,Int,Int", actions joined by ",",
 * idSource), with types from ElementInfo.swift:8-23 and ElementInventory.swift `classifyView` /
 * `availableActions`; the web controls carry their DOM `el.type` as `inputType`.
 */
import { describe, expect, it } from 'vitest';
import { AppRevealElementsReplySchema } from '@shared/protocol/appreveal';
import { appRevealElementToUiNode } from '@shared/observe/appreveal';
import { hidesText } from '@shared/model/node';

const wire = (fields: Record<string, string>) => ({
  label: '',
  value: '',
  enabled: 'true',
  visible: 'true',
  tappable: 'true',
  frame: '24,300,342,44',
  actions: 'tap',
  idSource: 'explicit',
  ...fields,
});

const read = (fields: Record<string, string>) => {
  const [element] = AppRevealElementsReplySchema.parse({ screenKey: 'login', elements: [wire(fields)] }).elements;
  if (!element) throw new Error('no element');
  return appRevealElementToUiNode(element);
};

describe('R-AR-27: an iOS get_elements reply, read', () => {
  it('a secure UITextField (textField, value bullets) is a secret text field without its value', () => {
    const node = read({ id: 'login.password', type: 'textField', label: 'Password', value: '\u2022'.repeat(6), actions: 'tap,type,clear' });
    expect(node).toMatchObject({ className: 'textField', role: 'textfield', focusable: 'true', password: 'true', text: 'Password' });
    expect(node.value).toBeUndefined();
    expect(hidesText(node)).toBe(true);
  });

  it('an empty plain textField is no secret (only its read-back can say so later)', () => {
    const node = read({ id: 'login.username', type: 'textField', label: 'Username', actions: 'tap,type,clear' });
    expect(node.password).toBeUndefined();
    expect(node.focusable).toBe('true');
  });

  it('a UITextView is a scrollView that takes text and scrolls (a UIScrollView subclass in classifyView)', () => {
    const node = read({ id: 'notes', type: 'scrollView', actions: 'tap,type,clear,scroll' });
    expect(node).toMatchObject({ role: 'textfield', focusable: 'true', scrollable: 'true' });
  });

  it('a web password input is a secret by its inputType, with no value sent', () => {
    const node = read({
      id: 'web.checkout.e4',
      type: 'textField',
      label: 'Account password',
      actions: 'tap,type,clear',
      idSource: 'dom',
      inputType: 'password',
    });
    expect(node).toMatchObject({ password: 'true', extras: { 'appreveal.inputType': 'password' } });
  });

  it('a web checkbox is a checkable toggle, never offered for typing, even listed under a text kind', () => {
    const toggle = read({ id: 'web.checkout.e7', type: 'toggle', label: 'I accept the terms', value: 'false', idSource: 'dom', inputType: 'checkbox' });
    expect(toggle).toMatchObject({ role: 'switch', checkable: 'true' });
    expect(toggle.focusable).toBeUndefined();
    const mislisted = read({ id: 'web.checkout.e8', type: 'textField', value: 'true', actions: 'tap,type', idSource: 'dom', inputType: 'checkbox' });
    expect(mislisted).toMatchObject({ role: 'checkbox', checkable: 'true', checked: 'true' });
    expect(mislisted.focusable).toBeUndefined();
    const submit = read({ id: 'web.checkout.e9', type: 'textField', label: 'Go', actions: 'tap', idSource: 'dom', inputType: 'submit' });
    expect(submit.role).toBe('button');
    expect(submit.focusable).toBeUndefined();
  });
});
