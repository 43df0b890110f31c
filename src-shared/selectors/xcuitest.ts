/**
 * XCUITest query expressions (docs/selectors.md#s-xcuitest), the Swift a UI test writes:
 * `app.buttons["login.submit"]`, `app.descendants(matching: .any).matching(identifier: "x")`,
 * `app.staticTexts.element(matching: NSPredicate(format: "label == %@", "Total"))`,
 * `app.cells.element(boundBy: 2)`, `.firstMatch`, `.children(matching:)`, `.containing(...)`, and a
 * trailing action (`.tap()`, `.press(forDuration: 1)`, `.typeText("…")`, `.exists`), which is ignored.
 *
 * A subscript and `matching(identifier:)` compare against every identifying property (identifier, title,
 * label, value, placeholderValue), exactly (XCUIElementQuery `subscript(_:)`,
 * https://developer.apple.com/documentation/xcuiautomation/xcuielementquery/subscript(_:)).
 */
import { hasBidiControls } from '@shared/model/visible-text';
import { SelectorError } from './errors';
import { elementTypeByName, elementTypeInfo, type ElementTypeName } from '@shared/model/element-type';
import type { ElementAttributes } from './element';
import { parsePredicate, type Predicate, type PredicateArg } from './predicate';
import type { ScreenView } from './screen';
import { operatorReader, patternReader, scan, TokenCursor, type Reader } from './tokens';

type Step =
  | { op: 'descendants' | 'children'; type: ElementTypeName }
  | { op: 'filter'; test: (e: ElementAttributes) => boolean }
  | { op: 'containing'; test: (e: ElementAttributes) => boolean }
  | { op: 'index'; index: number }
  | { op: 'first' }
  | { op: 'element' };

export interface XcuiQuery {
  steps: Step[];
  /** True when the expression names one element (a subscript, `.element`, `.firstMatch`, `boundBy`), not a query. */
  single: boolean;
}

// ---- Tokens -----------------------------------------------------------------------------------------

type Token =
  | { kind: 'ident'; value: string; at: number }
  | { kind: 'string'; value: string; at: number }
  | { kind: 'number'; value: number; at: number }
  | { kind: 'punct'; value: string; at: number }
  | { kind: 'end'; at: number };

function fail(reason: string, at?: number): never {
  throw new SelectorError('xcuitest', reason, at);
}

const SWIFT_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '0': '\0', '"': '"', "'": "'", '\\': '\\' };

/** A Swift string literal: one line, Swift's escapes, `\u{…}` included. */
const swiftLiteral: Reader<Token> = (text, at) => {
  if (text[at] !== '"') return undefined;
  let value = '';
  let i = at + 1;
  for (;;) {
    if (i >= text.length) fail('a string literal is not closed', at);
    const d = text[i]!;
    if (d === '"') break;
    if (d === '\n') fail('a string literal is not closed on its line', at);
    if (d === '\\') {
      const e = text[i + 1];
      if (e === 'u' && text[i + 2] === '{') {
        const close = text.indexOf('}', i + 3);
        const hex = close < 0 ? '' : text.slice(i + 3, close);
        if (!/^[0-9a-fA-F]{1,8}$/.test(hex)) fail('a \\u{…} escape needs 1 to 8 hex digits', i);
        value += String.fromCodePoint(parseInt(hex, 16));
        i = close + 1;
        continue;
      }
      if (e === undefined || SWIFT_ESCAPES[e] === undefined) fail(`\\${e ?? ''} is not a Swift escape`, i);
      value += SWIFT_ESCAPES[e];
      i += 2;
      continue;
    }
    value += d;
    i++;
  }
  return { token: { kind: 'string', value, at }, length: i + 1 - at };
};

function tokenize(text: string): Token[] {
  return scan<Token>(
    text,
    [
      swiftLiteral,
      patternReader<Token>(/^-?\d+(?:\.\d+)?/, (m, at) => ({ kind: 'number', value: Number(m), at })),
      patternReader<Token>(/^[A-Za-z_][\w]*/, (value, at) => ({ kind: 'ident', value, at })),
      operatorReader<Token>(['.', '(', ')', '[', ']', ',', ':', ';'], (value, at) => ({ kind: 'punct', value, at })),
    ],
    (at) => ({ kind: 'end', at }),
    (c, at) => fail(`unexpected ${JSON.stringify(c)}`, at),
  );
}

