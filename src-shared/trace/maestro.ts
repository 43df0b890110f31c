/**
 * Export a trace to a Maestro flow (docs/protocol.md#p-trace-export): YAML a Maestro user can run, with
 * the most robust selector plain XCTest can see for each step's target on the screen it was recorded
 * against (docs/rules.md#r-qa-08), and a `# Parallax:` comment (plus an entry in `notes`) for every
 * step that has no Maestro form. Steps are numbered as the trace view's filmstrip numbers them.
 *
 * Selectors follow https://docs.maestro.dev/api-reference/selectors: `id` and `text` are regular
 * expressions matched against the whole value (literal values are escaped), `index` only when nothing
 * without one is unique; a `point` only when nothing is, as percentages of the screen when the rounded
 * percentage still lands inside the target, else in points, with a comment that says why. Gestures use
 * Maestro's own commands: tapOn, doubleTapOn, longPressOn, inputText, eraseText, pressKey (an IME action
 * is the return key), swipe (https://docs.maestro.dev/api-reference/commands/swipe) and
 * scrollUntilVisible. Text the trace does not hold (a secret field) is typed as `${NAME}`, named by
 * trace/variables.ts and passed with `maestro test -e NAME=…`
 * (https://docs.maestro.dev/advanced/parameters-and-constants).
 *
 * The YAML is written by hand (no YAML library in the project): keys are fixed identifiers, and every
 * string value is a quoted scalar, single-quoted when it has no control or line-break characters,
 * double-quoted with JSON-style escapes otherwise.
 */
import type { UiNode } from '@shared/protocol/runner';
import { boundsOf, nodeSource, type Rect } from '@shared/model/node';
import { escapeRegex, yamlString } from '@shared/selectors/maestro';
import { trySelector } from '@shared/selectors/query';
import { labelOf, placeholderOf, valueOf } from '@shared/selectors/element';
import { isRecord } from '@shared/protocol/json';
import {
  commentText,
  keySteps,
  normalizeKind,
  num,
  readPoint,
  recordsXctest,
  str,
  walkExport,
  xctestChoice,
  type Emitted,
  type ExportNote,
  type ExportScreen,
  type ExportStep,
  type ObservationsByRef,
  type StepTarget,
} from './export-plan';
import type { TimelineStep } from './reader';
import type { TraceManifest } from './schema';
import { PlainSelectorSchema } from './action-record';
import { secretVariableName } from './variables';
import {
  EMPTY_FLOW_COMMAND,
  EMPTY_FLOW_NOTE,
  MAESTRO_IOS_IGNORED_KEYS,
  MAESTRO_IOS_KEYS,
  MAESTRO_IOS_LONG_PRESS_MS,
  ignoredKeyNote,
  longPressNote,
  maestroLiteralText,
} from './maestro-handoff';

export { escapeRegex, yamlString };
export type { ObservationsByRef };

export type MaestroNote = ExportNote;

export interface MaestroExport {
  yaml: string;
  notes: MaestroNote[];
  /** About the flow as a whole rather than a step (no app id recorded, secrets to pass); also written as comments. */
  warnings: string[];
  /** The variables the flow types in place of text the trace does not hold. */
  variables: string[];
}

// ---- Points -----------------------------------------------------------------------------------------

interface Point {
  x: number;
  y: number;
}

function formatPoint(point: Point, screen: ExportScreen | undefined, within?: Rect): string {
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

// ---- Selectors --------------------------------------------------------------------------------------

/** A selector: its lines under the command, and the comment that explains it, if it needs one. */
type Selection = { lines: string[]; comment?: string } | { why: string };

/** Counts per value on the screen, for the choice older traces were exported with. */
function legacyCounts(root: UiNode): { idCount: Map<string, number>; textCount: Map<string, number> } {
  const idCount = new Map<string, number>();
  const textCount = new Map<string, number>();
  const bump = (map: Map<string, number>, value: unknown) => {
    if (typeof value === 'string' && value.trim() !== '') map.set(value, (map.get(value) ?? 0) + 1);
  };
  const stack: UiNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    bump(idCount, node['resource-id']);
    // A node showing the same string in two attributes is still one match.
    const texts = new Set([node.text, node['content-desc'], node['hint-text'], node.value]);
    for (const text of texts) bump(textCount, text);
    if (Array.isArray(node.node)) for (const child of node.node) if (isRecord(child)) stack.push(child);
  }
  return { idCount, textCount };
}

