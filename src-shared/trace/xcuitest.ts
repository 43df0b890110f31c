/**
 * Export a trace to an XCUITest test method (docs/protocol.md#p-trace-export): Swift to paste into a UI
 * test class, one commented block per step, numbered as the trace view's filmstrip numbers them.
 *
 * Each element is the most robust query plain XCTest can see on the screen the step was recorded
 * against (docs/rules.md#r-qa-08): `app.buttons["login.submit"]`, a predicate
 * (`element(matching: NSPredicate(format: "label == %@", …))`), `.element(boundBy:)` only when nothing
 * without a position is unique, and a coordinate only when nothing is, with a comment that says why.
 * Gestures use XCUIElement's own: `tap()`, `doubleTap()`, `press(forDuration:)`, `typeText(_:)`, the
 * keyboard's return key by its label (`app.keyboards.buttons["Done"]`), `swipeUp()` and its siblings on
 * the scrolled container, and `XCUICoordinate.press(forDuration:thenDragTo:)` for a stroke on the
 * screen (https://developer.apple.com/documentation/xcuiautomation/xcuicoordinate/press(forduration:thendragto:)).
 * Text the trace does not hold (a secret field) comes from the test's environment, named by
 * trace/variables.ts.
 */
import { isRecord } from '@shared/protocol/json';
import type { Point } from '@shared/protocol/action';
import { swiftString } from '@shared/selectors/xcuitest';
import {
  commentText,
  keySteps,
  normalizeKind,
  num,
  readPoint,
  str,
  walkExport,
  xctestChoice,
  type Emitted,
  type ExportNote,
  type ExportStep,
  type ObservationsByRef,
} from './export-plan';
import type { TimelineStep } from './reader';
import type { TraceManifest } from './schema';
import { PlainSelectorSchema } from './action-record';
import { secretVariableName, swiftVariableName } from './variables';

export interface XcuiTestExport {
  swift: string;
  notes: ExportNote[];
  warnings: string[];
  /** The environment variables the method reads in place of text the trace does not hold. */
  variables: string[];
}

const INDENT = '    ';

/** The keyboard's return key is labelled by the field's return key type. */
const RETURN_KEY_LABELS: Record<string, string> = { done: 'Done', next: 'Next', go: 'Go', search: 'Search', send: 'Send' };

function number(value: number): string {
  const rounded = Math.round(value * 100) / 100;
  return Number.isInteger(rounded) ? String(rounded) : rounded.toFixed(2).replace(/0+$/, '');
}

/** A screen point, in points from the app's top-left corner. */
function coordinate(point: Point): string {
  return `app.coordinate(withNormalizedOffset: CGVector(dx: 0, dy: 0)).withOffset(CGVector(dx: ${number(point.x)}, dy: ${number(point.y)}))`;
}

interface Context {
  variables: Set<string>;
  /** The variables some step types as a known secret: the test fails without them. The rest are text the trace could not classify (docs/rules.md#r-secret-09), empty when unset. */
  required: Set<string>;
}

type Element = { expression: string; comment?: string } | { point: Point; comment: string } | { why: string };

/**
 * With no screen recorded before the step, the id or text the step was given (docs/rules.md#r-secret-09),
 * as the first element of any type that carries it: nothing could be checked for uniqueness.
 */
function givenElement(step: ExportStep): Element | undefined {
  if (step.screen) return undefined;
  const given = PlainSelectorSchema.safeParse(step.target.record?.selector).data;
  if (!given || 'point' in given) return undefined;
  const predicate =
    'id' in given
      ? `NSPredicate(format: "identifier == %@", ${swiftString(given.id)})`
      : `NSPredicate(format: "label == %@ OR placeholderValue == %@", ${swiftString(given.text)}, ${swiftString(given.text)})`;
  return {
    expression: `app.descendants(matching: .any).matching(${predicate}).firstMatch`,
    comment: 'no screen was recorded before this step: the selector is the one the step was given, not checked for uniqueness',
  };
}

function element(step: ExportStep): Element {
  const given = givenElement(step);
  if (given) return given;
  const choice = xctestChoice('xcuitest', step.target, step.screen);
  if (choice.kind === 'selector') {
    const s = choice.suggestion;
    return { expression: s.selector, ...(s.of !== undefined ? { comment: `${s.of} elements match without the position` } : {}) };
  }
  if (choice.kind === 'point') return { point: choice.point, comment: `${choice.why}: using the point where it was` };
  return { why: choice.why };
}

