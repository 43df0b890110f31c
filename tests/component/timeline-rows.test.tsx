// @vitest-environment jsdom
/**
 * The timeline's rows as a QA engineer reads them (docs/rules.md#r-act-01, #r-rpl-09, #r-secret): each
 * step says its action in words, what it named, its outcome class (done / nothing was run / may have run
 * / not sent) with the fail-closed reason and what to do; a failed step offers Run again (worded as a
 * warning when it may have run, and held while the device is busy); a secret's text is never shown; a
 * click opens the step's detail, as App wires it (useOpenStep + StepDetail).
 */
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ActionStep, DeviceSummary } from '@shared/protocol/device';
import type { ActionRequest, ActionResult } from '@shared/protocol/action';
import { StepDetail, useOpenStep } from '@renderer/components/StepDetail';
import { Timeline } from '@renderer/components/Timeline';
import { useInspector } from '@renderer/state/store';
import { useTimeline } from '@renderer/state/timeline';

const device: DeviceSummary = { id: 'd1', kind: 'demo', name: 'Demo phone', url: 'ws://127.0.0.1:1', state: 'connected', supportedCommands: [] };
const submit: ActionRequest = { action: 'tap', target: { id: 'login.submit' } };
const SECRET = 'hunter2-pass';

let at = 1_000;
function step(callId: string, request: ActionRequest, result: Partial<ActionResult>): ActionStep {
  return {
    callId,
    deviceId: device.id,
    request,
    result: { success: true, warnings: [], target: { resolvedBy: 'id', selector: 'login.submit' }, timings: {}, requestsSent: 2, ...result },
    startedAt: at++,
    before: null,
    after: null,
  };
}

const done = step('call-done', submit, { success: true, outcome: 'done', backend: 'sdk' });
const notRun = step('call-stale', submit, { success: false, outcome: 'notRun', failureReason: 'stale_observation', mayHaveRun: false, backend: 'sdk' });
const mayHaveRun = step('call-cancel', submit, {
  success: false,
  outcome: 'mayHaveRun',
  failureReason: 'action_cancelled',
  mayHaveRun: true,
  backend: 'sdk',
  deviceMessage: 'cancelled by the app',
});
const refused = step(
  'call-missing',
  { action: 'tap', target: { text: 'Place order' } },
  { success: false, outcome: 'refused', failureReason: 'target_not_found', requestsSent: 1 },
);
const secret = step(
  'call-secret',
  { action: 'sendKeys', target: { id: 'login.password' }, secret: true, steps: [{ kind: 'type', text: SECRET }] },
  { success: true, outcome: 'done', target: { resolvedBy: 'id', selector: 'login.password' } },
);

function Harness({ onRetry }: { onRetry: (request: ActionRequest) => void }) {
  const open = useOpenStep(device.id);
  return (
    <>
      <Timeline device={device} onRetry={onRetry} />
      {open && <StepDetail entry={open} />}
    </>
  );
}

async function show(steps: readonly ActionStep[]) {
  const onRetry = vi.fn<(request: ActionRequest) => void>();
  render(<Harness onRetry={onRetry} />);
  // `add` makes thumbnails asynchronously: let them settle inside act.
  await act(async () => {
    for (const s of steps) useTimeline.getState().add(s);
    await Promise.resolve();
  });
  return { onRetry };
}

function row(callId: string): HTMLElement {
  const found = screen.getAllByTestId('timeline-step').find((r) => r.dataset['callId'] === callId);
  if (!found) throw new Error(`no row for ${callId}`);
  return found;
}

beforeEach(() => {
  useTimeline.setState({ byDevice: {}, pending: [], notice: null });
  useInspector.getState().openStepDetail(null);
});
afterEach(cleanup);

describe('R-ACT-01: a step row says what was done and how it ended', () => {
  it('a step that worked shows its action, what it named, its backend and "done", and offers no retry', async () => {
    await show([done]);
    const r = within(row('call-done'));
    expect(r.getByText('tap')).toBeTruthy();
    expect(r.getByText('id login.submit')).toBeTruthy();
    expect(r.getByTestId('step-backend').textContent).toBe('sdk');
    expect(r.getByTestId('step-outcome').textContent).toBe('done');
    expect(r.getByLabelText('succeeded')).toBeTruthy();
    expect(r.queryByTestId('step-outcome-class')).toBeNull();
    expect(r.queryByTestId('step-retry')).toBeNull();
    expect(screen.getByText('1 step')).toBeTruthy();
  });

  it('each failure class says so in words, with its reason and what to do', async () => {
    await show([notRun, mayHaveRun, refused]);
    expect(screen.getByText('3 failed', { exact: false })).toBeTruthy();

    const stale = within(row('call-stale'));
    expect(stale.getByLabelText('failed')).toBeTruthy();
    expect(stale.getByTestId('step-outcome').textContent).toBe('stale_observation');
    expect(stale.getByTestId('step-outcome-class').textContent).toBe('failed · nothing was run');
    expect(stale.getByTestId('step-explanation').textContent).toContain('The screen changed since Parallax read it');
    expect(stale.getByTestId('step-explanation').textContent).toContain('What to do: Observe again, then retry.');

    const cancelled = within(row('call-cancel'));
    expect(cancelled.getByTestId('step-outcome-class').textContent).toBe('failed · may have run');
    expect(cancelled.getByTestId('step-outcome-class').title).toBe('It may already have happened: observe before repeating it');
    expect(cancelled.getByTestId('step-device-message').textContent).toBe('the device said: cancelled by the app');

    const missing = within(row('call-missing'));
    expect(missing.getByText('text “Place order”')).toBeTruthy();
    expect(missing.getByTestId('step-outcome-class').textContent).toBe('not sent');
    expect(missing.getByTestId('step-outcome-class').title).toBe('Parallax sent nothing to the device');
    expect(missing.getByTestId('step-backend').textContent).toBe('XCTest only');
  });
});