/**
 * The choice a trace written before targets recorded what XCTest saw of them is exported with, unchanged:
 * the id when exactly one node has it (a bridge node's id excluded, since XCTest need not see it), else
 * the text when exactly one node shows it, else the point.
 */
function legacyChoice(target: StepTarget, screen: ExportScreen | undefined): Selection {
  const node = target.node;
  if (node && screen) {
    const { idCount, textCount } = legacyCounts(screen.root);
    const id = str(node['resource-id']);
    const bridgeOnly = nodeSource(node) === 'sdkBridge';
    if (id !== undefined && !bridgeOnly && idCount.get(id) === 1) return { lines: [`id: ${yamlString(escapeRegex(id))}`] };
    for (const attr of ['content-desc', 'text'] as const) {
      const text = str(node[attr]);
      if (text !== undefined && textCount.get(text) === 1) return { lines: [`text: ${yamlString(escapeRegex(text))}`] };
    }
  }
  if (target.point) return { lines: [`point: ${yamlString(formatPoint(target.point, screen, (node && boundsOf(node)) ?? undefined))}`] };
  if (!screen) return { why: 'no recorded screen to choose a unique selector from, and no point' };
  return { why: 'the target has no unique id or text on the recorded screen, and no point' };
}

/**
 * With no screen recorded before the step (the first step of a recording started before any read), no
 * selector can be checked for uniqueness; the user's own id or text is still what the step aimed at, so
 * it is the selector, and the flow says it was not checked (docs/rules.md#r-secret-09: the step is kept).
 */
function givenSelection(target: StepTarget): Selection | undefined {
  const given = PlainSelectorSchema.safeParse(target.record?.selector).data;
  if (!given || 'point' in given) return undefined;
  const line = 'id' in given ? `id: ${yamlString(escapeRegex(given.id))}` : `text: ${yamlString(escapeRegex(given.text))}`;
  return { lines: [line], comment: 'no screen was recorded before this step: the selector is the one the step was given, not checked for uniqueness' };
}

function choose(step: ExportStep): Selection {
  const { target, screen } = step;
  const given = screen ? undefined : givenSelection(target);
  if (given) return given;
  if (!recordsXctest(target)) return legacyChoice(target, screen);
  const choice = xctestChoice('maestro', target, screen);
  if (choice.kind === 'selector') {
    const s = choice.suggestion;
    // A selector narrowed by a position or by its parent (childOf, Orchestra.kt findElement) says so in the flow.
    const narrowed = /^childOf:/m.test(s.selector) ? 'the parent it is a child of (childOf)' : 'the index';
    return { lines: s.selector.split('\n'), ...(s.of !== undefined ? { comment: `${s.of} elements match without ${narrowed}` } : {}) };
  }
  if (choice.kind === 'point') {
    const within = (target.node && boundsOf(target.node)) ?? undefined;
    return { lines: [`point: ${yamlString(formatPoint(choice.point, screen, within))}`], comment: `${choice.why}: tapping where it was` };
  }
  return { why: choice.why };
}

function commandLines(step: ExportStep, command: string, selection: Exclude<Selection, { why: string }>): string[] {
  const lines = selection.comment ? [`# Parallax: step ${step.number}: ${commentText(selection.comment)}`] : [];
  return [...lines, `- ${command}:`, ...selection.lines.map((line) => `    ${line}`)];
}

// ---- Actions ----------------------------------------------------------------------------------------

const IME_ACTIONS = new Set(['done', 'next', 'go', 'search', 'send']);

/** The Maestro scroll direction for a finger moving `finger`: content moves the other way. */
const SCROLL_DIRECTION: Record<string, string> = { up: 'DOWN', down: 'UP', left: 'RIGHT', right: 'LEFT' };

interface Context {
  variables: Set<string>;
}

function eraseLines(node: UiNode | undefined): string[] {
  const current = node ? (str(node['value']) ?? str(node['text'])) : undefined;
  // Maestro erases 50 characters by default; say more when the field is known to hold more.
  return current !== undefined && current.length > 50 ? [`- eraseText: ${current.length}`] : ['- eraseText'];
}

