import './FrameHeader.css';
/**
 * The frame header: which backend served the observation and why it fell back, its quality verdict and
 * strategy, the capture stamps of its two halves, its layout findings and how long it took. Below it,
 * the banners a user must not miss: a recovered or sparse verdict, and the observation's partial failures.
 */
import type { Frame } from '@shared/protocol/device';
import {
  backendLine,
  frameStamps,
  confidenceText,
  layoutWarningSummary,
  observationErrorLine,
  qualityBanner,
  QUALITY_VERDICT_TITLE,
  shortContext,
  timingsLine,
} from '@shared/inspect';
import { formatTime, plural } from '@renderer/state/format';
import { useInspector } from '@renderer/state/store';

type AppRevealFrame = NonNullable<Frame['appReveal']>;

/**
 * What an AppReveal app says about its screen (get_screen: key, title, confidence, source), the tools it
 * registered, and a window picker when it lists more than one window.
 */
export function AppRevealHeader({ appReveal }: { appReveal: AppRevealFrame }) {
  const screen = appReveal.screen;
  const windowId = useInspector((s) => s.windowId);
  const setWindowId = useInspector((s) => s.setWindowId);
  const windows = appReveal.windows;
  const keyWindow = windows.find((w) => w.isKey) ?? windows[0];
  const tools = appReveal.tools;
  return (
    <>
      <span
        className="appreveal-screen"
        data-testid="appreveal-screen"
        data-screen-key={screen?.screenKey ?? ''}
        data-confidence={screen?.confidence ?? ''}
        data-source={screen?.source ?? ''}
        title={
          screen
            ? [
                `screen key: ${screen.screenKey}`,
                `title: ${screen.screenTitle ?? '—'}`,
                `confidence: ${confidenceText(screen.confidence)}`,
                `source: ${screen.source ?? '—'}${screen.source === 'explicit' ? ' (the app names this screen)' : screen.source === 'derived' ? ' (derived from the controller hierarchy)' : ''}`,
                ...(screen.frameworkType ? [`framework: ${screen.frameworkType}`] : []),
                ...(screen.controllerChain.length ? [`controllers: ${screen.controllerChain.join(' › ')}`] : []),
                ...(screen.activeTab ? [`active tab: ${screen.activeTab}`] : []),
                ...(screen.presentedModals.length ? [`modals: ${screen.presentedModals.join(', ')}`] : []),
              ].join('\n')
            : tools.includes('get_screen')
              ? 'get_screen did not answer for this frame'
              : 'this app did not register get_screen'
        }
      >
        <span className="ar-label">screen</span>
        {screen ? (
          <>
            <span className="ar-key mono">{screen.screenKey}</span>
            {screen.screenTitle && <span className="ar-title">“{screen.screenTitle}”</span>}
            <span className={`ar-confidence${screen.confidence !== undefined && screen.confidence < 0.6 ? ' low' : ''}`}>
              {confidenceText(screen.confidence)}
            </span>
            {screen.source && <span className={`ar-source src-${screen.source}`}>{screen.source}</span>}
          </>
        ) : (
          <span className="muted">unknown</span>
        )}
      </span>
      <span className="chip plain" data-testid="appreveal-tools" data-tools={tools.join(' ')} title={`Tools this app registered:\n${tools.join('\n')}`}>
        {plural(tools.length, 'tool')}
      </span>
      {windows.length > 1 && (
        <label className="control window-control" title="AppReveal lists more than one window: read one (its elements and screenshot) and outline it">
          <span className="control-label">Window</span>
          <select
            data-testid="window-picker"
            value={windowId ?? keyWindow?.id ?? ''}
            onChange={(e) => setWindowId(e.target.value === keyWindow?.id ? null : e.target.value)}
          >
            {windows.map((w) => (
              <option key={w.id} value={w.id}>
                {w.title ?? w.id}
                {w.isKey ? ' (key)' : ''}
                {w.frame ? ` · ${Math.round(w.frame.width)}×${Math.round(w.frame.height)}` : ''}
              </option>
            ))}
          </select>
        </label>
      )}
    </>
  );
}

