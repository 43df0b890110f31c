/**
 * A recorded target found again on the screen a replay sees (docs/rules.md#r-rpl-01): by the selector
 * the recording would export (export-plan.ts `xctestChoice`, the same choice the Maestro flow makes),
 * evaluated on the replayed observation with the selector evaluator, and checked against the recorded
 * identity (its id, its label, where it was). Pure.
 *
 * The verdicts: `found` (one element, the recorded one, where it was); `missing` (the selector finds
 * nothing); `ambiguous` (it finds several); `another` (it finds an element with another id than the
 * recorded one); `renamed` (the recorded element, with another label); `elsewhere` (the recorded element,
 * moved). `renamed` and `elsewhere` are not divergences: the exported selector still finds the one
 * element, so the exported flow would run the step, and so does the replay ("matched, moved by N pt");
 * the others are (`targetDiverges`, docs/rules.md#r-rpl-10).
 */
import { z } from 'zod';
import { PointSchema, type Point } from '@shared/protocol/action';
import type { FocusedElement } from '@shared/protocol/observation';
import type { UiNode } from '@shared/protocol/runner';
import { boundsOf, nodeLabel, withoutChildren, type Rect } from '@shared/model/node';
import { flattenTree, nodeAtKey, parentKeyOf } from '@shared/model/tree';
import { actionTargetAt, isEditableNode } from '@shared/model/target';
import { topmostAt } from '@shared/model/pick';
import { resolveTarget } from '@shared/act/resolve';
import { xctestNodeOf } from '@shared/selectors/element';
import { SYNTAX_LABELS } from '@shared/selectors/errors';
import { suggestionText } from '@shared/selectors/generate';
import { matchSelector, parseSelector } from '@shared/selectors/query';
import { boxText, movedBy } from '@shared/compare/screens';
import { focusedElement } from '@shared/observe/focus';
import { stepTargetOf, xctestChoice, type ExportScreen } from './export-plan';
import { candidatesFor, selectorText, traceActionFor } from './action-record';
import type { TimelineStep } from './reader';
import type { TraceTarget } from './schema';

export const TARGET_VERDICTS = ['found', 'missing', 'ambiguous', 'another', 'renamed', 'elsewhere'] as const;
export const TargetVerdictSchema = z.enum(TARGET_VERDICTS);
export type TargetVerdict = z.infer<typeof TargetVerdictSchema>;

/**
 * The verdicts that stop the step (docs/rules.md#r-rpl-10): the exported selector finds nothing, several
 * elements, or another element. A moved or renamed target it still finds uniquely is the step's change,
 * not its divergence: Maestro's `tapOn` taps it wherever it is and whatever it reads.
 */
export function targetDiverges(verdict: TargetVerdict): boolean {
  return verdict === 'missing' || verdict === 'ambiguous' || verdict === 'another';
}

/** A frame as boxText prints it (a merged node's may be fractional, unlike the runner's BoundsSchema). */
const BoxSchema = z.object({ left: z.number(), top: z.number(), right: z.number(), bottom: z.number() });

export const TargetCheckSchema = z.object({
  /** How the target was looked for: the exported selector, the exported point, or (no recorded screen) the recorded identity. */
  by: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('selector'), syntax: z.string(), selector: z.string() }),
    z.object({ kind: z.literal('point'), point: PointSchema, why: z.string() }),
    z.object({ kind: z.literal('identity'), why: z.string() }),
  ]),
  verdict: TargetVerdictSchema,
  /** How many elements the selector found on the replayed screen. */
  matches: z.number().int().nonnegative(),
  /** The element found, by its key in the replayed tree. */
  replayedKey: z.string().optional(),
  /** The recorded element, by its key in the recorded tree. */
  recordedKey: z.string().optional(),
  /** One line: `found by Maestro id: "login.submit"`, `target moved by 62 pt: [16,330,386,380] → [16,392,386,442]`, … */
  detail: z.string(),
  /** `elsewhere`: how far the element's centre moved, in whole points (its largest edge move when the centre stayed). */
  movedPt: z.number().int().nonnegative().optional(),
  /** `elsewhere`: the centre's travel (recorded → replayed), to tell a move of its own from its list's scroll (docs/rules.md#r-rpl-12). */
  offset: z.object({ dx: z.number(), dy: z.number() }).optional(),
  /** `elsewhere`: its frame where it was recorded and where it is now, the two boxes `detail` names. */
  boxes: z.object({ recorded: BoxSchema, replayed: BoxSchema }).optional(),
  /** `elsewhere`: it only went where its list's scroll took it (docs/rules.md#r-rpl-12): no change of the app. */
  carriedByScroll: z.literal(true).optional(),
});
export type TargetCheck = z.infer<typeof TargetCheckSchema>;

