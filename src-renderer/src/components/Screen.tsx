import './Screen.css';
/**
 * The device screen: the screenshot (or the screen's outline at its aspect ratio) with every node's box
 * drawn over it. Boxes are placed from screen points to displayed pixels with one factor,
 * scale = displayedWidth / screenWidth.
 *
 * Every position is in screen points: a click converts through the screenshot's displayed size and the
 * screen's point size (screenPointSize), with or without a tree; where the point size is unknown a
 * click is refused, never sent in pixels (docs/rules.md#r-tap-11).
 *
 * Inspect mode (picking, docs/rules.md#r-pick): a click selects the node a finger would hit there (the
 * topmost node really there); clicking the same point again, Tab (Shift+Tab back) or the wheel moves
 * through the rest of the stack at that point.
 *
 * Zoom and pan (docs/rules.md#r-qa-16): the screen sits in a react-zoom-pan-pinch container that fills the
 * viewport; the wheel and a pinch zoom about the pointer, a drag pans (in interact mode, where a drag
 * swipes, the middle button pans), and the toolbar asks for fit, 1:1 (one pixel per point) or 2x
 * through `onZoomControls`. Boxes are laid out at the fit scale and zoom with the picture; a click is
 * converted with the scale the screen is displayed at now (its measured width over its width in points).
 *
 * Interact mode: the pointer acts on the device. A click taps the control a finger would hit (or the
 * point on empty space), a double click double-taps, press-and-hold long-presses, a drag swipes. The box
 * a click would tap is the one highlighted under the pointer; each touch leaves a short mark where it
 * landed. A click on a badge (a layout warning, a hidden-content arrow) selects it and never touches the
 * device.
 */
import { memo, useMemo, useRef, useState, type ReactNode } from 'react';
import type { Frame } from '@shared/protocol/device';
import type { LayoutWarning } from '@shared/protocol/observation';
import {
  appRevealIdSource,
  isOcrNode,
  hiddenContentMarks,
  insetsOf,
  layoutWarningTitle,
  pickableAmong,
  safeAreaRegions,
  screenPointSize,
  type PickOptions,
} from '@shared/inspect';
import { useElementSize } from '@renderer/hooks/useElementSize';
import { useScreenGestures, type InteractOptions, type ScreenGeometry } from '@renderer/hooks/useScreenGestures';
import type { ZoomControls } from '@renderer/state/zoom';
import { ScreenZoom } from './ScreenZoom';
import { BoxLayer, type PlacedBox } from './BoxLayer';
import { FindingLayer, type FindingMark } from './AccessibilityMarks';
import { GestureMark, type StepGesture } from './GestureMark';
import { useInspectorStore, useScopedInspector } from '@renderer/state/inspector-scope';
import { boundsOf, childrenOf, nodeSource, type Rect } from '@shared/model/node';
import type { FlatNode, NodeKey } from '@shared/model/tree';

/** Room kept around the screen inside the canvas, in px (small: every pixel of height goes to the picture, docs/rules.md#r-layout-01). */
const MARGIN = 8;
interface ScreenProps {
  frame: Frame | undefined;
  /** The nodes whose boxes are drawn and can be picked (the source filter applied). */
  nodes: readonly FlatNode[];
  /** The whole tree, when `nodes` is filtered: nodes left out still clip what lies in them. Default: `nodes`. */
  treeNodes?: readonly FlatNode[] | undefined;
  matchKeys: ReadonlySet<NodeKey>;
  /** Mark the try box's matches instead while it has text (the live view): BoxLayer reads them, so an answer redraws the boxes, not the screen. */
  followTry?: boolean;
  pickStack: readonly FlatNode[];
  /** The screenshot and the tree come from different frames: draw on the outline instead. */
  mismatch: boolean;
  placeholder: string | null;
  /** Drawn over the viewport, beside the screen (the legend). */
  children?: ReactNode;
  /** Interact mode: what the device offers, and where each gesture goes. Absent: inspect only. */
  interact?: InteractOptions | undefined;
  /** A window frame to outline (AppReveal's window picker), in screen points. */
  windowOutline?: Rect | null | undefined;
  /** The zoom's controls, for a toolbar (null when no screen is shown). */
  onZoomControls?: ((controls: ZoomControls | null) => void) | undefined;
  /** Displayed pixels per screen point, now and at fit, whenever either changes. */
  onZoom?: ((pxPerPoint: number, fitPxPerPoint: number) => void) | undefined;
  /** The Accessibility panel's findings of this frame, outlined where they are (docs/rules.md#r-a11y-17). */
  findingMarks?: readonly FindingMark[] | undefined;
  /** A trace step's gesture, drawn where the finger went (docs/rules.md#r-edit-08). */
  gesture?: StepGesture | undefined;
}

