/**
 * Selectors over observation-sized trees: `npm run bench -- selectors` (docs/rules.md#r-qa-05, #r-perf-11).
 *
 * The target: evaluating a selector over a 50,000-node tree is linear. The tree imitates a long list
 * (rows of a cell, a button with an id and a label, an icon, a label and a shared chevron id); at 5,000
 * and 50,000 nodes it prints the time to index the observation once, then the median time per selector
 * of each syntax on that index, and to generate every selector for one node. Ten times the nodes should
 * cost about ten times the time.
 *
 * Then the selectors panel's work on the heavy board (src-demo/heavy-recording.ts) at 1k, 5k and 50k
 * nodes, now against the approach before (docs/rules.md#r-perf-11), median / p95 in ms:
 *   index        indexing a new tree: now the lazy index; before, the index with what it built
 *                eagerly (flat nodes and keys, an attribute record per node in both views);
 *   first pick   a node's suggestions on a tree just received (index + suggestions): what the panel
 *                does after the paint of a selection on a new tree; before, each selector read back
 *                and evaluated over every node (`selectorsByEvaluation`);
 *   next pick    the suggestions of another node on the same tree;
 *   longest task the panel's longest task in a first pick now, which runs it as `selectorSteps` (one
 *                task each) and then the suggestions; before, the whole first pick was one task.
 */
import type { UiNode } from '@shared/protocol/runner';
import { heavyHierarchy } from '@demo/heavy-recording';
import { indexScreen, parseSelector, evaluateIn, SelectorError, selectorsByEvaluation, selectorsFor, selectorSteps } from '@shared/selectors';

const RUNS = 15;

