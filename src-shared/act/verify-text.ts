/**
 * Read-back verification of typed text, the same for bridge, web and XCTest typing
 * (docs/rules.md#r-key-04, R-OWV-08).
 */
import type { UiNode } from '@shared/protocol/runner';
import { hidesText } from '@shared/model/node';

export type TextVerification =
  | { readonly status: 'verified' }
  | { readonly status: 'mismatch'; readonly actual: string }
  | { readonly status: 'unverifiable'; readonly reason: 'field_not_found' | 'value_redacted' | 'secure_field' };

const MASK = /^[•●*]+$/;

/**
 * Compares what the field shows after typing with `expected` (the whole value, not just the typed part).
 *
 * A redacted DOM value is never reported as text, so it cannot be checked, unless the XCTest leaf the DOM
 * element replaced reported a readable value: the leaf's attributes win in the merge, so that value is
 * the node's text.
 */
export function verifyTypedText(expected: string, node: UiNode | undefined): TextVerification {
  if (!node) return { status: 'unverifiable', reason: 'field_not_found' };
  const reported = node.text ?? node.value;
  if (reported === undefined && node['value-redacted'] === 'true') return { status: 'unverifiable', reason: 'value_redacted' };
  const actual = reported ?? '';
  if (actual === expected) return { status: 'verified' };
  // A secure field reads back as a mask, which says nothing about what was typed.
  if (hidesText(node) && MASK.test(actual)) return { status: 'unverifiable', reason: 'secure_field' };
  // An empty text field reports its placeholder as its value.
  if (expected === '' && actual === node['hint-text']) return { status: 'verified' };
  return { status: 'mismatch', actual };
}

/**
 * Read-back of keys typed into whatever had keyboard focus (no target, docs/rules.md#r-act-06): what the
 * field held before is unknown, so typing is verified when the focused field now ends with the typed
 * text, and a clear or replace when it shows exactly what followed it.
 */
export function verifyFocusedTyping(
  ops: readonly ({ readonly op: 'insertText'; readonly text: string } | { readonly op: 'clear' })[],
  node: UiNode | undefined,
): TextVerification {
  let exact = false;
  let tail = '';
  for (const op of ops) {
    if (op.op === 'clear') {
      exact = true;
      tail = '';
    } else tail += op.text;
  }
  if (exact) return verifyTypedText(tail, node);
  if (!node) return { status: 'unverifiable', reason: 'field_not_found' };
  const reported = node.text ?? node.value;
  if (reported === undefined && node['value-redacted'] === 'true') return { status: 'unverifiable', reason: 'value_redacted' };
  const actual = reported ?? '';
  if (actual.endsWith(tail)) return { status: 'verified' };
  if (hidesText(node) && MASK.test(actual)) return { status: 'unverifiable', reason: 'secure_field' };
  return { status: 'mismatch', actual };
}
