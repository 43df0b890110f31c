import './GestureMark.css';
/**
 * A trace step's gesture on its frame (docs/rules.md#r-edit-08): a ring where a tap, double tap or long
 * press landed, an arrow from a swipe's start to its end, in screen points scaled as the boxes are.
 */
import type { TraceViewStep } from '@shared/api/api';

export type StepGesture = NonNullable<TraceViewStep['gesture']>;

export function GestureMark({ gesture, scale }: { gesture: StepGesture; scale: number }) {
  if (scale <= 0) return null;
  if (gesture.kind === 'swipe') {
    const [x1, y1, x2, y2] = [gesture.from.x * scale, gesture.from.y * scale, gesture.to.x * scale, gesture.to.y * scale];
    const angle = Math.atan2(y2 - y1, x2 - x1);
    const head = (turn: number) => `${x2 - 12 * Math.cos(angle + turn)},${y2 - 12 * Math.sin(angle + turn)}`;
    return (
      <svg className="gesture-mark" data-testid="gesture-mark" data-kind="swipe" data-from={`${gesture.from.x},${gesture.from.y}`} data-to={`${gesture.to.x},${gesture.to.y}`} aria-hidden>
        <circle className="gesture-dot" cx={x1} cy={y1} r={8} />
        <line x1={x1} y1={y1} x2={x2} y2={y2} />
        <polyline points={`${head(0.5)} ${x2},${y2} ${head(-0.5)}`} stroke="#ff3b8d" strokeWidth={3} fill="none" />
      </svg>
    );
  }
  const [cx, cy] = [gesture.at.x * scale, gesture.at.y * scale];
  return (
    <svg className="gesture-mark" data-testid="gesture-mark" data-kind={gesture.kind} data-at={`${gesture.at.x},${gesture.at.y}`} aria-hidden>
      <circle className="gesture-dot" cx={cx} cy={cy} r={10} />
      {gesture.kind !== 'tap' && <circle cx={cx} cy={cy} r={gesture.kind === 'longPress' ? 20 : 15} />}
    </svg>
  );
}
