/**
 * Trace edits on a trace recorded from the demo device over its real ports (docs/rules.md#r-edit-06,
 * #r-edit-07): the edited copy is written beside the recording, which stays byte for byte as it was;
 * it reopens with its edits; it replays on the device; a replay runs from a step, or that step alone.
 */
import { createHash } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ActionRequest } from '@shared/protocol/action';
import { replayTrace } from '@main/trace/replay';
import { saveEditedTrace } from '@main/trace/edit';
import { openTraceView } from '@main/trace/view';
import { openTraceFile } from '@main/trace/open';
import { exportMaestro, exportXcuiTest } from '@main/trace/export';
import { readMaestroFlow } from '@shared/trace/maestro-flow';
import { useConnectedDemo } from '../support/host-over-demo';
import { useRecordedDemoTrace } from '../support/demo-trace';

const setup = useConnectedDemo();

const reset = (screen: string) => setup.reset(screen);
const sha = async (path: string) =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');

const STEPS: ActionRequest[] = [
  { action: 'assert', target: { id: 'login.submit' }, check: 'visible' },
  { action: 'tap', target: { id: 'tab.checkout' } },
  { action: 'assert', target: { id: 'login.submit' }, check: 'visible' },
];
const recorded = useRecordedDemoTrace(setup, { prefix: 'edit', file: 'checkout.parallax-trace', screen: 'login', steps: STEPS });

describe('R-EDIT-06: an edited trace is a new file beside the recording', () => {
  it('saving edits writes -edited beside the original and leaves it as it was; it reopens with its edits and replays matched', async () => {
    const opened = await openTraceView(recorded.trace);
    // The recording's last step asserted what was false (Sign In is gone on Checkout): it failed.
    expect(opened.steps.map((s) => s.result?.success)).toEqual([true, true, false]);
    const original = await sha(recorded.trace);
    const edited = await saveEditedTrace(recorded.trace, [
      { op: 'delete', callId: 'call-3' },
      { op: 'insertAssertion', after: 'call-2', check: 'notVisible', selector: { id: 'login.submit' } },
      { op: 'rename', callId: 'call-2', label: 'Open Checkout' },
    ]);
    expect(edited).toBe(join(recorded.dir, 'checkout-edited.parallax-trace'));
    expect(await sha(recorded.trace)).toBe(original);

    const view = await openTraceView(edited);
    expect(view.manifest.edited).toMatchObject({ from: 'checkout.parallax-trace', edits: 3 });
    expect(view.steps.map((s) => [s.kind, s.label ?? '', s.result?.success])).toEqual([
      ['assert', '', true],
      ['tap', 'Open Checkout', true],
      ['assert', '', true],
    ]);
    expect(view.steps[1]?.gesture).toMatchObject({ kind: 'tap' });
    // The screenshots the steps still show came along.
    expect(view.warnings).toEqual([]);

    await reset('login');
    const report = await replayTrace(await openTraceFile(edited), setup.connection, { stopOnDivergence: false });
    expect(report.steps.map((s) => [s.verdict, s.differences])).toEqual([
      ['matched', []],
      ['matched', []],
      ['matched', []],
    ]);

    // A second save never replaces the first copy, nor stacks the name.
    const again = await saveEditedTrace(edited, [{ op: 'rename', callId: 'call-1', label: 'On Sign In' }]);
    expect(again).toBe(join(recorded.dir, 'checkout-edited-2.parallax-trace'));
    expect((await readdir(recorded.dir)).filter((n) => n.endsWith('.parallax-trace')).sort()).toEqual([
      'checkout-edited-2.parallax-trace',
      'checkout-edited.parallax-trace',
      'checkout.parallax-trace',
    ]);
  }, 120_000);

  it('R-EDIT-07: a replay of one step runs that step alone; from a step runs it and the rest', async () => {
    await reset('login');
    const opened = await openTraceFile(recorded.trace);
    const one = await replayTrace(opened, setup.connection, { stopOnDivergence: false, fromCallId: 'call-2', only: true });
    expect(one.total).toBe(1);
    expect(one.steps.map((s) => [s.number, s.verdict])).toEqual([[2, 'matched']]);
    await reset('login');
    const from = await replayTrace(opened, setup.connection, { stopOnDivergence: false, fromCallId: 'call-2' });
    expect(from.steps.map((s) => s.number)).toEqual([2, 3]);
    expect(from.total).toBe(2);
    expect(from.steps[0]?.verdict).toBe('matched');
  }, 120_000);
});

describe('R-ASRT-04: a recorded failing assertion replays as it was recorded', () => {
  it('R-ASRT-04: replayed from its step on the screen it failed on, it fails again the same way and matches', async () => {
    // Step 3 asserted Sign In visible on Checkout: recorded as failed (assertion_failed). Checkout again:
    // the assertion fails again with the same outcome, so the replay did what the recording did.
    await reset('checkout');
    const opened = await openTraceFile(recorded.trace);
    const report = await replayTrace(opened, setup.connection, { stopOnDivergence: false, fromCallId: 'call-3', only: true });
    expect(report.steps.map((s) => [s.number, s.verdict, s.differences])).toEqual([[3, 'matched', []]]);
    expect(report.steps[0]?.replayed.outcome).toMatchObject({ success: false, failureReason: 'assertion_failed' });
    expect(report).toMatchObject({ matched: 1, diverged: 0, failed: 0, total: 1 });
  }, 120_000);

  it('R-ASRT-04: on a screen where it now holds, the recorded failure is a divergence that says so', async () => {
    await reset('login');
    const report = await replayTrace(await openTraceFile(recorded.trace), setup.connection, { stopOnDivergence: false, fromCallId: 'call-3', only: true });
    expect(report.steps[0]?.verdict).toBe('diverged');
    expect(report.steps[0]?.differences.join('\n')).toContain('other outcome: recorded');
  }, 120_000);
});

describe("R-EDIT-09: a step's name goes into the exports", () => {
  it("R-EDIT-09: Maestro writes it as the command's label:, which its reader takes; XCUITest in the step's comment", async () => {
    const edited = await saveEditedTrace(recorded.trace, [
      { op: 'delete', callId: 'call-3' },
      { op: 'rename', callId: 'call-2', label: 'Open Checkout' },
    ]);
    const opened = await openTraceFile(edited);
    const maestro = (await exportMaestro(opened)).yaml;
    expect(maestro).toContain("- tapOn:\n    label: 'Open Checkout'\n    id: 'tab\\.checkout'\n");
    const tap = readMaestroFlow(maestro).commands.find((c) => c.name === 'tapOn');
    expect(tap?.args).toMatchObject({ label: 'Open Checkout', id: 'tab\\.checkout' });
    const swift = (await exportXcuiTest(opened)).swift;
    expect(swift).toContain('// Step 2: tap: Open Checkout\n');
  }, 120_000);
});
