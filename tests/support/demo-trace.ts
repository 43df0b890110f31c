/**
 * A trace recorded from the connected demo as a session records one: each request acted on the device
 * at a person's pace (`settled` between steps), recorded with the screens before and after it
 * (`recordActionStep`, what the host's recording writes), the trace written as `name` in `dir`.
 */
import { join } from 'node:path';
import type { ActionRequest, ActionResult } from '@shared/protocol/action';
import type { ObservedFrame } from '@shared/protocol/device';
import { TraceRecorder } from '@main/trace/index';
import { recordActionStep } from '@main/trace/replay';
import type { ConnectedDemo } from './host-over-demo';

export async function recordDemoSteps(
  setup: ConnectedDemo,
  dir: string,
  name: string,
  requests: readonly ActionRequest[],
): Promise<{ trace: string; results: ActionResult[] }> {
  let before: ObservedFrame | undefined = await setup.connection.observe({});
  const recorder = await TraceRecorder.start({
    dir,
    manifest: { device: { name: 'Demo iPhone', kind: 'demo', url: setup.demo.runnerUrl }, app: { bundleId: 'dev.parallax.demo' } },
  });
  const results: ActionResult[] = [];
  for (const [i, request] of requests.entries()) {
    await setup.settled();
    const { result, after } = await setup.connection.act(request);
    results.push(result);
    await recordActionStep(recorder, { callId: `call-${i + 1}`, request, before, result, after });
    before = after;
  }
  return { trace: await recorder.stop({ outFile: join(dir, name) }), results };
}
