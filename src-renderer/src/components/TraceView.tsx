import './TraceView.css';
/**
 * A trace reopened offline: its manifest, a filmstrip of its steps, the selected step's before
 * and after screenshots with their boxes, the tree and attributes of either frame, and the step's result.
 * A damaged or foreign file shows what is wrong with it instead.
 */
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { pickStackAt } from '@shared/inspect';
import type { TraceOpened, TraceViewStep } from '@shared/api/api';
import type { Frame } from '@shared/protocol/device';
import { useApi } from '@renderer/api/queries';
import { errorMessage, formatTime } from '@renderer/state/format';
import { useInspector } from '@renderer/state/store';
import { openTraceFromFile, useTraceView } from '@renderer/state/trace-view';
import { useSeen } from '@renderer/hooks/useSeen';
import { Attributes } from './Attributes';
import { ReplayBadge, ReplayPanel, ReplayStepResult } from './ReplayPanel';
import { Screen } from './Screen';
import { ExportButtons } from './ExportMaestro';
import { TraceComparisons } from './TraceComparisons';
import { ResultFacts } from './StepDetail';
import { useReplayedFrame, useTraceFrame, useTraceResource } from '@renderer/hooks/useTraceResources';
import { SCREEN_DIFF_LABELS, type ScreenComparison } from '@shared/compare/screens';
import { stepReplayState, useReplay } from '@renderer/state/replay';
import { TraceAppState } from './AppPanel';
import { Tree } from './Tree';
import { indexTree } from '@shared/model/tree';
import { StepPerf } from './StepPerf';
import { StepFindings, useStoredFrameAudit } from './StepFindings';
import { auditMarks, findingsByNode, type FindingMark } from './AccessibilityMarks';
import { TraceEditor } from './TraceEditor';
import { ReplayPerf } from './ReplayPerf';

/** The "Open trace…" button: a file input under a label. */
export function OpenTraceButton() {
  const api = useApi();
  return (
    <label className="mini-button open-trace" title="Open a .parallax-trace file (or drop one anywhere)">
      Open trace…
      <input
        type="file"
        data-testid="open-trace"
        accept=".parallax-trace,application/zip"
        hidden
        onChange={(e) => {
          const file = e.currentTarget.files?.[0];
          e.currentTarget.value = '';
          if (file) void openTraceFromFile(api, file);
        }}
      />
    </label>
  );
}

type Side = 'before' | 'after';

function TraceFrame({
  label,
  testId,
  frame,
  loading,
  error,
  active,
  onActivate,
  marks = EMPTY,
  emptyText = 'Not recorded.',
  findingMarks,
  gesture,
}: {
  label: string;
  testId: string;
  frame: Frame | undefined;
  loading: boolean;
  error: unknown;
  active: boolean;
  onActivate(): void;
  /** Nodes to outline (what a replay found different), by key in this frame's tree. */
  marks?: ReadonlySet<string>;
  /** What an absent frame says. */
  emptyText?: string;
  /** The step's accessibility findings on this frame (docs/rules.md#r-a11y-21). */
  findingMarks?: readonly FindingMark[] | undefined;
  /** The step's gesture, drawn where the finger went (the before frame: where it was aimed). */
  gesture?: TraceViewStep['gesture'];
}) {
  const tree = useMemo(() => indexTree(frame?.observation?.viewHierarchy?.hierarchy), [frame]);
  const pickX = useInspector((s) => (active ? s.pick?.x : undefined));
  const pickY = useInspector((s) => (active ? s.pick?.y : undefined));
  const pickStack = useMemo(() => (pickX === undefined || pickY === undefined ? [] : pickStackAt(tree.nodes, pickX, pickY)), [tree, pickX, pickY]);
  const placeholder = error ? `Cannot read this frame: ${errorMessage(error)}` : loading ? 'Loading…' : !frame ? emptyText : null;
  return (
    <section
      className={`trace-frame${active ? ' active' : ''}`}
      data-testid={testId}
      data-active={String(active)}
      data-has-screenshot={String(Boolean(frame?.screenshot))}
      onPointerDownCapture={onActivate}
    >
      <div className="trace-frame-label">{label}</div>
      <div className="trace-frame-stage">
        <Screen
          frame={frame}
          nodes={tree.nodes}
          matchKeys={marks}
          pickStack={pickStack}
          mismatch={false}
          placeholder={placeholder}
          findingMarks={findingMarks}
          gesture={gesture}
        />
      </div>
    </section>
  );
}
const EMPTY: ReadonlySet<string> = new Set();

