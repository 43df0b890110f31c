// @vitest-environment jsdom
/**
 * A trace step's perf window as a QA engineer reads it (docs/rules.md#r-perfstep-04): before and after
 * figures, the growth flag against the threshold set in the view, and the threshold kept across a reload.
 */
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { StepPerf as StepPerfData } from '@shared/protocol/perf';
import { rollupWith } from '../support/perf';
import { StepPerf } from '@renderer/components/StepPerf';
import { THRESHOLD_STORAGE_KEY } from '@renderer/state/memory-threshold';

const perf = (before: number, after: number): StepPerfData => ({ before: rollupWith(before, 4), after: rollupWith(after, 9) });

afterEach(() => {
  cleanup();
  window.localStorage.clear();
});

describe('StepPerf', () => {
  it('R-PERFSTEP-04: a step whose memory grew more than the default 20 MB is flagged; one that grew less is not', () => {
    const { rerender } = render(<StepPerf perf={perf(100, 148)} />);
    expect(screen.getByTestId('step-perf').dataset.flagged).toBe('true');
    expect(screen.getByRole('alert').textContent).toContain('Memory grew 48 MB (over 20 MB)');
    expect(screen.getByTestId('step-perf-memory').textContent).toContain('100.0 MB → 148.0 MB');
    expect(screen.getByTestId('step-perf-cpu').textContent).toContain('4.0 % → 9.0 %');
    rerender(<StepPerf perf={perf(100, 110)} />);
    expect(screen.getByTestId('step-perf').dataset.flagged).toBe('false');
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('R-PERFSTEP-04: the threshold set in the view re-judges the step and is kept for the next view', () => {
    render(<StepPerf perf={perf(100, 110)} />);
    fireEvent.change(screen.getByLabelText('memory growth threshold (MB)'), { target: { value: '5' } });
    expect(screen.getByTestId('step-perf').dataset.flagged).toBe('true');
    expect(window.localStorage.getItem(THRESHOLD_STORAGE_KEY)).toBe('5');
    cleanup();
    render(<StepPerf perf={perf(100, 104)} />);
    expect((screen.getByLabelText('memory growth threshold (MB)') as HTMLInputElement).value).toBe('5');
    expect(screen.getByTestId('step-perf').dataset.flagged).toBe('false');
  });

  it('R-PERFSTEP-04: a step without a perf window shows nothing', () => {
    render(<StepPerf perf={undefined} />);
    expect(screen.queryByTestId('step-perf')).toBeNull();
  });
});
