/**
 * `npx tsx bench/merge.bench.ts`: the cost of the observation pipeline's merges.
 *
 * The headline case is the issue's: a 10,000-node XCTest tree, a 2,000-node bridge snapshot and a
 * 1,000-element web snapshot (target: median under 20 ms). Then the same shape at 1k, 10k and 50k XCTest
 * nodes, to show the cost grows linearly (indexes by bounds, never a loop over one tree per node of the
 * other). Every node lies on screen so the visible projection keeps all of them and the merges see the
 * full size; half the bridge nodes and half the DOM elements duplicate an XCTest leaf.
 */
import type { UiNode, ViewHierarchy } from '@shared/protocol/runner';
import type { ObservationNode, ObservationSnapshot, WebSnapshot } from '@shared/protocol/sdk';
import { flattenTree } from '@shared/model/tree';
import { assembleObservation, discoverSdk, mergeBridgeRead, mergeWebRead, projectVisible, type SdkDiscovery } from '@shared/observe';

const W = 402;
const H = 874;
const WEB = { left: 0, top: 100, right: W, bottom: 800 };
const RUNS = 30;

interface Scenario {
  hierarchy: ViewHierarchy;
  bridge: ObservationSnapshot;
  web: WebSnapshot;
  xctestNodes: number;
}

/**
 * Item i's frame inside `area`: a dense grid of 2 × 2-point boxes, so even the 50k tree has a distinct
 * frame per item (a real screen never holds that many nodes, but every one must reach the indexes).
 */
function box(i: number, area: { left: number; top: number; right: number; bottom: number }) {
  const cols = Math.floor((area.right - area.left) / 2);
  const rows = Math.floor((area.bottom - area.top) / 2);
  const left = area.left + (i % cols) * 2;
  const top = area.top + (Math.floor(i / cols) % rows) * 2;
  return { left, top, right: left + 2, bottom: top + 2 };
}

function scenario(xctestNodes: number): Scenario {
  const webLeaves = Math.floor(xctestNodes / 10);
  const cells = Math.floor((xctestNodes - webLeaves - 4) / 3);
  const screen = { left: 0, top: 0, right: W, bottom: H };
  // Inside the safe area, as on a real screen: the layout audit then flags a handful, not thousands.
  const content = { left: 0, top: 62, right: W, bottom: H - 34 };
  const cellNodes: UiNode[] = [];
  for (let i = 0; i < cells; i++) {
    const b = box(i, content);
    cellNodes.push({
      className: 'UITableViewCell',
      bounds: b,
      node: [
        { className: 'UILabel', text: `label ${i}`, bounds: b },
        { className: 'UIButton', 'resource-id': `button-${i}`, clickable: 'true', bounds: { ...b, left: b.left + 1 } },
      ],
    });
  }
  // Top up with plain labels so the tree holds exactly `xctestNodes` nodes.
  for (let i = cells * 3 + webLeaves + 4; i < xctestNodes; i++) cellNodes.push({ className: 'UILabel', text: `filler ${i}`, bounds: box(i, content) });
  const leaves: UiNode[] = [];
  for (let i = 0; i < webLeaves; i++) leaves.push({ className: 'UIButton', text: `web ${i}`, bounds: box(i, WEB) });
  const hierarchy: ViewHierarchy = {
    updatedAt: 1,
    packageName: 'bench.app',
    screenWidth: W,
    screenHeight: H,
    screenScale: 3,
    insets: { available: true, source: 'bench', units: 'points', safeArea: { top: 62, left: 0, bottom: 34, right: 0 } },
    hierarchy: {
      className: 'XCUIApplication',
      bounds: screen,
      node: [
        { className: 'UILabel', text: 'Status-bar overlap', bounds: { left: 16, top: 40, right: 200, bottom: 80 } },
        { className: 'UIWindow', bounds: screen, node: cellNodes },
        { className: 'WKWebView', bounds: WEB, node: leaves },
      ],
    },
  };

  // The bridge: a fifth of the XCTest size; every other node duplicates an XCTest label leaf.
  const bridgeCount = Math.floor(xctestNodes / 5);
  const children: ObservationNode[] = [];
  for (let i = 0; i < bridgeCount - 1; i++) {
    const dup = i % 2 === 0 && i < cells;
    const b = dup ? box(i, content) : { ...box(i, content), bottom: box(i, content).bottom + 1.5 };
    children.push({
      id: `n${i}`,
      role: 'button',
      label: dup ? `label ${i}` : `bridge ${i}`,
      bounds: b,
      enabled: true,
      visible: true,
      focused: false,
      children: [],
    });
  }
  const bridge: ObservationSnapshot = {
    captureIdentity: '18446744073709551615',
    orientation: 'portrait',
    coordinateSpace: 'screen',
    bounds: screen,
    root: { id: 'root', role: 'view', bounds: screen, enabled: true, visible: true, focused: false, children },
    capabilities: [],
  };

  // The web view: a tenth of the XCTest size; every other element matches a leaf (CSS px = points here).
  const elements: WebSnapshot['elements'] = [];
  for (let i = 0; i < webLeaves; i++) {
    const b = box(i, WEB);
    const match = i % 2 === 0;
    elements.push({
      id: `e${i}`,
      role: 'button',
      label: match ? `web ${i}` : `dom ${i}`,
      bounds: [b.left - WEB.left, b.top - WEB.top, b.right - b.left, b.bottom - b.top],
      enabled: true,
      visible: true,
      focused: false,
    });
  }
  const web: WebSnapshot = { snapshotId: 's1', documentId: 'd1', url: 'https://bench.example/', elements };
  return { hierarchy, bridge, web, xctestNodes: flattenTree(hierarchy.hierarchy!).length };
}

