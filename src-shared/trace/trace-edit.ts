/**
 * Trace edits (docs/rules.md#r-edit-01..06): a recorded trace's events changed by a list of edits, as a
 * pure function. Delete a step, move it, name it, change the text it types or the selector it aims
 * with, insert an assertion checked on the recorded screen. The recording itself is never changed: the
 * main process writes the result as a new file beside it (src-main/trace/edit.ts).
 *
 * A step is an action's call: its action.before, action.after and step.perf events move and go
 * together; observations, comparisons and notes keep their place. Sequence numbers are renumbered, so
 * the edited events read back as any trace does.
 */
import { z } from 'zod';
import { ASSERTION_CHECKS, type AssertRequest } from '@shared/protocol/action';
import type { UiNode } from '@shared/protocol/runner';
import { checkAssertion } from '@shared/act/assert';
import { selectorValue } from '@shared/act/resolve';
import { nodeTargetRecord } from '@shared/model/identity';
import { isFilmstripStep } from './reader';
import { requestFor, traceActionFor, typesSecret } from './action-record';
import type { ActionBeforeEvent, TraceEvent } from './schema';

/** At most this many edits in one save: far past what a person does by hand, so a page cannot make the host loop on them. */
export const MAX_TRACE_EDITS = 500;
/** A step's name (docs/rules.md#r-edit-03). */
export const MAX_STEP_LABEL = 200;

const CallId = z.string().min(1).max(200);
/** A selector a person types: an id or a text (a point or a picked node is not retyped by hand). */
const EditSelectorSchema = z.union([z.strictObject({ id: z.string().min(1).max(1_000) }), z.strictObject({ text: z.string().min(1).max(1_000) })]);

export const TraceEditSchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('delete'), callId: CallId }),
  /** `to`: the step's new 0-based place among the filmstrip's steps. */
  z.object({ op: z.literal('move'), callId: CallId, to: z.number().int().nonnegative() }),
  /** '' takes the name away. */
  z.object({ op: z.literal('rename'), callId: CallId, label: z.string().max(MAX_STEP_LABEL) }),
  z.object({ op: z.literal('setText'), callId: CallId, text: z.string().max(10_000) }),
  z.object({ op: z.literal('setSelector'), callId: CallId, selector: EditSelectorSchema }),
  /** After the step `after` (null: before the first), checked on that step's recorded screen after. */
  z.object({
    op: z.literal('insertAssertion'),
    after: CallId.nullable(),
    check: z.enum(ASSERTION_CHECKS),
    selector: EditSelectorSchema,
    expected: z.string().max(10_000).optional(),
  }),
]);
export type TraceEdit = z.infer<typeof TraceEditSchema>;
export const TraceEditsSchema = z.array(TraceEditSchema).min(1).max(MAX_TRACE_EDITS);

/** An edit that cannot apply: which one (1-based) and why. Nothing is written. */
export class TraceEditError extends Error {
  override readonly name = 'TraceEditError';
  constructor(
    readonly edit: number,
    readonly reason: string,
  ) {
    super(`edit ${edit}: ${reason}`);
  }
}

export interface TraceEditContext {
  /** A recorded screen's tree by its resource (the I/O is the caller's); undefined when the trace holds none. */
  readScreen(ref: string): Promise<UiNode | undefined>;
  /** A call id for an inserted step, unique in the trace. */
  newCallId(): string;
}

interface Block {
  callId: string;
  events: TraceEvent[];
}

function blocksOf(events: readonly TraceEvent[]): Block[] {
  const blocks: Block[] = [];
  const byCall = new Map<string, Block>();
  for (const event of events) {
    let block = byCall.get(event.callId);
    if (!block) {
      block = { callId: event.callId, events: [] };
      byCall.set(event.callId, block);
      blocks.push(block);
    }
    block.events.push(event);
  }
  return blocks;
}

function beforeOf(block: Block): ActionBeforeEvent | undefined {
  return block.events.find((e): e is ActionBeforeEvent => e.type === 'action.before');
}

function isStep(block: Block): boolean {
  const before = beforeOf(block);
  return before !== undefined && isFilmstripStep({ kind: 'action', before });
}

