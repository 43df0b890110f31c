import './ZoomControls.css';
/**
 * The screen's zoom in the device toolbar (docs/rules.md#r-qa-16): fit, 1:1 (one pixel per point), 2x,
 * out and in, and the size it is shown at now. The wheel and a pinch zoom too (Screen).
 */
import { useZoom, type ZoomControls as ZoomControlsApi } from '@renderer/state/zoom';

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
  const button = (testId: string, label: string, title: string, onClick: (c: ZoomControlsApi) => void, pressed?: boolean) => (
    <button
      type="button"
      className="tool-button small"
      data-testid={testId}
      disabled={off}
      aria-pressed={pressed}
      title={title}
      onClick={() => {
        if (controls) onClick(controls);
      }}
    >
      {label}
    </button>
  );
  return (
    <div className="zoom-controls" role="group" aria-label="Zoom" data-testid="zoom-controls" data-px-per-point={off ? 0 : pxPerPoint.toFixed(3)}>
      {button('zoom-fit', 'Fit', 'Fit the whole screen in the view', (c) => c.fit(), near(fitPxPerPoint))}
      {button('zoom-1x', '1:1', 'One pixel per point', (c) => c.toPxPerPoint(1), near(1))}
      {button('zoom-2x', '2×', 'Two pixels per point', (c) => c.toPxPerPoint(2), near(2))}
      {button('zoom-out', '−', 'Zoom out (or the wheel)', (c) => c.zoomBy(1 / STEP))}
      <span className="zoom-level" data-testid="zoom-level" title="Pixels per point, as a percentage">
        {percent}
      </span>
      {button('zoom-in', '+', 'Zoom in (or the wheel; drag to pan)', (c) => c.zoomBy(STEP))}
    </div>
  );
}