// ---- Arguments --------------------------------------------------------------------------------------

type Arg =
  | { kind: 'string'; value: string; at: number }
  | { kind: 'number'; value: number; at: number }
  | { kind: 'bool'; value: boolean; at: number }
  | { kind: 'type'; type: ElementTypeName; at: number }
  | { kind: 'predicate'; predicate: Predicate; at: number }
  | { kind: 'name'; value: string; at: number };

interface LabeledArg {
  label: string | undefined;
  value: Arg;
}

/** What may end an expression pasted from a test: an action or a property read, which is not part of the query. */
const ACTIONS = new Set([
  'tap',
  'doubleTap',
  'twoFingerTap',
  'press',
  'typeText',
  'swipeUp',
  'swipeDown',
  'swipeLeft',
  'swipeRight',
  'pinch',
  'rotate',
  'exists',
  'isHittable',
  'waitForExistence',
  'label',
  'value',
  'identifier',
  'count',
  'coordinate',
  'adjust',
  'clearText',
]);

class Parser extends TokenCursor<Token> {
  private punct(value: string): boolean {
    const t = this.peek();
    return t.kind === 'punct' && t.value === value;
  }

  private expect(value: string, what: string): Token {
    const t = this.next();
    if (t.kind !== 'punct' || t.value !== value) fail(`expected ${what}`, t.at);
    return t;
  }

  parse(): XcuiQuery {
    this.root();
    const steps: Step[] = [];
    let single = true;
    let acted = false;
    while (this.punct('.') || this.punct('[')) {
      if (acted) fail('nothing can follow the action at the end', this.peek().at);
      if (this.punct('[')) {
        const open = this.next();
        const key = this.next();
        if (key.kind !== 'string') fail('a subscript takes a string: the identifier, label or value to find', key.at);
        this.expect(']', 'a closing ] after the subscript');
        if (single) fail('a subscript applies to a query (app.buttons["…"]), not to one element', open.at);
        steps.push({ op: 'filter', test: identifying(key.value) }, { op: 'element' });
        single = true;
        continue;
      }
      this.next();
      const member = this.next();
      if (member.kind !== 'ident') fail('expected a member name after "."', member.at);
      const name = member.value;
      const call = this.punct('(') ? this.args() : undefined;
      const typeOfProperty = elementTypeByName(name);
      if (call === undefined && typeOfProperty && typeOfProperty.query === name) {
        steps.push({ op: 'descendants', type: typeOfProperty.name });
        single = false;
        continue;
      }
      switch (name) {
        case 'descendants':
        case 'children': {
          const type = this.typeArg(call, 'matching', member);
          steps.push({ op: name, type });
          single = false;
          break;
        }
        case 'matching':
          steps.push(...this.matching(call, member));
          single = false;
          break;
        case 'containing':
          steps.push({ op: 'containing', test: this.matchTest(call, member) });
          single = false;
          break;
        case 'element': {
          if (call === undefined) {
            steps.push({ op: 'element' });
          } else if (call.length === 1 && call[0]!.label === 'boundBy') {
            const index = call[0]!.value;
            if (index.kind !== 'number' || !Number.isInteger(index.value) || index.value < 0) fail('element(boundBy:) takes an index from 0', index.at);
            steps.push({ op: 'index', index: index.value });
          } else {
            steps.push(...this.matching(call, member), { op: 'element' });
          }
          single = true;
          break;
        }
        case 'firstMatch':
          if (call !== undefined) fail('firstMatch is a property, not a call', member.at);
          steps.push({ op: 'first' });
          single = true;
          break;
        default:
          if (ACTIONS.has(name)) {
            if (!single && name !== 'count' && name !== 'exists')
              fail(`${name} acts on one element: pick one first (["…"], .element, .firstMatch or .element(boundBy:))`, member.at);
            acted = true;
            break;
          }
          fail(
            `${JSON.stringify(name)} is not an XCUIElementQuery member this reads (buttons, staticTexts, …, descendants, children, matching, containing, element, firstMatch)`,
            member.at,
          );
      }
    }
    const rest = this.peek();
    if (this.punct(';')) this.next();
    if (this.peek().kind !== 'end') fail(`unexpected ${rest.kind === 'end' ? 'end' : JSON.stringify('value' in rest ? rest.value : '')}`, this.peek().at);
    if (steps.length === 0) fail('the expression names the application itself: add a query (app.buttons["…"])');
    return { steps, single };
  }

