import { visibleText } from '@shared/model/visible-text';
import './Timeline.css';
/**
 * The action timeline of the selected device, newest first: per step the action, how its
 * target was resolved, the backend and fallback reason, the outcome class (done, nothing was run, may
 * have run, not sent: docs/rules.md#r-act-01) with the fail-closed reason, the device's own words, what
 * it means and what to do, the time per stage, and before / after thumbnails. A failed step stands out.
 * An action still running shows its stages as they happen until its step replaces it. Clicking a step
 * opens its before and after frames (StepDetail).
 */
import { memo, useEffect, useMemo, useState, type KeyboardEvent } from 'react';
import { isWithheld } from '@shared/act/secret';
import { backendText, describeRequest, describeSelector, describeTarget, formatMs, nodeTitleText, stageTimings, stepOutcome } from '@shared/inspect';
import type { ActionRequest, TargetSelector } from '@shared/protocol/action';
import type { ActionStep, DeviceSummary } from '@shared/protocol/device';
import { formatTime } from '@renderer/state/format';
import { useInspector } from '@renderer/state/store';
import { deviceBusy, useTimeline, type PendingAction, type TimelineEntry } from '@renderer/state/timeline';
import { PANE_STORAGE_PREFIX } from './Panes';

const EMPTY: readonly TimelineEntry[] = [];

/** One colour per stage position (tokens --stage-1 … --stage-8), so the bars of consecutive steps line up by stage. */
const STAGE_COLOURS = 8;

export function StageBar({ timings }: { timings: Readonly<Record<string, number>> }) {
  const { total, stages } = stageTimings(timings);
  return (
    <div className="stage-bar" title={stages.map((s) => `${s.stage} ${formatMs(s.ms)}`).join('\n') + `\ntotal ${formatMs(total)}`}>
      <div className="stage-track">
        {stages.map((s, i) => (
          <span
            key={s.stage}
            className="stage-seg"
            data-stage={s.stage}
            style={{ width: `${Math.max(1.5, s.share * 100)}%`, background: `var(--stage-${(i % STAGE_COLOURS) + 1})` }}
          />
        ))}
      </div>
      <div className="stage-text">
        <span className="stage-total">{formatMs(total)}</span>
        <span className="stage-list">{stages.map((s) => `${s.stage} ${formatMs(s.ms)}`).join(' · ')}</span>
      </div>
    </div>
  );
}

/** What the request named, in a few words ("picked login.submit", "keyboard focus", "whole screen"). */
export function selectorText(request: ActionStep['request'], selector: TargetSelector | undefined): string {
  if (request.action === 'swipe' && !selector) return 'whole screen';
  if (request.action === 'scrollTo') return selector ? describeSelector(selector) : 'screen';
  if (request.action === 'back' || request.action === 'launch' || request.action === 'openLink') return 'screen';
  if (request.action === 'webTool') return `web ${request.selector}`;
  // A picked box is named as its row is (`TextField "Email"`), never by an id a DOM made up (`e5`): docs/rules.md#r-layout-04.
  if (selector && 'node' in selector) return `picked ${nodeTitleText(selector.node)}`;
  return describeSelector(selector);
}

/**
 * Retry (docs/rules.md#r-rpl-09): a failed step's request sent again as a new action, only when the user
 * clicks, resolved afresh by the dispatcher on its own fresh read, and not while the device is busy.
 */
function RetryButton({ outcome, busy, onRetry }: { outcome: ReturnType<typeof stepOutcome>; busy: boolean; onRetry: () => void }) {
  const mayHaveRun = outcome.outcome === 'mayHaveRun';
  return (
    <button
      type="button"
      className="tool-button small step-retry"
      data-testid="step-retry"
      disabled={busy}
      title={
        busy
          ? 'The device is running another action'
          : mayHaveRun
            ? 'It may already have happened: check the screen first. Sends the same action again as a new step'
            : 'Sends the same action again as a new step, its target found again on the current screen'
      }
      onClick={(e) => {
        e.stopPropagation();
        onRetry();
      }}
    >
      {mayHaveRun ? 'Run again (it may have run)' : 'Run again'}
    </button>
  );
}