const r2 = (n: number) => Math.round(n * 100) / 100;

function sameGeometry(a: ScreenGeometry | null, b: ScreenGeometry | null): boolean {
  return a === b || (a !== null && b !== null && a.width === b.width && a.height === b.height && a.points === b.points);
}

/** A rectangle in screen points placed in displayed pixels. */
function place(r: Rect, scale: number) {
  return {
    left: r2(r.left * scale),
    top: r2(r.top * scale),
    width: r2((r.right - r.left) * scale),
    height: r2((r.bottom - r.top) * scale),
  };
}

const SIDE_GLYPH: Record<LayoutWarning['side'], string> = { top: '↑', bottom: '↓', left: '←', right: '→', cutout: '◒' };

/** Layout warnings outlined where they are; one tag per element says by how much, and selects it. */
const WarningLayer = memo(function WarningLayer({
  warnings,
  scale,
  showAdvisories,
}: {
  warnings: readonly LayoutWarning[];
  scale: number;
  showAdvisories: boolean;
}) {
  const store = useInspectorStore();
  const shown = warnings.filter((w) => showAdvisories || w.severity !== 'advisory');
  // One tag per element and its bounds, listing every side it overflows.
  const tags = new Map<
    string,
    { nodeKey: string; bounds: Rect; severity: LayoutWarning['severity']; parts: string[]; titles: string[]; bottomSide: boolean }
  >();
  for (const w of shown) {
    const id = `${w.nodeKey}|${w.bounds.left},${w.bounds.top},${w.bounds.right},${w.bounds.bottom}`;
    const tag = tags.get(id) ?? { nodeKey: w.nodeKey, bounds: w.bounds, severity: w.severity, parts: [], titles: [], bottomSide: false };
    if (w.severity === 'error' || (w.severity === 'warning' && tag.severity === 'advisory')) tag.severity = w.severity;
    tag.parts.push(`${SIDE_GLYPH[w.side]}${Math.round(w.overflowPx)}`);
    tag.titles.push(layoutWarningTitle(w));
    tag.bottomSide ||= w.side === 'bottom';
    tags.set(id, tag);
  }
  return (
    <>
      {shown.map((w, i) => (
        <div
          key={`${w.nodeKey}-${w.side}-${i}`}
          data-testid="layout-warning"
          data-node-key={w.nodeKey}
          data-side={w.side}
          data-severity={w.severity}
          title={layoutWarningTitle(w)}
          className={`layout-warning sev-${w.severity}`}
          style={place(w.bounds, scale)}
        />
      ))}
      {[...tags.values()].map((tag) => {
        const p = place(tag.bounds, scale);
        // Below the element, unless it overflows at the bottom: then above it, pointing away from the edge.
        const style = tag.bottomSide ? { left: p.left, top: p.top, transform: 'translateY(-100%)' } : { left: p.left, top: p.top + p.height };
        return (
          <button
            type="button"
            key={`${tag.nodeKey}|${tag.bounds.left},${tag.bounds.top}`}
            data-testid="layout-warning-tag"
            data-own-click="true"
            data-node-key={tag.nodeKey}
            className={`layout-warning-tag sev-${tag.severity}`}
            style={style}
            title={tag.titles.join('\n')}
            onClick={(e) => {
              e.stopPropagation();
              store.getState().selectNode(tag.nodeKey);
            }}
          >
            {tag.parts.join(' ')}
          </button>
        );
      })}
    </>
  );
});

/** Where the last pick was made; read here so a pick redraws this mark, not the screen. */
function PickMarker({ scale }: { scale: number }) {
  const pick = useScopedInspector((s) => s.pick);
  if (!pick || scale <= 0) return null;
  return <div className="pick-marker" style={{ left: r2(pick.x * scale), top: r2(pick.y * scale) }} />;
}

