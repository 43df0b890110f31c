/**
 * diffTrees on observation-sized trees: `npx tsx bench/diff.bench.ts`.
 *
 * The target is two 5,000-node observations in under 50 ms. The trees imitate the golden
 * Settings screen (rows of cells with a button, labels, an icon and a shared "chevron.forward" id,
 * every node with a view-id) and the SDK-backed side is what a bridge merge of the same moment gives:
 * a tenth of the leaves replaced by bridge nodes, a few moved, relabelled, dropped and added.
 * 1k and 20k show how it grows; the last line is a worst case where nothing pairs by identity and
 * every node moved, so the label and overlap passes carry the whole tree.
 */
import { diffTrees } from '@shared/compare/diff';
import type { UiNode } from '@shared/protocol/runner';

const RUNS = 25;
const WARMUP = 5;

/** Deterministic, so runs compare. */
function rng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

interface ScreenOptions {
  viewIds: boolean;
  shift: number;
}

/** About `nodes` nodes: a root, a list, and rows of 5 (cell, button, icon, label, chevron). */
function settingsScreen(nodes: number, { viewIds, shift }: ScreenOptions): UiNode {
  const rows = Math.max(1, Math.round((nodes - 2) / 5));
  const cells: UiNode[] = [];
  const id = (kind: string, i: number) => (viewIds ? { 'view-id': `${kind}-${i.toString(16).padStart(8, '0')}` } : {});
  for (let i = 0; i < rows; i++) {
    const top = 168 + i * 52 + shift;
    const row = { left: 16, top, right: 386, bottom: top + 52 };
    cells.push({
      className: 'UITableViewCell',
      role: 'listitem',
      clickable: 'true',
      bounds: row,
      ...id('cell', i),
      node: [
        {
          className: 'UIButton',
          role: 'button',
          clickable: 'true',
          'resource-id': `com.example.settings.row${i}`,
          text: `Setting ${i}`,
          bounds: row,
          ...id('button', i),
          node: [
            { className: 'UIImageView', role: 'image', bounds: { left: 29, top: top + 11, right: 58, bottom: top + 40 }, ...id('icon', i) },
            { className: 'UILabel', role: 'text', text: `Setting ${i}`, bounds: { left: 70, top: top + 15, right: 250, bottom: top + 37 }, ...id('label', i) },
            {
              className: 'UIImageView',
              role: 'image',
              'resource-id': 'chevron.forward',
              bounds: { left: 360, top: top + 20, right: 367, bottom: top + 32 },
              ...(viewIds ? { 'view-id': 'chevron.forward' } : {}),
            },
          ],
        },
      ],
    });
  }
  return {
    className: 'XCUIApplication',
    text: 'Settings',
    bounds: { left: 0, top: 0, right: 402, bottom: 874 },
    ...id('root', 0),
    node: [
      { className: 'UICollectionView', role: 'list', scrollable: 'true', bounds: { left: 0, top: 0, right: 402, bottom: 874 }, ...id('list', 0), node: cells },
    ],
  };
}

/** The same moment seen through the SDK bridge. */
function sdkBacked(xctest: UiNode, seed: number): UiNode {
  const sdk = structuredClone(xctest);
  const random = rng(seed);
  const cells = sdk.node![0]!.node!;
  for (const cell of cells) {
    const button = cell.node![0]!;
    const leaves = button.node!;
    const label = leaves[1]!;
    const r = random();
    if (r < 0.1) {
      // The bridge node replaces the XCTest label leaf: same place, label in content-desc, new identity.
      leaves[1] = {
        className: 'text',
        role: 'text',
        'content-desc': label.text!,
        'resource-id': `row.label.${cells.indexOf(cell)}`,
        'test-tag': `row.label.${cells.indexOf(cell)}`,
        'sdk-element-id': `row.label.${cells.indexOf(cell)}`,
        'sdk-capture-identity': '9007199254740993',
        extras: { 'sdk.source': 'sdkBridge' },
        bounds: { ...label.bounds! },
      };
    } else if (r < 0.11) {
      label.bounds = { ...label.bounds!, left: label.bounds!.left + 3, right: label.bounds!.right + 3 };
    } else if (r < 0.12) {
      label.text = `${label.text} (changed)`;
    } else if (r < 0.125) {
      leaves.splice(0, 1);
    } else if (r < 0.13) {
      leaves.push({
        className: 'switch',
        role: 'switch',
        'content-desc': 'Enabled',
        'sdk-element-id': `switch.${cells.indexOf(cell)}`,
        extras: { 'sdk.source': 'sdkBridge' },
        bounds: { left: 300, top: label.bounds!.top, right: 350, bottom: label.bounds!.bottom },
      });
    }
  }
  return sdk;
}

function countNodes(node: UiNode): number {
  let n = 1;
  for (const child of node.node ?? []) n += countNodes(child);
  return n;
}

function measure(name: string, x: UiNode, s: UiNode, targetMs?: number): void {
  for (let i = 0; i < WARMUP; i++) diffTrees(x, s);
  const times: number[] = [];
  let differences = 0;
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    const diff = diffTrees(x, s);
    times.push(performance.now() - start);
    differences = diff.differences.length;
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)]!;
  const p90 = times[Math.floor(times.length * 0.9)]!;
  const verdict = targetMs === undefined ? '' : median < targetMs ? `  target < ${targetMs} ms: ok` : `  target < ${targetMs} ms: MISSED`;
  console.log(
    `${name.padEnd(44)} nodes ${String(countNodes(x)).padStart(6)} / ${String(countNodes(s)).padStart(6)}` +
      `  median ${median.toFixed(2).padStart(7)} ms  p90 ${p90.toFixed(2).padStart(7)} ms  min ${times[0]!.toFixed(2).padStart(7)} ms` +
      `  differences ${differences}  (runs ${RUNS})${verdict}`,
  );
}

for (const size of [1_000, 5_000, 20_000]) {
  const x = settingsScreen(size, { viewIds: true, shift: 0 });
  measure(`diffTrees ${size / 1000}k, bridge merge of the same moment`, x, sdkBacked(x, size), size === 5_000 ? 50 : undefined);
}
{
  const x = settingsScreen(5_000, { viewIds: false, shift: 0 });
  const s = sdkBacked(settingsScreen(5_000, { viewIds: false, shift: 2 }), 7);
  measure('diffTrees 5k, no view-ids, all moved (worst)', x, s, 50);
}
