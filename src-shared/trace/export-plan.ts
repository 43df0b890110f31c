/**
 * What the trace exports (Maestro, XCUITest) share (docs/protocol.md#p-trace-export): which steps are
 * exported and how each is numbered (the filmstrip's numbers, reader.ts `filmstripNumbers`), the screen
 * an action was aimed at, its target on that screen, and the selector XCTest can see for it.
 *
 * A selector is the most robust one the selector generator finds for the target among those plain
 * XCTest can see (src-shared/selectors), checked on the recorded screen. A trace written before targets
 * recorded what XCTest saw of them (`target.xctest`) keeps the selector choice it always had
 * (Maestro's `legacyChoice`), so an old trace exports as before.
 */
import { isRecord } from '@shared/protocol/json';
import type { Point } from '@shared/protocol/action';
import type { UiNode } from '@shared/protocol/runner';
import { centerOf, nodeSource } from '@shared/model/node';
import { nodeAtKey } from '@shared/model/tree';
import { selectorsFor, type SelectorSuggestion } from '@shared/selectors/generate';
import { xctestAttributes } from '@shared/selectors/element';
import type { SelectorSyntax } from '@shared/selectors/errors';
import { filmstripNumbers, type TimelineStep } from './reader';
import type { TraceAction, TraceManifest, TraceTarget } from './schema';

/** Observation resources by reference: a ViewHierarchy, a Frame ({hierarchy: ViewHierarchy}) or a bare root node. */
export type ObservationsByRef = ReadonlyMap<string, unknown> | Readonly<Record<string, unknown>>;

export interface ExportNote {
  /** The step's number on the filmstrip (1-based); undefined for an action the filmstrip does not show. */
  step: number | undefined;
  callId: string;
  note: string;
}

export interface ExportScreen {
  root: UiNode;
  width?: number;
  height?: number;
}

export interface StepTarget {
  /** The target's node on the recorded screen (its index path there), when the trace names one. */
  key?: string;
  node?: UiNode;
  point?: Point;
  record?: TraceTarget;
}

export interface ExportStep {
  /** The filmstrip's number for this step. */
  number: number;
  step: TimelineStep;
  action: TraceAction;
  screen: ExportScreen | undefined;
  target: StepTarget;
}

export type Emitted = { lines: string[] } | { note: string };

// ---- Reading --------------------------------------------------------------------------------------

export function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

export function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export function readPoint(value: unknown): Point | undefined {
  if (!isRecord(value)) return undefined;
  const { x, y } = value;
  return typeof x === 'number' && typeof y === 'number' && Number.isFinite(x) && Number.isFinite(y) ? { x, y } : undefined;
}

/** A comment's text on one line. */
export function commentText(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
}

export function normalizeKind(kind: string): string {
  return kind.toLowerCase().replace(/[-_\s]/g, '');
}

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}

function looksLikeNode(value: Record<string, unknown>): boolean {
  return 'className' in value || 'bounds' in value || 'node' in value;
}

export function toScreen(observation: unknown): ExportScreen | undefined {
  if (!isRecord(observation)) return undefined;
  let hierarchy: Record<string, unknown> = observation;
  // A Frame wraps the ViewHierarchy one level deeper.
  if (isRecord(observation['hierarchy']) && isRecord(observation['hierarchy']['hierarchy'])) hierarchy = observation['hierarchy'];
  let root: unknown = hierarchy['hierarchy'];
  if (!isRecord(root)) root = looksLikeNode(observation) ? observation : undefined;
  if (!isRecord(root)) return undefined;
  const screen: ExportScreen = { root: root as UiNode };
  const width = positive(hierarchy['screenWidth']);
  const height = positive(hierarchy['screenHeight']);
  if (width !== undefined) screen.width = width;
  if (height !== undefined) screen.height = height;
  return screen;
}

function observationsGetter(observations: ObservationsByRef): (ref: string) => unknown {
  if (observations instanceof Map) return (ref) => observations.get(ref);
  const record = observations as Readonly<Record<string, unknown>>;
  return (ref) => (Object.hasOwn(record, ref) ? record[ref] : undefined);
}

