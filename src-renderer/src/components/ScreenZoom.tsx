/**
 * The screen's zoom and pan container (docs/rules.md#r-qa-16): a react-zoom-pan-pinch container that
 * fills the viewport, its content the viewport's size with the screen centred, so fit is no transform
 * at all. The wheel and a pinch zoom about the pointer, a drag pans (in interact mode, where a drag
 * swipes on the device, only the middle button pans), and a toolbar asks for fit, a size in pixels per
 * point, or a step in or out through `onZoomControls`.
 */
import { useEffect, useRef, type MutableRefObject, type ReactNode, type RefObject } from 'react';
import { TransformComponent, TransformWrapper, type ReactZoomPanPinchContentRef } from 'react-zoom-pan-pinch';
import { zoomLimits, type ZoomControls } from '@renderer/state/zoom';

/** How long a toolbar zoom (fit, 1:1, 2x, +, −) animates. */
const ZOOM_ANIMATION_MS = 120;
/** A drag shorter than this (px) is a click, not a pan. */
const PAN_SLOP_PX = 4;

export function ScreenZoom({
  viewportRef,
  viewport,
  fitScale,
  interacting,
  panned,
  onZoomControls,
  onZoom,
  outside,
  focus = null,
  still = false,
  children,
}: {
  viewportRef: RefObject<HTMLDivElement | null>;
  viewport: { width: number; height: number };
  /** Displayed pixels per screen point at fit (the layout's scale). */
  fitScale: number;
  interacting: boolean;
  /** Set when a drag panned, so the click that ends it picks nothing; the screen clears it. */
  panned: MutableRefObject<boolean>;
  onZoomControls?: ((controls: ZoomControls | null) => void) | undefined;
  /** Displayed pixels per screen point, now and at fit, whenever either changes. */
  onZoom?: ((pxPerPoint: number, fitPxPerPoint: number) => void) | undefined;
  /** What sits over the viewport and does not zoom (the legend, toasts). */
  outside?: ReactNode;
  /** The selection's centre in the content at fit (px): 1:1, 2x, + and − centre on it (docs/rules.md#r-layout-02). */
  focus?: { x: number; y: number } | null;
  /** No zoom (nothing to show yet): the same viewport element, so its measured size carries over. */
  still?: boolean;
  children: ReactNode;
}) {
  const zoomRef = useRef<ReactZoomPanPinchContentRef>(null);
  /** The zoom factor over fit, as the container last reported it. */
  const zoomFactor = useRef(1);
  const panStart = useRef<{ x: number; y: number } | null>(null);
  const latest = useRef({ fitScale, onZoom, focus, viewport });
  latest.current = { fitScale, onZoom, focus, viewport };

  const shown = fitScale > 0;
  useEffect(() => {
    if (!onZoomControls) return;
    if (!shown) {
      onZoomControls(null);
      return;
    }
    const about = (factor: number) => {
      const zoom = zoomRef.current;
      const wrapper = zoom?.instance.wrapperComponent;
      if (!zoom || !wrapper) return;
      const r = wrapper.getBoundingClientRect();
      zoom.zoomToPoint(factor, r.left + r.width / 2, r.top + r.height / 2, ZOOM_ANIMATION_MS);
    };
    /** Zoom to `factor` over fit with the selection in the middle of the view; without one, about the middle. */
    const to = (factor: number, withoutFocus: (factor: number) => void) => {
      const { fitScale: fit, focus: at, viewport: view } = latest.current;
      const limits = zoomLimits(fit);
      const f = Math.min(limits.max, Math.max(limits.min, factor));
      if (at && f > 1) zoomRef.current?.setTransform(view.width / 2 - at.x * f, view.height / 2 - at.y * f, f, ZOOM_ANIMATION_MS);
      else withoutFocus(f);
    };
    onZoomControls({
      fit: () => zoomRef.current?.resetTransform(ZOOM_ANIMATION_MS),
      toPxPerPoint: (pxPerPoint) => {
        const fit = latest.current.fitScale;
        if (fit > 0) to(pxPerPoint / fit, (f) => zoomRef.current?.centerView(f, ZOOM_ANIMATION_MS));
      },
      zoomBy: (factor) => to(zoomFactor.current * factor, about),
    });
    return () => onZoomControls(null);
  }, [onZoomControls, shown]);
  useEffect(() => {
    if (fitScale > 0) latest.current.onZoom?.(fitScale * zoomFactor.current, fitScale);
  }, [fitScale]);

  const limits = zoomLimits(fitScale);
  if (still) {
    return (
      <div className="screen-viewport" ref={viewportRef}>
        {children}
        {outside}
      </div>
    );
  }
  return (
    <div className="screen-viewport" ref={viewportRef}>
      <TransformWrapper
        ref={zoomRef}
        minScale={limits.min}
        maxScale={limits.max}
        centerZoomedOut
        doubleClick={{ disabled: true }}
        wheel={{ step: 0.2 }}
        // In interact mode a drag swipes on the device: only the middle button pans there.
        panning={{ allowLeftClickPan: !interacting, allowMiddleClickPan: true, velocityDisabled: true }}
        onPanningStart={(_, e) => {
          panStart.current = 'clientX' in e ? { x: e.clientX, y: e.clientY } : null;
        }}
        onPanning={(_, e) => {
          const from = panStart.current;
          if (from && 'clientX' in e && Math.hypot(e.clientX - from.x, e.clientY - from.y) > PAN_SLOP_PX) panned.current = true;
        }}
        onTransform={(_, state) => {
          zoomFactor.current = state.scale;
          const fit = latest.current.fitScale;
          if (fit > 0) latest.current.onZoom?.(fit * state.scale, fit);
        }}
      >
        <TransformComponent wrapperClass="screen-zoom" contentClass="screen-zoom-content" wrapperStyle={{ width: '100%', height: '100%' }}>
          <div className="screen-frame" data-testid="screen-frame" style={{ width: viewport.width, height: viewport.height }}>
            {children}
          </div>
        </TransformComponent>
      </TransformWrapper>
      {outside}
    </div>
  );
}