function sendKeys(step: ExportStep, ctx: Context): Emitted {
  const lines: string[] = [];
  if (step.target.record || step.target.node) {
    const selection = choose(step);
    if ('why' in selection) return { note: `cannot focus the field: ${selection.why}` };
    lines.push(...commandLines(step, 'tapOn', selection));
  }
  for (const key of keySteps(step.action)) {
    switch (key.kind) {
      case 'clear':
        lines.push(...eraseLines(step.target.node));
        break;
      case 'type':
      case 'replace': {
        if (key.kind === 'replace') lines.push(...eraseLines(step.target.node));
        // `${…}` in typed text would run as JavaScript in Maestro (maestro-handoff.ts, Env.kt).
        if ('text' in key) lines.push(`- inputText: ${yamlString(maestroLiteralText(key.text))}`);
        else if (step.action['secretUnknown'] === true) lines.push(...unknownSecretLines(step, ctx));
        else {
          const name = secretVariableName(step.target.record, step.number);
          ctx.variables.add(name);
          lines.push(`# Parallax: step ${step.number}: the typed text is a secret the trace does not hold: pass it with -e ${name}=…`);
          lines.push(`- inputText: \${${name}}`);
        }
        break;
      }
      case 'ime':
        // Every iOS return-key flavour (done, go, search, send, next) is the keyboard's return key.
        if (!IME_ACTIONS.has(key.imeAction.toLowerCase())) return { note: `no Maestro form for the keyboard action ${JSON.stringify(key.imeAction)}` };
        lines.push('- pressKey: Enter');
        break;
      case 'tab':
        lines.push(`# Parallax: step ${step.number}: ${commentText(ignoredKeyNote('Tab'))}`);
        break;
    }
  }
  if (lines.length === 0) return { note: 'the keyboard step records nothing to type' };
  return { lines };
}

/**
 * Text the trace left out because no read saw the field it went into (docs/rules.md#r-secret-09): it
 * may or may not be a secret. The flow says so and types the variable when one is passed, else nothing,
 * so it still runs: Env.kt `evaluateScripts` hands the `${…}` to the JavaScript engine, where a name that
 * was never defined is a ReferenceError (the flow would stop) but `typeof` of it is "undefined".
 */
function unknownSecretLines(step: ExportStep, ctx: Context): string[] {
  const name = secretVariableName(step.target.record, step.number);
  ctx.variables.add(name);
  return [
    `# Parallax: step ${step.number}: no read saw the field before or after the typing, so the trace could not tell whether the text was a secret and does not hold it: pass it with -e ${name}=… (without it this step types nothing)`,
    `- inputText: ${yamlString(`\${typeof ${name} === 'undefined' ? '' : ${name}}`)}`,
  ];
}

function swipeLines(step: ExportStep): Emitted {
  const action = step.action;
  const start = readPoint(action['start']) ?? readPoint({ x: action['x1'], y: action['y1'] });
  const end = readPoint(action['end']) ?? readPoint({ x: action['x2'], y: action['y2'] });
  if (!start || !end) return { note: 'the swipe has no recorded start and end points' };
  const duration = num(action['durationMs']) ?? num(action['duration']);
  const lines = ['- swipe:', `    start: ${yamlString(formatPoint(start, step.screen))}`, `    end: ${yamlString(formatPoint(end, step.screen))}`];
  if (duration !== undefined && duration > 0) lines.push(`    duration: ${Math.round(duration)}`);
  return { lines };
}

function scrollUntilVisibleLines(step: ExportStep): Emitted {
  const action = step.action;
  const look = isRecord(action['lookFor']) ? action['lookFor'] : action;
  const id = str(look['id']) ?? str(look['resourceId']) ?? str(look['elementId']);
  const text = str(look['text']);
  const lines = ['- scrollUntilVisible:', '    element:'];
  if (id !== undefined) lines.push(`      id: ${yamlString(escapeRegex(id))}`);
  else if (text !== undefined) lines.push(`      text: ${yamlString(escapeRegex(text))}`);
  else return { note: 'the scroll search names no text or id to look for' };
  const direction = str(action['direction'])?.toLowerCase();
  // A recorded scroll search's direction is the finger's (docs/protocol.md#p-action-request); Maestro's is the content's.
  if (direction !== undefined && SCROLL_DIRECTION[direction]) lines.push(`    direction: ${SCROLL_DIRECTION[direction]}`);
  return { lines };
}

