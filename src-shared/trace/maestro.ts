/**
 * Export a trace to a Maestro flow: YAML a Maestro user can run, with selectors that are
 * unique on the screen each step was recorded against, and a `# Parallax:` comment (plus an entry in
 * `notes`) for every step that has no Maestro form.
 *
 * Selectors, in order: `id` (the accessibility identifier, the runner's resource-id) when exactly one
 * node on the before-screen has it, else `text` when exactly one node shows that text (Maestro matches
 * text against the label, text, hint and value, so all of those are counted), else `point`, as
 * percentages of the screen when the rounded percentage still lands inside the target, else in points.
 * Maestro's `text` and `id` are regular expressions matched against the whole string, so literal
 * values are escaped.
 *
 * The YAML is written by hand (no YAML library in the project): keys are fixed identifiers, and every
 * string value is a quoted scalar, single-quoted when it has no control or line-break characters,
 * double-quoted with JSON-style escapes otherwise.
 */
import { isRecord } from '@shared/protocol/json';
import type { UiNode } from '@shared/protocol/runner';
import { boundsOf, centerOf, nodeSource, type Rect } from '@shared/model/node';
import type { TimelineStep } from './reader';
import type { TraceManifest } from './schema';

export interface MaestroNote {
  /** The step's index in the timeline (0-based; comments in the YAML count from 1). */
  step: number;
  callId: string;
  note: string;
}

export interface MaestroExport {
  yaml: string;
  notes: MaestroNote[];
  /** About the flow as a whole rather than a step (no app id recorded); also written as comments. */
  warnings: string[];
}

/** Observation resources by reference: a ViewHierarchy, a Frame ({hierarchy: ViewHierarchy}) or a bare root node. */
export type ObservationsByRef = ReadonlyMap<string, unknown> | Readonly<Record<string, unknown>>;

// ---- YAML scalars -----------------------------------------------------------------------------------

