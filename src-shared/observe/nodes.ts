/**
 * Node-level helpers for the observation pipeline: where a node came from, its texts, and copy-on-write
 * edits that never touch the input tree (every stage is pure and may share unchanged subtrees).
 */
import type { NodeSource } from '@shared/protocol/observation';
import { nodeFlag, type UiNode } from '@shared/protocol/runner';
import { childrenOf, type Rect } from '@shared/model/tree';

export { childrenOf };

/** The extras key that says which backend produced a merged node (seed 000). */
export const SDK_SOURCE_KEY = 'sdk.source';

export function sourceOf(node: UiNode): NodeSource {
  const source = node.extras?.[SDK_SOURCE_KEY];
  return source === 'sdkBridge' || source === 'sdkWebBridge' ? source : 'xctest';
}

export function isXctest(node: UiNode): boolean {
  return sourceOf(node) === 'xctest';
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

/** The node with `children` (a fresh array the caller hands over) as its children; `node` is left out when there are none. */
export function withChildren(node: UiNode, children: UiNode[]): UiNode {
  if (children.length > 0) return { ...node, node: children };
  return node.node === undefined ? { ...node } : withoutChildren(node);
}

/** The node's own attributes, without its subtree. */
export function withoutChildren(node: UiNode): UiNode {
  const { node: _subtree, ...rest } = node;
  return rest;
}

export function withExtras(node: UiNode, extras: Record<string, string>): UiNode {
  return { ...node, extras: { ...node.extras, ...extras } };
}

/** Roles the runner reports for things a user operates (protocol.md: button, textfield, …). */
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