function emitAction(step: ExportStep, appId: string | undefined, ctx: Context): Emitted {
  const action = step.action;
  const kind = normalizeKind(action.kind);
  const tapLike = (command: string): Emitted => {
    const selection = choose(step);
    return 'why' in selection ? { note: `cannot ${action.kind}: ${selection.why}` } : { lines: commandLines(step, command, selection) };
  };
  switch (kind) {
    case 'tap':
    case 'tapon':
    case 'click':
      return tapLike('tapOn');
    case 'doubletap':
      return tapLike('doubleTapOn');
    case 'longpress':
    case 'longpresson': {
      const emitted = tapLike('longPressOn');
      const held = num(action['durationMs']) ?? num(action['duration']);
      if (!('lines' in emitted) || held === undefined || Math.abs(held - MAESTRO_IOS_LONG_PRESS_MS) < 1) return emitted;
      return { lines: [`# Parallax: step ${step.number}: ${commentText(longPressNote(held))}`, ...emitted.lines] };
    }
    case 'inputtext':
    case 'typetext':
    case 'appendtext':
    case 'sendkeys':
    case 'settext':
      return sendKeys(kind === 'settext' ? { ...step, action: { ...action, replace: true } } : step, ctx);
    case 'cleartext':
    case 'erasetext': {
      const lines: string[] = [];
      if (step.target.record) {
        const selection = choose(step);
        if ('why' in selection) return { note: `cannot focus the field: ${selection.why}` };
        lines.push(...commandLines(step, 'tapOn', selection));
      }
      return { lines: [...lines, ...eraseLines(step.target.node)] };
    }
    case 'swipe':
      return swipeLines(step);
    case 'scroll':
      return readPoint(action['start']) || action['x1'] !== undefined
        ? swipeLines(step)
        : { note: 'a scroll by content offset has no Maestro form (Maestro scrolls by swiping)' };
    case 'scrolluntilvisible':
    case 'scrollto':
    case 'lookfor':
      return scrollUntilVisibleLines(step);
    case 'presskey': {
      const key = str(action['key']);
      if (key === undefined) return { note: 'the key press names no key' };
      const maestroKey = MAESTRO_IOS_KEYS[normalizeKind(key)];
      if (maestroKey !== undefined) return { lines: [`- pressKey: ${maestroKey}`] };
      const ignored = MAESTRO_IOS_IGNORED_KEYS[normalizeKind(key)];
      if (ignored !== undefined) return { note: ignoredKeyNote(ignored) };
      return { note: `Maestro has no key named ${JSON.stringify(key)}` };
    }
    case 'imeaction': {
      const ime = str(action['action'])?.toLowerCase();
      if (ime !== undefined && IME_ACTIONS.has(ime)) return { lines: ['- pressKey: Enter'] };
      return { note: `no Maestro form for the keyboard action ${JSON.stringify(ime ?? '')}` };
    }
    case 'hidekeyboard':
      return { lines: ['- hideKeyboard'] };
    case 'launch':
      return parallaxLaunchLines(action, appId);
    case 'assert':
      return parallaxAssertLines(step);
    case 'launchapp': {
      const bundleId = str(action['bundleId']) ?? str(action['appId']);
      if (bundleId === undefined || bundleId === appId) return { lines: ['- launchApp'] };
      return { lines: ['- launchApp:', `    appId: ${yamlString(bundleId)}`] };
    }
    case 'openlink':
    case 'opendeeplink':
    case 'deeplink': {
      const url = str(action['url']) ?? str(action['link']);
      return url === undefined ? { note: 'the link is not in the trace' } : { lines: [`- openLink: ${yamlString(maestroLiteralText(url))}`] };
    }
    case 'back':
    case 'navigateback':
      return { note: "Maestro's back exists only on Android; on iOS tap the screen's back button instead" };
    default:
      return { note: `no Maestro form for the action ${JSON.stringify(action.kind)}` };
  }
}

/**
 * Parallax's own launch step (docs/rules.md#r-life-04). Maestro's launchApp stops a running app first
 * unless told not to: Orchestra.kt launchAppCommand, `stopIfRunning = command.stopApp ?: true`; it clears
 * state only for `clearState: true`. So a relaunch (the runner's cold boot: terminate, launch) is a plain
 * `launchApp`, a launch that only brought the app to the front is `stopApp: false`, and `clearState` is
 * never written: no runner command Parallax sends clears an app's data.
 */
