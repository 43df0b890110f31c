import './TraceComparisons.css';
/**
 * The comparisons saved into a trace, listed beside its filmstrip by their summary; one opens in the
 * same side-by-side view as a live comparison, built from the trace's resources alone (both trees, the
 * screenshot, the saved diff), so it needs no device.
 */
import { useMemo, useState } from 'react';
import { diffTrees } from '@shared/compare/diff';
import { summaryText } from '@shared/compare/sides';
import type { TraceComparison, TraceOpened } from '@shared/api/api';
import { errorMessage, formatTime } from '@renderer/state/format';
import { CompareView, type ComparisonShown } from './CompareView';
import { useTraceFrame, useTraceResource } from '@renderer/hooks/useTraceResources';

export function TraceComparisons({ trace }: { trace: TraceOpened }) {
  const [open, setOpen] = useState<number | null>(null);
  if (trace.comparisons.length === 0) return null;
  const opened = open === null ? undefined : trace.comparisons[open];
  return (
    <>
      <div className="trace-comparisons" data-testid="trace-comparisons">
        <span className="trace-comparisons-title">Comparisons</span>
        {trace.comparisons.map((comparison, i) => (
          <button
            key={comparison.callId}
            type="button"
            className="mini-button trace-comparison"
            data-testid="trace-comparison"
            data-call-id={comparison.callId}
            onClick={() => setOpen(i)}
          >
            Comparison {i + 1} · {formatTime(comparison.time)}: {summaryText(comparison.summary)}
          </button>
        ))}
      </div>
      {opened && open !== null && <SavedComparison key={opened.callId} path={trace.path} comparison={opened} number={open + 1} onClose={() => setOpen(null)} />}
    </>
  );
}

function SavedComparison({ path, comparison, number, onClose }: { path: string; comparison: TraceComparison; number: number; onClose(): void }) {
  // The screenshot was taken with the SDK-backed read; the view shows it on both sides.
  const xctestRefs = useMemo(() => ({ observationRef: comparison.xctestObservationRef }), [comparison]);
  const sdkRefs = useMemo(
    () => ({ observationRef: comparison.sdkObservationRef, ...(comparison.screenshotRef ? { screenshotRef: comparison.screenshotRef } : {}) }),
    [comparison],
  );
  const xctest = useTraceFrame(path, xctestRefs, comparison.time);
  const sdk = useTraceFrame(path, sdkRefs, comparison.time);
  const savedDiff = useTraceResource(path, comparison.diffRef, 'comparison');

  const built = useMemo((): { shown: ComparisonShown } | { problem: string } | null => {
    if (xctest.loading || sdk.loading || savedDiff.isLoading) return null;
    const xctestRoot = xctest.frame?.observation?.viewHierarchy?.hierarchy;
    const sdkRoot = sdk.frame?.observation?.viewHierarchy?.hierarchy;
    if (!xctest.frame || !sdk.frame || !xctestRoot || !sdkRoot) return { problem: 'the trace lacks the tree of one of the two reads' };
    const frames = { xctest: xctest.frame, sdk: sdk.frame };
    // A trace written without the diff still has both trees: diff them here, as the host would have.
    if (!comparison.diffRef) return { shown: { ...frames, diff: diffTrees(xctestRoot, sdkRoot), sameScreen: null } };
    if (!savedDiff.data) return null;
    const { stamps: _stamps, sameScreen, ...diff } = savedDiff.data.comparison;
    return { shown: { ...frames, diff, sameScreen } };
  }, [xctest.frame, xctest.loading, sdk.frame, sdk.loading, savedDiff.data, savedDiff.isLoading, comparison.diffRef]);

  const error = xctest.error ?? sdk.error ?? savedDiff.error;
  const title = (
    <span className="compare-title">
      <strong>Comparison {number}</strong> · saved {formatTime(comparison.time)}
    </span>
  );
  const close = (
    <button type="button" className="mini-button" data-testid="compare-close" onClick={onClose}>
      Close
    </button>
  );
  return (
    <div className="compare-overlay" data-testid="trace-comparison-view">
      {built && 'shown' in built ? (
        <CompareView comparison={built.shown} title={title} actions={close} />
      ) : (
        <div className="compare-view">
          <div className="compare-header">
            {title}
            <span className="spacer" />
            {close}
          </div>
          <div className={`banner ${error || built ? 'warn' : 'info'}`} data-testid="trace-comparison-status">
            {error ? `Cannot read this comparison: ${errorMessage(error)}` : built ? `Cannot read this comparison: ${built.problem}` : 'Loading…'}
          </div>
        </div>
      )}
    </div>
  );
}
