/**
 * The write side of the trace format, as pure functions: the main process appends what these return.
 *
 * Every value goes through `redactForTrace` first and is then checked against the schema, so a trace
 * on disk never holds a token and always reads back.
 */
import type { z } from 'zod';
import { redactForTrace, type RedactOptions } from './redact';
import { TRACE_FORMAT, TRACE_VERSION, TraceEventSchema, TraceManifestSchema, type TraceEvent, type TraceManifest } from './schema';

export class TraceEncodeError extends Error {
  override readonly name = 'TraceEncodeError';
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`cannot record ${field === '' ? 'the value' : field}: ${reason}`);
  }
}

function check<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw new TraceEncodeError(issue ? issue.path.map(String).join('.') : '', issue?.message ?? 'does not match the schema');
}

/** manifest.json's text. Throws TraceEncodeError when the manifest does not fit the schema. */
export function encodeTraceManifest(manifest: Omit<TraceManifest, 'format' | 'version'>, options?: RedactOptions): string {
  const clean = redactForTrace({ format: TRACE_FORMAT, version: TRACE_VERSION, ...manifest }, options);
  return `${JSON.stringify(check(TraceManifestSchema, clean), null, 2)}\n`;
}

/** One line of events.jsonl, newline included. Throws TraceEncodeError when the event does not fit the schema. */
export function encodeTraceEvent(event: TraceEvent, options?: RedactOptions): string {
  const clean = check(TraceEventSchema, redactForTrace(event, options));
  // JSON.stringify escapes every line break inside strings, so one event is always one line.
  return `${JSON.stringify(clean)}\n`;
}
