/**
 * XPath 1.0, the subset Appium locators use (docs/selectors.md#s-xpath), over the page source the
 * XCUITest driver builds: one element per XCTest element, named by its type (`XCUIElementTypeButton`)
 * with the attributes `type`, `name`, `label`, `value`, `placeholderValue`, `enabled`, `visible`, `x`,
 * `y`, `width`, `height`, `index`
 * (https://appium.github.io/appium-xcuitest-driver/latest/reference/element-attributes/).
 *
 * Paths with `/` and `//`, `(…)[n]`, `|`; the axes child, descendant, descendant-or-self, self, parent
 * (and `.`, `..`); name tests and `*`; predicates with `and`, `or`, `=`, `!=`, `<`, `<=`, `>`, `>=`,
 * numbers as positions, and the functions `position()`, `last()`, `not()`, `contains()`,
 * `starts-with()`, `string-length()`, `normalize-space()`, `true()`, `false()`.
 */
import { SelectorError } from './errors';
import type { ElementAttributes } from './element';
import type { ScreenView } from './screen';
import { operatorReader, patternReader, scan, TokenCursor, type Reader } from './tokens';

/** One attribute of the page source element for node `i` of `view`, or undefined when it has none. */
export function xpathAttribute(e: ElementAttributes, view: ScreenView, i: number, name: string): string | undefined {
  switch (name) {
    case 'type':
      return e.xcuiType;
    case 'name':
      return e.identifier ?? e.label;
    case 'label':
      return e.label;
    case 'value':
      return e.value;
    case 'placeholderValue':
      return e.placeholderValue;
    case 'enabled':
      return String(e.enabled);
    // The runner reports what is on screen: an element of the observation is visible.
    case 'visible':
      return 'true';
    case 'index':
      return String(view.indexInParent(i));
    case 'x':
    case 'y':
    case 'width':
    case 'height':
      return e.frame ? String(e.frame[name]) : undefined;
    default:
      return undefined;
  }
}

// ---- Tokens -----------------------------------------------------------------------------------------

type Token = { kind: 'name' | 'string' | 'number' | 'op'; value: string; at: number } | { kind: 'end'; value: ''; at: number };

function fail(reason: string, at?: number): never {
  throw new SelectorError('appium', `XPath: ${reason}`, at);
}

const OPS = ['//', '::', '..', '!=', '<=', '>=', '/', '(', ')', '[', ']', '@', ',', '|', '=', '<', '>', '*', '.', '-', '+'];

/** An XPath literal: no escapes, the other quote may appear inside. */
const literal: Reader<Token> = (text, at) => {
  const quote = text[at];
  if (quote !== '"' && quote !== "'") return undefined;
  const close = text.indexOf(quote, at + 1);
  if (close < 0) fail('a string literal is not closed', at);
  return { token: { kind: 'string', value: text.slice(at + 1, close), at }, length: close + 1 - at };
};

function tokenize(text: string): Token[] {
  return scan<Token>(
    text,
    [
      literal,
      patternReader<Token>(/^(?:\d+(?:\.\d*)?|\.\d+)/, (value, at) => ({ kind: 'number', value, at })),
      // A name never ends with "." or "-" (`..` and `-` are operators of their own).
      (source, at) => {
        const name = /^[A-Za-z_][\w.-]*/.exec(source.slice(at));
        if (!name) return undefined;
        const value = name[0].replace(/[.-]+$/, '');
        return { token: { kind: 'name', value, at }, length: value.length };
      },
      operatorReader<Token>(OPS, (value, at) => ({ kind: 'op', value, at })),
    ],
    (at) => ({ kind: 'end', value: '', at }),
    (c, at) => fail(`unexpected ${JSON.stringify(c)}`, at),
  );
}

// ---- Evaluation model -------------------------------------------------------------------------------

type Value = string | number | boolean | number[];
interface Context {
  view: ScreenView;
  node: number;
  position: number;
  size: number;
}
type Expr = (ctx: Context) => Value;
/** A path from a set of context nodes (the document is -1) to the nodes it selects, document order. */
type Path = (view: ScreenView, from: readonly number[]) => number[];

type Axis = 'child' | 'descendant' | 'descendant-or-self' | 'self' | 'parent';

