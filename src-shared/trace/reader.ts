/**
 * The read side of the trace format: the manifest check, the events file, and the timeline built from it.
 *
 * A damaged or foreign file gets an error that says where and what. The one damage that is
 * expected is a crash mid-write: the writer appends and flushes a line per step, so only the last line
 * can be partial, and it is dropped and reported instead of failing the whole trace.
 */
import { z } from 'zod';
import { parseJsonLossless } from '@shared/protocol/json';
import type { StepPerf } from '@shared/protocol/perf';
import {
  TRACE_EVENT_TYPES,
  TRACE_FILES,
  TRACE_FORMAT,
  TRACE_VERSION,
  TraceEventSchema,
  TraceManifestSchema,
  type ActionAfterEvent,
  type ActionBeforeEvent,
  type ComparisonEvent,
  type NoteEvent,
  type ObservationEvent,
  type TraceEvent,
  type TraceManifest,
} from './schema';

export class TraceFormatError extends Error {
  override readonly name = 'TraceFormatError';

  constructor(
    /** Which file of the trace: manifest.json or events.jsonl. */
    readonly file: string,
    /** 1-based line in that file; undefined for the manifest, which is read whole. */
    readonly line: number | undefined,
    /** Dotted path of the offending field (`result.success`), or '' for the whole line or file. */
    readonly field: string,
    /** What is wrong, without the location. */
    readonly reason: string,
  ) {
    const where = line === undefined ? file : `${file} line ${line}`;
    super(`${where}${field === '' ? '' : `, ${field}`}: ${reason}`);
  }
}

// ---- Manifest ---------------------------------------------------------------------------------------

export type ManifestResult = { ok: true; manifest: TraceManifest } | { ok: false; error: TraceFormatError };

function manifestError(field: string, reason: string): { ok: false; error: TraceFormatError } {
  return { ok: false, error: new TraceFormatError(TRACE_FILES.manifest, undefined, field, reason) };
}

function show(value: unknown): string {
  if (typeof value === 'string') return `'${value.length > 60 ? `${value.slice(0, 60)}…` : value}'`;
  if (value === undefined) return 'missing';
  try {
    const text = JSON.stringify(value);
    return text.length > 60 ? `${text.slice(0, 60)}…` : text;
  } catch {
    return String(value);
  }
}

/**
 * Checks a parsed manifest. Says "not a Parallax trace" for a file from elsewhere, names the version for
 * one from a newer Parallax, and names the field for a damaged one.
 */
export function validateManifest(json: unknown): ManifestResult {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return manifestError(
      '',
      `not a Parallax trace: the manifest is ${Array.isArray(json) ? 'an array' : json === null ? 'null' : `a ${typeof json}`}, not a JSON object`,
    );
  }
  const { format, version } = json as { format?: unknown; version?: unknown };
  if (format !== TRACE_FORMAT) {
    return manifestError('format', `not a Parallax trace: manifest.format is ${show(format)}, expected '${TRACE_FORMAT}'`);
  }
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    return manifestError('version', `manifest.version is ${show(version)}, expected ${TRACE_VERSION}`);
  }
  if (version > TRACE_VERSION) {
    return manifestError('version', `trace format version ${version} was written by a newer Parallax; this one reads version ${TRACE_VERSION}`);
  }
  const result = TraceManifestSchema.safeParse(json);
  if (result.success) return { ok: true, manifest: result.data };
  const { field, message } = firstIssue(result.error);
  return manifestError(field, message);
}

/** manifest.json's text → manifest, with the JSON error named when it is not JSON at all. */
export function parseManifest(text: string): ManifestResult {
  let json: unknown;
  try {
    json = JSON.parse(stripBom(text));
  } catch (error) {
    return manifestError('', `not a Parallax trace: the manifest is not JSON (${oneLine(error)})`);
  }
  return validateManifest(json);
}

// ---- Events -----------------------------------------------------------------------------------------

export type TraceReadResult =
  | {
      ok: true;
      events: TraceEvent[];
      /** The last line was cut off mid-write (a crash) and was dropped; every line before it was kept. */
      truncatedTail: boolean;
    }
  | {
      ok: false;
      error: TraceFormatError;
      /** The events before the damaged line, for a reader that wants to show what it could. */
      events: TraceEvent[];
    };

/** A line that holds nothing: a trailing newline, or the zero bytes a crash can leave at the end of a file. */
const BLANK = /^[\s\u0000]*$/;

/** Parses events.jsonl. Never throws. */
export function readTraceEvents(jsonlText: string): TraceReadResult {
  const parser = new TraceEventsParser();
  const lines = jsonlText.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const failed = parser.line(lines[i]!, i < lines.length - 1);
    if (failed) return failed;
  }
  return parser.finish();
}

