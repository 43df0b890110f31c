/**
 * `npm run bench -- heavy`: heavy screens in the inspector (docs/rules.md#r-perf-02, #r-perf-03), in the
 * web host with Chromium at 1440x900, on recorded runner sessions of 1k, 5k, 10k and 50k nodes
 * (src-demo/heavy-recording.ts) played by the replay device. For each size (the tree draws its rows with
 * @tanstack/react-virtual), median and p95 of:
 *
 *   reply->drawn  from the runner's reply arriving in the host to tree and boxes drawn: the host's part
 *                 (the observation's total minus its device waits, from the frame's own timings) plus
 *                 the page's part (from the frame's message arriving in the page to the next painted
 *                 frame after React committed it), on reads that each bring a changed tree (the
 *                 recording's fresh reads: a tile near the end of the tree picked), and apart, on the
 *                 same screen read again (its tree kept, nothing drawn again: docs/rules.md#r-perf-03);
 *   select tree   a click on a tree row to its row and its box marked (the next painted frame);
 *   select screen a click on the screen to the picked node marked;
 *   hover         the pointer over a row, and over the screen, to the hover marks;
 *   search        a query typed to its matches marked (over every node);
 *   typed         each key of a query typed one key at a time;
 *   selectors     a click on a tree row to the selectors panel showing that node's selectors (on a
 *                 heavy screen it follows the marks after their paint);
 *   sel task      the longest main-thread task (a PerformanceObserver longtask, so 0 when none
 *                 reached 50 ms) from that click to the panel showing them (docs/rules.md#r-perf-11);
 *                 `first` is the first selection on the last frame's tree, whose index is built then;
 *
 * Each interaction is timed from the event to the first task after the next painted frame.
 *   elements      how many elements the page holds with the screen shown;
 *   wire          the frame's size on the host's WebSocket.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { writeHeavyRecording } from '@demo/heavy-recording';
import { LAUNCH_ARGS } from '@demo/phone/browser';
import { findBrowser } from '@demo/phone/find-browser';
import { percentile, serveInChild } from './web-host-process';

/**
 * `HEAVY_PROFILE=1`: a Chrome CPU profile (CDP) of each interaction group, printed as the functions
 * with the most self time, so a slow figure says where its time goes (build the renderer unminified
 * to read the names).
 */
const PROFILE = process.env['HEAVY_PROFILE'] === '1';

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

async function profiled<T>(page: Page, label: string, run: () => Promise<T>): Promise<T> {
  if (!PROFILE) return run();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  try {
    return await run();
  } finally {
    const { profile } = (await cdp.send('Profiler.stop')) as unknown as { profile: CpuProfile };
    await cdp.detach();
    const self = new Map<string, number>();
    const frameOf = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
    let total = 0;
    profile.samples.forEach((id, i) => {
      const c = frameOf.get(id)!;
      const name = `${c.functionName || '(anonymous)'} ${c.url.split('/').pop() ?? ''}:${c.lineNumber + 1}:${c.columnNumber + 1}`;
      const dt = (profile.timeDeltas[i] ?? 0) / 1000;
      total += dt;
      self.set(name, (self.get(name) ?? 0) + dt);
    });
    const top = [...self]
      .filter(([name]) => !name.startsWith('(idle)'))
      .sort((a, b) => b[1] - a[1])
      .slice(0, 12);
    console.log(`  profile ${label} (${total.toFixed(0)} ms sampled): ${top.map(([n, ms]) => `\n    ${ms.toFixed(1).padStart(7)} ms  ${n}`).join('')}`);
  }
}

const SIZES = (process.env['HEAVY_SIZES'] ?? '1000,5000,10000,50000').split(',').map(Number);
const FRAMES = 5;
const PICKS = 15;

const fmt = (xs: number[]) => (xs.length ? `${percentile(xs, 50).toFixed(0).padStart(6)} / ${percentile(xs, 95).toFixed(0).padStart(6)}` : '     - /      -');

