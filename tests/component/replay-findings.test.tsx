// @vitest-environment jsdom
/**
 * A replayed step's accessibility findings against the recording's, as the trace view shows them under the
 * step's replay (docs/rules.md#r-a11y-22): new, gone, unchanged, each new or gone one named by its rule and
 * the element its fingerprint names.
 */
import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReplayStep } from '@shared/trace/replay-report';
import { fingerprintElement } from '@shared/a11y';
import { ReplayFindings } from '@renderer/components/ReplayFindings';
import { ReplayStepResult } from '@renderer/components/ReplayPanel';
import { useReplay } from '@renderer/state/replay';

const finding = (rule: string, identity: string, severity: 'error' | 'warning' | 'info' = 'error') => ({ fingerprint: `${rule}|${identity}`, rule, severity });

afterEach(() => {
  cleanup();
  useReplay.setState({ run: null });
});

describe('ReplayFindings', () => {
  it('R-A11Y-22: a replayed step lists what is new and what is gone against the recording, with the unchanged count', () => {
    render(
      <ReplayFindings
        a11y={{
          screen: 'after',
          new: [finding('R-A11Y-09', 'label:Pay now'), finding('R-A11Y-07', 'at:16,100,30x30', 'warning')],
          gone: [finding('R-A11Y-03', 'access.close')],
          unchanged: 4,
        }}
      />,
    );
    const section = screen.getByTestId('replay-findings');
    expect(section.dataset).toMatchObject({ screen: 'after', new: '2', gone: '1', unchanged: '4', partial: 'false' });
    expect(screen.getByTestId('replay-findings-summary').textContent).toBe('2 new, 1 gone, 4 unchanged findings');
    // A new finding is a regression: said aloud.
    expect(screen.getByRole('alert').textContent).toContain('2 findings the recording did not have');
    const rows = (change: string) =>
      within(screen.getByTestId(`replay-findings-${change}`))
        .getAllByTestId('replay-finding')
        .map((li) => li.textContent);
    expect(rows('new')).toEqual([
      'error R-A11Y-09 Text contrast too low: “Pay now”',
      'warning R-A11Y-07 Target too small: the element at 16, 100 (30 × 30 pt)',
    ]);
    expect(rows('gone')).toEqual(['error R-A11Y-03 Control without a label: access.close']);
  });

  it('R-A11Y-22: all unchanged says so with no alert and no lists; a partial comparison says why; no comparison shows nothing', () => {
    render(<ReplayFindings a11y={{ screen: 'before', new: [], gone: [], unchanged: 1, partial: true }} />);
    expect(screen.getByTestId('replay-findings-summary').textContent).toBe('0 new, 0 gone, 1 unchanged finding');
    expect(screen.getByTestId('replay-findings').textContent).toContain('before the step');
    expect(screen.getByTestId('replay-findings').textContent).toContain('cut at its cap');
    expect(screen.queryByRole('alert')).toBeNull();
    expect(screen.queryByTestId('replay-finding')).toBeNull();
    cleanup();
    render(<ReplayFindings a11y={undefined} />);
    expect(screen.queryByTestId('replay-findings')).toBeNull();
  });

  it('R-A11Y-22: the selected step’s replay result carries its findings', () => {
    const step = {
      index: 1,
      callId: 'c1',
      verdict: 'matched',
      ran: 'yes',
      changes: [],
      differences: [],
      notes: ['accessibility: 1 new (R-A11Y-02), 0 gone, 0 unchanged'],
      recorded: { status: 'ok' },
      replayed: { outcome: { success: true }, frames: { before: true, after: true } },
      a11y: { screen: 'after', new: [finding('R-A11Y-02', '0')], gone: [], unchanged: 0 },
    } as unknown as ReplayStep;
    useReplay.setState({
      run: {
        id: 1,
        path: '/t',
        deviceId: 'd',
        stopOnDivergence: true,
        total: 1,
        steps: { c1: step },
        report: null,
        running: true,
        stopping: false,
        error: null,
      },
    } as never);
    render(<ReplayStepResult path="/t" callId="c1" />);
    expect(within(screen.getByTestId('replay-verdict')).getByTestId('replay-findings').dataset.new).toBe('1');
    expect(screen.getByTestId('replay-finding').dataset.rule).toBe('R-A11Y-02');
  });
});

describe('fingerprintElement', () => {
  it('R-A11Y-22: names the element a kept fingerprint holds (authored id, label, or frame)', () => {
    expect(fingerprintElement('R-A11Y-03|login.submit')).toBe('login.submit');
    expect(fingerprintElement('R-A11Y-06|label:Wi-Fi at 10:30')).toBe('“Wi-Fi at 10:30”');
    expect(fingerprintElement('R-A11Y-07|at:0,-4,44x20')).toBe('the element at 0, -4 (44 × 20 pt)');
    expect(fingerprintElement('R-A11Y-02|')).toBe('an element');
  });
});
