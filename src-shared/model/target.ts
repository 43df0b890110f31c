/**
 * What an action aims at (docs/rules.md#r-pick-05): which nodes are fields and controls, the box a click
 * or drag at a point acts on, and the bridge or web twin an action names. Built on the picking rule
 * (pick.ts); the picker, the dispatcher and replay use it alike.
 */
import type { UiNode } from '@shared/protocol/runner';
import { boxesAt, hitChain, type PickOptions } from './pick';
import type { FlatNode } from './tree';
import { boundsOf, childrenOf, nodeFlag, sameRect } from './node';

const WEB_TEXT_ROLES = new Set(['input', 'textarea', 'textbox', 'searchbox', 'combobox']);

/**
 * The one editable-field rule (docs/rules.md#r-pick-06): a field that takes text is a text field or view,
 * a web text-entry role (seed 000: text-like inputs and textareas; ARIA's searchbox and editable combobox
 * take text too), or a node that says it can set text: the SDK's `set_text`, or AppReveal's `type`
 * (iOS/Sources/AppReveal/Elements/ElementInventory.swift `availableActions(for:)` gives UITextField and
 * UITextView `type`). The picker offers typing and the dispatcher's text match prefers a field by it.
 */
export function isEditableNode(node: UiNode): boolean {
  const raw = node as Record<string, unknown>;
  if (raw['role'] === 'textfield') return true;
  const webRole = raw['web-role'];
  if (typeof webRole === 'string' && WEB_TEXT_ROLES.has(webRole.toLowerCase())) return true;
  const actions = raw['actions'];
  if (Array.isArray(actions) && (actions.includes('set_text') || actions.includes('type'))) return true;
  const className = raw['className'];
  return typeof className === 'string' && /text(field|view)/i.test(className);
}

/** Something a finger can use: clickable, editable, checkable or long-clickable. */
export function isActionableNode(node: UiNode): boolean {
  return nodeFlag(node, 'clickable') || nodeFlag(node, 'long-clickable') || nodeFlag(node, 'checkable') || isEditableNode(node);
}

/** The node carries the identity of an SDK bridge or web view capture (what an action can name). */
export function hasActionIdentity(node: UiNode): boolean {
  const raw = node as Record<string, unknown>;
  return typeof raw['sdk-element-id'] === 'string' || typeof raw['web-element-id'] === 'string';
}

/** An actionable node that holds no other actionable node: a control, not a screen or a container. */
export function isControlNode(node: UiNode): boolean {
  if (!isActionableNode(node)) return false;
  const stack = [...childrenOf(node)];
  while (stack.length > 0) {
    const child = stack.pop()!;
    if (isActionableNode(child)) return false;
    stack.push(...childrenOf(child));
  }
  return true;
}

/**
 * The box a click at (x, y) acts on (docs/rules.md#r-pick-05): the node a finger hits there (the picking
 * rule, pick.ts), or the nearest node around it that is a control (actionable and holding no other
 * control: a clickable screen or container holding controls is not one), as its bridge or web twin when
 * one was merged over it (same frame), so the action names the identity the observation captured. The
 * root (the whole screen) is never a target. `null`: empty space, where a tap is a tap at the point.
 */
export function actionTargetAt(nodes: readonly FlatNode[], x: number, y: number, options: PickOptions = {}): FlatNode | null {
  const chain = hitChain(nodes, x, y, options).filter((flat) => flat.depth > 0 && (options.pickable?.(flat) ?? true));
  const hit = chain.find((flat) => isControlNode(flat.node));
  if (!hit) return null;
  return twinWithIdentity(nodes, hit, options) ?? hit;
}

/**
 * The bridge or web node merged over `hit` (same frame), or `hit` itself when it has an identity: the one
 * twin rule for the picker and the dispatcher (a swipe's container). A twin has hit's frame, so it is
 * among the boxes at hit's top-left corner (docs/rules.md#r-perf-03); `hit` may be an ancestor of what
 * the finger hit, whose frame need not hold the finger's point.
 */
export function twinWithIdentity<H extends Pick<FlatNode, 'node'>>(nodes: readonly FlatNode[], hit: H, options: PickOptions = {}): H | FlatNode | undefined {
  if (hasActionIdentity(hit.node)) return hit;
  const bounds = boundsOf(hit.node);
  const pool = bounds && bounds.right > bounds.left && bounds.bottom > bounds.top ? boxesAt(nodes, bounds.left, bounds.top) : nodes;
  return pool.find((flat) => hasActionIdentity(flat.node) && sameRect(boundsOf(flat.node), bounds) && (options.pickable?.(flat) ?? true));
}

/** The innermost scrollable box around the node a finger hits at a point (the container a drag scrolls), if any. */
export function scrollContainerAt(nodes: readonly FlatNode[], x: number, y: number, options: PickOptions = {}): FlatNode | null {
  const hit = hitChain(nodes, x, y, options).find((flat) => flat.depth > 0 && nodeFlag(flat.node, 'scrollable') && (options.pickable?.(flat) ?? true));
  return hit ? (twinWithIdentity(nodes, hit, options) ?? hit) : null;
}