/**
 * events.jsonl read a line at a time, so a reader can stream the file and hold only the events, never
 * its text (src-main/trace/events-stream.ts; docs/rules.md#r-mem-02). Lines go in in order; the first
 * error ends the parse.
 */
export class TraceEventsParser {
  readonly events: TraceEvent[] = [];
  private lineNo = 0;
  private previousSeq = -1;
  /** A line that is not JSON: damage, unless it turns out to be the last one, cut off by a crash. */
  private unparsed: { lineNo: number; reason: string; cut: boolean } | undefined;

  /** Lines read so far (1-based number of the last). */
  get lines(): number {
    return this.lineNo;
  }

  /**
   * One line, without its newline; `ended` says whether a newline followed it (only the file's last line
   * may lack one). Returns the failed result at the first error, undefined while all is well.
   */
  line(raw: string, ended: boolean): Extract<TraceReadResult, { ok: false }> | undefined {
    this.lineNo++;
    const text = this.lineNo === 1 ? stripBom(raw) : raw;
    if (BLANK.test(text)) return undefined;
    if (this.unparsed) return this.fail(this.unparsed.lineNo, '', this.unparsed.reason);
    let json: unknown;
    try {
      json = parseJsonLossless(text.endsWith('\r') ? text.slice(0, -1) : text);
    } catch (error) {
      // Only the last line can be partial: the writer flushes whole lines, so a crash cuts the one in
      // flight. A cut line has no newline after it, or ends in the zero bytes of a block that was
      // allocated but never written; a complete line that is not JSON is damage, not a crash. Which it
      // is shows when the next line (or the end) comes.
      this.unparsed = { lineNo: this.lineNo, reason: `not JSON (${oneLine(error)})`, cut: !ended || text.includes('\u0000') };
      return undefined;
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json)) {
      return this.fail(this.lineNo, '', 'expected one JSON object per line');
    }
    const type = (json as { type?: unknown }).type;
    if (typeof type !== 'string') {
      return this.fail(this.lineNo, 'type', `missing event type${this.events.length === 0 ? '; is this a Parallax trace?' : ''}`);
    }
    if (!(TRACE_EVENT_TYPES as readonly string[]).includes(type)) {
      return this.fail(this.lineNo, 'type', `unknown event type ${show(type)}`);
    }
    const parsed = TraceEventSchema.safeParse(json);
    if (!parsed.success) {
      const { field, message } = firstIssue(parsed.error);
      return this.fail(this.lineNo, field, message);
    }
    const event = parsed.data;
    if (event.seq <= this.previousSeq) {
      return this.fail(this.lineNo, 'seq', `seq ${event.seq} does not follow ${this.previousSeq}; events are out of order or repeated`);
    }
    this.previousSeq = event.seq;
    this.events.push(event);
    return undefined;
  }

  /** The end of the file: the events, or the error of a last line that is not JSON and was not cut off. */
  finish(): TraceReadResult {
    if (this.unparsed && !this.unparsed.cut) return this.fail(this.unparsed.lineNo, '', this.unparsed.reason);
    return { ok: true, events: this.events, truncatedTail: this.unparsed !== undefined };
  }

  private fail(line: number, field: string, reason: string): Extract<TraceReadResult, { ok: false }> {
    return { ok: false, error: new TraceFormatError(TRACE_FILES.events, line, field, reason), events: this.events };
  }
}

// ---- Timeline ---------------------------------------------------------------------------------------

export type StepKind = 'action' | 'observation' | 'comparison' | 'note';
export const StepStatusSchema = z.enum(['succeeded', 'failed', 'in_flight', 'recorded']);
export type StepStatus = z.infer<typeof StepStatusSchema>;

export const IN_FLIGHT_TEXT = 'in flight when the trace stopped';

export interface TimelineStep {
  /** 0-based position in the timeline. */
  index: number;
  callId: string;
  kind: StepKind;
  status: StepStatus;
  /** One line for the timeline: "succeeded via sdk", "failed: stale_observation", "in flight when the trace stopped". */
  statusText: string;
  before?: ActionBeforeEvent;
  after?: ActionAfterEvent;
  observations: ObservationEvent[];
  comparisons: ComparisonEvent[];
  notes: NoteEvent[];
  startTime: number;
  endTime?: number;
  durationMs?: number;
  /** Oddities a reader should see but that do not make the trace unreadable (an after without a before). */
  warnings: string[];
  /** The action's perf window, when the recording kept one (docs/rules.md#r-perfstep-03). */
  perf?: StepPerf;
}

/**
 * Whether the trace view's filmstrip shows the step: an action whose action.before was recorded.
 * Observations, comparisons and notes are steps of the timeline but not of the filmstrip.
 */
