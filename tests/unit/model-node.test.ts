/**
 * The node model (src-shared/model/node.ts): the one answer every layer gets for a node's children,
 * source, flags, centre and secrecy.
 */
import { describe, expect, it } from 'vitest';
import { centerOf, childrenOf, countNodes, hidesText, nodeFlag, nodeSource } from '@shared/model/node';
import { redactForTrace } from '@shared/trace/redact';
import { traceActionFor } from '@shared/trace/action-record';
import { verifyTypedText } from '@shared/act/verify-text';
import type { UiNode } from '@shared/protocol/runner';

describe('R-SECRET: one secret-field rule for every kind of field', () => {
  const secret: Array<[string, Record<string, unknown>]> = [
    ['a native password field (password flag)', { className: 'XCUIElementTypeTextField', password: 'true' }],
    ['a secure text field by class', { className: 'XCUIElementTypeSecureTextField' }],
    ['a UIKit secure field by class', { className: 'UISecureTextField' }],
    ['a bridge node whose role is a secure field', { role: 'secureTextField' }],
    ['a merged DOM node whose value the bridge redacted', { 'web-role': 'input', 'value-redacted': 'true' }],
    ['a web element whose value the bridge redacted', { id: 'e3', valueRedacted: true }],
    ['a web password input', { id: 'pw', inputType: 'password' }],
    ['a lenient peer’s boolean password flag', { password: true }],
    ['anything a caller marked sensitive', { sensitive: true }],
  ];
  const plain: Array<[string, Record<string, unknown>]> = [
    ['a text field', { className: 'XCUIElementTypeTextField', password: 'false' }],
    ['a web email input', { id: 'mail', inputType: 'email' }],
    ['a button', { className: 'XCUIElementTypeButton', role: 'button' }],
    ['a field whose value is not redacted', { 'value-redacted': 'false' }],
  ];

  it.each(secret)('%s hides its text', (_kind, fields) => expect(hidesText(fields)).toBe(true));
  it.each(plain)('%s does not', (_kind, fields) => expect(hidesText(fields)).toBe(false));

  it.each(secret)('the trace keeps no text or value of %s', (_kind, fields) => {
    const written = redactForTrace({ ...fields, text: 'hunter2', value: 'hunter2' });
    expect(JSON.stringify(written)).not.toContain('hunter2');
  });

  it.each(secret)('a recorded typing step into %s keeps no typed text', (_kind, fields) => {
    const node = { ...fields, bounds: { left: 0, top: 0, right: 100, bottom: 40 } } as UiNode;
    const { action } = traceActionFor({ action: 'sendKeys', target: { node }, steps: [{ kind: 'type', text: 'hunter2' }] }, undefined);
    expect(JSON.stringify(action)).not.toContain('hunter2');
  });

  it('a secure field that reads back as a mask is unverifiable, not a mismatch', () => {
    const field = { className: 'XCUIElementTypeSecureTextField', value: '•••••••' } as UiNode;
    expect(verifyTypedText('hunter2', field)).toEqual({ status: 'unverifiable', reason: 'secure_field' });
  });
});

describe('the node model', () => {
  it('counts a tree, a lone child object too, and stops one past a limit', () => {
    const tree = { className: 'A', node: [{ className: 'B', node: { className: 'C' } }, { className: 'D' }] } as unknown as UiNode;
    expect(countNodes(tree)).toBe(4);
    expect(countNodes(tree, 2)).toBe(3);
    expect(countNodes({ className: 'A' })).toBe(1);
  });

  it('children: a list, a lone child object, or none', () => {
    const child = { text: 'a' };
    expect(childrenOf({ node: [child] } as UiNode)).toEqual([child]);
    expect(childrenOf({ node: child } as unknown as UiNode)).toEqual([child]);
    expect(childrenOf({} as UiNode)).toEqual([]);
  });

  it('source: the two SDK values, else XCTest, whatever extras holds', () => {
    expect(nodeSource({ extras: { 'sdk.source': 'sdkBridge' } })).toBe('sdkBridge');
    expect(nodeSource({ extras: { 'sdk.source': 'sdkWebBridge' } })).toBe('sdkWebBridge');
    expect(nodeSource({ extras: { 'sdk.source': 'other' } })).toBe('xctest');
    expect(nodeSource({ extras: 'garbage' } as unknown as UiNode)).toBe('xctest');
  });

  it('flags: absent is false except enabled; strings and lenient booleans', () => {
    expect(nodeFlag({}, 'enabled')).toBe(true);
    expect(nodeFlag({}, 'clickable')).toBe(false);
    expect(nodeFlag({ clickable: 'true' }, 'clickable')).toBe(true);
    expect(nodeFlag({ clickable: true }, 'clickable')).toBe(true);
    expect(nodeFlag({ enabled: 'false' }, 'enabled')).toBe(false);
  });

  it('the centre is exact (unrounded), so the replayed point is the tapped one', () => {
    expect(centerOf({ bounds: { left: 0, top: 0, right: 101, bottom: 45 } })).toEqual({ x: 50.5, y: 22.5 });
    const node = { bounds: { left: 10, top: 10, right: 31, bottom: 21 } } as UiNode;
    const { target } = traceActionFor({ action: 'tap', target: { node } }, undefined);
    expect(target?.point).toEqual(centerOf(node));
    expect(centerOf({} as UiNode)).toBeUndefined();
  });
});