/** In the page: when each large message arrived, and when the next frame painted after it was handled. */
const PAGE_PROBE = `(() => {
  window.__bigMessages = [];
  window.__longTasks = [];
  try {
    new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, duration: e.duration }); }).observe({ type: 'longtask' });
  } catch {}
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (e) => {
        if (typeof e.data !== 'string' || e.data.length < 50000) return;
        const entry = { at: Date.now(), t0: performance.now(), size: e.data.length, drawnAt: 0, drawn: 0 };
        // The frame itself: the biggest message, the observation defined whole (later changed trees cross
        // as patches of it, R-PERF-16, and are no measure of what parsing the frame costs).
        if (e.data.length >= (window.__frameText?.length ?? 0)) window.__frameText = e.data;
        window.__bigMessages.push(entry);
        // Listeners run in order: the app's handler runs after this one, and React commits in it.
        requestAnimationFrame(() => setTimeout(() => requestAnimationFrame(() => { entry.drawn = performance.now() - entry.t0; entry.drawnAt = Date.now(); }), 0));
      });
    }
  };
})();`;

/**
 * In the page: JSON.parse of the biggest message (the frame defined whole), then the picture in it (the first base64 PNG or
 * JPEG string) decoded to a bitmap, five times; the milliseconds of each.
 */
const PARSE_DECODE = `(async () => {
  const text = window.__frameText;
  const runs = [];
  let picture = false;
  const find = (v, depth) => {
    if (typeof v === 'string') return v.length > 1000 && /^(data:image\\/\\w+;base64,)?(iVBORw0KGgo|\\/9j\\/)/.test(v.slice(0, 64)) ? v : undefined;
    if (!v || typeof v !== 'object' || depth > 8) return undefined;
    for (const k in v) { const found = find(v[k], depth + 1); if (found) return found; }
    return undefined;
  };
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    const value = JSON.parse(text);
    const b64 = find(value, 0);
    if (b64) {
      picture = true;
      const bin = atob(b64.slice(b64.indexOf(',') + 1));
      const bytes = new Uint8Array(bin.length);
      for (let j = 0; j < bin.length; j++) bytes[j] = bin.charCodeAt(j);
      (await createImageBitmap(new Blob([bytes]))).close();
    }
    runs.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { runs, picture };
})()`;

/** Issue 29.2: at 50k views, reply->drawn within this many times the frame's own parse and decode. */
const PARSE_RATIO_LIMIT = 2.5;

/** Runs `act` in the page and waits for the next painted frame; returns the milliseconds. */
async function timed(page: Page, act: string): Promise<number> {
  return page.evaluate(
    `(async () => { const t0 = performance.now(); ${act}; await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))); return performance.now() - t0; })()`,
  ) as Promise<number>;
}

interface Figures {
  replyToDrawn: number[];
  hostPart: number[];
  /** Of the host's part: its own work on the observation (timings.total less the device's waits), and the rest (sending, the wire, the page's queue). */
  hostOwn: number[];
  hostToPage: number[];
  pagePart: number[];
  /** Reply to drawn for a read of the same screen again (its tree kept, docs/rules.md#r-perf-03). */
  unchangedToDrawn: number[];
  selectTree: number[];
  selectScreen: number[];
  hoverTree: number[];
  hoverScreen: number[];
  search: number[];
  selectors: number[];
  selectorTask: number[];
  firstSelectorTask: number;
  typed: number[];
  elements: number;
  wire: number;
  /** JSON.parse of the last frame's message plus decoding the picture it carries (when it carries one). */
  parseDecode: number[];
  pictureInFrame: boolean;
}