export function appIdFrom(manifest: TraceManifest, steps: readonly TimelineStep[], lookup: (ref: string) => unknown): string | undefined {
  if (manifest.app?.bundleId) return manifest.app.bundleId;
  for (const step of steps) {
    const action = step.before?.action;
    if (action && (normalizeKind(action.kind) === 'launchapp' || normalizeKind(action.kind) === 'launch')) {
      const bundleId = str(action['bundleId']) ?? str(action['appId']);
      if (bundleId !== undefined) return bundleId;
    }
    for (const ref of [step.before?.observationRef, ...step.observations.map((o) => o.observationRef)]) {
      const observation = ref === undefined ? undefined : lookup(ref);
      if (!isRecord(observation)) continue;
      const inner = isRecord(observation['hierarchy']) ? observation['hierarchy'] : undefined;
      const packageName = str(observation['packageName']) ?? str(inner?.['packageName']);
      if (packageName !== undefined) return packageName;
    }
  }
  return undefined;
}

/** A step's target on the screen it was recorded on: its node there (by its recorded key), else the recorded copy, and its point. */
export function stepTargetOf(step: TimelineStep, screen: ExportScreen | undefined): StepTarget {
  const record = step.before?.target;
  const action: Record<string, unknown> = step.before?.action ?? {};
  const out: StepTarget = {};
  if (record) out.record = record;
  const key = record?.nodeKey;
  const fromTree = key !== undefined && screen ? nodeAtKey(screen.root, key) : undefined;
  if (fromTree && key !== undefined) out.key = key;
  const node = fromTree ?? (record?.node as UiNode | undefined);
  if (node) out.node = node;
  const point = record?.point ?? readPoint(action) ?? readPoint(action['point']);
  const center = out.node ? centerOf(out.node) : undefined;
  if (point) out.point = point;
  else if (center) out.point = center;
  return out;
}

// ---- Selectors --------------------------------------------------------------------------------------

/** Whether the trace recorded what XCTest saw of the target (traces written since it does). */
export function recordsXctest(target: StepTarget): boolean {
  return target.record !== undefined && Object.hasOwn(target.record, 'xctest');
}

export type TargetChoice = { kind: 'selector'; suggestion: SelectorSuggestion } | { kind: 'point'; point: Point; why: string } | { kind: 'none'; why: string };

/** Why XCTest has no unique selector for the target, in words for a comment. */
function whyNoSelector(target: StepTarget, screen: ExportScreen | undefined): string {
  if (!screen || target.key === undefined) return 'the recorded screen is missing, so no selector can be checked for uniqueness';
  const node = target.node;
  const recorded = target.record?.xctest;
  if (recorded === null || (node && recorded === undefined && xctestAttributes(node) === null)) {
    const source = node ? nodeSource(node) : 'xctest';
    return `only the ${source === 'sdkWebBridge' ? "web view's DOM" : 'SDK bridge'} reports this element; plain XCTest cannot find it`;
  }
  return 'nothing XCTest sees of this element is unique on the recorded screen';
}

/** The most robust selector of `syntax` XCTest can see for the target on the recorded screen, else its point. */
export function xctestChoice(syntax: SelectorSyntax, target: StepTarget, screen: ExportScreen | undefined): TargetChoice {
  if (screen && target.key !== undefined) {
    const best = selectorsFor(screen.root, target.key).find((s) => s.syntax === syntax && s.visibleTo === 'xctest');
    if (best) return { kind: 'selector', suggestion: best };
  }
  const why = whyNoSelector(target, screen);
  if (target.point) return { kind: 'point', point: target.point, why };
  return { kind: 'none', why: `${why}, and the trace holds no point` };
}

// ---- The walk ---------------------------------------------------------------------------------------

export interface ExportWalk {
  notes: ExportNote[];
  body: string[];
  appId: string | undefined;
}