const StepRow = memo(function StepRow({
  entry,
  open,
  busy,
  onRetry,
}: {
  entry: TimelineEntry;
  open: boolean;
  busy: boolean;
  onRetry: ((request: ActionRequest) => void) | undefined;
}) {
  const { step, thumbs } = entry;
  const { result, request } = step;
  const outcome = stepOutcome(result);
  const selector = 'target' in request ? request.target : request.action === 'swipe' ? request.container : undefined;
  const cls = `timeline-step${outcome.ok ? ' is-ok' : ' is-failed'}${open ? ' is-open' : ''}`;
  return (
    <li
      className={cls}
      data-testid="timeline-step"
      data-call-id={step.callId}
      data-success={String(result.success)}
      data-backend={result.backend ?? ''}
      data-fallback={result.fallbackReason ?? ''}
      data-failure={result.failureReason ?? ''}
      data-outcome={outcome.outcome}
      data-action={request.action}
      aria-selected={open}
      role="option"
      onClick={() => useInspector.getState().openStepDetail(open ? null : step.callId)}
    >
      <div className="step-status">
        <span className={`step-icon ${outcome.ok ? 'ok' : 'bad'}`} aria-label={outcome.ok ? 'succeeded' : 'failed'}>
          {outcome.ok ? '✓' : '✕'}
        </span>
        <span className="step-time">{formatTime(step.startedAt)}</span>
        <span className="step-call">{step.callId}</span>
      </div>
      <div className="step-action">
        <span className="step-verb">{describeRequest(request)}</span>
        <span className="step-selector" title="what the request named">
          {visibleText(selectorText(request, selector))}
        </span>
      </div>
      <div className="step-target" data-testid="step-target" data-resolved-by={result.target.resolvedBy} title={visibleText(describeTarget(result.target))}>
        <span className="step-label">target</span>
        {visibleText(describeTarget(result.target))}
      </div>
      <div className="step-backend">
        <span className={`chip backend-${result.backend ?? 'none'}`} data-testid="step-backend">
          {backendText(result)}
        </span>
        {result.fallbackReason && (
          <span className="chip backend-fallback" data-testid="step-fallback" title="XCTest stood in for the bridge">
            fallback: {result.fallbackReason}
          </span>
        )}
      </div>
      <div className="step-outcome">
        <span className={`chip outcome-${outcome.ok ? 'ok' : 'bad'}`} data-testid="step-outcome">
          {outcome.ok ? 'done' : outcome.label}
        </span>
        {!outcome.ok && (
          <span
            className={`chip outcome-class class-${outcome.outcome}`}
            data-testid="step-outcome-class"
            title={
              outcome.outcome === 'mayHaveRun'
                ? 'It may already have happened: observe before repeating it'
                : outcome.outcome === 'refused'
                  ? 'Parallax sent nothing to the device'
                  : 'The device said it did nothing'
            }
          >
            {outcome.outcomeText}
          </span>
        )}
        {result.durationIgnored && <span className="chip plain">duration ignored</span>}
      </div>
      <StageBar timings={result.timings} />
      <div className="step-thumbs">
        <Thumb src={thumbs.before} label="before" testid="step-thumb-before" present={step.before?.screenshot != null || thumbs.before !== undefined} />
        <span className="thumb-arrow">→</span>
        <Thumb src={thumbs.after} label="after" testid="step-thumb-after" present={step.after?.screenshot != null || thumbs.after !== undefined} />
      </div>
      {(!outcome.ok || result.warnings.length > 0) && (
        <div className="step-notes">
          {outcome.deviceMessage && (
            <div className="step-device-message" data-testid="step-device-message" title={outcome.deviceMessage}>
              the device said: {outcome.deviceMessage}
            </div>
          )}
          {outcome.explanation && (
            <div className="step-explanation" data-testid="step-explanation" data-reason={outcome.failureReason}>
              <span className="explain-meaning">{outcome.explanation.meaning}</span>{' '}
              <span className="explain-todo">
                <strong>What to do:</strong> {outcome.explanation.whatToDo}
              </span>
            </div>
          )}
          {result.warnings.length > 0 && (
            <div className="step-warnings" data-testid="step-warnings" title={result.warnings.join('\n')}>
              ⚠ {result.warnings.join(' · ')}
            </div>
          )}
          {!outcome.ok && onRetry && !isWithheld(request) && <RetryButton outcome={outcome} busy={busy} onRetry={() => onRetry(request)} />}
          {!outcome.ok && onRetry && isWithheld(request) && (
            // The kept request types nothing (docs/rules.md#r-secret-14): sent again it would type nothing, or clear the field.
            <span
              className="step-retry-withheld"
              data-testid="step-retry-withheld"
              title="Parallax keeps no typed text it could not tell was not a secret, so this step cannot be sent again as it was: type the text again in the type bar"
            >
              Not kept: type it again to run it again
            </span>
          )}
        </div>
      )}
    </li>
  );
});

