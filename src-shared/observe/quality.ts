/**
 * The snapshot quality verdict (docs/rules.md#r-qua-01), so degraded output is never read as "the screen
 * has no controls". Judged on the XCTest tree the observation carries (before any merge), then upgraded
 * to `recovered` when a bridge supplied what XCTest could not.
 */
import type { Quality } from '@shared/protocol/observation';
import type { UiNode, ViewHierarchy } from '@shared/protocol/runner';
import { hasText, isInteractive } from './nodes';
import { childrenOf, nodeSource } from '@shared/model/node';

export interface QualityInput {
  /** The XCTest hierarchy as read (or as projected); undefined when no hierarchy arrived. */
  xctest: ViewHierarchy | undefined;
  /** The tree after the bridge and web merges, to see whether they supplied controls. */
  merged?: UiNode | undefined;
}

/** Accessibility serialization failures (kAXErrorIllegalArgument and the like), as the runner words them. */
const AX_FAILURE = /kAXError|AXError|accessibility/i;

export function isAxFailure(error: string): boolean {
  return AX_FAILURE.test(error);
}

export function qualityVerdict(input: QualityInput): Quality {
  const { xctest, merged } = input;
  if (!xctest) return { verdict: 'sparse', reason: 'hierarchy_unavailable' };
  const root = xctest.hierarchy;
  if (!root) {
    const error = xctest.error ?? '';
    return { verdict: 'sparse', reason: isAxFailure(error) ? 'ax_failure' : 'hierarchy_error' };
  }
  const sparse = sparseReason(root);
  if (sparse === null) return { verdict: 'healthy', reason: 'xctest_tree' };
  const recovered = merged ? recoveredBy(merged) : null;
  return recovered ? { verdict: 'recovered', reason: recovered } : { verdict: 'sparse', reason: sparse };
}

/** Whether XCTest returned nothing a user could read or operate below the application root. */
function sparseReason(root: UiNode): 'application_root_only' | 'non_interactive_wrappers_only' | null {
  const children = childrenOf(root);
  if (children.length === 0) return 'application_root_only';
  return someNode(children, (n) => nodeSource(n) === 'xctest' && (isInteractive(n) || hasText(n))) ? null : 'non_interactive_wrappers_only';
}

function recoveredBy(merged: UiNode): Quality['reason'] | null {
  const meaningful = (n: UiNode) => isInteractive(n) || hasText(n);
  if (someNode(childrenOf(merged), (n) => nodeSource(n) === 'sdkBridge' && meaningful(n))) return 'sdk_bridge_supplied_controls';
  if (someNode(childrenOf(merged), (n) => nodeSource(n) === 'sdkWebBridge' && meaningful(n))) return 'web_bridge_supplied_controls';
  return null;
}

function someNode(nodes: readonly UiNode[], test: (node: UiNode) => boolean): boolean {
  const stack = [...nodes];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (test(node)) return true;
    stack.push(...childrenOf(node));
  }
  return false;
}