function listScreen(nodes: number): UiNode {
  const rows = Math.max(1, Math.round((nodes - 2) / 5));
  const cells: UiNode[] = [];
  for (let i = 0; i < rows; i++) {
    const top = 168 + i * 52;
    const row = { left: 16, top, right: 386, bottom: top + 52 };
    cells.push({
      className: 'UITableViewCell',
      role: 'listitem',
      bounds: row,
      node: [
        {
          className: 'UIButton',
          role: 'button',
          'resource-id': `com.example.row${i}`,
          text: `Setting ${i}`,
          bounds: row,
          node: [
            { className: 'UIImageView', role: 'image', bounds: { left: 29, top: top + 11, right: 58, bottom: top + 40 } },
            { className: 'UILabel', role: 'text', text: `Setting ${i}`, bounds: { left: 70, top: top + 15, right: 250, bottom: top + 37 } },
            { className: 'UIImageView', role: 'image', 'resource-id': 'chevron.forward', bounds: { left: 360, top: top + 20, right: 367, bottom: top + 32 } },
          ],
        },
      ],
    });
  }
  return {
    className: 'XCUIApplication',
    text: 'Settings',
    bounds: { left: 0, top: 0, right: 402, bottom: 874 },
    node: [{ className: 'UICollectionView', role: 'list', bounds: { left: 0, top: 0, right: 402, bottom: 874 }, node: cells }],
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function time(run: () => void): number {
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    run();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

const SELECTORS: [string, (rows: number) => string][] = [
  ['Maestro id', (r) => `id: 'com\\.example\\.row${r - 3}'`],
  ['Maestro text + index', () => "text: 'Setting 7'\nindex: 1"],
  ['XCUITest subscript', (r) => `app.buttons["com.example.row${r - 3}"]`],
  ['XCUITest predicate', (r) => `app.buttons.element(matching: NSPredicate(format: "label BEGINSWITH %@", "Setting ${r - 3}"))`],
  ['XCUITest containing', (r) => `app.cells.containing(.button, identifier: "com.example.row${r - 3}").firstMatch`],
  ['Appium predicate', (r) => `-ios predicate string: type == 'XCUIElementTypeButton' AND name == 'com.example.row${r - 3}'`],
  ['Appium class chain', (r) => `**/XCUIElementTypeCell/XCUIElementTypeButton[\`label == "Setting ${r - 3}"\`]`],
  ['Appium XPath', (r) => `//XCUIElementTypeButton[@name="com.example.row${r - 3}"]`],
  ['Appium XPath (…)[n]', () => '(//XCUIElementTypeCell/XCUIElementTypeButton)[5]'],
  ['CLI --id', (r) => `--id com.example.row${r - 3}`],
];

const results: Record<number, Record<string, number>> = {};
for (const nodes of [5_000, 50_000]) {
  const rows = Math.round((nodes - 2) / 5);
  const index = time(() => indexScreen(listScreen(nodes)));
  const root = listScreen(nodes);
  const screen = indexScreen(root);
  const count = screen.nodes.length;
  const line: Record<string, number> = { index };
  console.log(`\n${count.toLocaleString('en')} nodes: index the observation ${index.toFixed(1)} ms (once per observation)`);
  for (const [name, make] of SELECTORS) {
    const parsed = parseSelector(make(rows));
    const view = parsed.syntax === 'parallax' ? 'merged' : 'xctest';
    let matches: number;
    try {
      matches = evaluateIn(parsed, screen, view).length;
    } catch (error) {
      // XPath is evaluated over WDA's page source, built for at most MAX_PAGE_SOURCE_ELEMENTS (docs/rules.md#r-hand-08).
      if (!(error instanceof SelectorError)) throw error;
      console.log(`  ${name.padEnd(24)} refused: ${error.reason}`);
      continue;
    }
    const ms = time(() => evaluateIn(parsed, screen, view));
    line[name] = ms;
    console.log(`  ${name.padEnd(24)} ${ms.toFixed(2).padStart(7)} ms  (${matches} match${matches === 1 ? '' : 'es'})`);
  }
  const target = screen.nodes[screen.nodes.length - 3]!.key;
  const generate = time(() => selectorsFor(root, target));
  line['generate'] = generate;
  console.log(`  ${'every selector for a node'.padEnd(24)} ${generate.toFixed(1).padStart(7)} ms  (${selectorsFor(root, target).length} selectors)`);
  results[nodes] = line;
}
const small = results[5_000]!;
const large = results[50_000]!;
const ratios = Object.keys(large)
  .filter((k) => small[k] !== undefined)
  .map((k) => large[k]! / Math.max(small[k]!, 0.01));
console.log(
  `\n50,000 vs 5,000 nodes: each measure grew ${Math.min(...ratios).toFixed(1)}–${Math.max(...ratios).toFixed(1)}x for 10x the nodes (linear is 10x)`,
);

// ---- The selectors panel on the heavy board (docs/rules.md#r-perf-11) -----------------------------------

const PANEL_RUNS = 11;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** A tile's cell, its title, its value, its chart and a bar: the kinds of node a person picks. */
function boardKeys(tiles: number, sample: number): string[] {
  const tile = (sample * 37) % tiles;
  return [`0.1.${tile}`, `0.1.${tile}.0.0`, `0.1.${tile}.0.1`, `0.1.${tile}.0.3`, `0.1.${tile}.0.3.${sample % 4}.${sample % 10}`];
}

const board = (nodes: number) => heavyHierarchy(nodes).hierarchy as UiNode;
const stat = (xs: number[]) => `${percentile(xs, 50).toFixed(1).padStart(6)} / ${percentile(xs, 95).toFixed(1).padStart(6)}`;

console.log('\nthe selectors panel on the heavy board: median / p95 ms, now | before (ratio of medians)');
console.log('nodes        index now |      before          first pick now |      before          next pick now |      before      longest task now');
for (const nodes of [1_000, 5_000, 50_000]) {
  const tiles = heavyHierarchy(nodes).hierarchy!.node![1]!.node!.length;
  const longest: number[] = [];
  const f = {
    indexNow: [] as number[],
    indexBefore: [] as number[],
    firstNow: [] as number[],
    firstBefore: [] as number[],
    nextNow: [] as number[],
    nextBefore: [] as number[],
  };
  for (let run = 0; run < PANEL_RUNS; run++) {
    const keys = boardKeys(tiles, run);
    // The panel's slices on a tree of its own: each step, then the suggestions.
    const sliced = board(nodes);
    const tasks = [...selectorSteps(sliced), () => selectorsFor(sliced, keys[0]!)].map((task) => {
      const t = performance.now();
      task();
      return performance.now() - t;
    });
    longest.push(Math.max(...tasks));
    // Now and before alternate, each on a tree it is the first to see.
    for (const before of [false, true]) {
      const root = board(nodes);
      let t = performance.now();
      const screen = indexScreen(root);
      if (before) void [screen.byKey, screen.xctest.attrs, screen.merged.attrs];
      (before ? f.indexBefore : f.indexNow).push(performance.now() - t);
      const first = before ? selectorsByEvaluation : selectorsFor;
      t = performance.now();
      first(root, keys[0]!);
      (before ? f.firstBefore : f.firstNow).push(performance.now() - t + (before ? f.indexBefore : f.indexNow).at(-1)!);
      for (const key of keys.slice(1)) {
        t = performance.now();
        first(root, key);
        (before ? f.nextBefore : f.nextNow).push(performance.now() - t);
      }
    }
  }
  const ratio = (now: number[], before: number[]) => `${(percentile(before, 50) / Math.max(percentile(now, 50), 0.01)).toFixed(1)}x`;
  console.log(
    `${String(nodes).padStart(5)}  ${stat(f.indexNow)} | ${stat(f.indexBefore)} ${ratio(f.indexNow, f.indexBefore).padStart(6)}  ${stat(f.firstNow)} | ${stat(f.firstBefore)} ${ratio(f.firstNow, f.firstBefore).padStart(6)}  ${stat(f.nextNow)} | ${stat(f.nextBefore)} ${ratio(f.nextNow, f.nextBefore).padStart(6)}  ${stat(longest)}`,
  );
}
