/**
 * NSPredicate format strings, the subset element queries use (docs/selectors.md#s-predicate): XCTest's
 * `NSPredicate(format:)` and Appium's `-ios predicate string` and class chain predicates.
 *
 * Comparisons `==` `=` `!=` `<>` `<` `<=` `=<` `>` `>=` `=>`, string operators `BEGINSWITH` `ENDSWITH`
 * `CONTAINS` `LIKE` `MATCHES` with `[c]` `[d]` `[cd]`, `IN {…}`, `BETWEEN {a, b}`, `AND` `&&` `OR` `||`
 * `NOT` `!`, parentheses, `TRUEPREDICATE` `FALSEPREDICATE`; literals in single or double quotes, numbers,
 * `TRUE` `FALSE` `YES` `NO` `NIL` `NULL`; `%@` `%K` `%d` `%i` `%f` filled from the format's arguments.
 * Key paths are the element attributes of XCTest (`identifier`, `label`, `value`, `placeholderValue`,
 * `title`, `elementType`, `isEnabled`, `isSelected`, `hasFocus`) and of Appium's driver (`name`, `type`,
 * `enabled`, `visible`, `selected`, `focused`, and the `wd`-prefixed forms).
 *
 * Over 500 lines on purpose: tokenizer, parser and evaluator of one grammar, whose operators and key paths
 * are read in all three; split, each part would import the others' private token and value types.
 */
import { SelectorError, wholeMatch, MAX_PATTERN_LENGTH, type SelectorSyntax, type WholeMatch } from './errors';
import { elementTypeInfo } from '@shared/model/element-type';
import type { ElementAttributes } from './element';
import { operatorReader, patternReader, scan, TokenCursor, type Reader } from './tokens';

type Value = string | number | boolean | null | Value[];
export type PredicateArg = string | number | boolean;

/** A compiled predicate: true when the element's attributes satisfy it. */
export type Predicate = (element: ElementAttributes) => boolean;

// ---- Attributes -------------------------------------------------------------------------------------

type Read = (e: ElementAttributes) => Value;

/**
 * XCTest's keys (docs/rules.md#r-hand-07): NSPredicate reads XCUIElementAttributes by key-value coding,
 * so the names are exact and case-sensitive
 * (https://developer.apple.com/documentation/xcuiautomation/xcuielementattributes).
 */
const XCTEST_KEYS: Record<string, Read> = {
  identifier: (e) => e.identifier ?? '',
  label: (e) => e.label ?? '',
  value: (e) => e.value ?? null,
  placeholderValue: (e) => e.placeholderValue ?? null,
  title: () => '',
  elementType: (e) => elementTypeInfo(e.type).raw,
  isEnabled: (e) => e.enabled,
  isSelected: (e) => e.selected,
  hasFocus: (e) => e.hasFocus,
};

/**
 * WebDriverAgent's keys (docs/rules.md#r-hand-07): appium/WebDriverAgent `FBElementUtils.m`
 * `wdAttributeNamesMapping` takes every `wd…` property of the FBElement protocol (`FBElement.h`: wdFrame,
 * wdRect, wdName, wdLabel, wdSelected, wdType, wdValue, wdUID, wdEnabled, wdVisible,
 * wdHasKeyboardFocus, wdAccessible, wdAccessibilityContainer, wdIndex; newer drivers add
 * wdPlaceholderValue, wdHittable, wdFocused), and each without its prefix (`name`, `rect`, …); any
 * other name throws FBUnknownAttributeException (`wdAttributeNameForAttributeName`), so `identifier`,
 * `title` and `isEnabled` are errors. The lookup is a dictionary's: case-sensitive. A key path keeps
 * its tail (`rect.x`).
 */
const WDA_KEYS: Record<string, Read> = {
  // FBElement wdName: the identifier, else the label (docs/selectors.md#s-appium).
  name: (e) => e.identifier ?? e.label ?? null,
  label: (e) => e.label ?? null,
  value: (e) => e.value ?? null,
  placeholderValue: (e) => e.placeholderValue ?? null,
  type: (e) => e.xcuiType,
  enabled: (e) => e.enabled,
  selected: (e) => e.selected,
  hasKeyboardFocus: (e) => e.hasFocus,
  focused: (e) => e.hasFocus,
  // The runner reports what is on screen; an element in the observation is visible.
  visible: () => true,
  'rect.x': (e) => e.frame?.x ?? null,
  'rect.y': (e) => e.frame?.y ?? null,
  'rect.width': (e) => e.frame?.width ?? null,
  'rect.height': (e) => e.frame?.height ?? null,
};
for (const key of Object.keys(WDA_KEYS)) WDA_KEYS[`wd${key.charAt(0).toUpperCase()}${key.slice(1)}`] = WDA_KEYS[key]!;

