/**
 * R-LAYOUT-05: the selection follows the element, not its index path. The trees are the demo's Login screen
 * before and after its passkey button is removed (the `removed-row` variant: every later sibling's key
 * moves up one), and its Hostile and Edges screens, where the same key names unrelated elements.
 */
import { describe, expect, it } from 'vitest';
import type { UiNode } from '@shared/protocol/runner';
import { flattenTree, type FlatNode } from '@shared/model/tree';
import { followSelection } from '@shared/inspect';

const rect = (left: number, top: number, right: number, bottom: number) => ({ left, top, right, bottom });
const app = (children: UiNode[]): FlatNode[] => flattenTree({ className: 'XCUIApplication', text: 'Demo', bounds: rect(0, 0, 402, 874), node: children });
const keyOf = (nodes: readonly FlatNode[], pick: (n: UiNode) => boolean) => nodes.find((f) => pick(f.node))!.key;

const submit: UiNode = { className: 'button', 'content-desc': 'Sign In', 'resource-id': 'login.submit', bounds: rect(16, 330, 386, 380) };
const passkey: UiNode = { className: 'button', 'content-desc': 'Sign in with Passkey', 'resource-id': 'login.passkey', bounds: rect(16, 392, 386, 442) };
const hint = (top: number): UiNode => ({
  className: 'label',
  'content-desc': 'Tap the tabs below to explore the other screens.',
  'resource-id': 'UILabel@0.0.6',
  bounds: rect(16, top, 386, top + 20),
});
const image = (top: number): UiNode => ({ className: 'image', 'resource-id': 'UIImageView@0.0.7', bounds: rect(16, top, 60, top + 44) });

describe('R-LAYOUT-05: followSelection', () => {
  it('R-LAYOUT-05: a row removed above the selection moves its key; the same element is found under its new key', () => {
    const before = app([submit, passkey, hint(456), image(500)]);
    const after = app([submit, hint(456), image(500)]);
    const was = before.find((f) => f.node === passkey)!;
    expect(followSelection(was.node, after)).toBeNull();

    const label = before.find((f) => f.node['content-desc']?.startsWith('Tap the tabs'))!;
    const found = followSelection(label.node, after)!;
    expect(found.key).not.toBe(label.key);
    expect(found.node['content-desc']).toBe(label.node['content-desc']);

    // An element with neither identifier nor label is itself only where it was, to the point.
    const img = before.find((f) => f.node.className === 'image')!;
    expect(followSelection(img.node, after)?.key).toBe(keyOf(after, (n) => n.className === 'image'));
    expect(followSelection(img.node, app([submit, image(501)]))).toBeNull();
  });

  it('R-LAYOUT-05: an identifier decides: the element moved anywhere is still found, and gone it is gone even when a look-alike stays', () => {
    const moved = { ...submit, bounds: rect(16, 700, 386, 750) };
    expect(followSelection(submit, app([passkey, moved]))?.node).toBe(moved);
    const lookAlike: UiNode = { className: 'button', 'content-desc': 'Sign In', bounds: submit.bounds };
    expect(followSelection(submit, app([lookAlike]))).toBeNull();
  });

  it('R-LAYOUT-05: Hostile → Edges: "Notify me" at key 0.0.4 is not the label Edges has there; an index id says nothing across screens', () => {
    const notify: UiNode = {
      className: 'button',
      'content-desc': 'Notify me',
      'resource-id': 'UIButton@0.0.4',
      'sdk-element-id': 'UIButton@0.0.4',
      bounds: rect(16, 400, 386, 444),
    };
    const hostile = app([{ className: 'other', 'resource-id': 'UIView@0.0', bounds: rect(0, 0, 402, 874), node: [notify] }]);
    const edgesLabel: UiNode = {
      className: 'button',
      'content-desc': 'Edge label',
      'resource-id': 'UIButton@0.0.4',
      'sdk-element-id': 'UIButton@0.0.4',
      bounds: rect(16, 400, 386, 444),
    };
    const edges = app([{ className: 'other', 'resource-id': 'UIView@0.0', bounds: rect(0, 0, 402, 874), node: [edgesLabel] }]);
    expect(keyOf(edges, (n) => n === edgesLabel)).toBe(keyOf(hostile, (n) => n === notify));
    expect(followSelection(notify, edges)).toBeNull();
  });

  it('R-LAYOUT-05: a bridge id that names the element (not an index path) finds it; of several with its label, the nearest is it', () => {
    const cell: UiNode = { className: 'cell', 'sdk-element-id': 'feed.row.12', 'content-desc': 'Post 12', bounds: rect(0, 300, 402, 380) };
    const scrolled = { ...cell, bounds: rect(0, 100, 402, 180) };
    expect(followSelection(cell, app([scrolled]))?.node).toBe(scrolled);

    const title: UiNode = { className: 'label', 'content-desc': 'Checkout', bounds: rect(16, 100, 200, 130) };
    const near = { ...title, bounds: rect(16, 160, 200, 190) };
    const far = { ...title, bounds: rect(16, 600, 200, 630) };
    expect(followSelection(title, app([far, near]))?.node).toBe(near);
    expect(followSelection(title, app([far]))?.node).toBe(far);
    // The same label on another type of element is not it.
    expect(followSelection(title, app([{ ...title, className: 'button' }]))).toBeNull();
  });
});
