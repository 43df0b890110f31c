/**
 * Trace edits (docs/rules.md#r-edit-01..05): each edit on a small recorded trace, read back through the
 * trace reader, and each refusal naming the edit and why.
 */
import { describe, expect, it } from 'vitest';
import { applyTraceEdits, TraceEditError, TraceEditsSchema, type TraceEdit } from '@shared/trace/trace-edit';
import { buildTimeline, filmstripNumbers, readTraceEvents } from '@shared/trace/reader';
import { replayedActions } from '@main/trace/replay';
import type { TraceEvent } from '@shared/trace/schema';
import type { UiNode } from '@shared/protocol/runner';

const SCREEN_REF = `sha256:${'a'.repeat(64)}`;
const AFTER_REF = `sha256:${'b'.repeat(64)}`;

const button = (id: string, text: string, top: number): UiNode =>
  ({ className: 'Button', 'resource-id': id, text, bounds: { left: 10, top, right: 200, bottom: top + 40 }, enabled: true, clickable: true }) as unknown as UiNode;
const field = { className: 'TextField', 'resource-id': 'login.email', text: '', bounds: { left: 10, top: 300, right: 200, bottom: 340 } } as unknown as UiNode;
const SIGN_IN: UiNode = { className: 'Window', bounds: { left: 0, top: 0, right: 390, bottom: 844 }, node: [button('login.submit', 'Sign In', 100), field] } as unknown as UiNode;
const FEED: UiNode = { className: 'Window', bounds: { left: 0, top: 0, right: 390, bottom: 844 }, node: [button('feed.title', 'Feed', 50)] } as unknown as UiNode;
const screens = new Map<string, UiNode>([
  [SCREEN_REF, SIGN_IN],
  [AFTER_REF, FEED],
]);

const result = { success: true, warnings: [], target: { resolvedBy: 'id' }, timings: {}, requestsSent: 1 };

/** Three steps: type into the email field, tap Sign In, swipe; a note between. */
function recorded(): TraceEvent[] {
  let seq = 0;
  const e = (event: Record<string, unknown>) => ({ seq: seq++, time: 1000 + seq, ...event }) as TraceEvent;
  return [
    e({ type: 'action.before', callId: 'c1', action: { kind: 'sendKeys', steps: [{ kind: 'type', text: 'alice' }], text: 'alice' }, target: { selector: { id: 'login.email' } }, observationRef: SCREEN_REF }),
    e({ type: 'action.after', callId: 'c1', result, observationRef: SCREEN_REF }),
    e({ type: 'note', callId: 'n1', text: 'between' }),
    e({ type: 'action.before', callId: 'c2', action: { kind: 'tap' }, target: { selector: { id: 'login.submit' }, point: { x: 105, y: 120 } }, observationRef: SCREEN_REF }),
    e({ type: 'action.after', callId: 'c2', result, observationRef: AFTER_REF }),
    e({ type: 'action.before', callId: 'c3', action: { kind: 'swipe', start: { x: 200, y: 700 }, end: { x: 200, y: 200 } }, observationRef: AFTER_REF }),
    e({ type: 'action.after', callId: 'c3', result, observationRef: AFTER_REF }),
  ];
}

let counter = 0;
const context = { readScreen: async (ref: string) => screens.get(ref), newCallId: () => `new-${++counter}` };
const edit = (...edits: TraceEdit[]) => applyTraceEdits(recorded(), edits, context);
/** The edited events as a reader reads them back: the filmstrip's call ids in order. */
function readBack(events: TraceEvent[]) {
  const read = readTraceEvents(events.map((ev) => JSON.stringify(ev)).join('\n'));
  if (!read.ok) throw read.error;
  const timeline = buildTimeline(read.events);
  return { timeline, order: [...filmstripNumbers(timeline).keys()] };
}
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => (error instanceof TraceEditError ? error.message : `not a TraceEditError: ${String(error)}`),
  );