function withComment(step: ExportStep, lines: string[], comment: string | undefined): string[] {
  return comment ? [`// Parallax: step ${step.number}: ${commentText(comment)}`, ...lines] : lines;
}

function tapLike(step: ExportStep, call: (target: string) => string, pointCall: (point: string) => string): Emitted {
  const target = element(step);
  if ('why' in target) return { note: `cannot ${step.action.kind}: ${target.why}` };
  if ('point' in target) return { lines: withComment(step, [pointCall(coordinate(target.point))], target.comment) };
  return { lines: withComment(step, [call(target.expression)], target.comment) };
}

function sendKeys(step: ExportStep, ctx: Context): Emitted {
  const lines: string[] = [];
  let field = 'app';
  if (step.target.record || step.target.node) {
    const target = element(step);
    if ('why' in target) return { note: `cannot focus the field: ${target.why}` };
    field = `field${step.number}`;
    if ('point' in target) {
      lines.push(...withComment(step, [`${coordinate(target.point)}.tap()`], target.comment));
      // Keys go to whatever has focus after the tap.
      field = 'app';
    } else {
      lines.push(...withComment(step, [`let ${field} = ${target.expression}`, `${field}.tap()`], target.comment));
    }
  }
  const clear = () => {
    if (field === 'app') return false;
    lines.push(
      `if let current = ${field}.value as? String, !current.isEmpty {`,
      `${INDENT}${field}.typeText(String(repeating: XCUIKeyboardKey.delete.rawValue, count: current.count))`,
      '}',
    );
    return true;
  };
  for (const key of keySteps(step.action)) {
    switch (key.kind) {
      case 'clear':
        if (!clear()) return { note: 'the keyboard step clears a field it does not name' };
        break;
      case 'type':
      case 'replace': {
        if (key.kind === 'replace' && !clear()) return { note: 'the keyboard step replaces the text of a field it does not name' };
        if ('text' in key) lines.push(`${field}.typeText(${swiftString(key.text)})`);
        else {
          const name = secretVariableName(step.target.record, step.number);
          ctx.variables.add(name);
          if (step.action['secretUnknown'] === true) {
            lines.push(
              `// Parallax: step ${step.number}: no read saw the field before or after the typing, so the trace could not tell whether the text was a secret and does not hold it: the environment's ${name}, empty when unset`,
            );
            lines.push(`${field}.typeText(${swiftVariableName(name)})`);
          } else {
            ctx.required.add(name);
            lines.push(`${field}.typeText(${swiftVariableName(name)}) // a secret the trace does not hold: the environment's ${name}`);
          }
        }
        break;
      }
      case 'ime': {
        const label = RETURN_KEY_LABELS[key.imeAction.toLowerCase()];
        if (!label) return { note: `no XCUITest form for the keyboard action ${JSON.stringify(key.imeAction)}` };
        lines.push(`app.keyboards.buttons[${swiftString(label)}].tap() // the return key, labelled ${label}; typeText("\\n") presses it too`);
        break;
      }
      case 'tab':
        lines.push(`${field}.typeText("\\t")`);
        break;
    }
  }
  if (lines.length === 0) return { note: 'the keyboard step records nothing to type' };
  return { lines };
}

type Direction = 'Up' | 'Down' | 'Left' | 'Right';

function directionOf(start: Point, end: Point): Direction | undefined {
  const dx = end.x - start.x;
  const dy = end.y - start.y;
  // A stroke mostly along one axis has a native form; a diagonal one is dragged point to point.
  if (Math.abs(dy) >= 2 * Math.abs(dx) && Math.abs(dy) > 0) return dy < 0 ? 'Up' : 'Down';
  if (Math.abs(dx) >= 2 * Math.abs(dy) && Math.abs(dx) > 0) return dx < 0 ? 'Left' : 'Right';
  return undefined;
}

function swipe(step: ExportStep): Emitted {
  const action = step.action;
  const start = readPoint(action['start']);
  const end = readPoint(action['end']);
  if (!start || !end) return { note: 'the swipe has no recorded start and end points' };
  const direction = directionOf(start, end);
  if (direction && (step.target.record || step.target.node) && action['edge'] === undefined) {
    const container = element(step);
    if ('expression' in container) return { lines: withComment(step, [`${container.expression}.swipe${direction}()`], container.comment) };
  }
  // A short hold, then the drag: a swipe, not a long press that starts a drag-and-drop.
  return { lines: [`${coordinate(start)}.press(forDuration: 0.05, thenDragTo: ${coordinate(end)})`] };
}