function axisNodes(view: ScreenView, node: number, axis: Axis): number[] {
  switch (axis) {
    case 'child':
      return view.children(node) as number[];
    case 'descendant':
      return view.descendantsOf([node]);
    case 'descendant-or-self':
      return node < 0 ? view.descendantsOf([node]) : [node, ...view.descendantsOf([node])];
    case 'self':
      return [node];
    case 'parent':
      return node < 0 ? [] : [view.parent[node]!];
  }
}

function uniqueSorted(nodes: number[]): number[] {
  return [...new Set(nodes)].sort((a, b) => a - b);
}

function toStringValue(v: Value): string {
  if (Array.isArray(v)) return '';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return String(v);
}

function toBoolean(v: Value): boolean {
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'number') return v !== 0 && !Number.isNaN(v);
  if (typeof v === 'string') return v !== '';
  return v;
}

function toNumber(v: Value): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (Array.isArray(v)) return NaN;
  return v.trim() === '' ? NaN : Number(v);
}

/** Attribute values are strings; an attribute reference yields its values (one or none). */
type AttrRef = { attr: string };

// ---- Parser -----------------------------------------------------------------------------------------

class Parser extends TokenCursor<Token> {
  private op(value: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t.kind === 'op' && t.value === value;
  }

  private expectOp(value: string): void {
    const t = this.next();
    if (t.kind !== 'op' || t.value !== value) fail(`expected ${JSON.stringify(value)}`, t.at);
  }

  parse(): Path {
    if (this.peek().kind === 'end') fail('the expression is empty');
    const path = this.union();
    if (this.peek().kind !== 'end') fail(`unexpected ${JSON.stringify(this.peek().value)}`, this.peek().at);
    return path;
  }

  private union(): Path {
    const paths = [this.pathExpr()];
    while (this.op('|')) {
      this.next();
      paths.push(this.pathExpr());
    }
    if (paths.length === 1) return paths[0]!;
    return (view, from) => uniqueSorted(paths.flatMap((p) => p(view, from)));
  }

  private pathExpr(): Path {
    if (this.op('(')) {
      this.next();
      const inner = this.union();
      this.expectOp(')');
      const predicates = this.predicates();
      // A filter expression's positions count over the whole node set, in document order.
      let path: Path = (view, from) => applyPredicates(view, inner(view, from), predicates);
      if (this.op('/') || this.op('//')) {
        const rest = this.relative();
        const head = path;
        path = (view, from) => rest(view, head(view, from));
      }
      return path;
    }
    if (this.op('/')) {
      this.next();
      if (this.peek().kind === 'end' || this.op('|') || this.op(')')) return () => [-1];
      const rest = this.relativeSteps();
      return (view) => rest(view, [-1]);
    }
    if (this.op('//')) {
      this.next();
      const rest = this.relativeSteps();
      return (view) => rest(view, descendantOrSelf(view, [-1]));
    }
    return this.relativeSteps();
  }

  /** `/step…` or `//step…` after a filter expression. */
  private relative(): Path {
    const steps: Path[] = [];
    while (this.op('/') || this.op('//')) {
      const sep = this.next().value;
      const step = this.step();
      steps.push(sep === '//' ? (view, from) => step(view, descendantOrSelf(view, from)) : step);
    }
    return (view, from) => steps.reduce((nodes, step) => step(view, nodes), [...from]);
  }

  private relativeSteps(): Path {
    const first = this.step();
    const rest = this.relative();
    return (view, from) => rest(view, first(view, from));
  }