/**
 * Every name WDA takes, built as FBElementUtils.m `wdAttributeNamesMapping` builds it: each `wd…`
 * property of the FBElement protocol (FBElement.h; PlaceholderValue, Hittable, Focused, Traits, MinValue
 * and MaxValue in newer drivers) and its alias without the prefix, first letter lowered unless the rest is
 * an uppercase abbreviation (`wdUID` is `UID`). The lookup is a dictionary's, so `Index` or `uid` throw
 * FBUnknownAttributeException. NSExpression+FBFormat.m `fb_wdExpressionWithExpression:` looks up only
 * what comes before the first `.` of a key path (`rect.x`).
 */
const WDA_PROPERTIES = [
  'wdFrame',
  'wdRect',
  'wdName',
  'wdLabel',
  'wdSelected',
  'wdType',
  'wdValue',
  'wdUID',
  'wdEnabled',
  'wdVisible',
  'wdHasKeyboardFocus',
  'wdAccessible',
  'wdAccessibilityContainer',
  'wdIndex',
  'wdPlaceholderValue',
  'wdHittable',
  'wdFocused',
  'wdTraits',
  'wdMinValue',
  'wdMaxValue',
];
function wdaAlias(property: string): string {
  const rest = property.slice(2);
  if (rest.length <= 1) return rest.toLowerCase();
  return rest === rest.toUpperCase() ? rest : rest.charAt(0).toLowerCase() + rest.slice(1);
}
const WDA_NAMES = new Set(WDA_PROPERTIES.flatMap((p) => [p, wdaAlias(p)]));

/** XCUIElementAttributes keys whose answer the observation does not hold (the size classes, the frame as a CGRect). */
const XCTEST_UNANSWERED = new Set(['frame', 'horizontalSizeClass', 'verticalSizeClass']);

function keysOf(syntax: SelectorSyntax): Record<string, Read> {
  return syntax === 'xcuitest' ? XCTEST_KEYS : WDA_KEYS;
}

export const PREDICATE_ATTRIBUTES = [...new Set([...Object.keys(XCTEST_KEYS), ...Object.keys(WDA_KEYS)])];

// ---- Tokens -----------------------------------------------------------------------------------------

type Token =
  | { kind: 'string'; value: string; at: number }
  | { kind: 'number'; value: number; at: number }
  | { kind: 'word'; value: string; at: number }
  | { kind: 'arg'; spec: string; at: number }
  | { kind: 'op'; value: string; at: number }
  | { kind: 'end'; at: number };

const OPERATORS = ['==', '!=', '<>', '<=', '=<', '>=', '=>', '&&', '||', '=', '<', '>', '!', '(', ')', '{', '}', ',', '[', ']'];