/** The trace's events with `edits` applied in order. Throws TraceEditError at the first that cannot apply. */
export async function applyTraceEdits(events: readonly TraceEvent[], edits: readonly TraceEdit[], context: TraceEditContext): Promise<TraceEvent[]> {
  const blocks = blocksOf(events.map((e) => structuredClone(e)));
  for (const [i, edit] of edits.entries()) {
    const n = i + 1;
    const stepAt = (callId: string) => {
      const at = blocks.findIndex((b) => b.callId === callId && isStep(b));
      if (at < 0) throw new TraceEditError(n, `the trace has no step ${JSON.stringify(callId)}`);
      return at;
    };
    switch (edit.op) {
      case 'delete':
        blocks.splice(stepAt(edit.callId), 1);
        break;
      case 'move': {
        const [block] = blocks.splice(stepAt(edit.callId), 1);
        const steps = blocks.filter(isStep);
        if (edit.to > steps.length) throw new TraceEditError(n, `place ${edit.to + 1} is past the last of ${steps.length + 1} steps`);
        const next = steps[edit.to];
        blocks.splice(next ? blocks.indexOf(next) : blocks.length, 0, block!);
        break;
      }
      case 'rename': {
        const before = beforeOf(blocks[stepAt(edit.callId)]!)!;
        const label = edit.label.trim();
        if (label === '') delete before.label;
        else before.label = label;
        break;
      }
      case 'setText':
        setText(n, beforeOf(blocks[stepAt(edit.callId)]!)!, edit.text);
        break;
      case 'setSelector':
        await setSelector(n, beforeOf(blocks[stepAt(edit.callId)]!)!, edit.selector, context);
        break;
      case 'insertAssertion': {
        const at = edit.after === null ? -1 : stepAt(edit.after);
        const anchor = at < 0 ? undefined : blocks[at]!;
        const first = blocks.find(isStep);
        blocks.splice(at + 1, 0, await assertionBlock(n, edit, anchor, first, context));
        break;
      }
    }
  }
  return blocks.flatMap((b) => b.events).map((event, seq) => ({ ...event, seq }));
}

/** Docs/rules.md#r-edit-04: a step that types one text the trace holds gets another; a secret is asked at replay, never written. */
function setText(n: number, before: ActionBeforeEvent, text: string): void {
  const action = before.action;
  if (action.kind !== 'sendKeys') throw new TraceEditError(n, `a ${action.kind} types no text`);
  if (typesSecret(action)) throw new TraceEditError(n, 'the step types a secret the trace does not hold; a replay asks for it');
  const steps = Array.isArray(action['steps']) ? (action['steps'] as Record<string, unknown>[]) : [];
  const texts = steps.filter((s) => s['kind'] === 'type' || s['kind'] === 'replace');
  if (texts.length !== 1) throw new TraceEditError(n, `the step types ${texts.length} texts; only a step that types one can be given another`);
  texts[0]!['text'] = text;
  action['text'] = text;
}

/**
 * Docs/rules.md#r-edit-04: the step aims by another selector, which must find one element on its
 * recorded screen; the target is recorded again from it as the recorder records one (traceActionFor).
 */
async function setSelector(n: number, before: ActionBeforeEvent, selector: z.infer<typeof EditSelectorSchema>, context: TraceEditContext): Promise<void> {
  const built = requestFor(before.action, selector);
  if (!built.ok) throw new TraceEditError(n, built.why);
  const root = before.observationRef ? await context.readScreen(before.observationRef) : undefined;
  if (!root) throw new TraceEditError(n, 'the step has no recorded screen to find the new selector on');
  const { target } = traceActionFor(built.request, root);
  if (!target?.node) throw new TraceEditError(n, `${selectorValue(selector)} finds no single element on the step's recorded screen`);
  before.target = target;
}

/**
 * Docs/rules.md#r-edit-05: an assertion checked on the screen the step before it left (the anchor's
 * recorded after-screen; before the first step, its before-screen). One that does not hold there is
 * refused: the recording shows it false, so a replay matching it would say nothing.
 */
async function assertionBlock(
  n: number,
  edit: Extract<TraceEdit, { op: 'insertAssertion' }>,
  anchor: Block | undefined,
  first: Block | undefined,
  context: TraceEditContext,
): Promise<Block> {
  const frame = anchor ? anchor.events.find((e) => e.type === 'action.after') : first ? beforeOf(first) : undefined;
  const observationRef = frame && 'observationRef' in frame ? frame.observationRef : undefined;
  const screenshotRef = frame && 'screenshotRef' in frame ? frame.screenshotRef : undefined;
  const root = observationRef ? await context.readScreen(observationRef) : undefined;
  if (!frame || !root) throw new TraceEditError(n, 'no recorded screen to check the assertion on at that place');
  const request: AssertRequest = { action: 'assert', target: edit.selector, check: edit.check, ...(edit.expected !== undefined ? { expected: edit.expected } : {}) };
  if ((edit.check === 'textEquals' || edit.check === 'valueEquals') && edit.expected === undefined) throw new TraceEditError(n, `${edit.check} needs an expected value`);
  const check = checkAssertion(request, root);
  if (!check.ok) throw new TraceEditError(n, `the assertion does not hold on the recorded screen: ${check.detail}`);
  const { action, target } = traceActionFor(request, root);
  const callId = context.newCallId();
  const refs = { ...(observationRef ? { observationRef } : {}), ...(screenshotRef ? { screenshotRef } : {}) };
  const selector = selectorValue(edit.selector);
  const resolvedBy = 'id' in edit.selector ? ('id' as const) : ('text' as const);
  const result = {
    success: true,
    outcome: 'done' as const,
    warnings: [`${check.detail} (checked on the recorded screen when the trace was edited)`],
    target: check.node ? nodeTargetRecord(check.node, resolvedBy, { selector }) : { resolvedBy: 'screen' as const, selector },
    timings: {},
    requestsSent: 0,
  };
  return {
    callId,
    events: [
      { type: 'action.before', callId, seq: 0, time: frame.time, action, ...(target ? { target } : {}), ...refs },
      { type: 'action.after', callId, seq: 0, time: frame.time, result, ...refs },
    ],
  };
}