export function Screen({
  frame,
  nodes,
  treeNodes,
  matchKeys,
  followTry = false,
  pickStack,
  mismatch,
  placeholder,
  children,
  interact,
  windowOutline,
  onZoomControls,
  onZoom,
  findingMarks,
  gesture,
}: ScreenProps) {
  const viewportRef = useRef<HTMLDivElement>(null);
  const viewport = useElementSize(viewportRef);
  const store = useInspectorStore();
  const layers = useScopedInspector((s) => s.layers);
  const mode = useScopedInspector((s) => s.mode);
  const interacting = mode === 'interact' && interact !== undefined;
  const observation = frame?.observation ?? null;

  const hierarchy = frame?.observation?.viewHierarchy ?? null;
  // What the boxes are drawn from is `nodes` (the tree, kept per root node): not the frame's objects.
  const hasTree = hierarchy !== null;
  const screenshot = frame?.screenshot ?? null;
  const imageSrc = screenshot && !mismatch ? `data:image/png;base64,${screenshot.dataBase64}` : null;
  const [natural, setNatural] = useState<{ src: string; width: number; height: number } | null>(null);

  const pixels = imageSrc && natural && natural.src === imageSrc ? natural : null;
  // Without points the live loop's next picture is measured only once it has loaded: until then the
  // last picture's size stands, so the screen stays in place between pictures instead of giving way to
  // the placeholder at every one (a click there would land on nothing).
  const lastPixels = imageSrc ? natural : null;
  const measured: ScreenGeometry | null = useMemo(() => {
    // The screenshot's shape is checked only once it is measured; a tree alone needs no picture.
    const points = screenPointSize(frame, pixels);
    if (points) return { ...points, points: true };
    if (lastPixels) return { width: lastPixels.width, height: lastPixels.height, points: false };
    return null;
  }, [frame, pixels, lastPixels]);
  // The same geometry stays the same object: a live picture of an unchanged screen redraws no box
  // (docs/rules.md#r-perf-03).
  const geometryRef = useRef(measured);
  if (!sameGeometry(geometryRef.current, measured)) geometryRef.current = measured;
  const geometry = geometryRef.current;
  const hasImage = imageSrc !== null;

  const availWidth = Math.max(0, viewport.width - 2 * MARGIN);
  const availHeight = Math.max(0, viewport.height - 2 * MARGIN);
  const displayedWidth = geometry ? Math.floor(Math.min(availWidth, (availHeight * geometry.width) / geometry.height)) : 0;
  const scale = geometry && displayedWidth > 0 ? displayedWidth / geometry.width : 0;
  const displayedHeight = geometry ? r2(geometry.height * scale) : 0;

  const boxes = useMemo(() => {
    if (!hasTree || scale <= 0) return [];
    const out: PlacedBox[] = [];
    for (const flat of nodes) {
      const b = boundsOf(flat.node);
      if (!b || b.right <= b.left || b.bottom <= b.top) continue;
      const label = !hasImage && childrenOf(flat.node).length === 0 ? (flat.node.text ?? flat.node['content-desc']) : undefined;
      const idSource = appRevealIdSource(flat.node);
      // Written out, not spread: one object per box on a 50,000-node screen, made for every new tree.
      const box: PlacedBox = {
        nodeKey: flat.key,
        source: nodeSource(flat.node),
        left: r2(b.left * scale),
        top: r2(b.top * scale),
        width: r2((b.right - b.left) * scale),
        height: r2((b.bottom - b.top) * scale),
      };
      if (label) box.label = label;
      if (idSource) box.idSource = idSource;
      if (isOcrNode(flat.node)) box.ocr = true;
      out.push(box);
    }
    return out;
  }, [hasTree, nodes, scale, hasImage]);

  const safeAreas = useMemo(
    () => (geometry && layers.safeAreas ? safeAreaRegions(insetsOf(observation), geometry.width, geometry.height) : []),
    [observation, geometry, layers.safeAreas],
  );
  const arrows = useMemo(() => (hasTree ? hiddenContentMarks(nodes) : []), [hasTree, nodes]);
  const warnings = layers.layoutWarnings && hierarchy ? (observation?.layoutWarnings.warnings ?? []) : [];

  // Picking runs over the whole tree (a filtered-out scroll container still clips) but picks shown nodes only.
  const allNodes = treeNodes ?? nodes;
  const pickOptions: PickOptions = useMemo(
    () => ({ ...(geometry?.points ? { screen: geometry } : {}), pickable: pickableAmong(nodes, allNodes) }),
    [nodes, allNodes, geometry],
  );

  const { screenRef, panned, touches, handlers } = useScreenGestures({
    hasTree,
    geometry,
    nodes: allNodes,
    pickOptions,
    scale,
    pickStack,
    interact,
    interacting,
  });

  // The selection's centre where the zoom container lays it out at fit: the screen sits centred in a frame the viewport's size.
  const selectedKey = useScopedInspector((s) => s.selectedKey);
  const focus = useMemo(() => {
    const selected = selectedKey === null || scale <= 0 ? undefined : allNodes.find((f) => f.key === selectedKey);
    const b = selected ? boundsOf(selected.node) : null;
    if (!b) return null;
    return {
      x: (viewport.width - displayedWidth) / 2 + ((b.left + b.right) / 2) * scale,
      y: (viewport.height - displayedHeight) / 2 + ((b.top + b.bottom) / 2) * scale,
    };
  }, [selectedKey, allNodes, scale, viewport.width, viewport.height, displayedWidth, displayedHeight]);

  const zoomProps = { viewportRef, viewport, interacting, panned, onZoomControls, focus };
  if (!geometry) {
    return (
      <ScreenZoom {...zoomProps} fitScale={0} still>
        {imageSrc && (
          // Measure the screenshot when there is no hierarchy to say how large the screen is.
          <img
            className="screen-probe"
            src={imageSrc}
            alt=""
            onLoad={(e) => setNatural({ src: imageSrc, width: e.currentTarget.naturalWidth, height: e.currentTarget.naturalHeight })}
          />
        )}
        <div className="screen-placeholder">{placeholder ?? 'No frame yet.'}</div>
        {children}
      </ScreenZoom>
    );
  }

  return (
    <ScreenZoom {...zoomProps} fitScale={scale} onZoom={onZoom} outside={children}>
      <div
        ref={screenRef}
        data-testid="screen"
        data-scale={scale}
        data-screen-width={geometry.width}
        data-screen-height={geometry.height}
        data-points={String(geometry.points)}
        data-mode={interacting ? 'interact' : 'inspect'}
        className={`screen${interacting ? ' mode-interact' : ''}`}
        style={{ width: displayedWidth, height: displayedHeight }}
        tabIndex={0}
        aria-label={
          interacting
            ? 'Device screen (interact): click taps, double click double-taps, hold long-presses, drag swipes'
            : 'Device screen: click a box to select it; click again, Tab or the wheel for the box below'
        }
        {...handlers}
      >
        {imageSrc ? (
          <img
            data-testid="screen-image"
            data-frame-context={screenshot?.frameContext ?? ''}
            className="screen-image"
            src={imageSrc}
            alt="Device screenshot"
            draggable={false}
            onLoad={(e) => {
              const img = e.currentTarget;
              if (natural?.src !== imageSrc) setNatural({ src: imageSrc, width: img.naturalWidth, height: img.naturalHeight });
            }}
            width={displayedWidth}
            height={displayedHeight}
          />
        ) : (
          <div data-testid="screen-outline" className="screen-outline" />
        )}
        <div className="overlay">
          {safeAreas.map((region, i) => (
            <div
              key={`${region.side}-${i}`}
              data-testid="safe-area"
              data-side={region.side}
              className={`safe-area side-${region.side}`}
              style={place(region.rect, scale)}
            />
          ))}
          <BoxLayer boxes={boxes} width={displayedWidth} height={displayedHeight} matchKeys={matchKeys} followTry={followTry} />
          {warnings.length > 0 && <WarningLayer warnings={warnings} scale={scale} showAdvisories={layers.advisories} />}
          {arrows.map((mark) => {
            const p = place(mark.bounds, scale);
            const above = mark.direction === 'above';
            return (
              <button
                type="button"
                key={`${mark.nodeKey}-${mark.direction}`}
                data-testid="hidden-arrow"
                data-own-click="true"
                data-direction={mark.direction}
                data-node-key={mark.nodeKey}
                className={`hidden-arrow dir-${mark.direction}`}
                style={{ left: p.left + p.width / 2, top: above ? p.top : p.top + p.height }}
                title={`More content ${mark.direction} what this scroll container shows`}
                onClick={(e) => {
                  e.stopPropagation();
                  store.getState().selectNode(mark.nodeKey);
                }}
              >
                {above ? '▲' : '▼'}
              </button>
            );
          })}
          {!interacting && <PickMarker scale={scale} />}
          {windowOutline && <div data-testid="window-outline" className="window-outline" style={place(windowOutline, scale)} />}
          {findingMarks && findingMarks.length > 0 && <FindingLayer marks={findingMarks} place={(r) => place(r, scale)} />}
          {gesture && <GestureMark gesture={gesture} scale={scale} />}
          {touches.map((t) =>
            t.endX !== undefined && t.endY !== undefined ? (
              <svg key={t.id} className="touch-stroke" width={displayedWidth} height={displayedHeight} aria-hidden>
                <line x1={t.x * scale} y1={t.y * scale} x2={t.endX * scale} y2={t.endY * scale} />
                <circle cx={t.endX * scale} cy={t.endY * scale} r={5} />
              </svg>
            ) : (
              <div key={t.id} className={`touch-mark touch-${t.kind}`} style={{ left: r2(t.x * scale), top: r2(t.y * scale) }} />
            ),
          )}
        </div>
      </div>
    </ScreenZoom>
  );
}
