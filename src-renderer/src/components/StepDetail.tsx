import './StepDetail.css';
/**
 * One timeline step opened: its before and after frames side by side, large, with where the action
 * touched marked on them, and everything the result says (target, backend, fallback, outcome with its
 * plain-language explanation, warnings, requests sent, time per stage).
 */
import { useEffect, useMemo } from 'react';
import {
  backendText,
  describeRequest,
  describeTarget,
  formatMs,
  reasonCopyText,
  shortContext,
  stageTimings,
  stepCopyText,
  stepOutcome,
  targetMark,
  type TargetMark,
} from '@shared/inspect';
import type { Frame } from '@shared/protocol/device';
import type { ActionResult } from '@shared/protocol/action';
import { formatTime } from '@renderer/state/format';
import { useInspector } from '@renderer/state/store';
import { FULL_FRAMES, useTimeline, type TimelineEntry } from '@renderer/state/timeline';
import { CopyButton } from './CopyButton';
import { selectorText } from './Timeline';

function screenSizeOf(frame: Frame | null): { width: number; height: number } | null {
  const h = frame?.observation?.viewHierarchy;
  if (h?.screenWidth && h.screenHeight) return { width: h.screenWidth, height: h.screenHeight };
  const s = frame?.observation?.screenSize;
  if (s && s.width > 0 && s.height > 0) return { width: s.width, height: s.height };
  return null;
}

const pct = (v: number, of: number) => `${(v / of) * 100}%`;

function FramePane({ title, frame, mark, dropped }: { title: string; frame: Frame | null; mark: TargetMark; dropped: boolean }) {
  const size = screenSizeOf(frame);
  const shot = frame?.screenshot;
  const aspect = size ? size.width / size.height : 1206 / 2622;
  return (
    <figure className="detail-frame" data-testid={`step-frame-${title.toLowerCase()}`} data-has-screenshot={String(Boolean(shot))}>
      <figcaption>
        <span className="detail-frame-title">{title}</span>
        {frame && <span className="muted">{formatTime(frame.receivedAt)}</span>}
        {frame?.screenshot?.frameContext && (
          <span className="muted mono" title={frame.screenshot.frameContext}>
            frame {shortContext(frame.screenshot.frameContext)}
          </span>
        )}
      </figcaption>
      <div className="detail-frame-body">
        {shot ? (
          <div className="detail-shot" style={{ aspectRatio: String(aspect) }}>
            <img src={`data:image/png;base64,${shot.dataBase64}`} alt={`${title} the action`} draggable={false} />
            {size && (
              <>
                {mark.bounds && (
                  <div
                    className="detail-target"
                    style={{
                      left: pct(mark.bounds.left, size.width),
                      top: pct(mark.bounds.top, size.height),
                      width: pct(mark.bounds.right - mark.bounds.left, size.width),
                      height: pct(mark.bounds.bottom - mark.bounds.top, size.height),
                    }}
                  />
                )}
                {mark.point && <div className="detail-point" style={{ left: pct(mark.point.x, size.width), top: pct(mark.point.y, size.height) }} />}
                {mark.stroke && (
                  <svg className="detail-stroke" viewBox={`0 0 ${size.width} ${size.height}`} preserveAspectRatio="none">
                    <line x1={mark.stroke.start.x} y1={mark.stroke.start.y} x2={mark.stroke.end.x} y2={mark.stroke.end.y} />
                  </svg>
                )}
              </>
            )}
          </div>
        ) : (
          <div className="detail-noshot">
            {dropped
              ? `Whole frames are kept for the newest steps only (up to ${FULL_FRAMES}, fewer on a screen of many thousand nodes); record a trace to keep them all.`
              : frame
                ? `No screenshot${frame.screenshotError ? `: ${frame.screenshotError}` : ''}.`
                : title === 'Before'
                  ? 'No frame had been shown before this action.'
                  : 'Nothing was observed after this action.'}
          </div>
        )}
      </div>
    </figure>
  );
}

/**
 * Everything a result says, as the live timeline's step detail shows it and the trace view shows a
 * recorded step (docs/rules.md#r-rpl-08): outcome, backend and fallback, the target and how it was
 * resolved, the failure with its explanation and the device's own words, requests, time per stage.
 */
