/**
 * A heavy recorded runner session (docs/rules.md#r-perf-01): a dashboard of tiles whose hierarchy holds
 * exactly N nodes (50,000 by default), written as a folder of runner messages in the
 * resources/recordings format, so `parallax replay-device FOLDER` plays it like the real recording.
 *
 * The messages are the real runner's form: the `connected` push of the recorded real session
 * (resources/recordings/settings-tap-general), UIElementInfo nodes with string booleans, integer point
 * bounds, UUID view ids, frame contexts `<epoch>:<generation>:<hash>`. The session is "observe, tap a
 * tile, observe": a push and a read of the board, a screenshot, the SDK probe the real runner answers
 * with no SDK, a tap on tile 1, then the push, read and screenshot that show it picked.
 *
 * At 50,000 nodes one hierarchy is ~9 MB of JSON, so the folder (~40 MB) is generated where it is used
 * (tests, benches, a person trying it) rather than committed:
 *
 *   npx tsx src-demo/heavy-recording.ts OUT_FOLDER [--nodes 50000]
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PNG } from 'pngjs';
import type { UiNode, ViewHierarchy } from '@shared/protocol/runner';

const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..');
const REAL_SESSION = join(ROOT, 'resources', 'recordings', 'settings-tap-general');

export const HEAVY_BUNDLE_ID = 'dev.parallax.board';
const SCREEN = { width: 402, height: 874, scale: 3 } as const;
/** Application, navigation bar, its title and the collection view. */
const FIXED_NODES = 4;
/** A tile: the cell, its content view, title, value, icon, chart, 4 bar groups of 10 bars. */
export const TILE_NODES = 50;
const BOARD = { left: 0, top: 116, right: 402, bottom: 791 } as const;
const EPOCH = '5E1B0A4D-2C7F-4B8E-9A61-0D3C5F7E9B21';