export function FrameHeader({ frame }: { frame: Frame | undefined }) {
  const observation = frame?.observation ?? null;
  if (!frame) return null;
  const stamp = frameStamps(frame);
  const backendKind = !observation?.backend ? 'none' : observation.fallbackReason ? 'fallback' : observation.backend;
  return (
    <div className="frame-header" data-testid="frame-header" data-strategy={observation?.strategy ?? ''}>
      {frame.appReveal ? (
        <>
          <span className="chip backend-appreveal" data-testid="frame-backend" data-backend="appreveal" data-fallback="">
            backend: appreveal
          </span>
          <AppRevealHeader appReveal={frame.appReveal} />
        </>
      ) : observation ? (
        <>
          <span
            className={`chip backend-${backendKind}`}
            data-testid="frame-backend"
            data-backend={observation.backend ?? ''}
            data-fallback={observation.fallbackReason ?? ''}
          >
            {backendLine(observation)}
          </span>
          <span
            className={`chip quality-${observation.quality.verdict}`}
            data-testid="frame-quality"
            data-verdict={observation.quality.verdict}
            title={observation.quality.reason}
          >
            {QUALITY_VERDICT_TITLE[observation.quality.verdict]}
          </span>
        </>
      ) : (
        <span className="chip backend-none" data-testid="frame-backend">
          no observation
        </span>
      )}
      <span
        className={`capture-stamp agree-${stamp.agreement}`}
        data-testid="capture-stamp"
        data-capture-identity={stamp.captureIdentity ?? ''}
        data-tree-context={stamp.treeContext ?? ''}
        data-shot-context={stamp.shotContext ?? ''}
        data-agreement={stamp.agreement}
        title={[
          `capture identity: ${stamp.captureIdentity ?? 'none (no bridge snapshot merged)'}`,
          `tree frame context: ${stamp.treeContext ?? 'none'}`,
          `screenshot frame context: ${stamp.shotContext ?? 'none'}`,
          ...(stamp.webSnapshotId ? [`web snapshot: ${stamp.webSnapshotId}`] : []),
          `received ${formatTime(frame.receivedAt)}`,
        ].join('\n')}
      >
        <span className="stamp-field">
          <span className="stamp-key">capture</span>
          <span className="stamp-value" data-testid="capture-identity">
            {stamp.captureIdentity ?? '—'}
          </span>
        </span>
        <span className="stamp-field">
          <span className="stamp-key">tree</span>
          <span className="stamp-value">{stamp.treeContext ? shortContext(stamp.treeContext) : '—'}</span>
        </span>
        <span className="stamp-field">
          <span className="stamp-key">shot</span>
          <span className="stamp-value">{stamp.shotContext ? shortContext(stamp.shotContext) : '—'}</span>
        </span>
        <span className={`stamp-agreement agree-${stamp.agreement}`}>
          {stamp.agreement === 'same' ? '✓ same frame' : stamp.agreement === 'different' ? '✕ different frames' : 'unstamped'}
        </span>
      </span>
    </div>
  );
}

/** The frame's layout findings and how long it took, for the footer. */
export function FrameFooter({ frame }: { frame: Frame | undefined }) {
  const observation = frame?.observation ?? null;
  const layout = layoutWarningSummary(observation);
  const total = observation?.timings['total'];
  return (
    <>
      {observation && (
        <span
          className={`layout-summary${layout.error > 0 ? ' has-errors' : ''}`}
          data-testid="layout-summary"
          data-errors={layout.error}
          title={`${layout.total} layout findings (${layout.scope})`}
        >
          {layout.error + layout.warning + layout.advisory === 0
            ? 'layout clean'
            : 'layout: ' +
              [
                layout.error > 0 ? plural(layout.error, 'error') : '',
                layout.warning > 0 ? plural(layout.warning, 'warning') : '',
                layout.advisory > 0 ? plural(layout.advisory, 'advisory', 'advisories') : '',
              ]
                .filter(Boolean)
                .join(' · ')}
          {layout.scope === 'truncated' ? ` (of ${layout.total})` : ''}
        </span>
      )}
      {total !== undefined && (
        <span className="timings" data-testid="frame-timings" title={timingsLine(observation?.timings)}>
          {Math.round(total)} ms
        </span>
      )}
    </>
  );
}

export function ObservationBanners({ frame }: { frame: Frame | undefined }) {
  const observation = frame?.observation ?? null;
  const banner = qualityBanner(observation?.quality);
  const errors = observation?.errors ?? [];
  return (
    <>
      {banner && (
        <div className={`banner quality quality-${banner.verdict}`} data-testid="quality-banner" data-verdict={banner.verdict} data-reason={banner.reason}>
          <strong>{banner.title}.</strong> {banner.text} <span className="banner-code">{banner.reason}</span>
        </div>
      )}
      {errors.length > 0 && (
        <div className="banner errors" data-testid="observation-errors" data-count={errors.length}>
          <div className="errors-title">{plural(errors.length, 'error')} in this observation; what the other stages read is shown</div>
          <ul>
            {errors.map((error, i) => (
              <li key={i} data-testid="observation-error" data-stage={error.stage} data-code={error.code} title={observationErrorLine(error)}>
                {observationErrorLine(error)}
              </li>
            ))}
          </ul>
        </div>
      )}
    </>
  );
}