const discovery: SdkDiscovery = discoverSdk({
  foregroundBundleId: 'bench.app',
  runnerCommands: ['get_sdk_capabilities', 'request_sdk_observation', 'request_sdk_action', 'request_sdk_web_snapshot'],
  probe: {
    ok: true,
    reply: {
      available: true,
      bundleId: 'bench.app',
      observationBridge: { schemaVersion: 1, available: true, supportedActions: ['tap'] },
      webViewBridge: [{ webViewId: 'wv', allowedOrigins: [], contentProcessAvailable: true }],
    },
  },
});

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

interface Timing {
  /** Wall-clock median, ms. */
  wall: number;
  /** Median CPU time the process spent (user + system), ms: what the code costs on a shared, busy machine. */
  cpu: number;
}

function measure(run: () => unknown, runs = RUNS): Timing {
  for (let i = 0; i < 5; i++) run(); // warm-up: let the JIT settle
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < runs; i++) {
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    run();
    wall.push(performance.now() - start);
    const used = process.cpuUsage(cpuStart);
    cpu.push((used.user + used.system) / 1000);
  }
  return { wall: median(wall), cpu: median(cpu) };
}

function mergesOnly(s: Scenario, projectedRoot: UiNode) {
  const bridged = mergeBridgeRead(projectedRoot, { kind: 'reply', reply: { available: true, snapshot: s.bridge } });
  const webbed = mergeWebRead(bridged.root, {
    kind: 'reply',
    reply: { available: true, webViews: [{ webViewId: 'wv', allowedOrigins: [], contentProcessAvailable: true }], snapshot: s.web },
  });
  return webbed;
}

function assemble(s: Scenario) {
  return assembleObservation({
    strategy: 'visible',
    now: 0,
    hierarchy: { ok: true, hierarchy: s.hierarchy },
    discovery,
    bridge: { kind: 'reply', reply: { available: true, snapshot: s.bridge } },
    web: { kind: 'reply', reply: { available: true, webViews: [{ webViewId: 'wv', allowedOrigins: [], contentProcessAvailable: true }], snapshot: s.web } },
  });
}

const fmt = (ms: number) => ms.toFixed(2);
const show = (t: Timing) => `median ${fmt(t.wall)} ms wall, ${fmt(t.cpu)} ms CPU`;

const headline = scenario(10_000);
const projected = projectVisible(headline.hierarchy).hierarchy!;
const check = mergesOnly(headline, projected);
const merged = assemble(headline);
console.log(
  `scenario: ${headline.xctestNodes} XCTest nodes, ${headline.bridge.root!.children.length + 1} bridge nodes, ${headline.web.elements.length} web elements` +
    ` -> merged tree ${flattenTree(merged.viewHierarchy!.hierarchy!).length} nodes, backend ${merged.backend}, web leaves replaced ${check.leavesReplaced}`,
);
console.log(`merge (bridge + web) 10k/2k/1k: ${show(measure(() => mergesOnly(headline, projected)))} over ${RUNS} runs (target < 20 ms)`);
console.log(`assembleObservation (projection + merges + quality + focus + layout) 10k/2k/1k: ${show(measure(() => assemble(headline)))} over ${RUNS} runs`);

console.log('growth (bridge = n/5, web = n/10), median of 20 runs:');
for (const n of [1_000, 10_000, 50_000]) {
  const s = scenario(n);
  const root = projectVisible(s.hierarchy).hierarchy!;
  const merge = measure(() => mergesOnly(s, root), 20);
  const full = measure(() => assemble(s), 20);
  const per1k = (t: Timing) => fmt((t.wall / s.xctestNodes) * 1000);
  console.log(
    `  n=${String(s.xctestNodes).padStart(6)}: merge ${fmt(merge.wall).padStart(7)} ms (${per1k(merge)} ms per 1k nodes), ` +
      `assemble ${fmt(full.wall).padStart(7)} ms (${per1k(full)} ms per 1k nodes)`,
  );
}
