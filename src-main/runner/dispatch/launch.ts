/**
 * Launch and relaunch (docs/rules.md#r-life-01): the runner's own `request_launch_app {bundleId,
 * coldBoot}` (its recorded reply: resources/recordings/settings-tap-general/0003-request_launch_app.json),
 * then the observation after. With `coldBoot` the runner terminates the app and starts it again, so it
 * opens at its first screen; without it the app is only brought to the front, as it is.
 */
import type { z } from 'zod';
import type { LaunchRequestSchema } from '@shared/protocol/action';
import { PLAIN_XCTEST } from '@shared/act';
import { type ActionRun, fail, failWith, ok, type Outcome } from './run';

/** The runner's own launch timeout in its recorded traffic (10 s), plus room for a cold start. */
export const LAUNCH_TIMEOUT_MS = 20_000;

export async function runLaunch(run: ActionRun, request: z.output<typeof LaunchRequestSchema>): Promise<Outcome> {
  let bundleId = request.bundleId;
  if (bundleId === undefined) {
    // The app on screen is the one to launch: the read names its bundle (the hierarchy's packageName).
    const read = await run.read('freshRead', false);
    bundleId = read.observation?.viewHierarchy?.packageName;
  }
  if (bundleId === undefined) {
    run.warnings.push('No bundle id was given and the screen names no app, so nothing was launched.');
    return { served: PLAIN_XCTEST, ending: fail('target_not_found', false), target: { resolvedBy: 'screen' } };
  }
  const target = { resolvedBy: 'screen' as const, selector: bundleId };
  const verdict = await run.runnerVerdict('dispatch', 'request_launch_app', { bundleId, coldBoot: request.relaunch }, LAUNCH_TIMEOUT_MS);
  // The app may have started anew (a timed-out launch may have run too): the observation after probes its
  // bridge again rather than trust what was cached for the process before (docs/rules.md#r-life-06). A
  // launch the runner refused costs one probe more, no more.
  run.device.observer.appLaunched();
  await run.observeAfter();
  if (verdict.kind === 'failClosed') return { served: PLAIN_XCTEST, ending: failWith(verdict), target };
  return {
    served: PLAIN_XCTEST,
    ending: ok,
    target,
    warnings: [request.relaunch ? `${bundleId} was terminated and launched again.` : `${bundleId} was brought to the front.`],
  };
}