  private step(): Path {
    if (this.op('.')) {
      this.next();
      return (_view, from) => [...from];
    }
    if (this.op('..')) {
      this.next();
      return (view, from) => uniqueSorted(from.flatMap((n) => axisNodes(view, n, 'parent')));
    }
    let axis: Axis = 'child';
    const t = this.peek();
    if (t.kind === 'name' && this.op('::', 1)) {
      const name = t.value;
      if (!['child', 'descendant', 'descendant-or-self', 'self', 'parent'].includes(name)) fail(`the ${name} axis is not supported`, t.at);
      axis = name as Axis;
      this.next();
      this.next();
    }
    if (this.op('@')) fail('an attribute can be tested inside [ ], not selected as a node', this.peek().at);
    const test = this.nodeTest();
    const predicates = this.predicates();
    return (view, from) => {
      const out: number[] = [];
      for (const context of from) {
        let nodes = axisNodes(view, context, axis).filter((n) => n >= 0 && test(view, n));
        if (predicates.length > 0) nodes = applyPredicates(view, nodes, predicates);
        for (const n of nodes) out.push(n);
      }
      if (from.length <= 1) return out;
      // The children of different nodes never overlap; other axes can, and are made unique.
      return axis === 'child' ? out.sort((a, b) => a - b) : uniqueSorted(out);
    };
  }

  private nodeTest(): (view: ScreenView, n: number) => boolean {
    const t = this.next();
    if (t.kind === 'op' && t.value === '*') return () => true;
    if (t.kind === 'name') {
      if (t.value === 'node' && this.op('(')) {
        this.next();
        this.expectOp(')');
        return () => true;
      }
      const name = t.value;
      return (view, n) => view.attrs[n]!.xcuiType === name;
    }
    return fail('expected an element name or *', t.at);
  }

  private predicates(): Expr[] {
    const out: Expr[] = [];
    while (this.op('[')) {
      this.next();
      out.push(this.orExpr());
      this.expectOp(']');
    }
    return out;
  }

  private orExpr(): Expr {
    let left = this.andExpr();
    while (this.peek().kind === 'name' && this.peek().value === 'or') {
      this.next();
      const a = left;
      const b = this.andExpr();
      left = (ctx) => toBoolean(a(ctx)) || toBoolean(b(ctx));
    }
    return left;
  }

  private andExpr(): Expr {
    let left = this.equality();
    while (this.peek().kind === 'name' && this.peek().value === 'and') {
      this.next();
      const a = left;
      const b = this.equality();
      left = (ctx) => toBoolean(a(ctx)) && toBoolean(b(ctx));
    }
    return left;
  }

  private equality(): Expr {
    let left = this.relational();
    while (this.op('=') || this.op('!=')) {
      const op = this.next().value;
      const a = left;
      const b = this.relational();
      left = (ctx) => compareValues(ctx, a(ctx), b(ctx), op);
    }
    return left;
  }

  private relational(): Expr {
    let left = this.additive();
    while (this.op('<') || this.op('<=') || this.op('>') || this.op('>=')) {
      const op = this.next().value;
      const a = left;
      const b = this.additive();
      left = (ctx) => compareValues(ctx, a(ctx), b(ctx), op);
    }
    return left;
  }

  private additive(): Expr {
    let left = this.unary();
    while (this.op('+') || this.op('-')) {
      const op = this.next().value;
      const a = left;
      const b = this.unary();
      left = (ctx) =>
        op === '+' ? toNumber(scalar(ctx, a(ctx))) + toNumber(scalar(ctx, b(ctx))) : toNumber(scalar(ctx, a(ctx))) - toNumber(scalar(ctx, b(ctx)));
    }
    return left;
  }

  private unary(): Expr {
    if (this.op('-')) {
      this.next();
      const inner = this.unary();
      return (ctx) => -toNumber(scalar(ctx, inner(ctx)));
    }
    return this.primary();
  }

  private primary(): Expr {
    const t = this.next();
    if (t.kind === 'string') return () => t.value;
    if (t.kind === 'number') return () => Number(t.value);
    if (t.kind === 'op' && t.value === '@') {
      const name = this.next();
      if (name.kind !== 'name') fail('expected an attribute name after @', name.at);
      const ref: AttrRef = { attr: name.value };
      return (ctx) => attrValue(ctx, ref);
    }
    if (t.kind === 'op' && t.value === '(') {
      const inner = this.orExpr();
      this.expectOp(')');
      return inner;
    }
    if (t.kind === 'name' && this.op('(')) return this.call(t);
    return fail(`expected a value, an @attribute or a function, found ${JSON.stringify(t.value)}`, t.at);
  }