function parallaxLaunchLines(action: ExportStep['action'], appId: string | undefined): Emitted {
  const bundleId = str(action['bundleId']);
  const other = bundleId !== undefined && bundleId !== appId ? [`    appId: ${yamlString(bundleId)}`] : [];
  if (action['relaunch'] === true) return { lines: other.length > 0 ? ['- launchApp:', ...other] : ['- launchApp'] };
  return { lines: ['- launchApp:', ...other, '    stopApp: false'] };
}

/**
 * A recorded assertion (docs/rules.md#r-asrt-02), with the selector a tap on the element would use:
 * `assertVisible` / `assertNotVisible` (Orchestra.kt assertConditionCommand: `visible` / `notVisible`,
 * each `evaluateCondition` → `findElement` with the selector's `buildFilter`). Text equals and value
 * equals add `text:` to the selector (`maestroTextCheck`); Maestro has no other way to read either.
 */
function parallaxAssertLines(step: ExportStep): Emitted {
  const check = str(step.action['check']);
  // Read as written: an empty expected string is a check of its own (maestroTextCheck), not a missing one.
  const expected = typeof step.action['expected'] === 'string' ? step.action['expected'] : undefined;
  // Not visible: the element is absent from the recorded screen by design, so the selector as given is the one.
  const given = PlainSelectorSchema.safeParse(step.target.record?.selector).data;
  if (check === 'notVisible' && given && ('id' in given || 'text' in given)) {
    const line = 'id' in given ? `id: ${yamlString(escapeRegex(given.id))}` : `text: ${yamlString(escapeRegex(given.text))}`;
    return { lines: [`- assertNotVisible:`, `    ${line}`] };
  }
  const selection = choose(step);
  if ('why' in selection) return { note: `cannot assert: ${selection.why}` };
  if (selection.lines.some((l) => l.startsWith('point:'))) return { note: 'cannot assert on a point: the element has no unique id or text' };
  if (check === 'notVisible') return { lines: commandLines(step, 'assertNotVisible', selection) };
  if (check === 'textEquals' || check === 'valueEquals') {
    if (expected === undefined) return { note: `the assertion names no expected ${check === 'textEquals' ? 'text' : 'value'}` };
    return maestroTextCheck(step, selection, check, expected);
  }
  return { lines: commandLines(step, 'assertVisible', selection) };
}

/**
 * Text equals and value equals as Maestro checks them: `assertVisible` with `text:`, an escaped regex
 * matched against the whole string. On iOS that one key reads label, value and placeholder alike:
 * IOSDriver.kt `mapViewHierarchy` (mobile-dev-inc/maestro 9244d61, l. 168–174) puts the label in
 * `accessibilityText` (l. 170), the title, else the value, in `text` (l. 173: `element.title?.ifEmpty {
 * element.value }`; XCTest's title is empty on iOS elements) and the placeholder in `hintText` (l. 174),
 * and Filters.kt `textMatches` (l. 57–127) matches any of `text` (l. 60), `hintText` (l. 71) and
 * `accessibilityText` (l. 82). So a text field's value IS matched by `text:` (older drivers,
 * `parseXCUIElementNode`, kept only the first non-empty of title, label, value, placeholder: a labelled
 * field's value was not), and so are its label and placeholder:
 * - the element is found by what else the selector holds (its id, the parent it is a child of); its
 *   label, when that was the selector's `text:`, gives way to the expected string, and an `index:`
 *   counted among the elements the other keys found is dropped, so the flow is only written when the
 *   new selector finds this element alone on the recorded screen, by Maestro's rules (maestro-match.ts);
 * - an expected string that is also the element's label or placeholder (a value check) or its value or
 *   placeholder (a text check) cannot be told apart by Maestro: written, with a comment that says so;
 * - an empty expected string is a note: `text: ''` matches the empty placeholder (`hintText` is `""`
 *   for every element without one, l. 174), so the flow would pass whatever the element holds.
 */