function scrollTo(step: ExportStep): Emitted {
  const action = step.action;
  const look = isRecord(action['lookFor']) ? action['lookFor'] : action;
  const key = str(look['elementId']) ?? str(look['id']) ?? str(look['text']);
  if (key === undefined) return { note: 'the scroll search names no text or id to look for' };
  const finger = (str(action['direction']) ?? 'up').toLowerCase();
  const direction = ({ up: 'Up', down: 'Down', left: 'Left', right: 'Right' } as const)[finger as 'up'] ?? 'Up';
  const maxSwipes = num(action['maxSwipes']) ?? 10;
  let scroller = 'app';
  const lines: string[] = [];
  if (step.target.record || step.target.node) {
    const container = element(step);
    if ('expression' in container) scroller = container.expression;
    else if ('comment' in container) lines.push(`// Parallax: step ${step.number}: ${commentText(container.comment)}; swiping the app instead`);
  }
  const target = `target${step.number}`;
  lines.push(
    `let ${target} = app.descendants(matching: .any)[${swiftString(key)}]`,
    `for _ in 0..<${Math.max(1, Math.round(maxSwipes))} where !(${target}.exists && ${target}.isHittable) {`,
    `${INDENT}${scroller}.swipe${direction}()`,
    '}',
    `XCTAssertTrue(${target}.exists, ${swiftString(`not found after scrolling: ${key}`)})`,
  );
  return { lines };
}

function emitAction(step: ExportStep, ctx: Context): Emitted {
  const action = step.action;
  switch (normalizeKind(action.kind)) {
    case 'tap':
    case 'tapon':
    case 'click':
      return tapLike(
        step,
        (e) => `${e}.tap()`,
        (p) => `${p}.tap()`,
      );
    case 'doubletap':
      return tapLike(
        step,
        (e) => `${e}.doubleTap()`,
        (p) => `${p}.doubleTap()`,
      );
    case 'longpress':
    case 'longpresson': {
      const seconds = number((num(action['durationMs']) ?? 1000) / 1000);
      return tapLike(
        step,
        (e) => `${e}.press(forDuration: ${seconds})`,
        (p) => `${p}.press(forDuration: ${seconds})`,
      );
    }
    case 'sendkeys':
    case 'inputtext':
    case 'typetext':
    case 'appendtext':
      return sendKeys(step, ctx);
    case 'settext':
      return sendKeys({ ...step, action: { ...action, replace: true } }, ctx);
    case 'swipe':
      return swipe(step);
    case 'scrollto':
    case 'scrolluntilvisible':
    case 'lookfor':
      return scrollTo(step);
    case 'launch':
      return parallaxLaunch(action);
    case 'assert':
      return parallaxAssert(step);
    case 'launchapp':
      return { lines: ['app.launch()'] };
    case 'openlink':
    case 'opendeeplink':
    case 'deeplink': {
      const url = str(action['url']) ?? str(action['link']);
      return url === undefined ? { note: 'the link is not in the trace' } : { lines: [`app.open(URL(string: ${swiftString(url)})!)`] };
    }
    case 'back':
    case 'navigateback':
      return { note: "XCUITest has no back action; tap the screen's back button (app.navigationBars.buttons.element(boundBy: 0))" };
    default:
      return { note: `no XCUITest form for the action ${JSON.stringify(action.kind)}` };
  }
}

/**
 * Parallax's own launch step (docs/rules.md#r-life-04): a relaunch was the runner's cold boot, so the
 * app is terminated and launched (XCUIApplication.launch() would also end a running instance; the
 * terminate says so); a launch that only brought the app to the front is activate(), which keeps its
 * state. Another app than the test's is not this method's `app`: a note.
 */
function parallaxLaunch(action: ExportStep['action']): Emitted {
  const bundleId = str(action['bundleId']);
  const relaunch = action['relaunch'] === true;
  const lines = relaunch ? ['app.terminate()', 'app.launch()'] : ['app.activate()'];
  if (bundleId === undefined) return { lines };
  // A proxy per line, not a `let`: two launch steps in one method would declare it twice.
  return { lines: lines.map((line) => line.replace(/^app\./, `XCUIApplication(bundleIdentifier: ${swiftString(bundleId)}).`)) };
}

/** How long an exported assertion waits for its element, as XCUIElement.waitForExistence(timeout:) takes it. */
const ASSERT_TIMEOUT_S = 5;

/**
 * A recorded assertion (docs/rules.md#r-asrt-02), on the element expression a tap would use: visible is
 * `XCTAssertTrue(e.waitForExistence(timeout:))`, not visible `XCTAssertFalse(e.exists)`, text equals
 * `XCTAssertEqual(e.label, …)`, value equals `XCTAssertEqual(e.value as? String, …)`.
 */
