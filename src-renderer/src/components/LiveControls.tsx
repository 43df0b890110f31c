import './LiveControls.css';
/**
 * How the frame is observed: the projection strategy, XCTest only (the bridge flag off), live or paused,
 * the live frame rate, and a one-shot refresh while paused.
 */
import { StrategySchema, type Strategy } from '@shared/protocol/observation';
import { useFrameRate } from '@renderer/state/frame-meter';
import { useInspector } from '@renderer/state/store';

const STRATEGY_TEXT: Record<Strategy, string> = {
  visible: 'visible',
  raw: 'raw',
};

function FrameRate() {
  const rate = useFrameRate();
  return (
    <span
      className="live-fps"
      data-testid="live-fps"
      data-fps={rate.fps.toFixed(1)}
      data-frames={rate.total}
      data-round-trip-ms={rate.roundTripMs}
      title={`Frames shown per second over the last 2 s (screenshot loop and device pushes); one observe takes ${rate.roundTripMs} ms from request to reply`}
    >
      {rate.fps.toFixed(1)} fps
    </span>
  );
}

/** The observe options: each change re-observes with them. */
export function ObserveOptionsControls({ appReveal = false }: { appReveal?: boolean }) {
  const strategy = useInspector((s) => s.strategy);
  const xctestOnly = useInspector((s) => s.xctestOnly);
  const { setStrategy, setXctestOnly } = useInspector.getState();
  return (
    <div className="observe-options">
      <label className="control" title="visible: what XCTest projects as on screen; raw: the whole unfiltered tree">
        <span className="control-label">Strategy</span>
        <select data-testid="strategy-select" value={strategy} onChange={(e) => setStrategy(StrategySchema.parse(e.target.value))}>
          {StrategySchema.options.map((s) => (
            <option key={s} value={s}>
              {STRATEGY_TEXT[s]}
            </option>
          ))}
        </select>
      </label>
      {/* AppReveal reads the app itself: there is no XCTest read to compare with. */}
      {!appReveal && (
        <label className="control toggle" title="Observe and act with the SDK observation bridge flag off: what plain XCTest sees and does">
          <input type="checkbox" data-testid="xctest-only-toggle" checked={xctestOnly} onChange={(e) => setXctestOnly(e.target.checked)} />
          XCTest only
        </label>
      )}
    </div>
  );
}

export function LiveControls({ connected, refreshing, onRefresh }: { connected: boolean; refreshing: boolean; onRefresh: () => void }) {
  const live = useInspector((s) => s.live);
  const setLive = useInspector((s) => s.setLive);
  return (
    <div className="live-controls">
      <button
        type="button"
        className={`live-toggle ${live ? 'is-live' : 'is-paused'}`}
        data-testid="live-toggle"
        data-live={String(live)}
        aria-pressed={live}
        title={live ? 'Live: pushes and the screenshot loop update the frame. Click to pause.' : 'Paused: the frame stays put. Click to go live.'}
        onClick={() => setLive(!live)}
      >
        <span className="live-dot" aria-hidden />
        {live ? 'Live' : 'Paused'}
        <span className="live-action">{live ? '❚❚ Pause' : '▶ Resume'}</span>
      </button>
      {live && <FrameRate />}
      <button
        type="button"
        className="tool-button"
        data-testid="refresh"
        disabled={!connected || live || refreshing}
        title={live ? 'Live mode observes by itself' : 'Observe once'}
        onClick={onRefresh}
      >
        {refreshing ? 'Observing…' : 'Refresh'}
      </button>
    </div>
  );
}
