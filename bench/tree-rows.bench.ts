/**
 * `npm run bench -- tree-rows`: issue 28's "one element, one row" figures (docs/rules.md#r-obs-09), on
 * every demo screen over the real runner socket: the merged tree's rows now (strategy visible, each
 * XCTest node folded into its SDK or DOM twin) beside the rows with every source's nodes side by side
 * (strategy raw: what the merged view showed before the fold), the elements XCTest reported (XCTest
 * only) and those the SDK bridges added, and how many elements the merged view shows twice (two
 * sources, one frame, one type), printed as a ratio to its limit of 0.
 */
import { startDemoObserver } from './demo-observer';
import { flattenTree } from '@shared/model/tree';
import { elementTypeOf } from '@shared/model/element-type';
import type { UiNode } from '@shared/protocol/runner';
import type { ObserveOptions } from '@main/connection/connection';

const SCREENS = ['login', 'feed', 'checkout', 'hostile', 'edges'] as const;

const sourceOf = (n: UiNode) => (typeof n.extras?.['sdk.source'] === 'string' ? n.extras['sdk.source'] : 'xctest');

/** Elements shown twice: nodes of two sources with the same frame and the same element type. */
function twice(root: UiNode | undefined): number {
  if (!root) return 0;
  const seen = new Map<string, string>();
  let count = 0;
  for (const { node } of flattenTree(root)) {
    if (!node.bounds || node === root) continue;
    const key = `${node.bounds.left},${node.bounds.top},${node.bounds.right},${node.bounds.bottom}/${elementTypeOf(node)}`;
    const other = seen.get(key);
    if (other !== undefined && other !== sourceOf(node)) count++;
    seen.set(key, sourceOf(node));
  }
  return count;
}

const demo = await startDemoObserver('login');
const { device, observer } = demo;
const lines: string[] = [];
let worst = 0;

const read = async (options: ObserveOptions) => {
  const frame = await observer.observe({ screenshot: false, ...options });
  const root = frame.observation?.viewHierarchy?.hierarchy;
  return { observation: frame.observation, root, rows: root ? flattenTree(root).length : 0 };
};

try {
  for (const screen of SCREENS) {
    await device.setScreen(screen);
    const visible = await read({ strategy: 'visible' });
    const raw = await read({ strategy: 'raw' });
    const xctest = await read({ xctestOnly: true });
    const sources = visible.observation?.sources;
    const sdk = (sources?.bridge?.nodes ?? 0) + (sources?.web?.nodes ?? 0);
    const doubled = twice(visible.root);
    worst = Math.max(worst, doubled);
    lines.push(
      `${screen.padEnd(10)} ${String(visible.rows).padStart(6)} ${String(raw.rows).padStart(8)} ${String(xctest.rows).padStart(8)} ${String(sdk).padStart(6)} ${String(doubled).padStart(8)} ${String(twice(raw.root)).padStart(9)}`,
    );
  }
} finally {
  await demo.close();
}

console.log('merged-tree rows per demo screen (issue 28 point 1, R-OBS-09)');
console.log(
  `${'screen'.padEnd(10)} ${'merged'.padStart(6)} ${'raw/was'.padStart(8)} ${'XCTest'.padStart(8)} ${'SDK'.padStart(6)} ${'twice'.padStart(8)} ${'raw twice'.padStart(9)}`,
);
for (const line of lines) console.log(line);
console.log(`elements the merged view shows twice, worst screen: ${worst} (limit 0; ratio ${worst === 0 ? '0' : 'inf'})`);
