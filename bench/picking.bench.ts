/**
 * `npm run bench -- picking`: how often the picking rule (docs/rules.md#r-pick) picks the element a
 * finger would hit. On every demo screen (Feed also scrolled) 200 random points (a fixed seed); at each,
 * the node `topmostAt` picks on the observation the UI shows is compared with the element Chromium's
 * `elementFromPoint` finds in the demo app's page: the nearest element the simulated OS reports as a
 * view (`data-ax-class`), or inside a web view the nearest element its bridge reports. They are the same
 * when the node's frame is the element's (both truncated to whole points, ±1 pt) and, where the element
 * has an accessibility identifier, the node names no other.
 *
 * Prints the hit rate per screen for the merged observation (bridge and DOM merged, what the UI shows)
 * and for the XCTest-only one, each beside the rule it replaced (the smallest box first), and how many of
 * the misses lie within 1 pt of a frame's edge, where the runner's whole-point truncation of frames
 * decides rather than the rule.
 */
import type { DemoDevice } from '@demo/device/demo-device';
import { startDemoObserver } from './demo-observer';
import { flattenTree, type FlatNode } from '@shared/model/tree';
import { boundsOf, rectArea } from '@shared/model/node';
import { rectContains, topmostAt } from '@shared/model/pick';
import type { UiNode } from '@shared/protocol/runner';

const POINTS = 200;
const SCREEN = { width: 402, height: 874 };
const SCREENS = ['login', 'feed', 'feed (scrolled)', 'checkout', 'hostile', 'edges'] as const;

/** mulberry32: the same points on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Hit {
  /** Screen points, [left, top, right, bottom] truncated as the runner truncates frames. */
  bounds: [number, number, number, number];
  axId: string | null;
  what: string;
}

/** The selector of what the web view bridge reports as elements (resources/demo-app/webview-bridge.js). */
const WEB_ELEMENTS =
  "a[href], button, input:not([type=hidden]), select, textarea, [contenteditable=''], [contenteditable='true'], h1, h2, h3, h4, h5, h6, p, label, li, img, [role], [tabindex]";

const trunc = (l: number, t: number, w: number, h: number): [number, number, number, number] => [
  Math.trunc(l),
  Math.trunc(t),
  Math.trunc(l + w),
  Math.trunc(t + h),
];

type ShellHit = Hit | { frameSrc: string; local: [number, number]; origin: [number, number]; clip: [number, number, number, number] } | null;

/** The element a finger hits at each point in the app shell; a web view's content is read in its own frame. */
const SHELL_SCRIPT = `(points) => points.map(([x, y]) => {
  let el = document.elementFromPoint(x, y);
  if (el && el.tagName === 'IFRAME') {
    const frame = el.getBoundingClientRect();
    const cs = getComputedStyle(el);
    const ox = frame.left + parseFloat(cs.borderLeftWidth) + parseFloat(cs.paddingLeft);
    const oy = frame.top + parseFloat(cs.borderTopWidth) + parseFloat(cs.paddingTop);
    return { frameSrc: el.getAttribute('src') || '', local: [x - ox, y - oy], origin: [ox, oy], clip: [frame.left, frame.top, frame.right, frame.bottom] };
  }
  while (el && !(el instanceof HTMLElement && el.dataset.axClass)) el = el.parentElement;
  if (!el) return null;
  const r = el.getBoundingClientRect();
  return { bounds: [r.left, r.top, r.width, r.height], axId: el.dataset.axId || null, what: el.dataset.axClass };
})`;

/** Inside a web view: the element its bridge reports there, in the frame's CSS pixels. */
const FRAME_SCRIPT = `([x, y, selector]) => {
  const el = document.elementFromPoint(x, y);
  const target = el && el.closest(selector);
  if (!target) return null;
  const r = target.getBoundingClientRect();
  return [r.left, r.top, r.right, r.bottom, target.tagName.toLowerCase()];
}`;