function uuid(seed: string): string {
  const hex = createHash('sha1').update(seed).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

export interface HeavyLayout {
  tiles: number;
  cols: number;
  rows: number;
  tileWidth: number;
  tileHeight: number;
}

export function heavyLayout(nodes: number): HeavyLayout {
  const tiles = Math.max(1, Math.ceil((nodes - FIXED_NODES) / TILE_NODES));
  const width = BOARD.right - BOARD.left;
  const height = BOARD.bottom - BOARD.top;
  const cols = Math.max(1, Math.ceil(Math.sqrt((tiles * width) / height)));
  const rows = Math.ceil(tiles / cols);
  return { tiles, cols, rows, tileWidth: width / cols, tileHeight: height / rows };
}

/** The board's centre of tile `index` (1-based), in points. */
export function tileCenter(nodes: number, index: number): { x: number; y: number } {
  const { cols, tileWidth, tileHeight } = heavyLayout(nodes);
  const col = (index - 1) % cols;
  const row = Math.floor((index - 1) / cols);
  return { x: Math.round(BOARD.left + (col + 0.5) * tileWidth), y: Math.round(BOARD.top + (row + 0.5) * tileHeight) };
}

const bounds = (left: number, top: number, right: number, bottom: number) => ({
  left: Math.trunc(left),
  top: Math.trunc(top),
  right: Math.trunc(right),
  bottom: Math.trunc(bottom),
});

/** The hierarchy of the board with exactly `nodes` nodes; `picked` tiles read as selected. */
export function heavyHierarchy(nodes: number, options: { picked?: ReadonlySet<number>; updatedAt?: number } = {}): ViewHierarchy {
  if (!Number.isInteger(nodes) || nodes < FIXED_NODES + 1) throw new Error(`a heavy board needs at least ${FIXED_NODES + 1} nodes, not ${nodes}`);
  const layout = heavyLayout(nodes);
  let budget = nodes - FIXED_NODES;
  const take = (): boolean => budget-- > 0;
  const tiles: UiNode[] = [];
  for (let i = 1; i <= layout.tiles && budget > 0; i++) {
    const col = (i - 1) % layout.cols;
    const row = Math.floor((i - 1) / layout.cols);
    const left = BOARD.left + col * layout.tileWidth;
    const top = BOARD.top + row * layout.tileHeight;
    const right = left + layout.tileWidth;
    const bottom = top + layout.tileHeight;
    take();
    const cell: UiNode = {
      className: 'UICollectionViewCell',
      bounds: bounds(left, top, right, bottom),
      clickable: 'true',
      'resource-id': `heavy.tile.${i}`,
      role: 'listitem',
      text: `Tile ${i}`,
      'view-id': `heavy.tile.${i}`,
      ...(options.picked?.has(i) ? { selected: 'true' } : {}),
    };
    const children: UiNode[] = [];
    const add = (list: UiNode[], node: UiNode): UiNode | undefined => {
      if (!take()) return undefined;
      list.push(node);
      return node;
    };
    const content = add(children, { className: 'UIView', bounds: cell.bounds, 'view-id': uuid(`${i}.content`) });
    if (content) {
      const parts: UiNode[] = [];
      const change = (((i * 37) % 200) - 100) / 10;
      add(parts, { className: 'UILabel', role: 'text', text: `T${i}`, bounds: bounds(left + 1, top + 1, right - 1, top + 5), 'view-id': uuid(`${i}.title`) });
      add(parts, {
        className: 'UILabel',
        role: 'text',
        text: `${change > 0 ? '+' : ''}${change.toFixed(1)}%`,
        bounds: bounds(left + 1, top + 5, right - 1, top + 9),
        'view-id': uuid(`${i}.value`),
      });
      add(parts, { className: 'UIImageView', role: 'image', bounds: bounds(right - 4, top + 1, right - 1, top + 4), 'view-id': uuid(`${i}.icon`) });
      const chartTop = bottom - 1 - (bottom - top) * 0.4;
      const chart = add(parts, { className: 'UIView', bounds: bounds(left + 1, chartTop, right - 1, bottom - 1), 'view-id': uuid(`${i}.chart`) });
      if (chart) {
        const groups: UiNode[] = [];
        const groupWidth = (right - left - 2) / 4;
        for (let g = 0; g < 4; g++) {
          const gl = left + 1 + g * groupWidth;
          const group = add(groups, { className: 'UIView', bounds: bounds(gl, chartTop, gl + groupWidth, bottom - 1), 'view-id': uuid(`${i}.g${g}`) });
          if (!group) break;
          const bars: UiNode[] = [];
          for (let b = 0; b < 10; b++) {
            const height = ((20 + ((i * 7 + g * 13 + b * 29) % 80)) / 100) * (bottom - 1 - chartTop);
            const bl = gl + (b * groupWidth) / 10;
            if (
              !add(bars, {
                className: 'UIView',
                bounds: bounds(bl, bottom - 1 - height, bl + groupWidth / 10, bottom - 1),
                'view-id': uuid(`${i}.g${g}.b${b}`),
              })
            )
              break;
          }
          if (bars.length > 0) group.node = bars;
        }
        if (groups.length > 0) chart.node = groups;
      }
      if (parts.length > 0) content.node = parts;
    }
    if (children.length > 0) cell.node = children;
    tiles.push(cell);
  }
  const screen = { left: 0, top: 0, right: SCREEN.width, bottom: SCREEN.height };
  const window = { bounds: screen, id: 0, isActive: true, isFocused: true, type: 1 };
  return {
    hierarchy: {
      className: 'XCUIApplication',
      bounds: screen,
      text: 'Board',
      'view-id': uuid('app'),
      node: [
        {
          className: 'UINavigationBar',
          bounds: bounds(0, 62, 402, 116),
          'resource-id': 'Board',
          'view-id': 'Board',
          node: [{ className: 'UILabel', role: 'text', text: 'Board', bounds: bounds(176, 78, 226, 100), 'view-id': uuid('title') }],
        },
        {
          className: 'UICollectionView',
          role: 'list',
          bounds: bounds(BOARD.left, BOARD.top, BOARD.right, BOARD.bottom),
          'view-id': uuid('board'),
          node: tiles,
        },
      ],
    },
    insets: { available: false, displayCutoutInfo: { classification: 'unknown' }, source: 'unavailable', units: 'unknown' },
    nativeScale: SCREEN.scale,
    packageName: HEAVY_BUNDLE_ID,
    pixelHeight: SCREEN.height * SCREEN.scale,
    pixelWidth: SCREEN.width * SCREEN.scale,
    screenHeight: SCREEN.height,
    screenScale: SCREEN.scale,
    screenWidth: SCREEN.width,
    updatedAt: options.updatedAt ?? 1_800_000_000_000,
    windowInfo: window,
    windows: [window],
  } as ViewHierarchy;
}

/**
 * The colours the board is drawn in (iOS's dark appearance): each a background and the text drawn on it,
 * so the contrast rule (docs/rules.md#r-a11y-09) measures real pairs. Every text clears WCAG's 4.5:1 but
 * one: the planted dim value of HEAVY_LOW_CONTRAST.tile.
 */
type Rgb = [number, number, number];
export const HEAVY_COLORS = {
  screen: [0xf2, 0xf2, 0xf2] as Rgb,
  /** The navigation bar's title, black on the light bar. */
  barText: [0x00, 0x00, 0x00] as Rgb,
  board: [0x1c, 0x1c, 0x1e] as Rgb,
  tile: [0x2c, 0x2c, 0x2e] as Rgb,
  /** A picked tile: systemBlue, its texts in black (white on #0a84ff is 3.6:1, under 4.5:1). */
  picked: [0x0a, 0x84, 0xff] as Rgb,
  pickedText: [0x00, 0x00, 0x00] as Rgb,
  title: [0xff, 0xff, 0xff] as Rgb,
  /** The value's green (systemGreen, dark): 7.1:1 on the tile. */
  value: [0x30, 0xd1, 0x58] as Rgb,
  /** The planted value's grey (#5a5a5e on #2c2c2e: about 2:1). */
  lowContrast: [0x5a, 0x5a, 0x5e] as Rgb,
  chart: [0x64, 0xd2, 0xff] as Rgb,
} as const;

/**
 * The one text drawn under 4.5:1 (docs/rules.md#r-a11y-09's ground truth on the heavy board): tile 2's
 * value label, grey on the tile. The board holds it whenever it has a second tile (from 105 nodes on).
 */
export const HEAVY_LOW_CONTRAST = { tile: 2, part: 'value' } as const;

/**
 * The board at 3x as a PNG: dark tiles (a picked one in blue), their charts, and every text of
 * heavyHierarchy(nodes) drawn inside the very frame the hierarchy gives it, as strokes of its colour on
 * its tile's, so the screenshot's pixels are the frames' (the audit samples each text inside its frame).
 */
export function heavyScreenshot(nodes: number, picked: ReadonlySet<number> = new Set()): string {
  const { scale } = SCREEN;
  const png = new PNG({ width: SCREEN.width * scale, height: SCREEN.height * scale });
  png.data.fill(0xf2);
  const px = (v: number) => Math.round(v * scale);
  const fill = (l: number, t: number, r: number, b: number, rgb: Rgb) => {
    for (let y = Math.max(0, px(t)); y < Math.min(png.height, px(b)); y++) {
      for (let x = Math.max(0, px(l)); x < Math.min(png.width, px(r)); x++) {
        const at = (y * png.width + x) * 4;
        png.data[at] = rgb[0];
        png.data[at + 1] = rgb[1];
        png.data[at + 2] = rgb[2];
        png.data[at + 3] = 255;
      }
    }
  };
  /**
   * A text in its frame (points): the frame in its background, then glyph-like strokes (two device
   * pixels in three, over the middle 60% of the frame's height) as wide as the text would run at the size
   * its frame implies (half the font size a character), no wider than the frame, from its leading edge.
   */
  const text = (node: UiNode, background: Rgb, ink: Rgb) => {
    const r = node.bounds!;
    fill(r.left, r.top, r.right, r.bottom, background);
    const height = r.bottom - r.top;
    const run = Math.min(r.right - r.left, [...(node.text ?? '')].length * (height / 1.2) * 0.5);
    const x0 = px(r.left) + 1;
    const x1 = Math.min(px(r.right) - 1, px(r.left + run));
    const y0 = px(r.top + height * 0.2);
    const y1 = px(r.bottom - height * 0.2);
    for (let x = x0; x < x1; x += 3) fill(x / scale, y0 / scale, Math.min(x + 2, x1) / scale, y1 / scale, ink);
  };
  fill(BOARD.left, BOARD.top, BOARD.right, BOARD.bottom, HEAVY_COLORS.board);
  const layout = heavyLayout(nodes);
  for (let i = 1; i <= layout.tiles; i++) {
    const col = (i - 1) % layout.cols;
    const row = Math.floor((i - 1) / layout.cols);
    const left = BOARD.left + col * layout.tileWidth;
    const top = BOARD.top + row * layout.tileHeight;
    fill(left + 0.5, top + 0.5, left + layout.tileWidth - 0.5, top + layout.tileHeight - 0.5, picked.has(i) ? HEAVY_COLORS.picked : HEAVY_COLORS.tile);
    fill(left + 1, top + layout.tileHeight * 0.6, left + layout.tileWidth - 1, top + layout.tileHeight - 1, HEAVY_COLORS.chart);
  }
  // The texts from the hierarchy itself (the same frames the audit reads), tile by tile.
  const app = heavyHierarchy(nodes, { picked }).hierarchy!;
  const [bar, board] = app.node!;
  for (const title of bar!.node ?? []) text(title, HEAVY_COLORS.screen, HEAVY_COLORS.barText);
  (board!.node ?? []).forEach((cell, at) => {
    const tile = at + 1;
    const background = picked.has(tile) ? HEAVY_COLORS.picked : HEAVY_COLORS.tile;
    const parts = cell.node?.[0]?.node ?? [];
    parts
      .filter((part) => part.role === 'text')
      .forEach((part, k) => {
        const planted = tile === HEAVY_LOW_CONTRAST.tile && k === 1;
        const ink = picked.has(tile) ? HEAVY_COLORS.pickedText : planted ? HEAVY_COLORS.lowContrast : k === 0 ? HEAVY_COLORS.title : HEAVY_COLORS.value;
        text(part, background, ink);
      });
  });
  return PNG.sync.write(png, { deflateLevel: 1 }).toString('base64');
}

const frameContext = (generation: number, tree: ViewHierarchy) =>
  `${EPOCH}:${generation}:${createHash('sha256').update(JSON.stringify(tree.hierarchy)).digest('hex').slice(0, 16)}`;

/**
 * Writes the session to `folder` and returns what it holds. The request ids follow the real runner's
 * `<kind>_<uuid>` form; timestamps move on as a real session's would.
 */
/**
 * `freshReads`: that many more reads of the board before the tap, each answering a tree of its own (one
 * tile near the end picked, a different one each time): a client's next reads see a changed screen each
 * time (its own updatedAt), whose difference from the last lies near the end of the tree, the worst case
 * for finding it (bench/heavy.bench.ts draws them).
 */
export function writeHeavyRecording(
  folder: string,
  options: { nodes?: number; freshReads?: number } = {},
): { folder: string; nodes: number; tap: { x: number; y: number } } {
  const nodes = options.nodes ?? 50_000;
  mkdirSync(folder, { recursive: true });
  const connected = JSON.parse(readFileSync(join(REAL_SESSION, '0001-push-connected.json'), 'utf8')) as { push: unknown };
  let clock = 1_800_000_000_000;
  const tick = (ms: number) => (clock += ms);
  const before = heavyHierarchy(nodes, { updatedAt: tick(0) });
  const tap = tileCenter(nodes, 1);
  const after = heavyHierarchy(nodes, { picked: new Set([1]), updatedAt: tick(2_000) });
  const beforeContext = frameContext(1, before);
  const afterContext = frameContext(2, after);
  let n = 0;
  const write = (name: string, body: unknown) => writeFileSync(join(folder, `${String(++n).padStart(4, '0')}-${name}.json`), JSON.stringify(body));
  const reply = (type: string, requestId: string, body: Record<string, unknown>) => ({ type, requestId, success: true, timestamp: tick(50), ...body });
  const beforeShot = heavyScreenshot(nodes);
  const afterShot = heavyScreenshot(nodes, new Set([1]));

  write('push-connected', connected);
  write('push-hierarchy_update', { push: { type: 'hierarchy_update', data: before, frameContext: beforeContext, timestamp: tick(10) } });
  const read1 = `hierarchy_${uuid('read1')}`;
  write('request_hierarchy_if_stale', {
    request: { type: 'request_hierarchy_if_stale', requestId: read1, disableAllFiltering: false },
    response: reply('hierarchy_update', read1, { data: before, frameContext: beforeContext, servedFromCache: false }),
  });
  const shot1 = `screenshot_${uuid('shot1')}`;
  write('request_screenshot', {
    request: { type: 'request_screenshot', requestId: shot1 },
    response: reply('screenshot', shot1, { format: 'png', data: beforeShot, rotation: 0, frameContext: beforeContext }),
  });
  // Right after the first picture: the screenshots of those reads are answered with it (the replay's
  // last recorded one), and a client that asks for no capabilities reaches each read in turn.
  const { tiles } = heavyLayout(nodes);
  for (let k = 1; k <= (options.freshReads ?? 0); k++) {
    const tree = heavyHierarchy(nodes, { picked: new Set([tiles - k]), updatedAt: tick(500) });
    const id = `hierarchy_${uuid(`fresh${k}`)}`;
    write('request_hierarchy_if_stale', {
      request: { type: 'request_hierarchy_if_stale', requestId: id, disableAllFiltering: false },
      // The first picture's context: the picture stays shown (a tile's mark is not in it), drawn as on any read.
      response: reply('hierarchy_update', id, { data: tree, frameContext: beforeContext, servedFromCache: false }),
    });
  }
  const probe = `sdkCapabilities_${uuid('probe')}`;
  write('get_sdk_capabilities', {
    request: { type: 'get_sdk_capabilities', requestId: probe },
    response: reply('sdk_capabilities_result', probe, { available: false, capabilities: [], totalTimeMs: 2 }),
  });
  const tapId = `tap_${uuid('tap')}`;
  write('request_tap_coordinates', {
    request: { type: 'request_tap_coordinates', requestId: tapId, timeoutMs: 5000, ...tap, duration: 0 },
    response: reply('tap_coordinates_result', tapId, { totalTimeMs: 180 }),
  });
  write('push-hierarchy_update', { push: { type: 'hierarchy_update', data: after, frameContext: afterContext, timestamp: tick(10) } });
  const read2 = `hierarchy_${uuid('read2')}`;
  write('request_hierarchy_if_stale', {
    request: { type: 'request_hierarchy_if_stale', requestId: read2, disableAllFiltering: false },
    response: reply('hierarchy_update', read2, { data: after, frameContext: afterContext, servedFromCache: false }),
  });
  const shot2 = `screenshot_${uuid('shot2')}`;
  write('request_screenshot', {
    request: { type: 'request_screenshot', requestId: shot2 },
    response: reply('screenshot', shot2, { format: 'png', data: afterShot, rotation: 0, frameContext: afterContext }),
  });
  return { folder, nodes, tap };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [out, ...rest] = process.argv.slice(2);
  if (!out) {
    console.error('usage: npx tsx src-demo/heavy-recording.ts OUT_FOLDER [--nodes N]');
    process.exit(2);
  }
  const at = rest.indexOf('--nodes');
  const nodes = at >= 0 ? Number(rest[at + 1]) : 50_000;
  const started = performance.now();
  const written = writeHeavyRecording(out, { nodes });
  console.log(`${written.folder}: ${written.nodes} nodes, tap on tile 1 at ${written.tap.x},${written.tap.y} (${Math.round(performance.now() - started)} ms)`);
}
