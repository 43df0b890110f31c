/**
 * The live screen's zoom (docs/rules.md#r-qa-16), shared between the Screen, which owns the zoom and pan
 * container, and the device toolbar's zoom controls. Sizes are displayed pixels per screen point, so
 * "1:1" is one CSS pixel per point whatever the panes' sizes, and "fit" is whatever shows the whole screen.
 */
import { create } from 'zustand';

/** What the toolbar can ask of the screen's zoom container. */
export interface ZoomControls {
  /** The whole screen in the viewport, centred. */
  fit(): void;
  /** `pxPerPoint` displayed pixels per screen point, centred on the viewport's middle. */
  toPxPerPoint(pxPerPoint: number): void;
  /** Zoom in (factor > 1) or out about the viewport's middle. */
  zoomBy(factor: number): void;
}

interface ZoomState {
  /** Displayed pixels per screen point now; 0 while no screen is shown. */
  pxPerPoint: number;
  /** Displayed pixels per screen point at fit. */
  fitPxPerPoint: number;
  controls: ZoomControls | null;
  report(pxPerPoint: number, fitPxPerPoint: number): void;
  attach(controls: ZoomControls | null): void;
}

export const useZoom = create<ZoomState>()((set, get) => ({
  pxPerPoint: 0,
  fitPxPerPoint: 0,
  controls: null,
  report: (pxPerPoint, fitPxPerPoint) => {
    const s = get();
    if (s.pxPerPoint !== pxPerPoint || s.fitPxPerPoint !== fitPxPerPoint) set({ pxPerPoint, fitPxPerPoint });
  },
  attach: (controls) => set({ controls }),
}));

/** The zoom's limits as factors of fit: down to 1:1 when fit is larger, up to 4 pixels per point (or 2× fit). */
export function zoomLimits(fitPxPerPoint: number): { min: number; max: number } {
  if (!(fitPxPerPoint > 0)) return { min: 1, max: 1 };
  return { min: Math.min(1, 1 / fitPxPerPoint), max: Math.max(2, 4 / fitPxPerPoint) };
}