  private root(): void {
    const t = this.next();
    if (t.kind === 'ident' && (t.value === 'app' || t.value === 'application')) return;
    if (t.kind === 'ident' && t.value === 'XCUIApplication') {
      if (this.punct('(')) this.args();
      return;
    }
    fail('an XCUITest query starts with app or XCUIApplication()', t.at);
  }

  private args(): LabeledArg[] {
    this.expect('(', 'an opening (');
    const out: LabeledArg[] = [];
    if (this.punct(')')) {
      this.next();
      return out;
    }
    for (;;) {
      let label: string | undefined;
      const t = this.peek();
      if (t.kind === 'ident' && this.peek(1).kind === 'punct' && (this.peek(1) as { value: string }).value === ':') {
        label = t.value;
        this.next();
        this.next();
      }
      out.push({ label, value: this.arg() });
      if (this.punct(',')) {
        this.next();
        continue;
      }
      this.expect(')', 'a closing ) or a comma');
      return out;
    }
  }

  private arg(): Arg {
    const t = this.next();
    if (t.kind === 'string') return { kind: 'string', value: t.value, at: t.at };
    if (t.kind === 'number') return { kind: 'number', value: t.value, at: t.at };
    if (t.kind === 'punct' && t.value === '.') {
      const name = this.next();
      if (name.kind !== 'ident') fail('expected an element type after "."', name.at);
      return { kind: 'type', type: this.typeName(name.value, name.at), at: t.at };
    }
    if (t.kind === 'ident') {
      if (t.value === 'true' || t.value === 'false') return { kind: 'bool', value: t.value === 'true', at: t.at };
      if (t.value === 'NSPredicate') {
        const call = this.args();
        const [format, ...rest] = call;
        if (!format || format.label !== 'format' || format.value.kind !== 'string') fail('write NSPredicate(format: "…", arguments…)', t.at);
        const args: PredicateArg[] = rest.map(({ value }) => {
          if (value.kind === 'string' || value.kind === 'number' || value.kind === 'bool') return value.value;
          return fail('a predicate argument must be a literal string, number or Bool', value.at);
        });
        return { kind: 'predicate', predicate: parsePredicate(format.value.value, args, 'xcuitest'), at: t.at };
      }
      // XCUIElement.ElementType.button
      if (t.value === 'XCUIElement' || t.value === 'XCUIElementType') {
        while (this.punct('.')) {
          this.next();
          const part = this.next();
          if (part.kind !== 'ident') fail('expected an element type', part.at);
          if (part.value !== 'ElementType') return { kind: 'type', type: this.typeName(part.value, part.at), at: t.at };
        }
        fail('expected an element type', t.at);
      }
      return { kind: 'name', value: t.value, at: t.at };
    }
    return fail('expected an argument', t.at);
  }

  private typeName(name: string, at: number): ElementTypeName {
    const type = elementTypeByName(name);
    if (!type || elementTypeInfo(type.name).swiftCase !== name) fail(`.${name} is not an XCUIElement.ElementType`, at);
    return type.name;
  }

  private typeArg(call: LabeledArg[] | undefined, label: string, member: Token): ElementTypeName {
    const arg = call?.[0];
    if (!call || call.length !== 1 || arg!.label !== label || arg!.value.kind !== 'type')
      fail(`write ${'value' in member ? member.value : ''}(${label}: .button)`, member.at);
    return (arg!.value as { type: ElementTypeName }).type;
  }

