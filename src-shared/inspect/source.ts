/**
 * Where each node of a merged tree came from (XCTest, the SDK bridge, a web view's DOM), read from
 * `extras["sdk.source"]` (absent: XCTest), and the per-source counts and filters the UI shows.
 */
import { NodeSourceSchema, type NodeSource } from '@shared/protocol/observation';
import type { FlatNode } from '@shared/model/tree';
import type { UiNode } from '@shared/protocol/runner';
import { nodeSource } from '@shared/model/node';

/** Legend order (the schema's): what XCTest sees first, then what the app itself reports. */
export const NODE_SOURCES = NodeSourceSchema.options;

export const SOURCE_LABELS: Readonly<Record<NodeSource, string>> = {
  xctest: 'XCTest',
  sdkBridge: 'SDK bridge',
  sdkWebBridge: 'Web DOM',
};

export function sourceCounts(nodes: readonly FlatNode[]): Record<NodeSource, number> {
  const counts: Record<NodeSource, number> = { xctest: 0, sdkBridge: 0, sdkWebBridge: 0 };
  for (const flat of nodes) counts[nodeSource(flat.node)]++;
  return counts;
}

/** The nodes whose source is not hidden (document order kept; the same array when nothing is hidden). */
export function nodesShownIn(nodes: readonly FlatNode[], hidden: ReadonlySet<NodeSource>): readonly FlatNode[] {
  if (hidden.size === 0) return nodes;
  return nodes.filter((flat) => !hidden.has(nodeSource(flat.node)));
}

const pickableCache = new WeakMap<readonly FlatNode[], (flat: FlatNode) => boolean>();

/**
 * Picking over the whole tree but choosing only among `shown` (what `nodesShownIn` left): the key set is
 * built once per list, however many ask (the App's pick stack, the Screen's hover and clicks: 50,000
 * keys on a heavy screen, docs/rules.md#r-perf-08), and not at all when nothing is hidden.
 */
export function pickableAmong(shown: readonly FlatNode[], all: readonly FlatNode[]): ((flat: FlatNode) => boolean) | undefined {
  if (shown === all) return undefined;
  let pickable = pickableCache.get(shown);
  if (!pickable) {
    const keys = new Set(shown.map((flat) => flat.key));
    pickable = (flat) => keys.has(flat.key);
    pickableCache.set(shown, pickable);
  }
  return pickable;
}

/** The prefix of the extras an AppReveal projection sets (`APPREVEAL_EXTRAS`, src-shared/observe/appreveal.ts). */
const APPREVEAL_PREFIX = 'appreveal.';

/**
 * Who reported the node, in the words its accessible name and tooltip use: an AppReveal app's element
 * is the app's own report, not XCTest's, although it carries no merge source.
 */
export function nodeSourceName(node: UiNode): string {
  const source = nodeSource(node);
  if (source === 'xctest' && node.extras && Object.keys(node.extras).some((key) => key.startsWith(APPREVEAL_PREFIX))) return 'AppReveal';
  return SOURCE_LABELS[source];
}
