// @vitest-environment jsdom
/**
 * A replayed step's figures beside the recorded ones (docs/rules.md#r-perfstep-05), as the trace view
 * shows them: both sides in one table, each side flagged against the one threshold the view sets.
 */
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { StepPerf as StepPerfData } from '@shared/protocol/perf';
import { rollupWith } from '../support/perf';
import { DEFAULT_MEMORY_THRESHOLD_MB } from '@shared/trace/perf-step';
import { ReplayPerfFigures } from '@renderer/components/ReplayPerf';
import { StepPerf } from '@renderer/components/StepPerf';
import { useMemoryThreshold } from '@renderer/state/memory-threshold';

const perf = (before: number, after: number, cpu = 9): StepPerfData => ({ before: rollupWith(before, 4), after: rollupWith(after, cpu) });
const cells = (figure: string) =>
  within(screen.getAllByTestId('replay-perf-row').find((row) => row.dataset.figure === figure)!)
    .getAllByRole('cell')
    .map((c) => c.textContent);

afterEach(() => {
  cleanup();
  window.localStorage.clear();
  useMemoryThreshold.setState({ thresholdMb: DEFAULT_MEMORY_THRESHOLD_MB });
});

describe('ReplayPerf', () => {
  it('R-PERFSTEP-05: recorded and replayed figures side by side; the replayed side that grew past 20 MB is flagged', () => {
    render(<ReplayPerfFigures perf={{ recorded: perf(100, 104, 7), replayed: perf(100, 150, 30) }} />);
    const table = screen.getByTestId('replay-perf');
    expect(cells('cpu after (%)')).toEqual(['7.0', '30.0']);
    expect(cells('memory after (MB)')).toEqual(['104.0', '150.0']);
    expect(cells('memory growth (MB)')).toEqual(['4.0', '50.0']);
    expect(table.dataset.flaggedReplayed).toBe('true');
    expect(table.dataset.flaggedRecorded).toBe('false');
    expect(screen.getByRole('alert').textContent).toBe('Memory grew over 20 MB when replayed (not when recorded)');
  });

  it('R-PERFSTEP-05: the threshold set in the step’s window re-judges the replay’s figures too; a side without a window reads —', () => {
    render(
      <>
        <StepPerf perf={perf(100, 104)} />
        <ReplayPerfFigures perf={{ recorded: perf(100, 104), replayed: perf(100, 110) }} />
      </>,
    );
    expect(screen.getByTestId('replay-perf').dataset.flaggedReplayed).toBe('false');
    // One input: the recorded step's window holds it.
    expect(screen.getAllByLabelText('memory growth threshold (MB)')).toHaveLength(1);
    fireEvent.change(screen.getByLabelText('memory growth threshold (MB)'), { target: { value: '5' } });
    expect(screen.getByTestId('replay-perf').dataset.flaggedReplayed).toBe('true');
    expect(screen.getByTestId('replay-perf').dataset.flaggedRecorded).toBe('false');
    cleanup();
    render(<ReplayPerfFigures perf={{ replayed: perf(100, 110) }} />);
    expect(cells('memory after (MB)')).toEqual(['—', '110.0']);
    // No recorded window, so no StepPerf: the threshold's input is here.
    expect((screen.getByLabelText('memory growth threshold (MB)') as HTMLInputElement).value).toBe('5');
  });

  it('R-PERFSTEP-05: a step the replay kept no perf for shows nothing', () => {
    render(<ReplayPerfFigures perf={undefined} />);
    expect(screen.queryByTestId('replay-perf')).toBeNull();
  });
});