  /** `matching(identifier:)`, `matching(.type, identifier:)`, `matching(NSPredicate(…))`. */
  private matching(call: LabeledArg[] | undefined, member: Token): Step[] {
    if (!call || call.length === 0) fail('matching needs an identifier, a type and identifier, or a predicate', member.at);
    const [first, second] = call;
    if (call.length === 1 && first!.label === 'identifier' && first!.value.kind === 'string') return [{ op: 'filter', test: identifying(first!.value.value) }];
    if (call.length === 1 && first!.label === undefined && first!.value.kind === 'predicate') return [{ op: 'filter', test: first!.value.predicate }];
    if (call.length === 1 && first!.label === 'matching' && first!.value.kind === 'predicate') return [{ op: 'filter', test: first!.value.predicate }];
    if (call.length === 1 && first!.value.kind === 'name')
      fail(`${first!.value.value} is a variable: write the NSPredicate inline to evaluate it`, first!.value.at);
    const typeArg = first?.label === undefined || first?.label === 'matching' ? first?.value : undefined;
    if (call.length === 2 && typeArg?.kind === 'type' && second!.label === 'identifier') {
      const type = typeArg.type;
      const id = second!.value;
      if (id.kind !== 'string') fail('identifier: takes a string', id.at);
      const key = identifying(id.value);
      return [{ op: 'filter', test: (e) => (type === 'Any' || e.type === type) && key(e) }];
    }
    return fail('matching takes (identifier: "…"), (.type, identifier: "…") or (NSPredicate(format: …))', member.at);
  }

  private matchTest(call: LabeledArg[] | undefined, member: Token): (e: ElementAttributes) => boolean {
    const steps = this.matching(call, member);
    const test = steps[0];
    if (test?.op !== 'filter') fail('containing takes (.type, identifier: "…") or (NSPredicate(format: …))', member.at);
    return test.test;
  }
}

/** XCTest's identifying properties: identifier, title, label, value, placeholderValue (exact). */
export function identifying(key: string): (e: ElementAttributes) => boolean {
  return (e) => e.identifier === key || e.label === key || e.value === key || e.placeholderValue === key;
}

/** Reads an XCUITest query expression, or throws a SelectorError saying why it is not one. */
export function parseXcuiQuery(text: string): XcuiQuery {
  return new Parser(tokenize(text)).parse();
}

/** The elements (node indices, document order) the query resolves to in `view`. */
export function evaluateXcuiQuery(query: XcuiQuery, view: ScreenView): number[] {
  let current: number[] = view.has(0) ? [0] : view.children(-1).slice(0, 1);
  for (const step of query.steps) {
    switch (step.op) {
      case 'descendants':
        current = view.descendantsOf(current).filter((i) => step.type === 'Any' || view.attrs[i]!.type === step.type);
        break;
      case 'children': {
        const out: number[] = [];
        for (const p of current) for (const c of view.children(p)) if (step.type === 'Any' || view.attrs[c]!.type === step.type) out.push(c);
        current = out.sort((a, b) => a - b);
        break;
      }
      case 'filter':
        current = current.filter((i) => step.test(view.attrs[i]!));
        break;
      case 'containing': {
        // Matches counted by prefix sums: one pass, whatever the nesting.
        const prefix = new Int32Array(view.attrs.length + 1);
        for (let j = 0; j < view.attrs.length; j++) prefix[j + 1] = prefix[j]! + (view.attrs[j] !== null && step.test(view.attrs[j]!) ? 1 : 0);
        current = current.filter((i) => prefix[view.subtreeEnd(i)]! - prefix[i + 1]! > 0);
        break;
      }
      case 'index':
        current = current[step.index] === undefined ? [] : [current[step.index]!];
        break;
      case 'first':
        current = current.slice(0, 1);
        break;
      case 'element':
        // `.element` (and a subscript) is the one match; with several, XCTest fails at use: the count says so.
        break;
    }
  }
  return current;
}

/** A Swift string literal for `text`. */
export function swiftString(text: string): string {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    // The bidirectional controls too (docs/rules.md#r-show-01): the Swift source shows them, the string still holds them.
    else if (code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029 || hasBidiControls(ch)) out += `\\u{${code.toString(16)}}`;
    else out += ch;
  }
  return `${out}"`;
}
