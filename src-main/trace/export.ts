/**
 * An opened trace → a Maestro flow or an XCUITest method. The export logic is pure
 * (src-shared/trace/maestro.ts, xcuitest.ts); this loads the observations it needs from the trace: the
 * screen each exported action was aimed at, and, when the manifest names no app, the observations that
 * may name it.
 */
import { exportMaestroFlow, type MaestroExport } from '@shared/trace/maestro';
import { exportXcuiTest as exportXcuiTestMethod, type XcuiTestExport } from '@shared/trace/xcuitest';
import type { ExportNote } from '@shared/trace/export-plan';
import type { OpenedTrace } from './open';

export interface Unreadable {
  /** Observations the export needed but could not read (missing or damaged); their steps fall back to points or notes. */
  unreadableObservations: { ref: string; problem: string }[];
}

export type MaestroExportResult = MaestroExport & Unreadable;
export type XcuiTestExportResult = XcuiTestExport & Unreadable;

/** Which observation references the export will look up, mirroring walkExport's choice of screen. */
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

async function loadObservations(trace: OpenedTrace): Promise<{ observations: Map<string, unknown> } & Unreadable> {
  const observations = new Map<string, unknown>();
  const unreadableObservations: Unreadable['unreadableObservations'] = [];
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
  return { observations, unreadableObservations };
}

export async function exportMaestro(trace: OpenedTrace): Promise<MaestroExportResult> {
  const { observations, unreadableObservations } = await loadObservations(trace);
  return { ...exportMaestroFlow(trace.manifest, trace.timeline, observations), unreadableObservations };
}

export async function exportXcuiTest(trace: OpenedTrace): Promise<XcuiTestExportResult> {
  const { observations, unreadableObservations } = await loadObservations(trace);
  return { ...exportXcuiTestMethod(trace.manifest, trace.timeline, observations), unreadableObservations };
}

function stepName(n: ExportNote): string {
  return n.step === undefined ? `an action the trace view does not show (${n.callId})` : `step ${n.step} (${n.callId})`;
}

/** What a user should know about an export, one line each: steps without a form, secrets to pass, unreadable screens. */
export function exportNotes(flow: { warnings: string[]; notes: ExportNote[] } & Unreadable): string[] {
  return [
    ...flow.warnings.map((w) => `note: ${w}`),
    ...flow.notes.map((n) => `note: ${stepName(n)}: ${n.note}`),
    ...flow.unreadableObservations.map((u) => `note: observation ${u.ref} could not be read (${u.problem}); its steps use points or notes`),
  ];
}