async function measure(folder: string, nodes: number): Promise<Figures> {
  const { url, child } = await serveInChild(['--replay', folder]);
  const browser = await chromium.launch({ executablePath: findBrowser(), args: LAUNCH_ARGS });
  const f: Figures = {
    replyToDrawn: [],
    hostPart: [],
    hostOwn: [],
    hostToPage: [],
    pagePart: [],
    unchangedToDrawn: [],
    selectTree: [],
    selectScreen: [],
    hoverTree: [],
    hoverScreen: [],
    search: [],
    selectors: [],
    selectorTask: [],
    firstSelectorTask: 0,
    typed: [],
    elements: 0,
    wire: 0,
    parseDecode: [],
    pictureInFrame: false,
  };
  try {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.addInitScript(PAGE_PROBE);
    // The frames' own timings, read off the wire in this process (parsing them in the page would cost it).
    const frames: { receivedAt: number; hostMs: number; updatedAt: number }[] = [];
    page.on('websocket', (ws) =>
      ws.on('framereceived', ({ payload }) => {
        if (typeof payload !== 'string' || payload.length < 50_000) return;
        const found = /"receivedAt":(\d+)/.exec(payload.slice(-400)) ?? /"receivedAt":(\d+)/.exec(payload);
        const total = /"timings":\{[^}]*"total":([\d.]+)/.exec(payload);
        const xctest = /"timings":\{[^}]*"xctest":([\d.]+)/.exec(payload);
        const shot = /"timings":\{[^}]*"screenshot":([\d.]+)/.exec(payload);
        if (!found || !total) return;
        const waits = Math.max(Number(xctest?.[1] ?? 0), Number(shot?.[1] ?? 0));
        // The device's stamp of the tree: a changed screen's read (the recording's fresh reads) has its own.
        const updatedAt = Number(/"updatedAt":(\d+)/.exec(payload)?.[1] ?? 0);
        frames.push({ receivedAt: Number(found[1]), hostMs: Number(total[1]) - waits, updatedAt });
      }),
    );
    await page.goto(url);
    await page.getByTestId('device-item').click();
    const tree = page.getByTestId('tree');
    await page.waitForFunction((n) => Number(document.querySelector('[data-testid="tree"]')?.getAttribute('data-rows')) === n, nodes, { timeout: 180_000 });
    const live = page.getByTestId('live-toggle');
    if ((await live.getAttribute('data-live')) === 'true') await live.click();
    await page.waitForTimeout(500);

    // Fresh frames, one by one (Refresh: one observe), each measured from the reply to the paint: first the
    // recording's fresh reads (a changed tree each), then reads of the same screen again.
    await profiled(page, 'frames', async () => {
      for (let i = 0; i < 2 * FRAMES; i++) {
        const before = frames.length;
        const seen = await page.evaluate(() => (window as unknown as { __bigMessages: unknown[] }).__bigMessages.length);
        await page.getByTestId('refresh').click();
        await page.waitForFunction((n) => (window as unknown as { __bigMessages: { drawn: number }[] }).__bigMessages.slice(n).some((m) => m.drawn > 0), seen, {
          timeout: 180_000,
        });
        const message = await page.evaluate(
          (n) => (window as unknown as { __bigMessages: { drawnAt: number; drawn: number; size: number }[] }).__bigMessages[n]!,
          seen,
        );
        const frame = frames[before] ?? frames[frames.length - 1];
        if (!frame) throw new Error('no frame seen on the wire');
        const pagePart = message.drawn;
        // The host's part: from the reply to the frame leaving (its own clock), then the wire to the page.
        const hostPart = frame.hostMs + Math.max(0, message.drawnAt - message.drawn - frame.receivedAt);
        const previous = frames[frames.indexOf(frame) - 1];
        if (previous && previous.updatedAt === frame.updatedAt) {
          f.unchangedToDrawn.push(hostPart + pagePart);
          await expectEnabled(page);
          continue;
        }
        f.pagePart.push(pagePart);
        f.hostPart.push(hostPart);
        f.hostOwn.push(frame.hostMs);
        f.hostToPage.push(hostPart - frame.hostMs);
        f.replyToDrawn.push(hostPart + pagePart);
        f.wire = message.size;
        await expectEnabled(page);
      }
    });
    f.elements = await page.evaluate(() => document.querySelectorAll('*').length);
    // The frame itself, parsed and its picture decoded in the same page (issue 29.2: reply->drawn within
    // 2.5x of this), after the frames, so the measuring never adds to their figures.
    const decoded = (await page.evaluate(PARSE_DECODE)) as { runs: number[]; picture: boolean };
    f.parseDecode = decoded.runs;
    f.pictureInFrame = decoded.picture;

    // Selecting and hovering in the tree: rows in view.
    const rowKeys = await page.locator('[data-testid="tree-node"]').evaluateAll((els) => els.slice(2, 40).map((e) => e.getAttribute('data-node-key')!));
    const rowAt = (i: number) =>
      `document.querySelector('[data-testid="tree-node"][data-node-key=' + JSON.stringify(${JSON.stringify(rowKeys[(i * 7) % rowKeys.length])}) + ']')`;
    await profiled(page, 'select tree', async () => {
      for (let i = 0; i < PICKS; i++) {
        // The marks, then the selectors panel, which follows on a heavy screen (docs/rules.md#r-perf-02).
        const [marked, selectors, t0] = (await page.evaluate(
          `(async () => {
            const row = ${rowAt(i)}; const key = row.getAttribute('data-node-key'); const t0 = performance.now();
            row.click();
            await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
            const marked = performance.now() - t0;
            const panel = () => document.querySelector('[data-testid="selectors-panel"]');
            for (let n = 0; n < 600 && panel()?.hasAttribute('data-node-key') && panel().getAttribute('data-node-key') !== key; n++) await new Promise((r) => requestAnimationFrame(r));
            const took = performance.now() - t0;
            // The observer's entries arrive in a task of their own.
            await new Promise((r) => setTimeout(r, 30));
            return [marked, took, t0];
          })()`,
        )) as [number, number, number];
        f.selectTree.push(marked);
        f.selectors.push(selectors);
        const longest = await page.evaluate(
          ([from, to]) =>
            Math.max(
              0,
              ...(window as unknown as { __longTasks: { start: number; duration: number }[] }).__longTasks
                .filter((e) => e.start >= from - 1 && e.start <= to)
                .map((e) => e.duration),
            ),
          [t0, t0 + selectors] as const,
        );
        if (i === 0) f.firstSelectorTask = longest;
        else f.selectorTask.push(longest);
      }
    });
    await profiled(page, 'hover tree', async () => {
      for (let i = 0; i < PICKS; i++) f.hoverTree.push(await timed(page, `${rowAt(i)}.dispatchEvent(new MouseEvent('mouseover', { bubbles: true }))`));
    });
    // On the screen: points spread over the board.
    const screen = await page.getByTestId('screen').boundingBox();
    if (!screen) throw new Error('no screen');
    const pointAt = (i: number) =>
      `{ bubbles: true, clientX: ${screen.x + screen.width * (0.1 + ((i * 0.37) % 0.8))}, clientY: ${screen.y + screen.height * (0.2 + ((i * 0.23) % 0.6))} }`;
    await profiled(page, 'select screen', async () => {
      for (let i = 0; i < PICKS; i++)
        f.selectScreen.push(await timed(page, `document.querySelector('[data-testid="screen"]').dispatchEvent(new MouseEvent('click', ${pointAt(i)}))`));
    });
    await profiled(page, 'hover screen', async () => {
      for (let i = 0; i < PICKS; i++)
        f.hoverScreen.push(await timed(page, `document.querySelector('[data-testid="screen"]').dispatchEvent(new PointerEvent('pointermove', ${pointAt(i)}))`));
    });
    // Search over every node: a query that matches one tile, then one that matches many.
    const queries = ['heavy.tile.17', 'T3', 'UILabel', 'heavy.tile.9', '+4.5%'];
    await profiled(page, 'search', async () => {
      for (let i = 0; i < PICKS; i++) {
        const q = JSON.stringify(queries[i % queries.length]);
        f.search.push(
          await timed(
            page,
            `const input = document.querySelector('[data-testid="search-input"]');
             Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(input, ${q});
             input.dispatchEvent(new Event('input', { bubbles: true }))`,
          ),
        );
      }
    });
    // Typed key by key: each query the last one typed on (what a user does).
    const setQuery = (q: string) =>
      timed(
        page,
        `const input = document.querySelector('[data-testid="search-input"]');
         Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(input, ${JSON.stringify(q)});
         input.dispatchEvent(new Event('input', { bubbles: true }))`,
      );
    await profiled(page, 'typed', async () => {
      for (const word of ['heavy.tile.42', 'uilabel']) {
        await setQuery('');
        for (let n = 1; n <= word.length; n++) f.typed.push(await setQuery(word.slice(0, n)));
      }
    });
    void tree;
  } finally {
    await browser.close();
    child.kill('SIGTERM');
  }
  return f;
}

