/**
 * The trace view's listing of an opened trace: the steps with their results and the references to their
 * frames, the comparisons, the variables a replay would fill. Built where the trace is parsed, in the
 * trace worker (worker.ts, docs/rules.md#r-mem-04): the host receives this listing, never the events.
 */
import { visibleText } from '@shared/model/visible-text';
import type { TraceOpened, TraceViewStep } from '@shared/api/api';
import { filmstripNumbers, isFilmstripStep } from '@shared/trace/reader';
import { ActionResultSchema } from '@shared/protocol/action';
import { recordedActionText } from '@shared/trace/action-record';
import { stepVariable, traceVariables } from '@shared/trace/variables';
import type { TraceAction, TraceTarget } from '@shared/trace/schema';
import { isRecord } from '@shared/protocol/json';
import type { OpenedTrace } from './open';

/** The step's target in one line ("#login.submit \"Sign In\""), as the trace view and `parallax audit TRACE` name it. */
export function describeTarget(target: TraceTarget | undefined): string {
  if (!target) return '';
  const selector = target.selector ?? {};
  const node = target.node ?? {};
  const pick = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const id = pick(selector['id']) ?? pick(node['resource-id']) ?? pick(node['identifier']);
  const text = pick(selector['text']) ?? pick(node['text']) ?? pick(node['content-desc']) ?? pick(node['label']);
  const parts: string[] = [];
  if (id) parts.push(`#${id}`);
  if (text) parts.push(`"${text.length > 40 ? `${text.slice(0, 40)}…` : text}"`);
  if (target.point) parts.push(`at ${Math.round(target.point.x)},${Math.round(target.point.y)}`);
  return parts.join(' ');
}

function refsOf(event: { observationRef?: string | undefined; screenshotRef?: string | undefined; time?: number } | undefined) {
  if (!event || (!event.observationRef && !event.screenshotRef)) return undefined;
  return {
    ...(event.observationRef ? { observationRef: event.observationRef } : {}),
    ...(event.screenshotRef ? { screenshotRef: event.screenshotRef } : {}),
    ...(event.time !== undefined ? { time: event.time } : {}),
  };
}

/** The one text a sendKeys types, when the trace holds it (the editor's text field). */
function textOf(action: TraceAction): { text?: string } {
  return action.kind === 'sendKeys' && typeof action['text'] === 'string' ? { text: action['text'] } : {};
}

/** Where the finger went (docs/rules.md#r-edit-08): a touch's point, a swipe's stroke; nothing for the rest. */
function gestureOf(action: TraceAction, target: TraceTarget | undefined): { gesture?: NonNullable<TraceViewStep['gesture']> } {
  const point = (value: unknown) => {
    if (!isRecord(value)) return undefined;
    const { x, y } = value;
    return typeof x === 'number' && typeof y === 'number' ? { x, y } : undefined;
  };
  if (action.kind === 'tap' || action.kind === 'doubleTap' || action.kind === 'longPress') {
    const at = point(target?.point);
    return at ? { gesture: { kind: action.kind, at } } : {};
  }
  if (action.kind === 'swipe') {
    const from = point(action['start']);
    const to = point(action['end']);
    return from && to ? { gesture: { kind: 'swipe', from, to } } : {};
  }
  return {};
}

/** What the trace view shows of an opened trace: its manifest, its action steps, comparisons and variables. */
export function traceViewOf(trace: OpenedTrace): TraceOpened {
  const steps: TraceViewStep[] = [];
  const numbers = filmstripNumbers(trace.timeline);
  for (const step of trace.timeline) {
    if (!isFilmstripStep(step) || !step.before) continue;
    const result = step.after?.result;
    const before = refsOf(step.before);
    const after = refsOf(step.after);
    // The whole result as the live timeline shows it; a result an older writer kept otherwise is left to the summary.
    const whole = result ? ActionResultSchema.safeParse(result) : undefined;
    const number = numbers.get(step.callId);
    const variable = number === undefined ? undefined : stepVariable(step, number);
    steps.push({
      callId: step.callId,
      kind: step.before.action.kind,
      // Display text: a bidirectional control shows as <U+202E>, it does not reorder the label (docs/rules.md#r-show-01).
      action: visibleText(recordedActionText(step.before.action)),
      target: visibleText(describeTarget(step.before.target)),
      ...(step.before.label !== undefined ? { label: visibleText(step.before.label) } : {}),
      ...textOf(step.before.action),
      ...gestureOf(step.before.action, step.before.target),
      ...(variable !== undefined ? { variable } : {}),
      status: step.status,
      statusText: step.statusText,
      startTime: step.startTime,
      ...(step.durationMs !== undefined ? { durationMs: step.durationMs } : {}),
      result: result
        ? {
            success: result.success,
            ...(result.backend !== undefined ? { backend: result.backend } : {}),
            ...(result.fallbackReason !== undefined ? { fallbackReason: result.fallbackReason } : {}),
            ...(result.failureReason !== undefined ? { failureReason: result.failureReason } : {}),
          }
        : null,
      ...(whole?.success ? { actionResult: whole.data } : {}),
      ...(before ? { before } : {}),
      ...(after ? { after } : {}),
      ...(step.after?.appStateRef ? { appStateRef: step.after.appStateRef } : {}),
      ...(step.perf ? { perf: step.perf } : {}),
    });
  }
  return {
    path: trace.path,
    manifest: {
      createdAt: trace.manifest.createdAt,
      ...(trace.manifest.edited ? { edited: { ...trace.manifest.edited } } : {}),
      device: { name: trace.manifest.device.name, kind: trace.manifest.device.kind, url: trace.manifest.device.url },
      ...(trace.manifest.app ? { app: { ...trace.manifest.app } } : {}),
    },
    steps,
    comparisons: trace.timeline.flatMap((step) =>
      step.comparisons.map((c) => ({
        callId: c.callId,
        time: c.time,
        summary: c.summary,
        xctestObservationRef: c.xctestObservationRef,
        sdkObservationRef: c.sdkObservationRef,
        ...(c.diffRef ? { diffRef: c.diffRef } : {}),
        ...(c.screenshotRef ? { screenshotRef: c.screenshotRef } : {}),
      })),
    ),
    variables: traceVariables(trace.timeline),
    warnings: [
      ...(trace.truncatedTail ? ['The last line of the events was cut off mid-write and was left out.'] : []),
      ...(trace.missingResources.length > 0 ? [`${trace.missingResources.length} resource(s) the events name are missing from the trace.`] : []),
    ],
  };
}
