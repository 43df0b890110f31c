/**
 * What `parallax open FILE` prints of a trace: its manifest, its warnings, the variables a replay would
 * ask for, one line per step (or all of it as JSON). Built where the trace is parsed, in the trace worker
 * (src-main/trace/worker.ts, docs/rules.md#r-mem-04): the CLI receives these lines, never the events.
 */
import { summaryText } from '@shared/compare/sides';
import { visibleText } from '@shared/model/visible-text';
import { filmstripNumbers, type TimelineStep } from '@shared/trace/reader';
import { recordedSelectorText } from '@shared/trace/action-record';
import { traceVariables, variableTarget } from '@shared/trace/variables';
import { redactForTrace, redactString } from '@shared/trace/redact';
import type { OpenedTrace } from './open';

export function pad(text: string, width: number): string {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}

function stepKindText(step: TimelineStep): string {
  return step.kind === 'action' ? (step.before?.action.kind ?? 'action') : step.kind;
}

function pointText(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { x, y } = value as { x?: unknown; y?: unknown };
  return typeof x === 'number' && typeof y === 'number' ? `${x},${y}` : undefined;
}

/** What an action aimed at, in a few words: its selector, a swipe's stroke, a scroll's search. */
export function subjectOf(step: TimelineStep | undefined): string {
  const before = step?.before;
  if (!before) return '';
  const target = recordedSelectorText(before.target);
  const action = before.action;
  if (action.kind === 'swipe') {
    const stroke = [pointText(action['start']), pointText(action['end'])];
    const path = stroke[0] && stroke[1] ? `${stroke[0]} → ${stroke[1]}` : '';
    return [path, target ? `in ${target}` : ''].filter(Boolean).join(' ');
  }
  if (action.kind === 'scrollTo') {
    const look = (action['lookFor'] ?? {}) as { text?: unknown; elementId?: unknown };
    const what =
      typeof look.text === 'string' ? `text ${JSON.stringify(look.text)}` : typeof look.elementId === 'string' ? `id ${JSON.stringify(look.elementId)}` : '';
    return [what ? `to ${what}` : '', target ? `in ${target}` : ''].filter(Boolean).join(' ');
  }
  if (action.kind === 'sendKeys' && !target) return 'keyboard focus';
  return target ?? '';
}

/**
 * One line: number, kind, target, result (backend, fallback or failure reason), duration. Actions carry
 * the trace view's step number (the one the exports' notes use); other steps a dot.
 */
function stepLine(step: TimelineStep, width: number, number: number | undefined): string {
  const n = (number === undefined ? '·' : String(number)).padStart(width);
  const target = step.kind === 'action' ? subjectOf(step) : '';
  const what = step.kind === 'comparison' && step.comparisons[0] ? `${step.statusText}: ${summaryText(step.comparisons[0].summary)}` : step.statusText;
  const ms = step.durationMs !== undefined && step.kind === 'action' ? `  ${Math.round(step.durationMs)} ms` : '';
  // A bidirectional control in a label shows as <U+202E> (docs/rules.md#r-show-01), it does not reorder the line.
  return visibleText(`${n}  ${pad(stepKindText(step), 11)} ${target ? `${pad(target, 28)} ` : ''}${what}${ms}`);
}

function stepJson(step: TimelineStep) {
  const result = step.after?.result;
  return {
    index: step.index,
    callId: step.callId,
    kind: step.kind,
    ...(step.before ? { action: step.before.action, target: step.before.target } : {}),
    status: step.status,
    statusText: step.statusText,
    ...(result
      ? {
          success: result.success,
          ...(result.backend !== undefined ? { backend: result.backend } : {}),
          ...(result.fallbackReason !== undefined ? { fallbackReason: result.fallbackReason } : {}),
          ...(result.failureReason !== undefined ? { failureReason: result.failureReason } : {}),
        }
      : {}),
    ...(step.durationMs !== undefined ? { durationMs: step.durationMs } : {}),
    startTime: step.startTime,
    observations: step.observations.length,
    ...(step.comparisons.length > 0 ? { comparisons: step.comparisons.map((c) => c.summary) } : {}),
    ...(step.notes.length > 0 ? { notes: step.notes.map((n) => n.text) } : {}),
    ...(step.warnings.length > 0 ? { warnings: step.warnings } : {}),
  };
}

function traceWarnings(trace: OpenedTrace): string[] {
  const warnings: string[] = [];
  if (trace.inProgress) warnings.push('the recording has not been stopped (still running, or left by a crash)');
  if (trace.truncatedTail) warnings.push('the last event was cut off mid-write and is left out');
  if (trace.missingResources.length > 0) warnings.push(`${trace.missingResources.length} screenshot or observation resource(s) the events name are missing`);
  return warnings;
}

