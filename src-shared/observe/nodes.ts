/**
 * Node-level questions only the observation pipeline asks: is a node interactive, does it carry text, what
 * to call it. The node model itself (children, source, flags, copy-on-write edits) is model/node.ts.
 */
import type { UiNode } from '@shared/protocol/runner';
import { childrenOf, nodeFlag, nodeSource, type Rect } from '@shared/model/node';

export function isXctest(node: UiNode): boolean {
  return nodeSource(node) === 'xctest';
}

/**
 * The node's frame. Trees reaching this pipeline were decoded with the runner schema (integer bounds),
 * so the frame is read as is, without inspect's defensive copy: this runs once per node per stage.
 */
export function rectOf(node: UiNode): Rect | null {
  return node.bounds ?? null;
}

export function isLeaf(node: UiNode): boolean {
  return childrenOf(node).length === 0;
}

/** A string worth comparing or showing: empty and blank strings count as absent. */
export function present(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== '';
}

/** Roles the runner reports for things a user operates (docs/protocol.md#p-node: button, textfield, …). */
const INTERACTIVE_ROLES = new Set(['button', 'textfield', 'link', 'switch', 'checkbox', 'slider', 'tab', 'menuitem', 'searchfield']);
const INTERACTIVE_FLAGS = ['clickable', 'focusable', 'long-clickable', 'checkable', 'scrollable'] as const;

export function isInteractive(node: UiNode): boolean {
  if (INTERACTIVE_FLAGS.some((flag) => nodeFlag(node, flag))) return true;
  if (node.role !== undefined && INTERACTIVE_ROLES.has(node.role.toLowerCase())) return true;
  return (node.actions?.length ?? 0) > 0;
}

/** Text a user can read on the node. */
export function hasText(node: UiNode): boolean {
  return present(node.text) || present(node['content-desc']) || present(node.value) || present(node['hint-text']);
}

/** What a person would call the node, for warnings and diagnostics. */
export function captionOf(node: UiNode): string | undefined {
  for (const value of [node['resource-id'], node['test-tag'], node['content-desc'], node.text, node.value]) {
    if (present(value)) return value;
  }
  return undefined;
}
