/**
 * An AppReveal action whose answer comes after Parallax's budget, over the demo's real port
 * (docs/rules.md#r-ar-35): the demo's `appreveal-action-slow` fault lets the tool do its effect and then
 * holds its answer until the fault is cleared (src-demo/base/fault-hold.ts). The hold is a gate the test
 * opens, far longer than the client's budget, so the call always times out after the tap was dispatched,
 * whatever the machine's speed; the tap is then seen on the demo's screen (its /stats), and only the
 * clearing lets the held answer go. Row 19 of docs/protocol.md#p-ar-outcomes, which
 * tests/integration/appreveal-outcome-table.test.ts holds against a scripted server only.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { actThroughAppReveal } from '@main/appreveal/actions';
import { AppRevealClient } from '@main/appreveal/client';
import { parseAppRevealSessionUrl } from '@shared/protocol/appreveal';
import { admin, untilStats } from '../support/demo-admin';
import { useHostOverDemo } from '../support/host-over-demo';

const host = useHostOverDemo();
/** Far past anything the test waits for: only clearing the fault ends the hold. */
const HELD_MS = 600_000;
/** Parallax's budget for one tool call here: short, since every call meeting the fault outlives it. */
const BUDGET_MS = 1_500;
const faults = (body: { add?: string[]; remove?: string[] }) => admin<{ faults: string[] }>(host.demo.adminUrl, '/faults', body);

/** The client that meets the hold, and one whose budget no answer on a loaded machine outlives. */
let client: AppRevealClient;
let patient: AppRevealClient;
beforeAll(async () => {
  const session = parseAppRevealSessionUrl(host.demo.appRevealUrl ?? '');
  client = new AppRevealClient(session, { timeoutMs: BUDGET_MS, healthTimeoutMs: 20_000 });
  patient = new AppRevealClient(session, { timeoutMs: 20_000, healthTimeoutMs: 20_000 });
  await client.connect();
  await patient.connect();
}, 30_000);
afterAll(async () => {
  await client?.close();
  await patient?.close();
});
beforeEach(async () => {
  await admin(host.demo.adminUrl, '/reset', { screen: 'login' });
});

describe('an AppReveal action that answers after the budget, over the demo’s port', () => {
  it('R-AR-35: a tap whose answer is held past the budget is mayHaveRun (timeout), and the tap did happen', async () => {
    expect((await faults({ add: [`appreveal-action-slow=${HELD_MS}`] })).faults).toEqual([`appreveal-action-slow=${HELD_MS}`]);
    const result = await actThroughAppReveal(client, { action: 'tap', target: { id: 'tab.feed' } });
    expect(result).toMatchObject({ success: false, outcome: 'mayHaveRun', mayHaveRun: true, failureReason: 'timeout', requestsSent: 1 });
    // The tap went: the demo's screen moved on while its answer is still held.
    await untilStats(host.demo.adminUrl, 'on feed after the held tap', (s) => s.screen === 'feed');
    await faults({ remove: ['appreveal-action-slow'] });
    // Without the fault the tap answers, as done.
    const back = await actThroughAppReveal(patient, { action: 'tap', target: { id: 'tab.login' } });
    expect(back).toMatchObject({ success: true, outcome: 'done' });
    await untilStats(host.demo.adminUrl, 'back on login', (s) => s.screen === 'login');
  });

  it('R-AR-35: the answer is held after the effect until the fault is cleared, and then is the tool’s success', async () => {
    await faults({ add: [`appreveal-action-slow=${HELD_MS}`] });
    let answer: Record<string, unknown> | undefined;
    // AppReveal's own CLI's call, with no budget of its own: it waits for the held answer.
    const call = host.rawTool('tap_element', { element_id: 'tab.feed' }).then((reply) => (answer = reply));
    await untilStats(host.demo.adminUrl, 'on feed after the held tap', (s) => s.screen === 'feed');
    // The effect is done and nothing has answered: the hold, not the tap, is what the client waits on.
    expect(answer).toBeUndefined();
    await faults({ remove: ['appreveal-action-slow'] });
    expect(await call).toEqual({ success: true, element_id: 'tab.feed' });
  });

  it('R-AR-35: a failed action is not held: the app’s refusal comes while the fault is set, notRun', async () => {
    await faults({ add: [`appreveal-action-slow=${HELD_MS}`] });
    // Held, it would outlive even this client's budget and read as a timeout.
    const result = await actThroughAppReveal(patient, { action: 'tap', target: { id: 'login.nothing' } });
    expect(result).toMatchObject({ success: false, outcome: 'notRun', mayHaveRun: false, failureReason: 'appreveal_tool_error' });
  });
});
