/**
 * What an AppReveal app's read-only tools said after one step, as a trace keeps it (docs/protocol.md#p-trace,
 * docs/rules.md#r-ar-22): only the readings that changed since the step before (the first step keeps
 * them all), and the tools that stopped answering, so a long recording does not store the same device
 * info a hundred times and the trace view can say what a step changed.
 */
import { z } from 'zod';
import { AppStateReadingSchema, type AppState } from '@shared/protocol/appreveal-tools';

export const AppStateChangesSchema = z.object({
  /** When the readings were taken (epoch ms). */
  readAt: z.number(),
  /** Readings that differ from the previous step's, whole; the first step's are all here. */
  changed: z.array(AppStateReadingSchema),
  /** Tools that answered as before. */
  unchanged: z.array(z.string()),
  /** Tools read before and not now. */
  removed: z.array(z.string()),
});
export type AppStateChanges = z.infer<typeof AppStateChangesSchema>;

/** JSON with keys in name order, so two readings differing only in key order are equal. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .sort()
      .filter((key) => record[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonical(record[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** The changes from `previous` (undefined: nothing recorded yet) to `current`. */
export function appStateChanges(previous: AppState | undefined, current: AppState): AppStateChanges {
  const before = new Map((previous?.readings ?? []).map((reading) => [reading.tool, canonical(reading)]));
  const changed = current.readings.filter((reading) => before.get(reading.tool) !== canonical(reading));
  const unchanged = current.readings.filter((reading) => before.get(reading.tool) === canonical(reading)).map((reading) => reading.tool);
  const now = new Set(current.readings.map((reading) => reading.tool));
  const removed = [...before.keys()].filter((tool) => !now.has(tool));
  return { readAt: current.readAt, changed, unchanged, removed };
}

/** True when a step changed nothing the app's tools report. */
export function nothingChanged(changes: AppStateChanges): boolean {
  return changes.changed.length === 0 && changes.removed.length === 0;
}