export function ResultFacts({ result }: { result: ActionResult }) {
  const outcome = stepOutcome(result);
  const { total, stages } = stageTimings(result.timings);
  return (
    <>
      {!outcome.ok && outcome.explanation && (
        <div className="detail-explanation" data-testid="step-detail-explanation">
          <div className="detail-reason">
            Failed closed: <code>{outcome.failureReason}</code>
            <CopyButton text={reasonCopyText(outcome)} testId="copy-step-reason" title="Copy the reason, what it means and what to do" />
            {outcome.mayHaveRun !== undefined && (
              <span className={`chip ${outcome.mayHaveRun ? 'may-have-run' : 'plain'}`}>{outcome.mayHaveRun ? 'may have run' : 'nothing was done'}</span>
            )}
          </div>
          <p>
            <strong>What it means.</strong> {outcome.explanation.meaning}
          </p>
          <p>
            <strong>What to do.</strong> {outcome.explanation.whatToDo}
          </p>
          {outcome.deviceMessage && (
            <p className="detail-device-message" data-testid="step-detail-device-message">
              <strong>The device said.</strong> {outcome.deviceMessage}
            </p>
          )}
        </div>
      )}
      <table className="facts">
        <tbody>
          <tr>
            <th>Outcome</th>
            <td>
              <span className={`chip outcome-${outcome.ok ? 'ok' : 'bad'}`}>{outcome.ok ? 'done' : outcome.label}</span>
            </td>
          </tr>
          <tr>
            <th>Backend</th>
            <td>
              <span className={`chip backend-${result.backend ?? 'none'}`}>{backendText(result)}</span>
              {result.fallbackReason && <span className="chip backend-fallback">fallback: {result.fallbackReason}</span>}
            </td>
          </tr>
          <tr>
            <th>Target</th>
            <td>{describeTarget(result.target)}</td>
          </tr>
          {result.target.bounds && (
            <tr>
              <th>Bounds</th>
              <td className="mono">
                [{result.target.bounds.left},{result.target.bounds.top}][{result.target.bounds.right},{result.target.bounds.bottom}]
              </td>
            </tr>
          )}
          <tr>
            <th>Requests</th>
            <td>{result.requestsSent} sent to the device</td>
          </tr>
          {result.durationIgnored && (
            <tr>
              <th>Duration</th>
              <td>ignored (a bridge scroll has no timed stroke)</td>
            </tr>
          )}
          <tr>
            <th>Time</th>
            <td>
              <div className="detail-stages">
                {stages.map((s) => (
                  <div key={s.stage} className="detail-stage">
                    <span className="mono">{s.stage}</span>
                    <span className="detail-stage-bar" style={{ width: `${Math.max(2, s.share * 100)}%` }} />
                    <span className="mono">{formatMs(s.ms)}</span>
                  </div>
                ))}
                <div className="detail-stage total">
                  <span className="mono">total</span>
                  <span />
                  <span className="mono">{formatMs(total)}</span>
                </div>
              </div>
            </td>
          </tr>
          {result.warnings.length > 0 && (
            <tr>
              <th>Warnings</th>
              <td>
                <ul className="detail-warnings">
                  {result.warnings.map((w, i) => (
                    <li key={i}>{w}</li>
                  ))}
                </ul>
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </>
  );
}

export function StepDetail({ entry }: { entry: TimelineEntry }) {
  const { step } = entry;
  const { result, request } = step;
  const outcome = stepOutcome(result);
  const mark = useMemo(() => targetMark(step), [step]);
  const close = () => useInspector.getState().openStepDetail(null);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') close();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const selector = 'target' in request ? request.target : request.action === 'swipe' ? request.container : undefined;
  return (
    <div
      className={`step-detail${outcome.ok ? '' : ' is-failed'}`}
      data-testid="step-detail"
      data-call-id={step.callId}
      role="dialog"
      aria-label={`Step ${step.callId}`}
    >
      <div className="detail-head">
        <span className={`step-icon ${outcome.ok ? 'ok' : 'bad'}`}>{outcome.ok ? '✓' : '✕'}</span>
        <span className="detail-title">{describeRequest(request)}</span>
        <span className="muted">{selectorText(request, selector)}</span>
        <span className="muted mono">
          {step.callId} · {formatTime(step.startedAt)}
        </span>
        <span className="spacer" />
        {/* The step's request and result as sent, for a bug report (docs/rules.md#r-qa-20). */}
        <CopyButton text={() => stepCopyText(step)} label="Copy result" testId="copy-step-result" title="Copy the request and its result as JSON" />
        <button type="button" className="tool-button" data-testid="step-detail-close" onClick={close} title="Back to the live screen (Esc)">
          ✕ Close
        </button>
      </div>
      <div className="detail-body">
        <aside className="detail-facts">
          <ResultFacts result={result} />
        </aside>
        <div className="detail-frames">
          <FramePane title="Before" frame={step.before} mark={mark} dropped={entry.framesDropped} />
          <FramePane title="After" frame={step.after} mark={{}} dropped={entry.framesDropped} />
        </div>
      </div>
    </div>
  );
}

/** The open step of the selected device, if any. */
export function useOpenStep(deviceId: string | undefined): TimelineEntry | undefined {
  const openStep = useInspector((s) => s.openStep);
  return useTimeline((s) => (deviceId && openStep ? s.byDevice[deviceId]?.find((e) => e.callId === openStep) : undefined));
}
