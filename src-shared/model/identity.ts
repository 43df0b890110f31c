/**
 * The bridge and web identities a merged node carries (docs/protocol.md#p-merge-attrs), read once so
 * routing never guesses from half an identity.
 */
import type { TargetRecord } from '@shared/protocol/action';
import { UInt64Schema, type UInt64 } from '@shared/protocol/json';
import type { UiNode } from '@shared/protocol/runner';
import { flattenTree } from '@shared/model/tree';
import { centerOf, nodeLabel, SDK_SOURCE_KEY } from '@shared/model/node';
import { nodeTitleText } from '@shared/model/title';

export interface BridgeIdentity {
  readonly elementId: string;
  readonly captureIdentity: UInt64;
}

export interface WebIdentity {
  readonly webViewId: string;
  readonly snapshotId: string;
  readonly elementId: string;
  readonly documentId?: string | undefined;
  readonly webRole?: string | undefined;
}

export type NodeIdentity =
  | { readonly kind: 'bridge'; readonly bridge: BridgeIdentity }
  | { readonly kind: 'web'; readonly web: WebIdentity }
  /** A plain XCTest node. */
  | { readonly kind: 'none' }
  /**
   * Marked as a bridge or DOM node but missing (or garbling) what an action must name. Tapping it through
   * XCTest would be a fallback no rule allows, and no valid bridge action can be built
   * (docs/rules.md#r-tap-06).
   */
  | { readonly kind: 'incomplete' };

function present(value: string | undefined): value is string {
  return value !== undefined && value !== '';
}

export function nodeIdentity(node: UiNode): NodeIdentity {
  const source = node.extras?.[SDK_SOURCE_KEY];
  const webViewId = node['web-view-id'];
  const snapshotId = node['web-snapshot-id'];
  const webElementId = node['web-element-id'];
  const sdkElementId = node['sdk-element-id'];
  const capture = node['sdk-capture-identity'];

  const anyWeb = [webViewId, snapshotId, webElementId].some(present) || source === 'sdkWebBridge';
  const anyBridge = [sdkElementId, capture].some(present) || source === 'sdkBridge';

  // A DOM element is checked first: it sits under a WKWebView, never in the native bridge's tree.
  if (anyWeb) {
    if (!present(webViewId) || !present(snapshotId) || !present(webElementId)) return { kind: 'incomplete' };
    return {
      kind: 'web',
      web: {
        webViewId,
        snapshotId,
        elementId: webElementId,
        documentId: present(node['web-document-id']) ? node['web-document-id'] : undefined,
        webRole: present(node['web-role']) ? node['web-role'] : undefined,
      },
    };
  }
  if (anyBridge) {
    const parsed = UInt64Schema.safeParse(capture);
    if (!present(sdkElementId) || !parsed.success) return { kind: 'incomplete' };
    return { kind: 'bridge', bridge: { elementId: sdkElementId, captureIdentity: parsed.data } };
  }
  return { kind: 'none' };
}

/** A native bridge node (not a DOM element). */
export function isBridgeNode(node: UiNode): boolean {
  return nodeIdentity(node).kind === 'bridge';
}

/**
 * The bridge capture an observation was merged from: every bridge node of one observation carries the
 * same one, so the first is the observation's.
 */
export function captureIdentityOf(root: UiNode | undefined): UInt64 | undefined {
  if (!root) return undefined;
  for (const { node } of flattenTree(root)) {
    const id = nodeIdentity(node);
    if (id.kind === 'bridge') return id.bridge.captureIdentity;
  }
  return undefined;
}

/** How a resolved node is described in a result. */
export function nodeTargetRecord(node: UiNode, resolvedBy: TargetRecord['resolvedBy'], extra: Partial<TargetRecord> = {}): TargetRecord {
  const id = nodeIdentity(node);
  const point = centerOf(node);
  const marked = node.extras?.[SDK_SOURCE_KEY];
  const record: TargetRecord = {
    resolvedBy,
    source: id.kind === 'bridge' || marked === 'sdkBridge' ? 'sdkBridge' : id.kind === 'web' || marked === 'sdkWebBridge' ? 'sdkWebBridge' : 'xctest',
    ...(point ? { point } : {}),
    ...(node.bounds ? { bounds: node.bounds } : {}),
    ...(nodeLabel(node) !== undefined ? { label: nodeLabel(node) } : {}),
    // The words a tree row names it by, so a result, a timeline entry and the CLI say the same (R-UI-TITLE).
    title: nodeTitleText(node),
    ...extra,
  };
  if (id.kind === 'bridge') {
    return { ...record, elementId: id.bridge.elementId, captureIdentity: id.bridge.captureIdentity };
  }
  if (id.kind === 'web') {
    const { webViewId, elementId, snapshotId, documentId } = id.web;
    return { ...record, webViewId, webElementId: elementId, snapshotId, ...(documentId ? { documentId } : {}) };
  }
  return record;
}
