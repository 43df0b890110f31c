/**
 * The recordings replay tests are judged by are sound (tests/support/replay-cases.ts, `recordCase`): a
 * recording in which a step did not succeed is refused with the step and its outcome named, so no
 * replay test can pass by matching a broken recording. On the demo device over its real ports, its
 * faults making the step fail.
 */
import { describe, expect, it } from 'vitest';
import { recordCase, REPLAY_CASES, type ReplayCase } from '../support/replay-cases';
import { useConnectedDemo } from '../support/host-over-demo';

const connected = useConnectedDemo({ demo: { appReveal: false }, managed: { dirPrefix: 'record-case' } });
const env = () => ({ manager: connected.manager, recording: connected.recording, deviceId: connected.deviceId, adminUrl: connected.demo.adminUrl });

/** A tap on Sign In: the bridge takes it, where its faults meet it. */
const signIn: ReplayCase = {
  name: 'sign-in',
  screen: 'login',
  fault: 'bridge-reject=action_queue_overloaded',
  steps: [{ tap: { id: 'login.submit' } }],
  diverges: { 'moved-button': null, 'renamed-label': null, 'removed-row': null },
  why: { 'moved-button': '', 'renamed-label': '', 'removed-row': '' },
};

describe('recordCase refuses a recording with a failed step', () => {
  it('without faults the case records (the control: its steps are ones the app takes)', async () => {
    const path = await recordCase(env(), signIn, []);
    expect(path).toMatch(/\.parallax-trace$/);
    expect(connected.recording.status().recording).toBe(false);
  });

  it.each([
    // The tap is the first step.
    [
      'bridge-reject=action_queue_overloaded',
      false,
      /^sign-in: recorded step 1 \(\{"tap":\{"id":"login\.submit"\}\}\) ended notRun, action_queue_overloaded where the case expects done;/,
    ],
    // From launch: the relaunch (through the runner, which the fault spares) is step 1 and succeeds, the tap is step 2.
    [
      'bridge-reject=action_cancelled',
      true,
      /^sign-in: recorded step 2 \(\{"tap":\{"id":"login\.submit"\}\}\) ended mayHaveRun, action_cancelled where the case expects done;/,
    ],
  ] as const)(
    'with %s (from launch: %s) the step the fault meets fails, and the recording is refused naming it and its outcome',
    async (fault, fromLaunch, message) => {
      await expect(recordCase(env(), signIn, [fault], { fromLaunch })).rejects.toThrow(message);
      // Stopped on the way out: the next recording starts.
      expect(connected.recording.status().recording).toBe(false);
      await expect(recordCase(env(), signIn, [])).resolves.toMatch(/\.parallax-trace$/);
    },
  );

  it('a refusal the case declares is checked too: the step must end with it', async () => {
    const declared: ReplayCase = {
      ...signIn,
      expectedFailures: { 1: { outcome: 'notRun', failureReason: 'action_queue_overloaded', why: 'the bridge queue is full' } },
    };
    await expect(recordCase(env(), declared, ['bridge-reject=action_queue_overloaded'])).resolves.toMatch(/\.parallax-trace$/);
    await expect(recordCase(env(), declared, [])).rejects.toThrow(
      /^sign-in: recorded step 1 \(\{"tap":\{"id":"login\.submit"\}\}\) ended done where the case expects notRun, action_queue_overloaded \(the bridge queue is full\);/,
    );
  });

  it('a declared refusal the case’s fault turns into a tap (doneWithFault) must be done with that fault: login-A’s disabled passkey, bridge gone, XCTest taps it', async () => {
    const loginA = REPLAY_CASES.find((c) => c.name === 'login-A')!;
    expect(loginA.expectedFailures?.[6]?.doneWithFault).toBe(true);
    // Without the fault first: after it the host keeps "bridge unavailable" for its recheck window, which
    // a demo reset does not end (the host is not told of it).
    await expect(recordCase(env(), loginA, [])).resolves.toMatch(/\.parallax-trace$/);
    await expect(recordCase(env(), loginA, [loginA.fault])).resolves.toMatch(/\.parallax-trace$/);
    const strict: ReplayCase = {
      ...loginA,
      expectedFailures: { 6: { ...loginA.expectedFailures![6]!, doneWithFault: undefined } } as ReplayCase['expectedFailures'],
    };
    await expect(recordCase(env(), strict, [loginA.fault])).rejects.toThrow(
      /^login-A: recorded step 6 .* ended done where the case expects notRun, element_not_actionable/,
    );
  });
});