function parallaxAssert(step: ExportStep): Emitted {
  const check = str(step.action['check']);
  const expected = str(step.action['expected']);
  // Not visible: absent from the recorded screen by design; any element with that identifier or label.
  const given = PlainSelectorSchema.safeParse(step.target.record?.selector).data;
  if (check === 'notVisible' && given && ('id' in given || 'text' in given)) {
    return { lines: [`XCTAssertFalse(app.descendants(matching: .any)[${swiftString('id' in given ? given.id : given.text)}].exists)`] };
  }
  const target = element(step);
  if ('why' in target) return { note: `cannot assert: ${target.why}` };
  if ('point' in target) return { note: 'cannot assert on a point: the element has no unique identifier or label' };
  const e = target.expression;
  const exists = `XCTAssertTrue(${e}.waitForExistence(timeout: ${ASSERT_TIMEOUT_S}))`;
  switch (check) {
    case 'visible':
      return { lines: withComment(step, [exists], target.comment) };
    case 'notVisible':
      return { lines: withComment(step, [`XCTAssertFalse(${e}.exists)`], target.comment) };
    case 'textEquals':
    case 'valueEquals': {
      if (expected === undefined) return { note: 'the assertion names no expected value' };
      const read = check === 'textEquals' ? `${e}.label` : `${e}.value as? String`;
      return { lines: withComment(step, [exists, `XCTAssertEqual(${read}, ${swiftString(expected)})`], target.comment) };
    }
    default:
      return { note: `no XCUITest form for the assertion ${JSON.stringify(check ?? '')}` };
  }
}

/** The steps (from `buildTimeline`) as an XCUITest test method. */
export function exportXcuiTest(manifest: TraceManifest, steps: readonly TimelineStep[], observationsByRef: ObservationsByRef): XcuiTestExport {
  const ctx: Context = { variables: new Set(), required: new Set() };
  const walk = walkExport(
    manifest,
    steps,
    observationsByRef,
    (step) => {
      const emitted = emitAction(step, ctx);
      // A step’s name (docs/rules.md#r-edit-09) in the step's comment: Swift has no label for a statement.
      const label = step.step.before?.label?.trim();
      const named = label ? `: ${commentText(label)}` : '';
      return 'note' in emitted ? emitted : { lines: [`// Step ${step.number}: ${commentText(step.action.kind)}${named}`, ...emitted.lines, ''] };
    },
    (text) => [`// ${text}`, ''],
  );
  const variables = [...ctx.variables];
  const warnings: string[] = [];
  if (walk.appId === undefined) warnings.push('the trace names no app: XCUIApplication() is the test target’s app');
  if (variables.length > 0) {
    warnings.push(
      `the method types ${variables.length === 1 ? 'a secret' : `${variables.length} secrets`} the trace does not hold: set ${variables.join(', ')} in the test scheme's environment`,
    );
  }
  const body = [
    walk.appId === undefined ? 'let app = XCUIApplication()' : `let app = XCUIApplication(bundleIdentifier: ${swiftString(walk.appId)})`,
    walk.appId === undefined ? 'app.launch()' : 'app.activate()',
    ...variables.map((name) =>
      // A text that may not be a secret at all does not fail the test when unset (docs/rules.md#r-secret-09).
      !ctx.required.has(name)
        ? `let ${swiftVariableName(name)} = ProcessInfo.processInfo.environment[${swiftString(name)}] ?? ""`
        : `let ${swiftVariableName(name)} = try XCTUnwrap(ProcessInfo.processInfo.environment[${swiftString(name)}], ${swiftString(`set ${name} in the test scheme's environment: the trace does not hold it`)})`,
    ),
    '',
    ...walk.body,
  ];
  while (body.at(-1) === '') body.pop();
  const lines = [
    `// Exported by Parallax from a trace recorded ${commentText(manifest.createdAt)} on ${commentText(manifest.device.name)}.`,
    '// An XCUITest test method: paste it into a UI test class (an XCTestCase subclass). Step numbers are the trace view\u2019s.',
    ...warnings.map((w) => `// Parallax: ${commentText(w)}`),
    '@MainActor',
    'func testRecordedFlow() throws {',
    ...body.map((line) => (line === '' ? '' : `${INDENT}${line}`)),
    '}',
  ];
  return { swift: `${lines.join('\n')}\n`, notes: walk.notes, warnings, variables };
}