// Characters a single-quoted YAML scalar cannot carry as is: controls and line breaks (YAML 1.1, which
// Maestro's parser speaks, also breaks lines at NEL, U+2028 and U+2029), BOM and non-characters, and
// surrogates, which only the escaped form can keep intact.
const NEEDS_ESCAPES = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]/;
const ESCAPE_AFTER_JSON = /[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/g;

/** A YAML quoted scalar that reads back as exactly `text`. */
export function yamlString(text: string): string {
  if (!NEEDS_ESCAPES.test(text)) return `'${text.replaceAll("'", "''")}'`;
  // YAML's double-quoted escapes include JSON's (\" \\ \n \t \uXXXX), so JSON.stringify is a valid
  // starting point; it leaves DEL, C1 controls and the Unicode line breaks raw, so those are escaped too.
  return JSON.stringify(text).replace(ESCAPE_AFTER_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A comment's text on one line. */
function commentText(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
}

/** Maestro's text and id selectors are regular expressions (Java syntax) matched against the whole value. */
export function escapeRegex(text: string): string {
  return text.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&');
}

// ---- Screens ----------------------------------------------------------------------------------------

interface Screen {
  root: UiNode;
  width?: number;
  height?: number;
  /** Per value, how many nodes carry it, for the uniqueness checks. */
  idCount: Map<string, number>;
  textCount: Map<string, number>;
}

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}

function looksLikeNode(value: Record<string, unknown>): boolean {
  return 'className' in value || 'bounds' in value || 'node' in value;
}

function toScreen(observation: unknown): Screen | undefined {
  if (!isRecord(observation)) return undefined;
  let hierarchy: Record<string, unknown> = observation;
  // A Frame wraps the ViewHierarchy one level deeper.
  if (isRecord(observation['hierarchy']) && isRecord(observation['hierarchy']['hierarchy'])) hierarchy = observation['hierarchy'];
  let root: unknown = hierarchy['hierarchy'];
  if (!isRecord(root)) root = looksLikeNode(observation) ? observation : undefined;
  if (!isRecord(root)) return undefined;
  const screen: Screen = {
    root: root as UiNode,
    idCount: new Map(),
    textCount: new Map(),
  };
  const width = positive(hierarchy['screenWidth']);
  const height = positive(hierarchy['screenHeight']);
  if (width !== undefined) screen.width = width;
  if (height !== undefined) screen.height = height;
  const bump = (map: Map<string, number>, value: unknown) => {
    if (typeof value === 'string' && value.trim() !== '') map.set(value, (map.get(value) ?? 0) + 1);
  };
  const stack: UiNode[] = [screen.root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    bump(screen.idCount, node['resource-id']);
    // A node showing the same string in two attributes is still one match.
    const texts = new Set([node.text, node['content-desc'], node['hint-text'], node.value]);
    for (const text of texts) bump(screen.textCount, text);
    if (Array.isArray(node.node)) for (const child of node.node) if (isRecord(child)) stack.push(child);
  }
  return screen;
}

function nodeAtKey(root: UiNode, key: string): UiNode | undefined {
  const parts = key.split('.');
  if (parts[0] !== '0') return undefined;
  let node: UiNode | undefined = root;
  for (const part of parts.slice(1)) {
    const index = Number(part);
    node = Array.isArray(node?.node) && Number.isInteger(index) ? node.node[index] : undefined;
    if (!node) return undefined;
  }
  return node;
}

// ---- Targets and selectors --------------------------------------------------------------------------

interface Point {
  x: number;
  y: number;
}

interface Target {
  node?: Record<string, unknown>;
  point?: Point;
}

function readPoint(value: unknown): Point | undefined {
  if (!isRecord(value)) return undefined;
  const { x, y } = value;
  return typeof x === 'number' && typeof y === 'number' && Number.isFinite(x) && Number.isFinite(y) ? { x, y } : undefined;
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

function resolveTarget(step: TimelineStep, screen: Screen | undefined): Target {
  const target = step.before?.target;
  const action: Record<string, unknown> = step.before?.action ?? {};
  const out: Target = {};
  const key = target?.nodeKey;
  const fromTree = key !== undefined && screen ? nodeAtKey(screen.root, key) : undefined;
  const node = fromTree ?? target?.node;
  if (node) out.node = node;
  const point = target?.point ?? readPoint(action) ?? readPoint(action['point']);
  const center = out.node ? centerOf(out.node as UiNode) : undefined;
  if (point) out.point = point;
  else if (center) out.point = center;
  return out;
}

type Selector = { kind: 'id' | 'text' | 'point'; value: string };

function formatPoint(point: Point, screen: Screen | undefined, within?: Rect): string {
  if (screen?.width !== undefined && screen.height !== undefined) {
    const px = Math.round((point.x / screen.width) * 100);
    const py = Math.round((point.y / screen.height) * 100);
    const backX = (px / 100) * screen.width;
    const backY = (py / 100) * screen.height;
    const inside = within ? backX >= within.left && backX < within.right && backY >= within.top && backY < within.bottom : true;
    if (inside && px >= 0 && px <= 100 && py >= 0 && py <= 100) return `${px}%, ${py}%`;
  }
  return `${Math.round(point.x)}, ${Math.round(point.y)}`;
}

/** The first selector that names the target alone on its screen, or why there is none. */
function chooseSelector(target: Target, screen: Screen | undefined): Selector | { why: string } {
  const node = target.node;
  if (node && screen) {
    const id = str(node['resource-id']);
    // A bridge node's resource-id is the bridge's element id, which XCTest (and so Maestro) need not see.
    const bridgeOnly = nodeSource(node as UiNode) === 'sdkBridge';
    if (id !== undefined && !bridgeOnly && screen.idCount.get(id) === 1) return { kind: 'id', value: escapeRegex(id) };
    for (const attr of ['content-desc', 'text'] as const) {
      const text = str(node[attr]);
      if (text !== undefined && screen.textCount.get(text) === 1) return { kind: 'text', value: escapeRegex(text) };
    }
  }
  if (target.point) return { kind: 'point', value: formatPoint(target.point, screen, (node && boundsOf(node as UiNode)) ?? undefined) };
  if (!screen) return { why: 'no recorded screen to choose a unique selector from, and no point' };
  return { why: 'the target has no unique id or text on the recorded screen, and no point' };
}

function selectorLines(command: string, selector: Selector, indent = '    '): string[] {
  return [`- ${command}:`, `${indent}${selector.kind}: ${yamlString(selector.value)}`];
}

// ---- Actions ----------------------------------------------------------------------------------------

type Emitted = { lines: string[] } | { note: string };

const KEYS: Record<string, string> = {
  enter: 'Enter',
  return: 'Enter',
  tab: 'Tab',
  backspace: 'Backspace',
  delete: 'Backspace',
  home: 'Home',
  lock: 'Lock',
  volumeup: 'Volume Up',
  volumedown: 'Volume Down',
  escape: 'Escape',
};
/** Keys Maestro knows only on Android. */
const ANDROID_ONLY_KEYS = new Set(['back', 'power']);

const IME_ACTIONS = new Set(['done', 'next', 'go', 'search', 'send']);

function kindOf(step: TimelineStep): string {
  return step.before?.action.kind ?? 'unknown';
}

function normalizeKind(kind: string): string {
  return kind.toLowerCase().replace(/[-_\s]/g, '');
}

function textOf(action: Record<string, unknown>): string | undefined {
  const text = action['text'];
  return typeof text === 'string' ? text : undefined;
}

function focusThenType(step: TimelineStep, screen: Screen | undefined, replace: boolean): Emitted {
  const action = step.before!.action;
  const text = textOf(action);
  if (text === undefined) return { note: 'the typed text is not in the trace (a secure or redacted field), so it cannot be replayed' };
  const lines: string[] = [];
  const target = resolveTarget(step, screen);
  if (target.node || step.before?.target) {
    const selector = chooseSelector(target, screen);
    if ('why' in selector) return { note: `cannot focus the field: ${selector.why}` };
    lines.push(...selectorLines('tapOn', selector));
  }
  if (replace) lines.push(...eraseLines(target.node));
  lines.push(`- inputText: ${yamlString(text)}`);
  return { lines };
}

function eraseLines(node: Record<string, unknown> | undefined): string[] {
  const current = node ? (str(node['value']) ?? str(node['text'])) : undefined;
  // Maestro erases 50 characters by default; say more when the field is known to hold more.
  return current !== undefined && current.length > 50 ? [`- eraseText: ${current.length}`] : ['- eraseText'];
}

function swipeLines(step: TimelineStep, screen: Screen | undefined): Emitted {
  const action = step.before!.action;
  const start = readPoint(action['start']) ?? readPoint({ x: action['x1'], y: action['y1'] });
  const end = readPoint(action['end']) ?? readPoint({ x: action['x2'], y: action['y2'] });
  if (!start || !end) return { note: 'the swipe has no recorded start and end points' };
  const duration = num(action['durationMs']) ?? num(action['duration']);
  const lines = ['- swipe:', `    start: ${yamlString(formatPoint(start, screen))}`, `    end: ${yamlString(formatPoint(end, screen))}`];
  if (duration !== undefined && duration > 0) lines.push(`    duration: ${Math.round(duration)}`);
  return { lines };
}

function scrollUntilVisibleLines(step: TimelineStep): Emitted {
  const action = step.before!.action;
  const look = isRecord(action['lookFor']) ? action['lookFor'] : action;
  const id = str(look['id']) ?? str(look['resourceId']) ?? str(look['elementId']);
  const text = str(look['text']);
  const direction = str(action['direction'])?.toUpperCase();
  const lines = ['- scrollUntilVisible:', '    element:'];
  if (id !== undefined) lines.push(`      id: ${yamlString(escapeRegex(id))}`);
  else if (text !== undefined) lines.push(`      text: ${yamlString(escapeRegex(text))}`);
  else return { note: 'the scroll search names no text or id to look for' };
  if (direction === 'UP' || direction === 'DOWN' || direction === 'LEFT' || direction === 'RIGHT') lines.push(`    direction: ${direction}`);
  return { lines };
}

function emitAction(step: TimelineStep, screen: Screen | undefined, appId: string | undefined): Emitted {
  const action = step.before!.action;
  const kind = normalizeKind(action.kind);
  const tapLike = (command: string): Emitted => {
    const selector = chooseSelector(resolveTarget(step, screen), screen);
    return 'why' in selector ? { note: `cannot ${action.kind}: ${selector.why}` } : { lines: selectorLines(command, selector) };
  };
  switch (kind) {
    case 'tap':
    case 'tapon':
    case 'click':
      return tapLike('tapOn');
    case 'doubletap':
      return tapLike('doubleTapOn');
    case 'longpress':
    case 'longpresson':
      return tapLike('longPressOn');
    case 'inputtext':
    case 'typetext':
    case 'appendtext':
    case 'sendkeys':
      return focusThenType(step, screen, action['replace'] === true || action['clear'] === true || action['clearFirst'] === true);
    case 'settext':
      return focusThenType(step, screen, true);
    case 'cleartext':
    case 'erasetext': {
      const target = resolveTarget(step, screen);
      const lines: string[] = [];
      if (step.before?.target) {
        const selector = chooseSelector(target, screen);
        if ('why' in selector) return { note: `cannot focus the field: ${selector.why}` };
        lines.push(...selectorLines('tapOn', selector));
      }
      return { lines: [...lines, ...eraseLines(target.node)] };
    }
    case 'swipe':
      return swipeLines(step, screen);
    case 'scroll':
      return readPoint(action['start']) || action['x1'] !== undefined
        ? swipeLines(step, screen)
        : { note: 'a scroll by content offset has no Maestro form (Maestro scrolls by swiping)' };
    case 'scrolluntilvisible':
    case 'lookfor':
      return scrollUntilVisibleLines(step);
    case 'presskey': {
      const key = str(action['key']);
      if (key === undefined) return { note: 'the key press names no key' };
      const maestroKey = KEYS[normalizeKind(key)];
      if (maestroKey !== undefined) return { lines: [`- pressKey: ${maestroKey}`] };
      if (ANDROID_ONLY_KEYS.has(normalizeKind(key))) return { note: `Maestro's ${key} key exists only on Android` };
      return { note: `Maestro has no key named ${JSON.stringify(key)}` };
    }
    case 'imeaction': {
      const ime = str(action['action'])?.toLowerCase();
      // Every iOS return-key flavour (done, go, search, send, next) is the keyboard's return key.
      if (ime !== undefined && IME_ACTIONS.has(ime)) return { lines: ['- pressKey: Enter'] };
      return { note: `no Maestro form for the keyboard action ${JSON.stringify(ime ?? '')}` };
    }
    case 'hidekeyboard':
      return { lines: ['- hideKeyboard'] };
    case 'launchapp': {
      const bundleId = str(action['bundleId']) ?? str(action['appId']);
      if (bundleId === undefined || bundleId === appId) return { lines: ['- launchApp'] };
      return { lines: ['- launchApp:', `    appId: ${yamlString(bundleId)}`] };
    }
    case 'openlink':
    case 'opendeeplink':
    case 'deeplink': {
      const url = str(action['url']) ?? str(action['link']);
      return url === undefined ? { note: 'the link is not in the trace' } : { lines: [`- openLink: ${yamlString(url)}`] };
    }
    case 'back':
    case 'navigateback':
      return { note: "Maestro's back exists only on Android; on iOS tap the screen's back button instead" };
    default:
      return { note: `no Maestro form for the action ${JSON.stringify(action.kind)}` };
  }
}

// ---- The flow ---------------------------------------------------------------------------------------

function observationsGetter(observations: ObservationsByRef): (ref: string) => unknown {
  if (observations instanceof Map) return (ref) => observations.get(ref);
  const record = observations as Readonly<Record<string, unknown>>;
  return (ref) => (Object.hasOwn(record, ref) ? record[ref] : undefined);
}

function appIdFrom(manifest: TraceManifest, steps: readonly TimelineStep[], lookup: (ref: string) => unknown): string | undefined {
  if (manifest.app?.bundleId) return manifest.app.bundleId;
  for (const step of steps) {
    const action = step.before?.action;
    if (action && normalizeKind(action.kind) === 'launchapp') {
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

/**
 * The steps (from `buildTimeline`) as a Maestro flow. Observations and comparisons are not actions and
 * are left out; notes become comments; failed and unfinished actions are not replayed.
 */
export function exportMaestroFlow(manifest: TraceManifest, steps: readonly TimelineStep[], observationsByRef: ObservationsByRef): MaestroExport {
  const lookup = observationsGetter(observationsByRef);
  const screens = new Map<string, Screen | undefined>();
  const screenFor = (ref: string | undefined): Screen | undefined => {
    if (ref === undefined) return undefined;
    if (!screens.has(ref)) screens.set(ref, toScreen(lookup(ref)));
    return screens.get(ref);
  };

  const notes: MaestroNote[] = [];
  const body: string[] = [];
  const note = (step: TimelineStep, text: string) => {
    notes.push({ step: step.index, callId: step.callId, note: text });
    body.push(`# Parallax: step ${step.index + 1} (${commentText(kindOf(step))}): ${commentText(text)}`);
  };

  const appId = appIdFrom(manifest, steps, lookup);
  // The screen an action was aimed at: its own before-observation, else the latest one recorded before it.
  let lastObservationRef: string | undefined;
  for (const step of steps) {
    const ownRef = step.before?.observationRef;
    const screenRef = ownRef ?? lastObservationRef;
    if (step.kind === 'action') {
      if (!step.before) note(step, 'the action itself is missing from the trace (only its result was recorded)');
      else if (step.status === 'in_flight') note(step, `not exported: the action was ${step.statusText}, so whether it ran is unknown`);
      else if (step.status === 'failed') note(step, `not exported: the action ${step.statusText}`);
      else {
        const emitted = emitAction(step, screenFor(screenRef), appId);
        if ('note' in emitted) note(step, emitted.note);
        else body.push(...emitted.lines);
      }
    } else if (step.kind === 'note') {
      for (const n of step.notes) body.push(`# ${commentText(n.text)}`);
    }
    for (const ref of [ownRef, ...step.observations.map((o) => o.observationRef), step.after?.observationRef]) {
      if (ref !== undefined) lastObservationRef = ref;
    }
  }

  const warnings: string[] = [];
  if (appId === undefined) warnings.push('the trace names no app; set appId before running this flow');
  const header = [
    `# Exported by Parallax from a trace recorded ${commentText(manifest.createdAt)} on ${commentText(manifest.device.name)}`,
    ...warnings.map((w) => `# Parallax: ${w}`),
  ];
  const yaml = [...header, `appId: ${yamlString(appId ?? '')}`, '---', ...body].join('\n');
  return { yaml: `${yaml}\n`, notes, warnings };
}
