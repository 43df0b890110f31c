import './ZoomControls.css';
/**
 * The screen's zoom in the device toolbar (docs/rules.md#r-qa-16): fit, 1:1 (one pixel per point), 2x,
 * out and in, and the size it is shown at now. The wheel and a pinch zoom too (Screen).
 */
import { useZoom } from '@renderer/state/zoom';

/** How much + and − zoom by. */
const STEP = 1.25;
/** Within this of a size, that size's button reads as pressed. */
const NEAR = 0.01;

export function ZoomControls() {
  const controls = useZoom((s) => s.controls);
  const pxPerPoint = useZoom((s) => s.pxPerPoint);
  const fitPxPerPoint = useZoom((s) => s.fitPxPerPoint);
  const off = controls === null;
  const near = (target: number) => !off && Math.abs(pxPerPoint - target) < NEAR * target;
  const percent = off ? '—' : `${Math.round(pxPerPoint * 100)}%`;
  return (
    <div className="zoom-controls" role="group" aria-label="Zoom" data-testid="zoom-controls" data-px-per-point={off ? 0 : pxPerPoint.toFixed(3)}>
      <button
        type="button"
        className="tool-button small"
        data-testid="zoom-fit"
        disabled={off}
        aria-pressed={near(fitPxPerPoint)}
        title="Fit the whole screen in the view"
        onClick={() => controls?.fit()}
      >
        Fit
      </button>
      <button
        type="button"
        className="tool-button small"
        data-testid="zoom-1x"
        disabled={off}
        aria-pressed={near(1)}
        title="One pixel per point"
        onClick={() => controls?.toPxPerPoint(1)}
      >
        1:1
      </button>
      <button
        type="button"
        className="tool-button small"
        data-testid="zoom-2x"
        disabled={off}
        aria-pressed={near(2)}
        title="Two pixels per point"
        onClick={() => controls?.toPxPerPoint(2)}
      >
        2×
      </button>
      <button
        type="button"
        className="tool-button small"
        data-testid="zoom-out"
        disabled={off}
        title="Zoom out (or the wheel)"
        onClick={() => controls?.zoomBy(1 / STEP)}
      >
        −
      </button>
      <span className="zoom-level" data-testid="zoom-level" title="Pixels per point, as a percentage">
        {percent}
      </span>
      <button
        type="button"
        className="tool-button small"
        data-testid="zoom-in"
        disabled={off}
        title="Zoom in (or the wheel; drag to pan)"
        onClick={() => controls?.zoomBy(STEP)}
      >
        +
      </button>
    </div>
  );
}