function maestroTextCheck(step: ExportStep, selection: Exclude<Selection, { why: string }>, check: 'textEquals' | 'valueEquals', expected: string): Emitted {
  const what = check === 'textEquals' ? 'label' : 'value';
  if (expected === '') {
    return {
      note: `cannot assert an empty ${what} in Maestro: text: '' also matches an element's empty placeholder, so it would pass whatever the element holds`,
    };
  }
  const kept = selection.lines.filter((l) => !l.startsWith('text:') && !l.startsWith('index:'));
  const lines = [...kept, `text: ${yamlString(escapeRegex(expected))}`];
  const { screen, target } = step;
  // The selection's comment says how many match without its index or parent; with the text that no longer holds.
  let comment = selection.lines.some((l) => l.startsWith('index:')) ? undefined : selection.comment;
  if (screen && target.key !== undefined) {
    const tried = trySelector(lines.join('\n'), screen.root, 'maestro');
    const found = tried.ok ? tried.matches : [];
    if (found.length !== 1 || found[0] !== target.key) {
      const count = found.length === 1 ? 'another element' : `${found.length} elements`;
      return {
        note: `cannot assert the ${what} in Maestro: its text: ${JSON.stringify(expected)} with the rest of the selector finds ${count} on the recorded screen, not this one alone`,
      };
    }
    comment = undefined;
  }
  const node = target.node;
  if (node) {
    const others =
      check === 'valueEquals' ? { label: labelOf(node), placeholder: placeholderOf(node) } : { value: valueOf(node), placeholder: placeholderOf(node) };
    const same = Object.entries(others).find(([, v]) => v === expected)?.[0];
    if (same !== undefined) comment = `Maestro's text: matches the ${same} too, which is also ${JSON.stringify(expected)}: this check cannot tell them apart`;
  }
  return { lines: commandLines(step, 'assertVisible', { lines, ...(comment !== undefined ? { comment } : {}) }) };
}

/**
 * A step's name (docs/rules.md#r-edit-09) as Maestro's own `label:`, which Maestro prints in place of
 * the command's description: a field of every selector command (YamlElementSelector.kt:53, `val label:
 * String? = null`, in mobile-dev-inc/maestro maestro-orchestra/src/main/java/maestro/orchestra/yaml) and
 * of the other commands' maps (YamlInputText.kt:9, YamlSwipe, YamlLaunchApp …; maestro-flow.ts COMMON).
 * It goes on the step's first command written as a map; a step with none (`- hideKeyboard`, `- pressKey:
 * Enter`) gets it as a comment, which every YAML reader passes over.
 */
function labelled(step: ExportStep, emitted: Emitted): Emitted {
  const label = step.step.before?.label?.trim();
  if (!label || !('lines' in emitted)) return emitted;
  const at = emitted.lines.findIndex((line) => /^- [A-Za-z]+:$/.test(line));
  if (at < 0) return { lines: [`# ${commentText(label)}`, ...emitted.lines] };
  return { lines: [...emitted.lines.slice(0, at + 1), `    label: ${yamlString(commentText(label))}`, ...emitted.lines.slice(at + 1)] };
}

// ---- The flow ---------------------------------------------------------------------------------------

/**
 * The steps (from `buildTimeline`) as a Maestro flow. Observations and comparisons are not actions and
 * are left out; notes become comments; failed and unfinished actions are not replayed.
 */
export function exportMaestroFlow(manifest: TraceManifest, steps: readonly TimelineStep[], observationsByRef: ObservationsByRef): MaestroExport {
  const ctx: Context = { variables: new Set() };
  const walk = walkExport(
    manifest,
    steps,
    observationsByRef,
    (step, appId) => labelled(step, emitAction(step, appId, ctx)),
    (text) => [`# ${text}`],
  );
  const variables = [...ctx.variables];
  const warnings: string[] = [];
  if (walk.appId === undefined) warnings.push('the trace names no app; set appId before running this flow');
  if (variables.length > 0) {
    warnings.push(
      `the flow types ${variables.length === 1 ? 'a secret' : `${variables.length} secrets`} the trace does not hold: run it with ${variables.map((v) => `-e ${v}=…`).join(' ')}`,
    );
  }
  const header = [
    `# Exported by Parallax from a trace recorded ${commentText(manifest.createdAt)} on ${commentText(manifest.device.name)}`,
    '# Step numbers are the trace view\u2019s.',
    ...warnings.map((w) => `# Parallax: ${w}`),
  ];
  // A flow must hold a command for Maestro's reader to accept it (maestro-handoff.ts EMPTY_FLOW_COMMAND).
  const body = walk.body.some((line) => line.startsWith('- ')) ? walk.body : [...walk.body, `# Parallax: ${EMPTY_FLOW_NOTE}`, EMPTY_FLOW_COMMAND];
  const yaml = [...header, `appId: ${yamlString(walk.appId ?? '')}`, '---', ...body].join('\n');
  return { yaml: `${yaml}\n`, notes: walk.notes, warnings, variables };
}
