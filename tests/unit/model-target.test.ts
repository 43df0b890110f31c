/**
 * R-PICK-06: one editable-field rule (docs/rules.md#r-pick-06). The picker offers typing into a field and
 * the dispatcher's text match prefers that field by the same rule; before, the two disagreed on a web
 * searchbox, a combobox and an AppReveal element whose actions say `type`.
 */
import { describe, expect, it } from 'vitest';
import type { UiNode } from '@shared/protocol/runner';
import { isEditableNode } from '@shared/model/target';
import { resolveTarget } from '@shared/act/resolve';

const at = { left: 0, top: 100, right: 300, bottom: 140 };
const label: UiNode = { className: 'StaticText', 'content-desc': 'Search', bounds: { left: 0, top: 40, right: 300, bottom: 80 } };

describe('R-PICK-06: one rule says which node takes text', () => {
  it.each<[string, UiNode, boolean]>([
    ['web searchbox', { 'web-role': 'searchbox', 'content-desc': 'Search', bounds: at }, true],
    ['web combobox', { 'web-role': 'COMBOBOX', 'content-desc': 'Search', bounds: at }, true],
    ["AppReveal actions: ['type']", { actions: ['tap', 'type', 'clear'], 'content-desc': 'Search', bounds: at }, true],
    ["SDK actions: ['set_text']", { actions: ['set_text'], 'content-desc': 'Search', bounds: at }, true],
    ['role textfield', { role: 'textfield', 'content-desc': 'Search', bounds: at }, true],
    ['a UITextView', { className: 'UITextView', 'content-desc': 'Search', bounds: at }, true],
    ['web input', { 'web-role': 'input', 'content-desc': 'Search', bounds: at }, true],
    ['web button', { 'web-role': 'button', 'content-desc': 'Search', bounds: at }, false],
    ["actions: ['tap'] only", { actions: ['tap'], 'content-desc': 'Search', bounds: at }, false],
  ])('%s: the picker and the dispatcher agree', (_name, field, editable) => {
    expect(isEditableNode(field)).toBe(editable);
    // The label comes first in screen order; text entry goes to the field only when the field takes text.
    const root: UiNode = { className: 'Window', bounds: { left: 0, top: 0, right: 300, bottom: 600 }, node: [label, field] };
    const resolved = resolveTarget({ text: 'Search' }, root, { preferEditable: true });
    expect(resolved.kind).toBe('node');
    expect(resolved.kind === 'node' && resolved.node).toBe(editable ? field : label);
  });
});