function Thumb({ src, label, testid, present }: { src: string | undefined; label: string; testid: string; present: boolean }) {
  if (src) return <img className="step-thumb" data-testid={testid} src={src} alt={`${label} the action`} title={label} />;
  return (
    <span className="step-thumb empty" data-testid={`${testid}-missing`} title={present ? `${label}: rendering…` : `no ${label} screenshot`}>
      {present ? '…' : '∅'}
    </span>
  );
}

/** Seconds since `since`, ticking while the row is on screen. */
function useElapsed(since: number, running: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(timer);
  }, [running]);
  return Math.max(0, now - since);
}

function PendingRow({ pending }: { pending: PendingAction }) {
  const failed = pending.error !== undefined;
  const lost = pending.lost !== undefined;
  const elapsed = useElapsed(pending.startedAt, !failed);
  const stage = pending.stages.at(-1)?.stage;
  return (
    <li
      className={`timeline-step pending${failed ? ' is-failed call-failed' : ''}${lost ? ' host-lost' : ''}`}
      data-testid="timeline-pending"
      data-error={pending.error ?? ''}
      data-lost={String(lost)}
      data-stage={stage ?? ''}
      data-call-id={pending.callId ?? ''}
    >
      <div className="step-status">
        <span className={`step-icon ${failed ? 'bad' : 'busy'}`}>{failed ? '✕' : '◌'}</span>
        <span className="step-time">{formatTime(pending.startedAt)}</span>
      </div>
      <div className="step-action">
        <span className="step-verb">{describeRequest(pending.request)}</span>
        <span className="step-selector">
          {selectorText(
            pending.request,
            'target' in pending.request ? pending.request.target : pending.request.action === 'swipe' ? pending.request.container : undefined,
          )}
        </span>
      </div>
      <div className="step-pending-text">
        {failed ? (
          <>
            The host refused the call: {pending.error}{' '}
            <button type="button" className="link-button dark" onClick={() => useTimeline.getState().dismiss(pending.id)}>
              dismiss
            </button>
          </>
        ) : (
          <>
            {lost
              ? `The connection to the host was lost while it ran (${pending.lost}); it may have run, and its result appears here when the host reports it. `
              : `running ${formatMs(elapsed)}${stage ? ` · ${stage}` : ''} `}
            {pending.stages.length > 0 && (
              <span className="pending-stages" data-testid="pending-stages">
                {pending.stages.map((s) => s.stage).join(' → ')}
              </span>
            )}
            {lost && (
              <button type="button" className="link-button dark" onClick={() => useTimeline.getState().dismiss(pending.id)}>
                stop waiting
              </button>
            )}
          </>
        )}
      </div>
    </li>
  );
}

/** The timeline's height and whether it is collapsed, kept across reloads beside the other panes' sizes (docs/rules.md#r-layout-03). */
interface TimelinePane {
  height: number | null;
  collapsed: boolean;
}

const TIMELINE_PANE_KEY = `${PANE_STORAGE_PREFIX}timeline`;

function useTimelinePane(): [TimelinePane, (pane: TimelinePane) => void] {
  const [saved] = useState<TimelinePane>(() => {
    try {
      const raw: unknown = JSON.parse(window.localStorage.getItem(TIMELINE_PANE_KEY) ?? 'null');
      if (raw && typeof raw === 'object') {
        const { height, collapsed } = raw as Record<string, unknown>;
        return { height: typeof height === 'number' && Number.isFinite(height) && height >= 90 ? height : null, collapsed: collapsed === true };
      }
    } catch {
      // No storage (a sandboxed frame) or a value someone else wrote: the defaults.
    }
    return { height: null, collapsed: false };
  });
  const save = (pane: TimelinePane) => {
    try {
      window.localStorage.setItem(TIMELINE_PANE_KEY, JSON.stringify(pane));
    } catch {
      // Kept for this page only.
    }
  };
  return [saved, save];
}

