/**
 * A trace recorded from the demo device over its real ports, as the integration tests of recorded
 * assertions and trace edits start from: the demo reset to a screen, each request acted through the
 * connection at a person's pace and recorded with its before- and after-screens (`recordActionStep`,
 * the recorder the host uses), the trace written to a scratch folder removed after the file's tests.
 * Call it at a test file's top level, after the `useConnectedDemo` it records from: it registers that
 * scope's beforeAll (which runs after the demo's) and afterAll.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { ActionRequest, ActionResult } from '@shared/protocol/action';
import type { ObservedFrame } from '@shared/protocol/device';
import { recordActionStep } from '@main/trace/replay';
import { TraceRecorder } from '@main/trace/index';
import type { ConnectedDemo } from './host-over-demo';

export interface RecordedDemoTrace {
  /** The scratch folder the trace (and any edited copy) is written to. */
  readonly dir: string;
  /** The trace file's path. */
  readonly trace: string;
  /** Each request's result as the device answered it while recording, in order. */
  readonly results: readonly ActionResult[];
}

export function useRecordedDemoTrace(
  setup: ConnectedDemo,
  options: {
    /** The scratch folder's prefix: `parallax-<prefix>-`. */
    prefix: string;
    /** The trace's file name in that folder. */
    file: string;
    /** The demo's screen when the recording starts. */
    screen: string;
    steps: readonly ActionRequest[];
    /** Which connection the trace names: the runner's (default) or the AppReveal app's, without its token. */
    via?: 'runner' | 'appreveal';
  },
): RecordedDemoTrace {
  let recorded: { dir: string; trace: string; results: ActionResult[] } | undefined;
  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), `parallax-${options.prefix}-`));
    await setup.reset(options.screen);
    const device =
      options.via === 'appreveal'
        ? // The session token is a secret: the trace names the app's origin only.
          { name: 'Demo app (AppReveal)', kind: 'appreveal', url: new URL(setup.demo.appRevealUrl ?? '').origin }
        : { name: 'Demo iPhone', kind: 'demo', url: setup.demo.runnerUrl };
    const recorder = await TraceRecorder.start({ dir, manifest: { device, app: { bundleId: 'dev.parallax.demo' } } });
    let before: ObservedFrame | undefined = await setup.connection.observe({});
    const results: ActionResult[] = [];
    for (const [i, request] of options.steps.entries()) {
      await setup.settled();
      const { result, after } = await setup.connection.act(request);
      results.push(result);
      await recordActionStep(recorder, { callId: `call-${i + 1}`, request, before, result, after });
      before = after;
    }
    recorded = { dir, trace: await recorder.stop({ outFile: join(dir, options.file) }), results };
  }, 120_000);
  afterAll(async () => {
    if (recorded) await rm(recorded.dir, { recursive: true, force: true });
  });
  const started = () => {
    if (!recorded) throw new Error('the trace is recorded in beforeAll: use it inside a test');
    return recorded;
  };
  return {
    get dir() {
      return started().dir;
    },
    get trace() {
      return started().trace;
    },
    get results() {
      return started().results;
    },
  };
}