describe('trace edits (R-EDIT-01..05)', () => {
  it('R-EDIT-01: deleting a step takes its before and after away, keeps the others and renumbers seq so the trace reads back', async () => {
    const events = await edit({ op: 'delete', callId: 'c2' });
    expect(events.some((e) => e.callId === 'c2')).toBe(false);
    expect(events.map((e) => e.seq)).toEqual([0, 1, 2, 3, 4]);
    expect(readBack(events).order).toEqual(['c1', 'c3']);
  });

  it('R-EDIT-01: a step that is not in the trace is refused by its edit number', async () => {
    expect(await refusal(edit({ op: 'rename', callId: 'c1', label: 'x' }, { op: 'delete', callId: 'nope' }))).toBe('edit 2: the trace has no step "nope"');
    // A note is not a step of the filmstrip: not deletable as one.
    expect(await refusal(edit({ op: 'delete', callId: 'n1' }))).toMatch(/no step "n1"/);
  });

  it('R-EDIT-02: moving a step puts it at the place named among the steps; the note keeps its place', async () => {
    const events = await edit({ op: 'move', callId: 'c3', to: 0 });
    const { order, timeline } = readBack(events);
    expect(order).toEqual(['c3', 'c1', 'c2']);
    expect(timeline.map((s) => s.callId)).toEqual(['c3', 'c1', 'n1', 'c2']);
    expect(readBack(await edit({ op: 'move', callId: 'c1', to: 2 })).order).toEqual(['c2', 'c3', 'c1']);
  });

  it('R-EDIT-02: a place past the last step is refused', async () => {
    expect(await refusal(edit({ op: 'move', callId: 'c1', to: 3 }))).toBe('edit 1: place 4 is past the last of 3 steps');
  });

  it('R-EDIT-03: a name is kept on the step and read back; an empty one takes it away', async () => {
    const named = await edit({ op: 'rename', callId: 'c2', label: '  Sign in  ' });
    expect(readBack(named).timeline.find((s) => s.callId === 'c2')?.before?.label).toBe('Sign in');
    const cleared = await applyTraceEdits(named, [{ op: 'rename', callId: 'c2', label: '' }], context);
    expect(readBack(cleared).timeline.find((s) => s.callId === 'c2')?.before).not.toHaveProperty('label');
  });

  it('R-EDIT-04: a step that types one text gets another, in the step and in the text the Maestro export reads', async () => {
    const events = await edit({ op: 'setText', callId: 'c1', text: 'bob' });
    const action = readBack(events).timeline[0]!.before!.action;
    expect(action['text']).toBe('bob');
    expect(action['steps']).toEqual([{ kind: 'type', text: 'bob' }]);
  });

  it('R-EDIT-04: text is refused on a step that types none, and on one that types a secret the trace does not hold', async () => {
    expect(await refusal(edit({ op: 'setText', callId: 'c2', text: 'x' }))).toBe('edit 1: a tap types no text');
    const secret = recorded();
    (secret[0] as { action: Record<string, unknown> }).action = { kind: 'sendKeys', steps: [{ kind: 'type', secret: true }] };
    expect(await refusal(applyTraceEdits(secret, [{ op: 'setText', callId: 'c1', text: 'hunter2' }], context))).toMatch(/secret the trace does not hold/);
  });

  it('R-EDIT-04: a new selector is resolved on the recorded screen and the target recorded again from it', async () => {
    const events = await edit({ op: 'setSelector', callId: 'c2', selector: { text: 'Sign In' } });
    const target = readBack(events).timeline.find((s) => s.callId === 'c2')?.before?.target;
    expect(target?.selector).toEqual({ text: 'Sign In' });
    expect(target?.node?.['resource-id']).toBe('login.submit');
    expect(target?.point).toEqual({ x: 105, y: 120 });
  });

  it('R-EDIT-04: a selector that finds nothing on the recorded screen is refused', async () => {
    expect(await refusal(edit({ op: 'setSelector', callId: 'c2', selector: { id: 'login.gone' } }))).toMatch(/finds no single element on the step's recorded screen/);
  });

  it('R-EDIT-05: an assertion is inserted after the step, on its screen after, as a succeeded assert step with the check in its warning', async () => {
    const events = await edit({ op: 'insertAssertion', after: 'c2', check: 'textEquals', selector: { id: 'feed.title' }, expected: 'Feed' });
    const { order, timeline } = readBack(events);
    expect(order).toHaveLength(4);
    const inserted = timeline.find((s) => s.callId === order[2]);
    expect(inserted?.before?.action).toMatchObject({ kind: 'assert', check: 'textEquals', expected: 'Feed' });
    expect(inserted?.before?.observationRef).toBe(AFTER_REF);
    expect(inserted?.status).toBe('succeeded');
    expect(inserted?.after?.result['warnings']).toEqual(['feed.title has label "Feed" (checked on the recorded screen when the trace was edited)']);
  });

  it('R-EDIT-05: an assertion that does not hold on the recorded screen is refused with what the screen shows', async () => {
    expect(await refusal(edit({ op: 'insertAssertion', after: 'c2', check: 'textEquals', selector: { id: 'feed.title' }, expected: 'Home' }))).toBe(
      'edit 1: the assertion does not hold on the recorded screen: expected feed.title with label "Home", found "Feed"',
    );
    expect(await refusal(edit({ op: 'insertAssertion', after: null, check: 'visible', selector: { text: 'Feed' } }))).toMatch(/shows none/);
  });

  it('R-EDIT-05: before the first step, the assertion is checked on its screen before', async () => {
    const events = await edit({ op: 'insertAssertion', after: null, check: 'visible', selector: { text: 'Sign In' } });
    expect(readBack(events).timeline[0]?.before?.action['kind']).toBe('assert');
  });

  it('edits are bounded and decoded: an unknown op or too many edits are refused by the schema', () => {
    expect(TraceEditsSchema.safeParse([{ op: 'wipe', callId: 'c1' }]).success).toBe(false);
    expect(TraceEditsSchema.safeParse([]).success).toBe(false);
    expect(TraceEditsSchema.safeParse(Array.from({ length: 501 }, () => ({ op: 'delete', callId: 'c1' }))).success).toBe(false);
  });

  it('R-EDIT-07: a replay from a step runs it and the steps after it; only runs it alone; an unknown step is refused', () => {
    const timeline = buildTimeline(recorded());
    expect(replayedActions(timeline, 'c2').map((s) => s.callId)).toEqual(['c2', 'c3']);
    expect(replayedActions(timeline, 'c2', true).map((s) => s.callId)).toEqual(['c2']);
    expect(replayedActions(timeline).map((s) => s.callId)).toEqual(['c1', 'c2', 'c3']);
    expect(() => replayedActions(timeline, 'nope')).toThrow(/no step "nope"/);
  });
});