  private call(name: Token): Expr {
    this.expectOp('(');
    const args: Expr[] = [];
    if (!this.op(')')) {
      for (;;) {
        args.push(this.orExpr());
        if (this.op(',')) {
          this.next();
          continue;
        }
        break;
      }
    }
    this.expectOp(')');
    const arity = (n: number) => {
      if (args.length !== n) fail(`${name.value}() takes ${n} argument(s)`, name.at);
    };
    const str = (ctx: Context, e: Expr) => toStringValue(e(ctx));
    switch (name.value) {
      case 'position':
        arity(0);
        return (ctx) => ctx.position;
      case 'last':
        arity(0);
        return (ctx) => ctx.size;
      case 'true':
        arity(0);
        return () => true;
      case 'false':
        arity(0);
        return () => false;
      case 'not':
        arity(1);
        return (ctx) => !toBoolean(args[0]!(ctx));
      case 'contains':
        arity(2);
        return (ctx) => str(ctx, args[0]!).includes(str(ctx, args[1]!));
      case 'starts-with':
        arity(2);
        return (ctx) => str(ctx, args[0]!).startsWith(str(ctx, args[1]!));
      case 'string-length':
        arity(1);
        return (ctx) => [...str(ctx, args[0]!)].length;
      case 'normalize-space':
        arity(1);
        return (ctx) => str(ctx, args[0]!).trim().replace(/\s+/g, ' ');
      default:
        return fail(`the function ${name.value}() is not supported`, name.at);
    }
  }
}

/** The attribute's value, or an empty node set when the element does not carry it. */
function attrValue(ctx: Context, ref: AttrRef): Value {
  const v = xpathAttribute(ctx.view.attrs[ctx.node]!, ctx.view, ctx.node, ref.attr);
  return v === undefined ? [] : v;
}

/** A node set from an attribute reference becomes its string; an empty one stays empty. */
function scalar(_ctx: Context, v: Value): Value {
  return Array.isArray(v) ? '' : v;
}

function compareValues(_ctx: Context, a: Value, b: Value, op: string): boolean {
  // A comparison with an empty node set (a missing attribute) is false, whatever the operator.
  if ((Array.isArray(a) && a.length === 0) || (Array.isArray(b) && b.length === 0)) return false;
  const x = Array.isArray(a) ? '' : a;
  const y = Array.isArray(b) ? '' : b;
  if (op === '=' || op === '!=') {
    let equal: boolean;
    if (typeof x === 'boolean' || typeof y === 'boolean') equal = toBoolean(x) === toBoolean(y);
    else if (typeof x === 'number' || typeof y === 'number') equal = toNumber(x) === toNumber(y);
    else equal = x === y;
    return op === '=' ? equal : !equal;
  }
  const m = toNumber(x);
  const n = toNumber(y);
  return op === '<' ? m < n : op === '<=' ? m <= n : op === '>' ? m > n : m >= n;
}

function applyPredicates(view: ScreenView, nodes: number[], predicates: readonly Expr[]): number[] {
  let current = nodes;
  for (const predicate of predicates) {
    const size = current.length;
    current = current.filter((node, index) => {
      const value = predicate({ view, node, position: index + 1, size });
      // A number is a position.
      return typeof value === 'number' ? value === index + 1 : toBoolean(value);
    });
  }
  return current;
}

function descendantOrSelf(view: ScreenView, from: readonly number[]): number[] {
  // The usual case, `//` from the document: itself and everything, already in document order.
  if (from.length === 1) return [from[0]!, ...view.descendantsOf(from)];
  return uniqueSorted([...from, ...view.descendantsOf(from)]);
}

export interface XPathQuery {
  path: Path;
}

/** Reads an XPath, or throws a SelectorError saying why it is not one. */
export function parseXPath(text: string): XPathQuery {
  return { path: new Parser(tokenize(text)).parse() };
}

/** The elements (node indices, document order) the XPath selects in `view`. */
export function evaluateXPath(query: XPathQuery, view: ScreenView): number[] {
  return query.path(view, [-1]).filter((n) => n >= 0);
}

/** A string as an XPath literal (XPath 1.0 has no escapes: a string holding both quotes is a concat()). */
export function xpathString(text: string): string | undefined {
  if (!text.includes('"')) return `"${text}"`;
  if (!text.includes("'")) return `'${text}'`;
  return undefined;
}