/**
 * The whole listing as `JSON.stringify(redactForTrace(listing), null, 2)` would print it, in pieces of
 * whole lines (docs/rules.md#r-mem-05): the steps and the missing resources, which grow with the trace, are
 * turned into JSON one element at a time, so a trace at TRACE_EVENT_LIMITS (a million steps, two million
 * missing references) never becomes one object or one string. Redacted as the whole was: the listing's
 * own keys name no secret and hide no text, so each value, and each element of an array, is redacted
 * alone exactly as `redactForTrace` redacts it inside the whole (src-shared/trace/redact.ts `walk`).
 */
function* listingJson(trace: OpenedTrace): Generator<string> {
  // Each element made when it is printed: a million steps' JSON objects are never held at once.
  const streamed: Record<string, { length: number; at: (i: number) => unknown }> = {
    missingResources: { length: trace.missingResources.length, at: (i) => trace.missingResources[i] },
    steps: { length: trace.timeline.length, at: (i) => stepJson(trace.timeline[i]!) },
  };
  const head = redactForTrace({
    path: trace.path,
    source: trace.source,
    inProgress: trace.inProgress,
    truncatedTail: trace.truncatedTail,
    missingResources: [] as unknown[],
    manifest: trace.manifest,
    events: trace.events.length,
    steps: [] as unknown[],
    variables: traceVariables(trace.timeline),
  });
  const keys = Object.keys(head) as (keyof typeof head)[];
  const indented = (value: unknown, by: string) => JSON.stringify(value, null, 2).replaceAll('\n', `\n${by}`);
  yield '{';
  for (const [i, key] of keys.entries()) {
    const comma = i < keys.length - 1 ? ',' : '';
    const array = Object.hasOwn(streamed, key) ? streamed[key] : undefined;
    if (array === undefined || array.length === 0) {
      yield `  ${JSON.stringify(key)}: ${indented(head[key], '  ')}${comma}`;
      continue;
    }
    yield `  ${JSON.stringify(key)}: [`;
    for (let at = 0; at < array.length; at++) yield `    ${indented(redactForTrace(array.at(at)) ?? null, '    ')}${at < array.length - 1 ? ',' : ''}`;
    yield `  ]${comma}`;
  }
  yield '}';
}

/**
 * The lines `parallax open` prints, one at a time; with `json`, the whole listing as JSON, in pieces of
 * whole lines (listingJson). Redacted as a trace is written (docs/rules.md#r-fuzz-02): a trace Parallax
 * did not write may hold a token; it is not shown.
 */
export function* openListing(trace: OpenedTrace, json: boolean): Generator<string> {
  const { manifest } = trace;
  if (json) {
    yield* listingJson(trace);
    return;
  }
  // Each line redacted as it is printed (redactString), as the whole listing was.
  const app = manifest.app ? `  app ${manifest.app.bundleId}${manifest.app.version ? ` ${manifest.app.version}` : ''}` : '';
  const line = (text: string) => redactString(text);
  yield line(`Trace ${trace.path}`);
  yield line(`  recorded ${manifest.createdAt} on ${manifest.device.name} (${manifest.device.kind}, ${manifest.device.url})${app}`);
  if (manifest.generator) yield line(`  written by ${manifest.generator.name} ${manifest.generator.version}`);
  const actions = trace.timeline.filter((s) => s.kind === 'action').length;
  // Steps are the actions, numbered as the trace view's filmstrip numbers them (issue 27: "44 steps
  // (11 actions)" where the UI said 11); notes and observations are listed but are not steps.
  const others = trace.timeline.length - actions;
  yield line(
    `  ${actions} ${actions === 1 ? 'step' : 'steps'}${others > 0 ? ` (+${others} ${others === 1 ? 'note or observation' : 'notes and observations'})` : ''}, ${trace.events.length} events`,
  );
  for (const warning of traceWarnings(trace)) yield line(`! ${warning}`);
  // What a replay will ask for, and where each goes (docs/rules.md#r-trust-01): never read from anywhere unasked.
  for (const variable of traceVariables(trace.timeline))
    yield line(`  replay asks for ${variable.name} (typed at ${variableTarget(variable)}): at its prompt, --var-file FILE or --env ${variable.name}`);
  const width = String(trace.timeline.length).length;
  const numbers = filmstripNumbers(trace.timeline);
  for (const step of trace.timeline) {
    yield line(stepLine(step, width, numbers.get(step.callId)));
    for (const warning of step.warnings) yield line(`${' '.repeat(width)}  ! ${warning}`);
  }
}