export interface FoundTarget {
  check: TargetCheck;
  /** The replayed element, when one was found (whatever the verdict). */
  node?: UiNode;
}

function flat(text: string): string {
  return text.replace(/\s*\n\s*/g, ', ').trim();
}

/** What XCTest reports of a node, or the node itself when XCTest reports nothing of it (a bridge-only screen). */
function seen(node: UiNode): UiNode {
  return xctestNodeOf(node) ?? node;
}

function idOf(node: UiNode, xctest?: Readonly<Record<string, string>> | null): string | undefined {
  const id = xctest?.['resource-id'] ?? seen(node)['resource-id'] ?? node['resource-id'];
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/**
 * The recorded element against the one found: the same id, the same label, in the same place. `how` says
 * how it was found, for the detail of another element: the selector "finds" it; an exported point (only
 * what lies there now: Maestro's `tapOn: point:` looks nothing up, docs/rules.md#r-rpl-11) "at … is" it.
 */
function judge(recorded: UiNode | undefined, xctest: Readonly<Record<string, string>> | null | undefined, found: UiNode, how = 'finds'): Judged {
  if (!recorded) return { verdict: 'found' };
  const recordedId = idOf(recorded, xctest);
  const foundId = idOf(found);
  if (recordedId !== undefined && foundId !== recordedId) {
    return {
      verdict: 'another',
      detail: `${how} another element: ${foundId === undefined ? 'one without an id' : `id ${JSON.stringify(foundId)}`}, recorded ${JSON.stringify(recordedId)}`,
    };
  }
  const was = nodeLabel(seen(recorded));
  const is = nodeLabel(seen(found));
  if (was !== undefined && is !== was)
    return { verdict: 'renamed', detail: `renamed: ${JSON.stringify(was)} → ${is === undefined ? '(no label)' : JSON.stringify(is)}` };
  const from = boundsOf(recorded);
  const to = boundsOf(found);
  if (from && to && movedBy(from, to)) {
    const movedPt = distance(from, to);
    const offset = centreTravel(from, to);
    const boxes = { recorded: from, replayed: to };
    return { verdict: 'elsewhere', movedPt, offset, boxes, detail: elsewhereText({ movedPt, boxes }) };
  }
  return { verdict: 'found' };
}

/**
 * An `elsewhere` target's words, the one place they are made: "moved by 62 pt: [16,330,386,380] →
 * [16,392,386,442]", or, carried by its list's scroll, "scrolled with its list by 8 pt: …" (R-RPL-12).
 */
export function elsewhereText(moved: Pick<TargetCheck, 'movedPt' | 'boxes' | 'carriedByScroll'>): string {
  const how = moved.carriedByScroll ? 'scrolled with its list' : 'moved';
  const boxes = moved.boxes ? `: ${boxText(moved.boxes.recorded)} → ${boxText(moved.boxes.replayed)}` : '';
  return `${how} by ${moved.movedPt ?? '?'} pt${boxes}`;
}

type Judged = Pick<TargetCheck, 'movedPt' | 'offset' | 'boxes'> & { verdict: TargetVerdict; detail?: string };

function centreTravel(from: Rect, to: Rect): { dx: number; dy: number } {
  return { dx: (to.left + to.right - from.left - from.right) / 2, dy: (to.top + to.bottom - from.top - from.bottom) / 2 };
}

/** How far a frame moved, as a person reads it: its centre's travel, else (resized in place) its largest edge move. */
function distance(from: Rect, to: Rect): number {
  const { dx, dy } = centreTravel(from, to);
  const centre = Math.round(Math.hypot(dx, dy));
  if (centre > 0) return centre;
  return Math.round(Math.max(...(['left', 'top', 'right', 'bottom'] as const).map((edge) => Math.abs(to[edge] - from[edge]))));
}

function at(root: UiNode, point: Point): UiNode | undefined {
  const nodes = flattenTree(root);
  const hit = (actionTargetAt(nodes, point.x, point.y) ?? topmostAt(nodes, point.x, point.y))?.node;
  return hit && hit !== root ? hit : undefined;
}

/** `node`, or its nearest ancestor whose id is `id` (none: `node` itself). */
function withRecordedAncestor(root: UiNode, node: UiNode, id: string | undefined): UiNode {
  if (id === undefined || idOf(node) === id) return node;
  let key = keyOf(root, node);
  while (key !== undefined) {
    const parent = parentKeyOf(key);
    if (parent === null) break;
    const up = nodeAtKey(root, parent);
    if (up && idOf(up) === id) return up;
    key = parent;
  }
  return node;
}

function keyOf(root: UiNode, node: UiNode | undefined): string | undefined {
  if (!node) return undefined;
  return flattenTree(root).find((f) => f.node === node)?.key;
}

/** One element found on the replayed tree, judged against the recorded one. */
function foundOne(
  by: TargetCheck['by'],
  root: UiNode | undefined,
  node: UiNode,
  judged: Judged,
  recordedKey: string | undefined,
  foundText: string,
): FoundTarget {
  const replayedKey = root ? keyOf(root, node) : undefined;
  return {
    node,
    check: {
      by,
      verdict: judged.verdict,
      matches: 1,
      ...(judged.movedPt !== undefined ? { movedPt: judged.movedPt } : {}),
      ...(judged.offset !== undefined ? { offset: judged.offset } : {}),
      ...(judged.boxes !== undefined ? { boxes: judged.boxes } : {}),
      ...(replayedKey !== undefined ? { replayedKey } : {}),
      ...(recordedKey !== undefined ? { recordedKey } : {}),
      detail: judged.detail ? `target ${judged.detail}` : foundText,
    },
  };
}

/**
 * The step's recorded target on `replayed` (the merged tree of the replay's read before the step), or
 * undefined when the step aims at nothing (keyboard focus, a whole-screen swipe, back).
 */
export function findRecordedTarget(
  step: TimelineStep,
  recordedScreen: ExportScreen | undefined,
  replayed: UiNode | undefined,
  options: { preferEditable?: boolean } = {},
): FoundTarget | undefined {
  const record = step.before?.target;
  if (!record) return undefined;
  const target = stepTargetOf(step, recordedScreen);
  const recorded = target.node;
  const recordedKey = target.key !== undefined ? { recordedKey: target.key } : {};
  const choice = xctestChoice('maestro', target, recordedScreen);
  const root = replayed;

  if (choice.kind === 'selector') {
    const text = suggestionText(choice.suggestion);
    const by = { kind: 'selector' as const, syntax: choice.suggestion.syntax, selector: flat(text) };
    const named = `${SYNTAX_LABELS[choice.suggestion.syntax]} ${by.selector}`;
    const keys = root ? matchSelector(parseSelector(text, choice.suggestion.syntax), root).matches : [];
    if (keys.length === 0)
      return { check: { by, verdict: 'missing', matches: 0, ...recordedKey, detail: `target missing: the exported selector (${named}) finds nothing` } };
    if (keys.length > 1)
      return {
        check: {
          by,
          verdict: 'ambiguous',
          matches: keys.length,
          ...recordedKey,
          detail: `target ambiguous: the exported selector (${named}) finds ${keys.length} elements`,
        },
      };
    const node = nodeAtKey(root!, keys[0]!)!;
    return foundOne(by, root!, node, judge(recorded, record.xctest, node), target.key, `found by ${named}`);
  }

  if (choice.kind === 'point') {
    const by = { kind: 'point' as const, point: choice.point, why: choice.why };
    const where = `${Math.round(choice.point.x)},${Math.round(choice.point.y)}`;
    const node = root ? at(root, choice.point) : undefined;
    // A point that hit no element when it was recorded aims at the place, not at an element.
    if (!recorded) return { ...(node ? { node } : {}), check: { by, verdict: 'found', matches: node ? 1 : 0, ...recordedKey, detail: `point ${where}` } };
    if (!node) return { check: { by, verdict: 'missing', matches: 0, ...recordedKey, detail: `target missing: nothing is at the exported point ${where}` } };
    // A point inside a container (a swipe's list) hits what lies in it: the container is the hit's
    // ancestor with the recorded id, if there is one.
    const hit = withRecordedAncestor(root!, node, idOf(recorded, record.xctest));
    return foundOne(
      by,
      root!,
      hit,
      judge(recorded, record.xctest, hit, `at the exported point ${where} is`),
      target.key,
      `found at the exported point ${where}`,
    );
  }

  // No recorded screen to choose a selector on: the recorded identity, as the trace names it.
  const by = { kind: 'identity' as const, why: choice.why };
  for (const candidate of candidatesFor(record)) {
    const resolved = resolveTarget(candidate, root, { preferEditable: options.preferEditable ?? false });
    const node = resolved.kind === 'node' ? resolved.node : resolved.kind === 'point' ? resolved.found : undefined;
    if (!node) continue;
    return foundOne(by, root, node, judge(recorded, record.xctest, node), undefined, `found by ${selectorText(candidate)}`);
  }
  const names = candidatesFor(record).map(selectorText);
  return {
    check: {
      by,
      verdict: 'missing',
      matches: 0,
      detail: `target missing: no element with ${names.length > 0 ? names.join(' or ') : 'what the trace recorded of it'}`,
    },
  };
}

/** A focused element as a refusal names it: its label (else id) and what it is ("the text field \"Full name\""). */
export function focusedName(node: UiNode): string {
  const name = nodeLabel(seen(node)) ?? nodeLabel(node) ?? idOf(node);
  const kind = isEditableNode(node) ? 'the text field' : `the ${seen(node).className ?? node.className ?? 'element'}`;
  return name === undefined ? `${kind} with no name` : `${kind} ${JSON.stringify(name)}`;
}

/** The field the replayed device's focus is on, as a trace target on the replayed screen; or why the keys' place is not known. */
export type FocusAgain = { field: UiNode; target: TraceTarget } | { refused: string };

/**
 * Where the keys of a step aimed at no field (a web `<label>`) go on the replayed screen
 * (docs/rules.md#r-trust-03): to the keyboard focus, as they did when it was recorded
 * (docs/rules.md#r-act-08). That place is known only when the recorded screen before the step had an
 * editable field focused (the field the keys followed) and the replayed device's own read
 * (`replayedFocus`, its observation's `focusedElement`, docs/rules.md#r-obj-05) has an editable field
 * focused that is that field: the step's recorded target swapped for the recorded focused field, found
 * again by `findRecordedTarget` on the replayed screen, strictly (`found`: not moved, not renamed), and
 * the very node that has the focus. The trace's focus alone decides nothing: a trace is data.
 */
export function focusedFieldAgain(
  step: TimelineStep,
  recordedScreen: ExportScreen | undefined,
  replayed: UiNode | undefined,
  replayedFocus: FocusedElement | undefined,
): FocusAgain {
  const now = replayed && replayedFocus ? nodeAtKey(replayed, replayedFocus.nodeKey) : undefined;
  if (!now) return { refused: 'nothing has the focus on the device' };
  if (!isEditableNode(now)) return { refused: `the focus is on ${focusedName(now)}, which is not a text field` };
  const was = recordedScreen ? focusedElement(recordedScreen.root) : undefined;
  const wasNode = was && recordedScreen ? nodeAtKey(recordedScreen.root, was.nodeKey) : undefined;
  if (!was || !wasNode || !step.before)
    return {
      refused: `the recording shows no field with the focus before the step, so where its keys went is not known (${focusedName(now)} has the focus now)`,
    };
  if (!isEditableNode(wasNode))
    return { refused: `when it was recorded the focus was on ${focusedName(wasNode)}, not a text field (${focusedName(now)} has the focus now)` };
  // The recorded focused field as the step's target, as the recorder writes a target (nodeKey, node, what XCTest saw).
  const recorded = traceActionFor({ action: 'tap', target: { node: withoutChildren(wasNode) } }, recordedScreen!.root).target;
  const found = recorded
    ? findRecordedTarget({ ...step, before: { ...step.before, target: recorded } }, recordedScreen, replayed, { preferEditable: true })
    : undefined;
  if (found?.node !== now || found.check.verdict !== 'found') {
    const how = found && found.check.verdict !== 'found' ? ` (${found.check.detail})` : '';
    return { refused: `the focus is on ${focusedName(now)}, not on the field that had it when it was recorded, ${focusedName(wasNode)}${how}` };
  }
  const target = traceActionFor({ action: 'tap', target: { node: withoutChildren(now) } }, replayed).target;
  return target ? { field: now, target } : { refused: `the focused field ${focusedName(now)} cannot be named on the device's screen` };
}
