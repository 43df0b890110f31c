/**
 * The node boxes over the screen (docs/rules.md#r-perf-03). Up to DOM_BOX_LIMIT boxes are elements, one
 * per node, as they always were. A heavier screen (a 50,000-view board) is drawn on one canvas, redrawn
 * only when the boxes or the size change; every search match is marked on a second canvas over it; the
 * boxes that carry state (selected, hovered, OCR and id-source marks) stay elements on top, so what a
 * user points at is marked the same way on any screen, and the page's element count stays bounded
 * whatever the tree's size.
 */
import { memo, useLayoutEffect, useMemo, useRef } from 'react';
import type { NodeSource } from '@shared/protocol/observation';
import { keyMap, lazyKeyLookup, type KeyLookup, type NodeKey } from '@shared/model/tree';
import { useScopedInspector } from '@renderer/state/inspector-scope';
import { useMarkedKeys } from '@renderer/state/selector-try';

/** Above this many boxes the plain ones go to a canvas. */
export const DOM_BOX_LIMIT = 600;
/** OCR and id-source boxes kept as elements on a heavy screen, at most. */
const MARKED_ELEMENT_LIMIT = 400;

/** A box placed in displayed pixels. */
export interface PlacedBox {
  nodeKey: NodeKey;
  source: NodeSource;
  left: number;
  top: number;
  width: number;
  height: number;
  /** Without a screenshot, a leaf's text is written into its box so the outline can be read. */
  label?: string;
  /** AppReveal: how the element's id was derived. */
  idSource?: string;
  /** AppReveal: recognized by OCR, not a real view. */
  ocr?: boolean;
}

interface BoxProps extends PlacedBox {
  selected: boolean;
  hovered: boolean;
  match: boolean;
}

const Box = memo(function Box({ nodeKey, source, left, top, width, height, selected, hovered, match, label, idSource, ocr }: BoxProps) {
  const cls = `box src-${source}${selected ? ' is-selected' : ''}${hovered ? ' is-hovered' : ''}${match ? ' is-match' : ''}${ocr ? ' is-ocr' : ''}`;
  return (
    <div
      data-testid="box"
      data-node-key={nodeKey}
      data-source={source}
      {...(idSource ? { 'data-id-source': idSource } : {})}
      {...(ocr ? { 'data-ocr': 'true' } : {})}
      title={idSource ? `id from ${idSource}${ocr ? ' (recognized by OCR: visible text, not a real view)' : ''}` : undefined}
      data-selected={String(selected)}
      data-hovered={String(hovered)}
      data-match={String(match)}
      className={cls}
      style={{ left, top, width, height }}
    >
      {label && (
        <span className="box-label" style={{ fontSize: Math.max(7, Math.min(11, height * 0.6)) }}>
          {label}
        </span>
      )}
      {ocr && <span className="box-ocr-tag">OCR</span>}
    </div>
  );
});

/** The canvas's backing store at the device's pixel ratio, cleared, drawn in CSS pixels. */
function prepare(canvas: HTMLCanvasElement, width: number, height: number): CanvasRenderingContext2D | null {
  const ctx = canvas.getContext('2d');
  if (!ctx) return null;
  const ratio = window.devicePixelRatio || 1;
  const w = Math.max(1, Math.round(width * ratio));
  const h = Math.max(1, Math.round(height * ratio));
  // Setting the size clears the canvas; an unchanged size is cleared by hand (no new backing store).
  if (canvas.width !== w || canvas.height !== h) {
    canvas.width = w;
    canvas.height = h;
  }
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, width, height);
  return ctx;
}

/** Every box outlined in its source's colour (tokens.css), as `.box` outlines it. */
const CanvasBoxes = memo(function CanvasBoxes({ boxes, width, height }: { boxes: readonly PlacedBox[]; width: number; height: number }) {
  const ref = useRef<HTMLCanvasElement>(null);
  useLayoutEffect(() => {
    const canvas = ref.current;
    const ctx = canvas && prepare(canvas, width, height);
    if (!canvas || !ctx) return;
    const style = getComputedStyle(canvas);
    const colour = new Map<NodeSource, string>();
    const colourOf = (source: NodeSource) => {
      let c = colour.get(source);
      if (c === undefined) {
        c = style.getPropertyValue(`--src-${source}`).trim() || style.getPropertyValue('--accent').trim() || '#0ea5e9';
        colour.set(source, c);
      }
      return c;
    };
    ctx.lineWidth = 1;
    ctx.globalAlpha = 0.75;
    // One path per source: a stroke per colour, not per box.
    const bySource = new Map<NodeSource, PlacedBox[]>();
    for (const b of boxes) {
      const list = bySource.get(b.source);
      if (list) list.push(b);
      else bySource.set(b.source, [b]);
    }
    for (const [source, list] of bySource) {
      ctx.strokeStyle = colourOf(source);
      ctx.beginPath();
      for (const b of list) ctx.rect(b.left + 0.5, b.top + 0.5, Math.max(0, b.width - 1), Math.max(0, b.height - 1));
      ctx.stroke();
    }
  }, [boxes, width, height]);
  return <canvas ref={ref} className="box-canvas" data-testid="box-canvas" data-boxes={boxes.length} style={{ width, height }} />;
});