async function expectEnabled(page: Page) {
  await page.waitForFunction(() => !(document.querySelector('[data-testid="refresh"]') as HTMLButtonElement | null)?.disabled, null, { timeout: 180_000 });
}

const work = await mkdtemp(join(tmpdir(), 'parallax-heavy-bench-'));
try {
  console.log('heavy.bench: replay device, web host, Chromium 1440x900; median / p95 in ms (frames n=%d, picks n=%d)', FRAMES, PICKS);
  console.log(
    'nodes  reply->drawn    (host)   (page)    select tree  select screen   hover tree  hover screen     search        typed   selectors  sel task (first)  elements  wire',
  );
  for (const nodes of SIZES) {
    const folder = join(work, String(nodes));
    writeHeavyRecording(folder, { nodes, freshReads: FRAMES + 2 });
    const f = await measure(folder, nodes);
    console.log(
      `${String(nodes).padStart(5)}  ${fmt(f.replyToDrawn)} ${percentile(f.hostPart, 50).toFixed(0).padStart(7)} ${percentile(f.pagePart, 50).toFixed(0).padStart(8)}   ${fmt(f.selectTree)}  ${fmt(f.selectScreen)}  ${fmt(f.hoverTree)}  ${fmt(f.hoverScreen)}  ${fmt(f.search)}  ${fmt(f.typed)}  ${fmt(f.selectors)}  ${fmt(f.selectorTask)} (${f.firstSelectorTask.toFixed(0).padStart(3)})  ${String(f.elements).padStart(8)}  ${(f.wire / 1024 / 1024).toFixed(1)} MiB`,
    );
    const parse = percentile(f.parseDecode, 50);
    const ratio = percentile(f.replyToDrawn, 50) / parse;
    console.log(
      `       host part: own work ${percentile(f.hostOwn, 50).toFixed(0)} ms, sending to the page's handler ${percentile(f.hostToPage, 50).toFixed(0)} ms (medians)`,
    );
    console.log(
      `       frame parse${f.pictureInFrame ? ' + picture decode' : ' (no picture in the frame)'} ${fmt(f.parseDecode)}; reply->drawn / parse ${ratio.toFixed(2)}x, ${(ratio / PARSE_RATIO_LIMIT).toFixed(2)} of the ${PARSE_RATIO_LIMIT}x limit (changed trees, n=${f.replyToDrawn.length})`,
    );
    const same = percentile(f.unchangedToDrawn, 50) / parse;
    console.log(
      `       the same screen read again (its tree kept): reply->drawn ${fmt(f.unchangedToDrawn)}; / parse ${same.toFixed(2)}x, ${(same / PARSE_RATIO_LIMIT).toFixed(2)} of the limit (n=${f.unchangedToDrawn.length})`,
    );
  }
} finally {
  await rm(work, { recursive: true, force: true });
}