function tokenize(text: string, syntax: SelectorSyntax): Token[] {
  const quoted: Reader<Token> = (source, at) => {
    const quote = source[at];
    if (quote !== '"' && quote !== "'") return undefined;
    let value = '';
    let i = at + 1;
    for (;;) {
      if (i >= source.length) throw new SelectorError(syntax, 'a quoted string is not closed', at);
      const d = source[i]!;
      if (d === quote) break;
      if (d === '\\' && i + 1 < source.length) {
        const e = source[i + 1]!;
        value += e === 'n' ? '\n' : e === 't' ? '\t' : e === 'r' ? '\r' : e;
        i += 2;
        continue;
      }
      value += d;
      i++;
    }
    return { token: { kind: 'string', value, at }, length: i + 1 - at };
  };
  const formatArg: Reader<Token> = (source, at) => {
    if (source[at] !== '%') return undefined;
    const m = /^%(@|K|d|i|f|ld|lu|u)/.exec(source.slice(at));
    if (!m) throw new SelectorError(syntax, `unknown format specifier ${JSON.stringify(source.slice(at, at + 2))}`, at);
    return { token: { kind: 'arg', spec: m[1]!, at }, length: m[0].length };
  };
  const number: Reader<Token> = (source, at, last) => {
    // A minus starts a number only where a value can start: first, or after an operator.
    if (source[at] === '-' && last !== undefined && last.kind !== 'op') return undefined;
    return patternReader<Token>(/^-?(?:\d+\.?\d*|\.\d+)/, (m) => ({ kind: 'number', value: Number(m), at }))(source, at, last);
  };
  return scan<Token>(
    text,
    [
      quoted,
      formatArg,
      number,
      patternReader<Token>(/^[A-Za-z_$#@][\w$.]*/, (value, at) => ({ kind: 'word', value, at })),
      operatorReader<Token>(OPERATORS, (value, at) => ({ kind: 'op', value, at })),
    ],
    (at) => ({ kind: 'end', at }),
    (c, at) => {
      throw new SelectorError(syntax, `unexpected ${JSON.stringify(c)}`, at);
    },
  );
}

// ---- Parser -----------------------------------------------------------------------------------------

type Operand = { kind: 'key'; read: (e: ElementAttributes) => Value } | { kind: 'const'; value: Value };

const STRING_OPS = new Set(['BEGINSWITH', 'ENDSWITH', 'CONTAINS', 'LIKE', 'MATCHES']);
const COMPARISONS = new Set(['==', '=', '!=', '<>', '<', '<=', '=<', '>', '>=', '=>']);

class Parser extends TokenCursor<Token> {
  private argIndex = 0;

  constructor(
    tokens: Token[],
    private readonly args: readonly PredicateArg[],
    private readonly syntax: SelectorSyntax,
  ) {
    super(tokens);
  }

  private fail(reason: string, token: Token = this.peek()): never {
    throw new SelectorError(this.syntax, reason, token.at);
  }

  private isWord(token: Token, ...words: string[]): boolean {
    return token.kind === 'word' && words.includes(token.value.toUpperCase());
  }

  private isOp(token: Token, ...ops: string[]): boolean {
    return token.kind === 'op' && ops.includes(token.value);
  }

  parse(): Predicate {
    if (this.peek().kind === 'end') this.fail('the predicate is empty');
    const predicate = this.or();
    const rest = this.peek();
    if (rest.kind !== 'end') this.fail(`unexpected ${describe(rest)} after a complete predicate`, rest);
    if (this.argIndex < this.args.length) this.fail(`${this.args.length} argument(s) given, but the format uses ${this.argIndex}`);
    return predicate;
  }

  private or(): Predicate {
    let left = this.and();
    while (this.isWord(this.peek(), 'OR') || this.isOp(this.peek(), '||')) {
      this.next();
      const a = left;
      const b = this.and();
      left = (e) => a(e) || b(e);
    }
    return left;
  }

  private and(): Predicate {
    let left = this.not();
    while (this.isWord(this.peek(), 'AND') || this.isOp(this.peek(), '&&')) {
      this.next();
      const a = left;
      const b = this.not();
      left = (e) => a(e) && b(e);
    }
    return left;
  }

  private not(): Predicate {
    if (this.isWord(this.peek(), 'NOT') || this.isOp(this.peek(), '!')) {
      this.next();
      const inner = this.not();
      return (e) => !inner(e);
    }
    return this.primary();
  }

  private primary(): Predicate {
    const token = this.peek();
    if (this.isOp(token, '(')) {
      this.next();
      const inner = this.or();
      if (!this.isOp(this.peek(), ')')) this.fail('a parenthesis is not closed', token);
      this.next();
      return inner;
    }
    if (this.isWord(token, 'TRUEPREDICATE')) {
      this.next();
      return () => true;
    }
    if (this.isWord(token, 'FALSEPREDICATE')) {
      this.next();
      return () => false;
    }
    return this.comparison();
  }

  private comparison(): Predicate {
    const left = this.operand();
    const opToken = this.next();
    let op: string;
    if (opToken.kind === 'op' && COMPARISONS.has(opToken.value)) op = opToken.value;
    else if (opToken.kind === 'word' && (STRING_OPS.has(opToken.value.toUpperCase()) || ['IN', 'BETWEEN'].includes(opToken.value.toUpperCase()))) {
      op = opToken.value.toUpperCase();
    } else return this.fail(`expected a comparison (==, !=, BEGINSWITH, CONTAINS, LIKE, MATCHES, IN, …), found ${describe(opToken)}`, opToken);
    const options = this.modifiers();
    const right = this.operand();
    return compare(left, op, options, right, this.syntax, opToken.at);
  }

  private modifiers(): { c: boolean; d: boolean } {
    const options = { c: false, d: false };
    if (!this.isOp(this.peek(), '[')) return options;
    const open = this.next();
    const word = this.next();
    if (word.kind !== 'word' || !/^[cdn]+$/i.test(word.value)) this.fail('expected an option such as [c], [d] or [cd]', word);
    for (const ch of word.value.toLowerCase()) {
      if (ch === 'c') options.c = true;
      if (ch === 'd') options.d = true;
    }
    if (!this.isOp(this.peek(), ']')) this.fail('an option bracket is not closed', open);
    this.next();
    return options;
  }

  private operand(): Operand {
    const token = this.next();
    switch (token.kind) {
      case 'string':
        return { kind: 'const', value: token.value };
      case 'number':
        return { kind: 'const', value: token.value };
      case 'arg': {
        const arg = this.args[this.argIndex++];
        if (arg === undefined) return this.fail(`the format uses more arguments than the ${this.args.length} given`, token);
        if (token.spec === 'K') {
          if (typeof arg !== 'string') return this.fail('%K takes an attribute name', token);
          return this.key(arg, token);
        }
        return { kind: 'const', value: arg };
      }
      case 'word': {
        const upper = token.value.toUpperCase();
        if (upper === 'TRUE' || upper === 'YES') return { kind: 'const', value: true };
        if (upper === 'FALSE' || upper === 'NO') return { kind: 'const', value: false };
        if (upper === 'NIL' || upper === 'NULL') return { kind: 'const', value: null };
        return this.key(token.value, token);
      }
      case 'op':
        if (token.value === '{') {
          const items: Value[] = [];
          if (!this.isOp(this.peek(), '}')) {
            for (;;) {
              const item = this.operand();
              if (item.kind !== 'const') this.fail('a list holds literal values only', token);
              items.push(item.value);
              if (this.isOp(this.peek(), ',')) {
                this.next();
                continue;
              }
              break;
            }
          }
          if (!this.isOp(this.peek(), '}')) this.fail('a list is not closed with }', token);
          this.next();
          return { kind: 'const', value: items };
        }
        return this.fail(`expected an attribute or a value, found ${describe(token)}`, token);
      case 'end':
        return this.fail('the predicate ends where a value was expected', token);
    }
  }

  private key(name: string, token: Token): Operand {
    const key = name.replace(/^SELF\./, '');
    const read = keysOf(this.syntax)[key];
    if (!read) {
      const known = this.syntax === 'xcuitest' ? XCTEST_UNANSWERED.has(key) : WDA_NAMES.has(key.split('.')[0]!);
      if (known) {
        const whose = this.syntax === 'xcuitest' ? 'an XCTest' : 'a WebDriverAgent';
        return this.fail(`${JSON.stringify(name)} is ${whose} attribute the observation does not hold, so it is not evaluated here`, token);
      }
      const names = Object.keys(keysOf(this.syntax)).filter((k) => !k.startsWith('wd') || this.syntax === 'xcuitest');
      const where =
        this.syntax === 'xcuitest' ? 'XCTest (XCUIElementAttributes, case-sensitive)' : "WebDriverAgent's FBElement (case-sensitive; it throws on any other)";
      return this.fail(`unknown attribute ${JSON.stringify(name)} for ${where}: known are ${names.join(', ')}`, token);
    }
    return { kind: 'key', read };
  }
}

function describe(token: Token): string {
  switch (token.kind) {
    case 'end':
      return 'the end';
    case 'string':
      return `the string ${JSON.stringify(token.value)}`;
    case 'number':
      return `the number ${token.value}`;
    case 'arg':
      return `%${token.spec}`;
    default:
      return JSON.stringify(token.value);
  }
}

// ---- Evaluation -------------------------------------------------------------------------------------

function fold(text: string, options: { c: boolean; d: boolean }): string {
  let out = text;
  if (options.d) out = out.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
  if (options.c) out = out.toLowerCase();
  return out;
}

function asNumber(value: Value): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return undefined;
}

function equal(a: Value, b: Value, options: { c: boolean; d: boolean }): boolean {
  if (a === null || b === null) return a === b;
  if (typeof a === 'string' && typeof b === 'string') return fold(a, options) === fold(b, options);
  if (Array.isArray(a) || Array.isArray(b)) return false;
  const x = asNumber(a);
  const y = asNumber(b);
  return x !== undefined && y !== undefined && x === y;
}

function order(a: Value, b: Value, options: { c: boolean; d: boolean }): number | undefined {
  if (typeof a === 'string' && typeof b === 'string') {
    const x = fold(a, options);
    const y = fold(b, options);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  const x = a === null || Array.isArray(a) ? undefined : asNumber(a);
  const y = b === null || Array.isArray(b) ? undefined : asNumber(b);
  return x === undefined || y === undefined ? undefined : x - y;
}

function likePattern(pattern: string, options: { c: boolean; d: boolean }, syntax: SelectorSyntax): WholeMatch {
  if (pattern.length > MAX_PATTERN_LENGTH) throw new SelectorError(syntax, `the pattern is longer than ${MAX_PATTERN_LENGTH} characters`);
  const source = [...fold(pattern, options)].map((ch) => (ch === '*' ? '.*' : ch === '?' ? '.' : ch.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&'))).join('');
  // `*` runs of a LIKE pattern backtrack polynomially in a RegExp; the linear-time engine does not.
  return wholeMatch(source, syntax, 's');
}

function compare(left: Operand, op: string, options: { c: boolean; d: boolean }, right: Operand, syntax: SelectorSyntax, at: number): Predicate {
  const read = (o: Operand) => (o.kind === 'const' ? () => o.value : o.read);
  const l = read(left);
  const r = read(right);
  const constant = right.kind === 'const' ? right.value : undefined;
  switch (op) {
    case '==':
    case '=':
      return (e) => equal(l(e), r(e), options);
    case '!=':
    case '<>':
      return (e) => !equal(l(e), r(e), options);
    case '<':
      return (e) => {
        const c = order(l(e), r(e), options);
        return c !== undefined && c < 0;
      };
    case '<=':
    case '=<':
      return (e) => {
        const c = order(l(e), r(e), options);
        return c !== undefined && c <= 0;
      };
    case '>':
      return (e) => {
        const c = order(l(e), r(e), options);
        return c !== undefined && c > 0;
      };
    case '>=':
    case '=>':
      return (e) => {
        const c = order(l(e), r(e), options);
        return c !== undefined && c >= 0;
      };
    case 'IN':
      return (e) => {
        const list = r(e);
        const value = l(e);
        if (Array.isArray(list)) return list.some((item) => equal(value, item, options));
        // `'a' IN 'abc'` is a substring test in NSPredicate.
        return typeof list === 'string' && typeof value === 'string' && fold(list, options).includes(fold(value, options));
      };
    case 'BETWEEN': {
      if (!Array.isArray(constant) || constant.length !== 2) throw new SelectorError(syntax, 'BETWEEN takes a list of two values, {low, high}', at);
      const [low, high] = constant as [Value, Value];
      return (e) => {
        const v = l(e);
        const a = order(v, low, options);
        const b = order(v, high, options);
        return a !== undefined && b !== undefined && a >= 0 && b <= 0;
      };
    }
    case 'LIKE':
    case 'MATCHES': {
      // A constant pattern compiles once; a pattern read from the element, per element.
      const compile = (pattern: string) => (op === 'LIKE' ? likePattern(pattern, options, syntax) : wholeMatch(pattern, syntax, `s${options.c ? 'i' : ''}`));
      const fixed = typeof constant === 'string' ? compile(constant) : undefined;
      if (constant !== undefined && typeof constant !== 'string') throw new SelectorError(syntax, `${op} takes a string pattern`, at);
      return (e) => {
        const value = l(e);
        if (typeof value !== 'string') return false;
        const pattern = fixed ?? (typeof r(e) === 'string' ? compile(r(e) as string) : undefined);
        if (!pattern) return false;
        return pattern.test(op === 'LIKE' ? fold(value, options) : options.d ? fold(value, { c: false, d: true }) : value);
      };
    }
    default: {
      if (constant !== undefined && typeof constant !== 'string') throw new SelectorError(syntax, `${op} takes a string`, at);
      return (e) => {
        const value = l(e);
        const other = r(e);
        if (typeof value !== 'string' || typeof other !== 'string') return false;
        const a = fold(value, options);
        const b = fold(other, options);
        return op === 'BEGINSWITH' ? a.startsWith(b) : op === 'ENDSWITH' ? a.endsWith(b) : a.includes(b);
      };
    }
  }
}

/** Compiles a predicate format string (with its `%@` arguments), or throws a SelectorError saying why it is not one. */
export function parsePredicate(format: string, args: readonly PredicateArg[] = [], syntax: SelectorSyntax = 'xcuitest'): Predicate {
  return new Parser(tokenize(format, syntax), args, syntax).parse();
}

/** A string as an NSPredicate literal: double quotes, with backslash escapes. */
export function predicateString(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
}