type LoadedFrame = { frame: Frame | undefined; loading: boolean; error: unknown };

/** The keys a comparison marks on one side: every difference's node there, and the target's. */
function marksOf(comparison: ScreenComparison | undefined, side: 'recordedKey' | 'replayedKey', target?: string): ReadonlySet<string> {
  const keys = new Set<string>();
  for (const d of comparison?.differences ?? []) if (d[side] !== undefined) keys.add(d[side]!);
  if (target !== undefined) keys.add(target);
  return keys;
}

function ScreenDiff({ title, comparison }: { title: string; comparison: ScreenComparison | undefined }) {
  if (!comparison) return null;
  return (
    <div className="replay-screen-diff" data-testid="replay-screen-diff" data-differs={String(comparison.differs)}>
      <strong>{title}:</strong> {comparison.summary}
      {comparison.differences.length > 0 && (
        <ul>
          {comparison.differences.map((d, i) => (
            <li key={i}>
              <span className="mono">{SCREEN_DIFF_LABELS[d.class]}</span> {d.detail}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/**
 * The selected step's replay beside its recording (docs/rules.md#r-rpl-05): recorded and replayed
 * before-frames, recorded and replayed after-frames, each with what differs outlined, and the tree
 * diffs in words. Shown once the step has been replayed.
 */
function ReplaySideBySide({
  path,
  step,
  recordedBefore,
  recordedAfter,
}: {
  path: string;
  step: TraceViewStep;
  recordedBefore: LoadedFrame;
  recordedAfter: LoadedFrame;
}) {
  const run = useReplay((s) => s.run);
  const state = stepReplayState(run, path, step.callId);
  const replayed = state && 'step' in state ? state.step : undefined;
  const runId = run?.id ?? 0;
  const before = useReplayedFrame(path, step.callId, 'before', replayed?.replayed.frames.before ?? false, runId);
  const after = useReplayedFrame(path, step.callId, 'after', replayed?.replayed.frames.after ?? false, runId);
  const [active, setActive] = useState<string>('replayed-before');
  if (!replayed) return null;
  const { screens, target } = replayed;
  const absent = (kept: boolean) => (kept ? undefined : 'The replay kept no frame here.');
  const frames: { id: string; label: string; loaded: LoadedFrame; marks: ReadonlySet<string>; missing?: string | undefined }[] = [
    { id: 'recorded-before', label: 'Recorded before', loaded: recordedBefore, marks: marksOf(screens.before, 'recordedKey', target?.recordedKey) },
    {
      id: 'replayed-before',
      label: `Replayed before${replayed.replayed.beforeTime !== undefined ? ` · ${formatTime(replayed.replayed.beforeTime)}` : ''}`,
      loaded: before,
      marks: marksOf(screens.before, 'replayedKey', target?.replayedKey),
      missing: absent(replayed.replayed.frames.before),
    },
    { id: 'recorded-after', label: 'Recorded after', loaded: recordedAfter, marks: marksOf(screens.after, 'recordedKey') },
    {
      id: 'replayed-after',
      label: `Replayed after${replayed.replayed.afterTime !== undefined ? ` · ${formatTime(replayed.replayed.afterTime)}` : ''}`,
      loaded: after,
      marks: marksOf(screens.after, 'replayedKey'),
      missing: absent(replayed.replayed.frames.after),
    },
  ];
  return (
    <section className="replay-side-by-side" data-testid="replay-side-by-side">
      <div className="replay-side-frames">
        {frames.map((f) => (
          <TraceFrame
            key={f.id}
            label={f.label}
            testId={`replay-frame-${f.id}`}
            frame={f.loaded.frame}
            loading={f.loaded.loading}
            error={f.loaded.error}
            {...(f.missing ? { emptyText: f.missing } : {})}
            active={active === f.id}
            onActivate={() => setActive(f.id)}
            marks={f.marks}
          />
        ))}
      </div>
      <ScreenDiff title="Screen before" comparison={screens.before} />
      <ScreenDiff title="Screen after" comparison={screens.after} />
    </section>
  );
}

/**
 * The recorded step as the live timeline showed it (docs/rules.md#r-rpl-08): the action with its
 * parameters, the target and how it was resolved, backend, fallback, the failure with its explanation
 * and the device's words, time per stage. A trace of an older writer without the whole result shows its summary.
 */
function StepResult({ step }: { step: TraceViewStep }) {
  const result = step.result;
  return (
    <div className="trace-result" data-testid="trace-result" data-success={String(result?.success ?? false)}>
      {step.label && <span data-testid="trace-step-label">{step.label} · </span>}
      <strong data-testid="trace-action">
        {step.action}
        {step.target ? ` · ${step.target}` : ''}
        {step.variable ? ` · the variable ${step.variable}` : ''}
      </strong>
      {result === null ? (
        <span className="bad">in flight when the trace stopped</span>
      ) : step.actionResult ? (
        <div className="trace-facts detail-facts">
          <ResultFacts result={step.actionResult} />
        </div>
      ) : (
        <span className={result.success ? 'ok' : 'bad'}>
          {result.success ? 'succeeded' : 'failed'}
          {result.backend ? ` via ${result.backend}` : ''}
          {result.fallbackReason ? ` (fallback: ${result.fallbackReason})` : ''}
          {result.failureReason ? `: ${result.failureReason}` : ''}
          {step.durationMs !== undefined ? ` · ${Math.round(step.durationMs)} ms` : ''}
        </span>
      )}
    </div>
  );
}

function Thumb({ path, step, index, selected, onSelect }: { path: string; step: TraceViewStep; index: number; selected: boolean; onSelect(): void }) {
  const button = useRef<HTMLButtonElement>(null);
  const shotRef = step.after?.screenshotRef ?? step.before?.screenshotRef;
  const hasShot = shotRef !== undefined;
  const shot = useTraceResource(path, shotRef, 'png', useSeen(button));
  const success = step.result?.success ?? false;
  return (
    <button
      ref={button}
      type="button"
      className={`trace-step${selected ? ' selected' : ''}${success ? '' : ' failed'}`}
      data-testid="trace-step"
      data-success={String(success)}
      data-selected={String(selected)}
      title={`${step.action}${step.target ? ` ${step.target}` : ''}: ${step.statusText}`}
      onClick={onSelect}
    >
      {shot.data ? (
        <img alt="" src={`data:image/png;base64,${shot.data.dataBase64}`} />
      ) : (
        <span className="trace-thumb-empty">{!hasShot ? 'no screenshot' : shot.isError ? 'unreadable' : '…'}</span>
      )}
      <span className="trace-step-caption">
        {index + 1}. {step.label ?? step.action}
        {success ? '' : ' ✕'}
      </span>
      <ReplayBadge path={path} callId={step.callId} />
    </button>
  );
}

function Shell({ children, title, actions }: { children: ReactNode; title: ReactNode; actions?: ReactNode }) {
  const close = useTraceView((s) => s.close);
  return (
    <div className="trace-view" data-testid="trace-view">
      <div className="trace-header">
        {title}
        <span className="spacer" />
        {actions}
        <button
          type="button"
          className="mini-button"
          data-testid="trace-close"
          onClick={() => {
            useInspector.getState().selectNode(null);
            close();
          }}
        >
          Close
        </button>
      </div>
      {children}
    </div>
  );
}

export function TraceView() {
  const { opening, trace, error } = useTraceView();
  if (opening) return <Shell title={<span>Opening {opening}…</span>}>{null}</Shell>;
  if (error || !trace) {
    return (
      <Shell title={<span>Trace</span>}>
        <div className="banner error trace-error" data-testid="trace-error" role="alert">
          {error ?? 'No trace is open.'}
        </div>
      </Shell>
    );
  }
  return <OpenTrace key={trace.path} trace={trace} />;
}

function OpenTrace({ trace }: { trace: TraceOpened }) {
  const [index, setIndex] = useState(0);
  const [side, setSide] = useState<Side>('after');
  const step = trace.steps[index];
  const beforeTime = step?.before?.time ?? step?.startTime ?? 0;
  const afterTime = step?.after?.time ?? (step?.startTime ?? 0) + (step?.durationMs ?? 0);
  const before = useTraceFrame(trace.path, step?.before, beforeTime);
  const after = useTraceFrame(trace.path, step?.after, afterTime);
  const shown = side === 'before' ? before.frame : after.frame;
  const tree = useMemo(() => indexTree(shown?.observation?.viewHierarchy?.hierarchy), [shown]);
  // The shown frame's findings, audited offline by the host from what the trace stored (docs/rules.md#r-a11y-21).
  const shownRefs = side === 'before' ? step?.before : step?.after;
  const stepAudit = useStoredFrameAudit(trace.path, shownRefs);
  const [focused, setFocused] = useState<string | null>(null);
  const findingMarks = useMemo(() => auditMarks(stepAudit.data?.audit?.violations ?? [], [], focused), [stepAudit.data, focused]);
  const markedNodes = useMemo(() => findingsByNode(findingMarks), [findingMarks]);
  const { manifest } = trace;
  // When a replay of this trace ends, its first step that did not match is the one shown (issue 27).
  const ended = useReplay((s) => (s.run?.path === trace.path && !s.run.running ? s.run.report : null));
  useEffect(() => {
    const first = ended?.steps.find((s) => s.verdict !== 'matched');
    const at = first ? trace.steps.findIndex((s) => s.callId === first.callId) : -1;
    if (at < 0) return;
    useInspector.getState().selectNode(null);
    setIndex(at);
  }, [ended, trace.steps]);
  const activate = (next: Side) => {
    if (next === side) return;
    useInspector.getState().selectNode(null);
    setSide(next);
  };

  return (
    <Shell
      actions={<ExportButtons path={trace.path} />}
      title={
        <span className="trace-manifest" data-testid="trace-manifest">
          <strong>{manifest.device.name}</strong> ({manifest.device.kind})
          {manifest.app ? ` · ${manifest.app.name ?? manifest.app.bundleId}${manifest.app.version ? ` ${manifest.app.version}` : ''}` : ''} · recorded{' '}
          {new Date(manifest.createdAt).toLocaleString()} · {trace.steps.length} step{trace.steps.length === 1 ? '' : 's'}
          {manifest.edited ? <span data-testid="trace-edited"> · edited copy of {manifest.edited.from}</span> : null}
          {trace.comparisons.length > 0 ? ` · ${trace.comparisons.length} comparison${trace.comparisons.length === 1 ? '' : 's'}` : ''}
          <span className="mono trace-path" title={trace.path}>
            {' '}
            {trace.path}
          </span>
        </span>
      }
    >
      {trace.warnings.map((w) => (
        <div key={w} className="banner warn">
          {w}
        </div>
      ))}
      <ReplayPanel trace={trace} />
      <TraceComparisons trace={trace} />
      <div className="trace-filmstrip" data-testid="trace-filmstrip">
        {trace.steps.length === 0 && <span className="muted">This trace holds no actions.</span>}
        {trace.steps.map((s, i) => (
          <Thumb
            key={s.callId}
            path={trace.path}
            step={s}
            index={i}
            selected={i === index}
            onSelect={() => {
              useInspector.getState().selectNode(null);
              setIndex(i);
            }}
          />
        ))}
      </div>
      {step && (
        <div className="trace-body">
          <div className="trace-main">
            {/* The step's result beside its frames, not above them: the before / after pictures get the window's
                height, as large as the live phone (docs/rules.md#r-layout-06). */}
            <div className="trace-step-row">
              <div className="trace-step-facts">
                <StepResult step={step} />
                <ReplayStepResult path={trace.path} callId={step.callId} />
              </div>
              <div className="trace-frames">
                <TraceFrame
                  label={`Before · ${formatTime(beforeTime)}`}
                  testId="trace-before"
                  {...before}
                  gesture={step.gesture}
                  active={side === 'before'}
                  onActivate={() => activate('before')}
                  findingMarks={side === 'before' ? findingMarks : undefined}
                />
                <TraceFrame
                  label={step.after ? `After · ${formatTime(afterTime)}` : 'After'}
                  testId="trace-after"
                  {...after}
                  active={side === 'after'}
                  onActivate={() => activate('after')}
                  findingMarks={side === 'after' ? findingMarks : undefined}
                />
              </div>
            </div>
            {/* Under the frames, not above: the before / after pictures stay whole in the window (docs/rules.md#r-layout-06). */}
            <StepPerf perf={step.perf} />
            <ReplayPerf path={trace.path} callId={step.callId} />
            {/* Under the frames too, for the same reason. */}
            <TraceEditor key={trace.path} trace={trace} step={step} index={index} />
            <ReplaySideBySide path={trace.path} step={step} recordedBefore={before} recordedAfter={after} />
          </div>
          <aside className="inspector trace-inspector">
            <Tree tree={tree} matchKeys={EMPTY} frameContext={undefined} findings={markedNodes} />
            <Attributes tree={tree} />
            <StepFindings
              key={`${shownRefs?.observationRef ?? ''}|${side}`}
              path={trace.path}
              refs={shownRefs}
              side={side}
              audit={stepAudit}
              focused={focused}
              onFocus={(finding) => {
                setFocused(finding.fingerprint);
                useInspector.getState().selectNode(finding.nodeKey);
              }}
            />
            {step.appStateRef && <TraceAppState path={trace.path} appStateRef={step.appStateRef} />}
          </aside>
        </div>
      )}
    </Shell>
  );
}