export function isFilmstripStep(step: Pick<TimelineStep, 'kind' | 'before'>): boolean {
  return step.kind === 'action' && step.before !== undefined;
}

/**
 * The step numbers a person sees (docs/rules.md#r-qa-10): 1-based over the filmstrip's steps, by call
 * id. The trace view, the exports' notes and the command line all number with this.
 */
export function filmstripNumbers(steps: readonly TimelineStep[]): Map<string, number> {
  const numbers = new Map<string, number>();
  for (const step of steps) if (isFilmstripStep(step)) numbers.set(step.callId, numbers.size + 1);
  return numbers;
}

/** Groups events by call id, in order of each call's first event; pairs every action's before with its after. */
export function buildTimeline(events: readonly TraceEvent[]): TimelineStep[] {
  const builder = new TimelineBuilder();
  for (const event of events) builder.add(event);
  return builder.finish();
}

/** buildTimeline an event at a time, so a streaming reader builds it as the events come (docs/rules.md#r-mem-03). */
export class TimelineBuilder {
  private readonly steps: TimelineStep[] = [];
  private readonly byCall = new Map<string, TimelineStep>();

  add(event: TraceEvent): void {
    let step = this.byCall.get(event.callId);
    if (!step) {
      step = {
        index: this.steps.length,
        callId: event.callId,
        kind: event.type === 'action.before' || event.type === 'action.after' || event.type === 'step.perf' ? 'action' : event.type,
        status: 'recorded',
        statusText: '',
        observations: [],
        comparisons: [],
        notes: [],
        startTime: event.time,
        warnings: [],
      };
      this.byCall.set(event.callId, step);
      this.steps.push(step);
    }
    step.endTime = Math.max(step.endTime ?? event.time, event.time);
    switch (event.type) {
      case 'action.before':
        if (step.before) step.warnings.push(`a second action.before (seq ${event.seq}) for this call was ignored`);
        else if (step.after) step.warnings.push(`action.before (seq ${event.seq}) came after its action.after`);
        else if (step.kind !== 'action') step.warnings.push(`action.before (seq ${event.seq}) joined a ${step.kind} call`);
        if (!step.before) step.before = event;
        step.kind = 'action';
        break;
      case 'action.after':
        if (step.after) step.warnings.push(`a second action.after (seq ${event.seq}) for this call was ignored`);
        else step.after = event;
        step.kind = 'action';
        break;
      case 'observation':
        step.observations.push(event);
        break;
      case 'comparison':
        step.comparisons.push(event);
        break;
      case 'note':
        step.notes.push(event);
        break;
      case 'step.perf':
        step.perf ??= event.perf;
        break;
    }
  }

  /** The steps, each settled (status, duration); the builder is done with. */
  finish(): TimelineStep[] {
    for (const step of this.steps) settle(step);
    this.byCall.clear();
    return this.steps;
  }
}

function settle(step: TimelineStep): void {
  step.durationMs = step.endTime === undefined ? undefined : step.endTime - step.startTime;
  if (step.kind !== 'action') {
    step.status = 'recorded';
    step.statusText = step.kind === 'note' ? (step.notes[0]?.text ?? '') : `${step.kind} recorded`;
    return;
  }
  if (!step.after) {
    step.status = 'in_flight';
    step.statusText = IN_FLIGHT_TEXT;
    step.endTime = undefined;
    step.durationMs = undefined;
    return;
  }
  if (!step.before) step.warnings.push('action.after without its action.before');
  const { success, backend, fallbackReason, failureReason } = step.after.result;
  step.status = success ? 'succeeded' : 'failed';
  const via = backend === undefined ? '' : ` via ${backend}`;
  const fallback = fallbackReason === undefined ? '' : ` (fallback: ${fallbackReason})`;
  step.statusText = success ? `succeeded${via}${fallback}` : `failed${failureReason === undefined ? '' : `: ${failureReason}`}${via}${fallback}`;
}

// ---- Helpers ----------------------------------------------------------------------------------------

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ');
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}

/** The first issue, or for a failed union the branch issue that got furthest into the value. */
function firstIssue(error: z.ZodError): { field: string; message: string } {
  let issue: z.core.$ZodIssue | undefined = error.issues[0];
  let prefix: PropertyKey[] = [];
  while (issue && issue.code === 'invalid_union' && issue.errors.length > 0) {
    prefix = [...prefix, ...issue.path];
    let best: z.core.$ZodIssue | undefined;
    for (const branch of issue.errors) {
      const candidate = branch[0];
      if (candidate && (!best || candidate.path.length > best.path.length)) best = candidate;
    }
    issue = best;
  }
  if (!issue) return { field: '', message: 'does not match the schema' };
  return { field: [...prefix, ...issue.path].map(String).join('.'), message: issue.message };
}