/**
 * Every search match marked as `.box.is-match` marks it (tokens.css `--match`, `--warn-strong`), on a
 * canvas of its own over the plain boxes: a query on a heavy screen marks all its matches, however many,
 * and redraws neither the plain boxes nor the page's elements (docs/rules.md#r-perf-03).
 */
const CanvasMatches = memo(function CanvasMatches({
  byKey,
  matchKeys,
  width,
  height,
}: {
  byKey: KeyLookup<NodeKey, PlacedBox>;
  matchKeys: ReadonlySet<NodeKey>;
  width: number;
  height: number;
}) {
  const ref = useRef<HTMLCanvasElement>(null);
  useLayoutEffect(() => {
    const canvas = ref.current;
    const ctx = canvas && prepare(canvas, width, height);
    if (!canvas || !ctx) return;
    // How many matches are on the screen, written as the draw counts them: one pass over 50,000 keys.
    let count = 0;
    if (matchKeys.size === 0) {
      canvas.dataset['matches'] = '0';
      return;
    }
    const style = getComputedStyle(canvas);
    const fill = style.getPropertyValue('--match').trim() || '#facc15';
    const edge = style.getPropertyValue('--warn-strong').trim() || '#b45309';
    // The edge is one device pixel wide: Chromium strokes that with a fast path, where a wider stroke of
    // 50,000 boxes in one path costs hundreds of ms (bench/heavy.bench.ts, "typed").
    const line = 1 / (window.devicePixelRatio || 1);
    ctx.beginPath();
    for (const key of matchKeys) {
      const b = byKey.get(key);
      if (!b) continue;
      count++;
      ctx.rect(b.left + line / 2, b.top + line / 2, Math.max(0, b.width - line), Math.max(0, b.height - line));
    }
    canvas.dataset['matches'] = String(count);
    ctx.globalAlpha = 0.22;
    ctx.fillStyle = fill;
    ctx.fill();
    ctx.globalAlpha = 0.95;
    ctx.lineWidth = line;
    ctx.strokeStyle = edge;
    ctx.stroke();
  }, [byKey, matchKeys, width, height]);
  return <canvas ref={ref} className="box-canvas" data-testid="match-canvas" style={{ width, height }} />;
});

/**
 * The boxes with their marks. Selection and hover are read here, not by the screen: pointing at a node
 * redraws these few marks, never the screen, its picture or its zoom (docs/rules.md#r-perf-03).
 */
export const BoxLayer = memo(function BoxLayer({
  boxes,
  width,
  height,
  matchKeys: searched,
  followTry = false,
}: {
  boxes: readonly PlacedBox[];
  width: number;
  height: number;
  matchKeys: ReadonlySet<NodeKey>;
  /** Mark the try box's matches while it has text (the live view, docs/rules.md#r-hand-13): its answers redraw these marks, not the screen. */
  followTry?: boolean;
}) {
  const matchKeys = useMarkedKeys(searched, followTry);
  const selectedKey = useScopedInspector((s) => s.selectedKey);
  const hoveredKey = useScopedInspector((s) => s.hoveredKey);
  const heavy = boxes.length > DOM_BOX_LIMIT;
  // The boxes that stay elements on a heavy screen whatever the state: OCR and id-source marks.
  const marked = useMemo(() => (heavy ? boxes.filter((b) => b.ocr || b.idSource).slice(0, MARKED_ELEMENT_LIMIT) : []), [boxes, heavy]);
  // Asked for the selection, the hover and the matches only: a new frame's paint builds none of it.
  const byKey = useMemo(() => (heavy ? lazyKeyLookup(() => keyMap(boxes, (b) => b.nodeKey)) : null), [boxes, heavy]);
  const element = (b: PlacedBox, match: boolean) => (
    <Box key={b.nodeKey} {...b} selected={b.nodeKey === selectedKey} hovered={b.nodeKey === hoveredKey} match={match} />
  );
  if (!byKey) return <>{boxes.map((b) => element(b, matchKeys.has(b.nodeKey)))}</>;

  const shown = new Map<NodeKey, PlacedBox>();
  for (const b of marked) shown.set(b.nodeKey, b);
  for (const key of [hoveredKey, selectedKey]) {
    const b = key === null ? undefined : byKey.get(key);
    if (b) shown.set(b.nodeKey, b);
  }
  return (
    <>
      <CanvasBoxes boxes={boxes} width={width} height={height} />
      <CanvasMatches byKey={byKey} matchKeys={matchKeys} width={width} height={height} />
      {[...shown.values()].map((b) => element(b, matchKeys.has(b.nodeKey)))}
    </>
  );
});