/**
 * Walks the timeline (from `buildTimeline`): each exportable action goes to `emit` with its filmstrip
 * number, its screen (its own before-observation, else the latest recorded before it) and its target;
 * failed and unfinished actions, and what `emit` cannot express, become notes; a note step becomes a
 * comment.
 */
export function walkExport(
  manifest: TraceManifest,
  steps: readonly TimelineStep[],
  observationsByRef: ObservationsByRef,
  emit: (step: ExportStep, appId: string | undefined) => Emitted,
  /** A comment's lines: a step's note, or a note the trace holds. */
  comment: (text: string) => string[],
): ExportWalk {
  const lookup = observationsGetter(observationsByRef);
  const screens = new Map<string, ExportScreen | undefined>();
  const screenFor = (ref: string | undefined): ExportScreen | undefined => {
    if (ref === undefined) return undefined;
    if (!screens.has(ref)) screens.set(ref, toScreen(lookup(ref)));
    return screens.get(ref);
  };
  const numbers = filmstripNumbers(steps);
  const notes: ExportNote[] = [];
  const body: string[] = [];
  const note = (step: TimelineStep, text: string) => {
    const number = numbers.get(step.callId);
    notes.push({ step: number, callId: step.callId, note: text });
    const kind = commentText(step.before?.action.kind ?? 'action');
    const where = number === undefined ? `an action the trace view does not show (${commentText(step.callId)}, ${kind})` : `step ${number} (${kind})`;
    body.push(...comment(`Parallax: ${where}: ${commentText(text)}`));
  };

  const appId = appIdFrom(manifest, steps, lookup);
  let lastObservationRef: string | undefined;
  for (const step of steps) {
    const ownRef = step.before?.observationRef;
    const screenRef = ownRef ?? lastObservationRef;
    if (step.kind === 'action') {
      const number = numbers.get(step.callId);
      if (!step.before || number === undefined) note(step, 'the action itself is missing from the trace (only its result was recorded)');
      else if (step.status === 'in_flight') note(step, `not exported: the action was ${step.statusText}, so whether it ran is unknown`);
      else if (step.status === 'failed') note(step, `not exported: the action ${step.statusText}`);
      else {
        const screen = screenFor(screenRef);
        const emitted = emit({ number, step, action: step.before.action, screen, target: stepTargetOf(step, screen) }, appId);
        if ('note' in emitted) note(step, emitted.note);
        else body.push(...emitted.lines);
      }
    } else if (step.kind === 'note') {
      for (const n of step.notes) body.push(...comment(commentText(n.text)));
    }
    for (const ref of [ownRef, ...step.observations.map((o) => o.observationRef), step.after?.observationRef]) {
      if (ref !== undefined) lastObservationRef = ref;
    }
  }
  return { notes, body, appId };
}

/** The text a sendKeys step types, by its kind; `secret` when the trace left it out. */
export type KeyStep =
  | { kind: 'type' | 'replace'; text: string }
  | { kind: 'type' | 'replace'; secret: true }
  | { kind: 'clear' }
  | { kind: 'ime'; imeAction: string }
  | { kind: 'tab' };

/** A recorded sendKeys' steps, or the single text an older writer recorded as `text`. */
export function keySteps(action: TraceAction): KeyStep[] {
  const steps = action['steps'];
  if (Array.isArray(steps)) {
    const out: KeyStep[] = [];
    for (const raw of steps) {
      if (!isRecord(raw)) continue;
      const kind = raw['kind'];
      if (kind === 'type' || kind === 'replace') out.push(typeof raw['text'] === 'string' ? { kind, text: raw['text'] } : { kind, secret: true });
      else if (kind === 'clear' || kind === 'tab') out.push({ kind });
      else if (kind === 'ime' && typeof raw['imeAction'] === 'string') out.push({ kind, imeAction: raw['imeAction'] });
    }
    return out;
  }
  const text = action['text'];
  const replace = action['replace'] === true || action['clear'] === true || action['clearFirst'] === true;
  return [typeof text === 'string' ? { kind: replace ? 'replace' : 'type', text } : { kind: replace ? 'replace' : 'type', secret: true }];
}