describe('R-RPL-09: Run again', () => {
  it('a failed step offers Run again, which sends its own request once and does not open the detail', async () => {
    const { onRetry } = await show([notRun]);
    const button = within(row('call-stale')).getByTestId('step-retry');
    expect(button.textContent).toBe('Run again');
    fireEvent.click(button);
    expect(onRetry).toHaveBeenCalledTimes(1);
    expect(onRetry).toHaveBeenCalledWith(submit);
    expect(screen.queryByTestId('step-detail')).toBeNull();
  });

  it('a step that may have run is not retried blindly: its button warns that it may already have happened', async () => {
    await show([mayHaveRun]);
    const button = within(row('call-cancel')).getByTestId('step-retry');
    expect(button.textContent).toBe('Run again (it may have run)');
    expect(button.title).toContain('It may already have happened: check the screen first');
  });

  it('while the device runs another action, Run again is held', async () => {
    const { onRetry } = await show([notRun]);
    act(() => void useTimeline.getState().begin(device.id, submit));
    const button = within(row('call-stale')).getByTestId('step-retry') as HTMLButtonElement;
    expect(button.disabled).toBe(true);
    expect(button.title).toBe('The device is running another action');
    fireEvent.click(button);
    expect(onRetry).not.toHaveBeenCalled();
  });
});

describe('R-SECRET: a secret step', () => {
  it('says "type secret" and never shows its text, in the row or in its detail', async () => {
    await show([secret]);
    const r = row('call-secret');
    expect(within(r).getByText('type secret')).toBeTruthy();
    fireEvent.click(r);
    expect(screen.getByTestId('step-detail')).toBeTruthy();
    expect(within(screen.getByTestId('step-detail')).getByText('type secret')).toBeTruthy();
    expect(document.body.innerHTML).not.toContain(SECRET);
  });
});

describe('R-SECRET-14: a failed step whose text the host withheld', () => {
  // As the host keeps it (docs/rules.md#r-secret-13): `secret`, the text emptied; a replace too.
  const withheld = (callId: string, kind: 'type' | 'replace', extra: Partial<ActionRequest> = {}) =>
    step(callId, { action: 'sendKeys', target: { id: 'login.password' }, secret: true, steps: [{ kind, text: '' }], ...extra } as ActionRequest, {
      success: false,
      outcome: 'notRun',
      failureReason: 'stale_observation',
      mayHaveRun: false,
      target: { resolvedBy: 'id', selector: 'login.password' },
    });

  it('R-SECRET-14: offers no Run again, which would type nothing (or clear the field), and says to type it again', async () => {
    const { onRetry } = await show([withheld('call-typed', 'type'), withheld('call-replaced', 'replace', { secretUnknown: true } as Partial<ActionRequest>)]);
    for (const callId of ['call-typed', 'call-replaced']) {
      const r = within(row(callId));
      expect(r.queryByTestId('step-retry')).toBeNull();
      expect(r.getByTestId('step-retry-withheld').textContent).toBe('Not kept: type it again to run it again');
      expect(r.getByTestId('step-retry-withheld').title).toContain('Parallax keeps no typed text it could not tell was not a secret');
    }
    expect(onRetry).not.toHaveBeenCalled();
  });
});

describe('selecting a step', () => {
  it('a click opens that step’s detail and marks its row; the arrow keys move it; a second click closes it', async () => {
    await show([done, notRun]);
    // Newest first: the stale step (started later) is the top row.
    expect(screen.getAllByTestId('timeline-step').map((r) => r.dataset['callId'])).toEqual(['call-stale', 'call-done']);
    fireEvent.click(row('call-done'));
    const detail = screen.getByTestId('step-detail');
    expect(detail.dataset['callId']).toBe('call-done');
    expect(screen.getByRole('dialog', { name: 'Step call-done' })).toBe(detail);
    expect(row('call-done').getAttribute('aria-selected')).toBe('true');
    expect(row('call-stale').getAttribute('aria-selected')).toBe('false');

    fireEvent.keyDown(screen.getByRole('listbox'), { key: 'ArrowUp' });
    expect(screen.getByTestId('step-detail').dataset['callId']).toBe('call-stale');
    expect(row('call-stale').getAttribute('aria-selected')).toBe('true');

    fireEvent.click(row('call-stale'));
    expect(screen.queryByTestId('step-detail')).toBeNull();
    expect(row('call-stale').getAttribute('aria-selected')).toBe('false');
  });
});
