/**
 * A recorded trace replayed on a device and the exported Maestro flow judged on the same screens
 * (tests/support/maestro-oracle.ts), as bench/replay.bench.ts and the replay integration tests do it:
 * the replay continues past a divergence, so every step has a verdict, and the oracle is given the
 * screen the replay read before each step.
 */
import type { DeviceConnection } from '@main/connection/connection';
import { openTraceFile } from '@main/trace/open';
import { replayTrace } from '@main/trace/replay';
import type { ReplayReport } from '@shared/trace/replay-report';
import type { UiNode } from '@shared/protocol/runner';
import { exportMaestroFlow } from '@shared/trace/maestro';
import { maestroFlowOn, type MaestroVerdict } from './maestro-oracle';
import { caseVariables, type ReplayCase } from './replay-cases';

export interface JudgedReplay {
  report: ReplayReport;
  maestro: MaestroVerdict;
  /** The exported Maestro flow of the whole recording, as a user runs it. */
  flowYaml: string;
}

/**
 * Replays `replayCase`'s recording at `path` on `connection` (the app already reset as the replay
 * should meet it), given the texts the case typed for the ones the trace left out.
 */
export async function replayJudged(path: string, connection: DeviceConnection, replayCase: ReplayCase): Promise<JudgedReplay> {
  const trace = await openTraceFile(path);
  // The screens the replay met before each step: the exported flow is judged on the same ones.
  const screens = new Map<string, UiNode>();
  const report = await replayTrace(trace, connection, {
    stopOnDivergence: false,
    variables: caseVariables(replayCase, trace.timeline),
    keepFrames: (step, frames) => {
      const root = frames.before?.observation?.viewHierarchy?.hierarchy;
      if (root) screens.set(step.callId, root);
      return { before: false, after: false };
    },
  });
  const observations = new Map<string, unknown>();
  for (const step of trace.timeline) {
    const ref = step.before?.observationRef;
    if (ref !== undefined) observations.set(ref, await trace.resourceJson(ref));
  }
  const maestro = maestroFlowOn(trace, observations, screens);
  return { report, maestro, flowYaml: exportMaestroFlow(trace.manifest, trace.timeline, observations).yaml };
}

/** The first step that did not match, by filmstrip number (among `among`, when given); null when every step matched. */
export function divergedAt(report: ReplayReport, among?: readonly number[]): number | null {
  return report.steps.find((s) => s.verdict !== 'matched' && (among === undefined || among.includes(s.number)))?.number ?? null;
}
