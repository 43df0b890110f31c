/**
 * An opened trace → a Maestro flow. The flow logic is pure (src-shared/trace/maestro.ts); this
 * loads the observations it needs from the trace: the screen each exported action was aimed at, and,
 * when the manifest names no app, the observations that may name it.
 */
import { exportMaestroFlow, type MaestroExport } from '@shared/trace/maestro';
import type { OpenedTrace } from './open';

export interface MaestroExportResult extends MaestroExport {
  /** Observations the flow needed but could not read (missing or damaged); their steps fall back to points or notes. */
  unreadableObservations: { ref: string; problem: string }[];
}

/** Which observation references the export will look up, mirroring exportMaestroFlow's choice of screen. */
function neededObservations(trace: Pick<OpenedTrace, 'manifest' | 'timeline'>): string[] {
  const needed = new Set<string>();
  const all: string[] = [];
  let last: string | undefined;
  for (const step of trace.timeline) {
    const own = step.before?.observationRef;
    if (step.kind === 'action' && step.status === 'succeeded' && step.before) {
      const screen = own ?? last;
      if (screen !== undefined) needed.add(screen);
    }
    for (const ref of [own, ...step.observations.map((o) => o.observationRef), step.after?.observationRef]) {
      if (ref === undefined) continue;
      last = ref;
      all.push(ref);
    }
  }
  // Without a bundle id in the manifest the export looks for the app's package name in any observation.
  if (!trace.manifest.app?.bundleId) for (const ref of all) needed.add(ref);
  return [...needed];
}

export async function exportMaestro(trace: OpenedTrace): Promise<MaestroExportResult> {
  const observations = new Map<string, unknown>();
  const unreadableObservations: MaestroExportResult['unreadableObservations'] = [];
  const queue = neededObservations(trace);
  // A few reads in flight overlap their I/O; more would only hold more observations in memory at once.
  const worker = async () => {
    for (let ref = queue.shift(); ref !== undefined; ref = queue.shift()) {
      try {
        observations.set(ref, await trace.resourceJson(ref));
      } catch (error) {
        unreadableObservations.push({ ref, problem: error instanceof Error ? error.message : String(error) });
      }
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  const flow = exportMaestroFlow(trace.manifest, trace.timeline, observations);
  return { ...flow, unreadableObservations };
}

/** What a user should know about an export, one line each: steps without a Maestro form, unreadable screens. */
export function exportNotes(flow: MaestroExportResult): string[] {
  return [
    ...flow.warnings.map((w) => `note: ${w}`),
    ...flow.notes.map((n) => `note: step ${n.step + 1} (${n.callId}): ${n.note}`),
    ...flow.unreadableObservations.map((u) => `note: observation ${u.ref} could not be read (${u.problem}); its steps use points or notes`),
  ];
}