async function hitsAt(page: DemoDevice['app']['page'], points: number[][]): Promise<(Hit | null)[]> {
  const shell = (await page.evaluate(`(${SHELL_SCRIPT})(${JSON.stringify(points)})`)) as ShellHit[];
  const out: (Hit | null)[] = [];
  for (const hit of shell) {
    if (hit === null || 'bounds' in hit) {
      out.push(hit === null ? null : { ...hit, bounds: trunc(...(hit.bounds as [number, number, number, number])) });
      continue;
    }
    const frame = page.frames().find((f) => hit.frameSrc !== '' && f.url().startsWith(hit.frameSrc));
    const inner = frame
      ? ((await frame.evaluate(`(${FRAME_SCRIPT})(${JSON.stringify([...hit.local, WEB_ELEMENTS])})`)) as [number, number, number, number, string] | null)
      : null;
    const [cl, ct, cr, cb] = hit.clip;
    if (!inner) {
      out.push({ bounds: trunc(cl, ct, cr - cl, cb - ct), axId: null, what: 'WKWebView' });
      continue;
    }
    // Clipped to the web view, as the merge clips DOM bounds (web-mapping.ts).
    const [ox, oy] = hit.origin;
    const l = Math.max(inner[0] + ox, cl);
    const t = Math.max(inner[1] + oy, ct);
    const r = Math.min(inner[2] + ox, cr);
    const b = Math.min(inner[3] + oy, cb);
    out.push({ bounds: trunc(l, t, r - l, b - t), axId: null, what: `web ${inner[4]}` });
  }
  return out;
}

function same(node: UiNode | undefined, hit: Hit | null): boolean {
  if (!node || !hit) return !node && !hit;
  const b = boundsOf(node);
  if (!b) return false;
  const [l, t, r, bo] = hit.bounds;
  const close = Math.abs(b.left - l) <= 1 && Math.abs(b.top - t) <= 1 && Math.abs(b.right - r) <= 1 && Math.abs(b.bottom - bo) <= 1;
  // The root stands for the whole app (#app) whatever the window reports.
  if (!close && !(hit.what === 'XCUIApplication' && node.className === 'XCUIApplication')) return false;
  const id = node['resource-id'];
  return hit.axId === null || id === undefined || id === hit.axId;
}

/** Within 1 pt of an edge of either frame: truncation to whole points, not the rule, decides there. */
function nearEdge(x: number, y: number, node: UiNode | undefined, hit: Hit | null): boolean {
  const frames: [number, number, number, number][] = [];
  const b = node ? boundsOf(node) : null;
  if (b) frames.push([b.left, b.top, b.right, b.bottom]);
  if (hit) frames.push(hit.bounds);
  return frames.some(([l, t, r, bo]) => Math.abs(x - l) < 1 || Math.abs(x - r) < 1 || Math.abs(y - t) < 1 || Math.abs(y - bo) < 1);
}

/** The rule this replaced: the smallest box under the point. */
function smallestAt(nodes: readonly FlatNode[], x: number, y: number): FlatNode | undefined {
  return nodes
    .filter((f) => {
      const r = boundsOf(f.node);
      return r !== null && rectContains(r, x, y);
    })
    .sort((a, b) => rectArea(boundsOf(a.node)!) - rectArea(boundsOf(b.node)!) || b.depth - a.depth || b.order - a.order)[0];
}

const demo = await startDemoObserver('login');
const { device, observer } = demo;
const rows: string[] = [];
const pct = (n: number) => `${((100 * n) / POINTS).toFixed(1)} %`.padStart(8);

try {
  for (const screen of SCREENS) {
    await device.setScreen(screen === 'feed (scrolled)' ? 'feed' : screen);
    if (screen === 'feed (scrolled)') {
      await device.app.scrollViewBy('feed.list', 0, 600);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await device.monitor.refresh();
    }
    const next = random(12 + SCREENS.indexOf(screen));
    const points = Array.from({ length: POINTS }, () => [Math.floor(next() * SCREEN.width * 10) / 10, Math.floor(next() * SCREEN.height * 10) / 10]);
    const hits = await hitsAt(device.app.page, points);
    const cells: string[] = [];
    for (const xctestOnly of [false, true]) {
      const frame = await observer.observe({ screenshot: false, xctestOnly });
      const root = frame.observation?.viewHierarchy?.hierarchy;
      const nodes = root ? flattenTree(root) : [];
      let rule = 0;
      let old = 0;
      let edge = 0;
      points.forEach(([x, y], i) => {
        const picked = topmostAt(nodes, x!, y!, { screen: SCREEN })?.node;
        if (same(picked, hits[i] ?? null)) rule++;
        else if (nearEdge(x!, y!, picked, hits[i] ?? null)) edge++;
        if (same(smallestAt(nodes, x!, y!)?.node, hits[i] ?? null)) old++;
      });
      cells.push(`${pct(rule)} (was ${pct(old).trim()}; ${edge}/${POINTS - rule} misses at an edge)`);
    }
    rows.push(`${screen.padEnd(16)} ${cells[0]!.padEnd(44)} ${cells[1]}`);
  }
} finally {
  await demo.close();
}

console.log(`picking hit rate: ${POINTS} random points per screen, the picked node vs Chromium's elementFromPoint`);
console.log(`${'screen'.padEnd(16)} ${'merged (bridge + DOM)'.padEnd(44)} XCTest only`);
for (const row of rows) console.log(row);