export function Timeline({ device, onRetry }: { device: DeviceSummary | undefined; onRetry?: (request: ActionRequest) => void }) {
  const entries = useTimeline((s) => (device ? s.byDevice[device.id] : undefined)) ?? EMPTY;
  const allPending = useTimeline((s) => s.pending);
  const pending = useMemo(() => allPending.filter((p) => p.deviceId === device?.id), [allPending, device?.id]);
  const openStep = useInspector((s) => s.openStep);
  const [saved, save] = useTimelinePane();
  const [collapsed, setCollapsedState] = useState(saved.collapsed);
  const [height, setHeight] = useState<number | null>(saved.height);
  const setCollapsed = (next: boolean) => {
    setCollapsedState(next);
    save({ height, collapsed: next });
  };
  const [dragging, setDragging] = useState(false);
  const failed = entries.filter((e) => !e.step.result.success).length;
  const busy = device ? deviceBusy(pending, device.id) : true;
  const retry = device?.state === 'connected' ? onRetry : undefined;

  const onKeyDown = (e: KeyboardEvent<HTMLOListElement>) => {
    const at = entries.findIndex((entry) => entry.callId === openStep);
    const { openStepDetail } = useInspector.getState();
    if (e.key === 'ArrowDown') openStepDetail(entries[Math.min(entries.length - 1, at + 1)]?.callId ?? null);
    else if (e.key === 'ArrowUp') openStepDetail(entries[Math.max(0, at - 1)]?.callId ?? null);
    else if (e.key === 'Escape') openStepDetail(null);
    else return;
    e.preventDefault();
  };

  return (
    <section
      className={`timeline-panel${collapsed ? ' collapsed' : ''}`}
      data-testid="timeline"
      data-count={entries.length}
      aria-label="Action timeline"
      style={!collapsed && height !== null ? { height } : undefined}
    >
      {!collapsed && (
        <div
          className={`timeline-resize${dragging ? ' dragging' : ''}`}
          role="separator"
          aria-orientation="horizontal"
          aria-label="Resize the timeline"
          onPointerDown={(e) => {
            const panel = e.currentTarget.parentElement;
            if (!panel) return;
            e.currentTarget.setPointerCapture(e.pointerId);
            const startY = e.clientY;
            const startHeight = panel.getBoundingClientRect().height;
            setDragging(true);
            let last = startHeight;
            const move = (ev: PointerEvent) => {
              last = Math.round(Math.max(90, Math.min(window.innerHeight * 0.7, startHeight + startY - ev.clientY)));
              setHeight(last);
            };
            const up = () => {
              setDragging(false);
              save({ height: last, collapsed: false });
              window.removeEventListener('pointermove', move);
              window.removeEventListener('pointerup', up);
            };
            window.addEventListener('pointermove', move);
            window.addEventListener('pointerup', up);
          }}
        />
      )}
      <header className="timeline-head">
        <button type="button" className="timeline-collapse" onClick={() => setCollapsed(!collapsed)} aria-expanded={!collapsed}>
          {collapsed ? '▸' : '▾'}
        </button>
        <span className="timeline-title">Timeline</span>
        <span className="timeline-counts">
          {entries.length === 0 ? 'no actions yet' : `${entries.length} ${entries.length === 1 ? 'step' : 'steps'}`}
          {failed > 0 && <span className="timeline-failed"> · {failed} failed</span>}
        </span>
        {device && <span className="timeline-device">{device.name}</span>}
        <span className="spacer" />
        {!collapsed && entries.length > 0 && <span className="muted">click a step for its before / after frames</span>}
        {device && entries.length > 0 && (
          <button type="button" className="tool-button small" onClick={() => useTimeline.getState().clear(device.id)}>
            Clear
          </button>
        )}
      </header>
      {!collapsed && (
        <>
          <div className="timeline-columns" aria-hidden>
            <span>Status</span>
            <span>Action</span>
            <span>
              <span className="col-wide">Target (how it was resolved)</span>
              <span className="col-narrow">Target · backend</span>
            </span>
            <span className="col-wide">Backend</span>
            <span>
              <span className="col-wide">Outcome</span>
              <span className="col-narrow">Outcome · time per stage</span>
            </span>
            <span className="col-wide">Time per stage</span>
            <span>Before → after</span>
          </div>
          <ol className="timeline-list" role="listbox" tabIndex={0} onKeyDown={onKeyDown} aria-label="Steps, newest first">
            {pending.map((p) => (
              <PendingRow key={p.id} pending={p} />
            ))}
            {entries.map((entry) => (
              <StepRow key={entry.callId} entry={entry} open={entry.callId === openStep} busy={busy} onRetry={retry} />
            ))}
            {entries.length === 0 && pending.length === 0 && (
              <li className="timeline-empty">
                Switch the screen to <strong>Interact</strong> (key <kbd>I</kbd>) and click, hold or drag on it: every action lands here with its backend, its
                fallback or fail-closed reason and its before / after frames.
              </li>
            )}
          </ol>
        </>
      )}
    </section>
  );
}
