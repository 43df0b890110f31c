/**
 * Appium's `xpath` strategy as WebDriverAgent evaluates it (docs/selectors.md#s-xpath,
 * docs/rules.md#r-hand-08): XPath 1.0 in full, by a well-kept engine (the `xpath` package) over the page
 * source WDA writes (page-source.ts), from the root element.
 *
 * Sources (appium/WebDriverAgent, `WebDriverAgentLib/Utilities/`):
 * - `FBXPath.m` `+evaluate:document:contextNode:`: libxml2's `xmlXPathEvalExpression` with the context
 *   node `doc->children`, the application element, so a relative path starts there.
 * - `FBXPath.m` `+collectMatchingSnapshots:elementStore:`: a result that is not a node set (a number, a
 *   string, a boolean) is no element; a node without WDA's index path (an attribute, a text, the
 *   document) fails the whole query ("Cannot evaluate results for XPath expression").
 * - `FBXPath.m` `+elementAttributesWithXPathQuery:`: the attributes the query names (or all, for `@*`)
 *   are written; `hittable` only then (page-source.ts says what is not known here).
 * - `FBXPathExtensions.m` `FBRegisterXPathExtensions`: `matches(s, pattern[, flags])` (a search,
 *   NSRegularExpression, flag `i`; an invalid pattern is false), `ends-with`, `lower-case`,
 *   `upper-case`; `replace`, `tokenize` and `string-join` are WDA's too, and are refused here.
 */
import * as engine from 'xpath';
import type { XPathEvaluator, XPathValue } from 'xpath';
import type { Element, Node } from '@xmldom/xmldom';
import { RE2JS } from 're2js';
import { MAX_PATTERN_LENGTH, SelectorError } from './errors';
import { pageSourceOf, PAGE_SOURCE_ATTRIBUTES, UNKNOWN_PAGE_SOURCE_ATTRIBUTES } from './page-source';
import type { ScreenView } from './screen';

function fail(reason: string, at?: number): never {
  throw new SelectorError('appium', `XPath: ${reason}`, at);
}

/** XPath 1.0's core function library (XPath 1.0 §4) and the node type tests, which read as calls. */
const CORE_FUNCTIONS = new Set(
  (
    'last position count id local-name namespace-uri name string concat starts-with contains substring-before ' +
    'substring-after substring string-length normalize-space translate boolean not true false lang number sum floor ceiling round'
  ).split(' '),
);
const NODE_TESTS = new Set(['node', 'text', 'comment', 'processing-instruction']);
const WDA_REFUSED = new Set(['replace', 'tokenize', 'string-join']);

/** An NSRegularExpression search (`firstMatchInString:`), linear time (docs/rules.md#r-hand-06). */
function matches(_context: unknown, input: XPathValue, pattern: XPathValue, flags?: XPathValue): boolean {
  const source = pattern.stringValue();
  if (source.length > MAX_PATTERN_LENGTH) fail(`the matches() pattern is longer than ${MAX_PATTERN_LENGTH} characters`);
  const bits = flags?.stringValue().includes('i') ? RE2JS.CASE_INSENSITIVE : 0;
  // The function runs once per element: each pattern is compiled once.
  const key = `${bits}:${source}`;
  let re = compiled.get(key);
  if (re === undefined) {
    try {
      re = RE2JS.compile(source, bits);
    } catch {
      // FBXPathExtensions.m fbXPathMatchesFunction: a pattern NSRegularExpression refuses is false.
      re = null;
    }
    if (compiled.size >= 64) compiled.clear();
    compiled.set(key, re);
  }
  return re !== null && re.matcher(input.stringValue()).find();
}
const compiled = new Map<string, RE2JS | null>();

const WDA_FUNCTIONS = {
  matches,
  'ends-with': (_c: unknown, input: XPathValue, suffix: XPathValue) => input.stringValue().endsWith(suffix.stringValue()),
  'lower-case': (_c: unknown, input: XPathValue) => input.stringValue().toLowerCase(),
  'upper-case': (_c: unknown, input: XPathValue) => input.stringValue().toUpperCase(),
};
const ARITY: Readonly<Record<string, [number, number]>> = { matches: [2, 3], 'ends-with': [2, 2], 'lower-case': [1, 1], 'upper-case': [1, 1] };

/** The engine's parsed expression, walked for what it calls and how deep its paths nest. */
type AstNode = { [key: string]: unknown };

interface Shape {
  /** The deepest predicate level with a path that reaches past a node's children (a per-node scan). */
  wideLevel: number;
}

// Step axes (xpath.js `Step.ANCESTOR` = 0 …): descendant, descendant-or-self, following, following-sibling,
// preceding, preceding-sibling visit more than a node's children and parent chain.
const WIDE_AXES = new Set([4, 5, 6, 7, 10, 11]);
const FOLLOWING = 6;
const PRECEDING = 10;

function inspect(node: unknown, level: number, shape: Shape): void {
  if (Array.isArray(node)) {
    for (const item of node) inspect(item, level, shape);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const ast = node as AstNode;
  if (typeof ast['functionName'] === 'string') {
    const name = ast['functionName'];
    const args = Array.isArray(ast['arguments']) ? ast['arguments'].length : 0;
    if (WDA_REFUSED.has(name)) fail(`WebDriverAgent's ${name}() is not evaluated here`);
    const arity = ARITY[name];
    if (arity && (args < arity[0] || args > arity[1]))
      fail(`${name}() takes ${arity[0] === arity[1] ? arity[0] : `${arity[0]} or ${arity[1]}`} arguments (FBXPathExtensions.m)`);
    if (!arity && !CORE_FUNCTIONS.has(name) && !NODE_TESTS.has(name)) fail(`${name}() is not an XPath 1.0 function nor one WebDriverAgent adds`);
  }
  if (typeof ast['variable'] === 'string') fail(`$${ast['variable']}: WebDriverAgent defines no variables`);
  if (Array.isArray(ast['steps'])) {
    const steps = ast['steps'] as AstNode[];
    // xpath 0.0.34 (xpath.js `PathExpr.applyStep`, cases FOLLOWING and PRECEDING) counts a node's
    // descendants in following:: and its ancestors in preceding::, which XPath 1.0 §2.2 and libxml2 leave
    // out: refused rather than answered otherwise than WebDriverAgent answers.
    const off = steps.find((s) => s['axis'] === FOLLOWING || s['axis'] === PRECEDING);
    if (off)
      fail(
        `the ${off['axis'] === FOLLOWING ? 'following' : 'preceding'} axis is not evaluated here: the XPath engine used counts ${off['axis'] === FOLLOWING ? 'descendants' : 'ancestors'} in it, libxml2 (WebDriverAgent's) does not; write it with ancestor-or-self::, ${off['axis'] === FOLLOWING ? 'following' : 'preceding'}-sibling:: and descendant-or-self::`,
      );
    if (ast['absolute'] === true || steps.some((s) => WIDE_AXES.has(s['axis'] as number))) shape.wideLevel = Math.max(shape.wideLevel, level);
  }
  for (const [key, value] of Object.entries(ast)) {
    if (key === 'predicates' || key === 'filterPredicates') inspect(value, level + 1, shape);
    else if (typeof value === 'object') inspect(value, level, shape);
  }
}

/**
 * The most element visits an XPath may cost: a path inside a predicate runs once per element the
 * predicate tests, so `//*[count(//*) > 0]` costs the square of the screen's elements (2,000 elements
 * took 7 s in the engine). Estimated before evaluating, as elements to the power 1 + the predicate level
 * of the deepest per-element scan.
 */
export const MAX_XPATH_VISITS = 200_000;

export interface XPathQuery {
  text: string;
  expression: XPathEvaluator;
  /** See `Shape.wideLevel`; -1 when no path scans more than children (cost linear in the elements). */
  wideLevel: number;
}

/** Names WDA's `elementAttributesWithXPathQuery` finds in the query (`[^\w@]@name[^\w]`, or `@*` for all). */
function namedAttributes(text: string): string[] {
  if (/[^\w@]@\*[^\w]/.test(text)) return [...PAGE_SOURCE_ATTRIBUTES];
  return PAGE_SOURCE_ATTRIBUTES.filter((name) => new RegExp(`[^\\w@]@${name}[^\\w]`).test(text));
}

/**
 * Where an expression the engine refused goes wrong, when it is a quote or a bracket left open or closed
 * twice: the engine itself says only "XPath parse error".
 */
function unbalanced(text: string): { reason: string; at: number } | undefined {
  const open: { c: string; at: number }[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"' || c === "'") {
      const close = text.indexOf(c, i + 1);
      if (close < 0) return { reason: 'a string literal is not closed', at: i };
      i = close;
    } else if (c === '[' || c === '(') open.push({ c, at: i });
    else if (c === ']' || c === ')') {
      const last = open.pop();
      const want = c === ']' ? '[' : '(';
      if (!last || last.c !== want) return { reason: `${JSON.stringify(c)} closes nothing`, at: i };
    }
  }
  const last = open.pop();
  return last ? { reason: `expected ${JSON.stringify(last.c === '[' ? ']' : ')')} to close the one here`, at: last.at } : undefined;
}

/** Reads an XPath, or throws a SelectorError saying why it is not one. */
export function parseXPath(text: string): XPathQuery {
  if (text.trim() === '') fail('the expression is empty');
  let expression: XPathEvaluator;
  try {
    expression = engine.parse(text);
  } catch (error) {
    const where = unbalanced(text);
    if (where) fail(where.reason, where.at);
    const message = error instanceof Error ? error.message : String(error);
    fail(`not an XPath 1.0 expression (the engine says: ${message})`);
  }
  const shape: Shape = { wideLevel: -1 };
  // The evaluator keeps the parsed tree in a property of its own that is not enumerable.
  inspect((expression as unknown as { expression: unknown }).expression, 0, shape);
  // WDA reads `@accessible` and `@hittable` from XCTest; the observation holds neither (page-source.ts).
  // The query text is padded as WDA's regex needs a character on each side.
  const unknown = namedAttributes(` ${text} `).filter((name) => UNKNOWN_PAGE_SOURCE_ATTRIBUTES.includes(name as never));
  if (unknown.length > 0 && !/[^\w@]@\*[^\w]/.test(` ${text} `))
    fail(`@${unknown[0]} is written by WebDriverAgent from XCTest, and the observation does not hold it`);
  return { text, expression, wideLevel: shape.wideLevel };
}

/** The elements (node indices, document order) the XPath selects in `view`. */
export function evaluateXPath(query: XPathQuery, view: ScreenView): number[] {
  const source = pageSourceOf(view);
  if (query.wideLevel >= 1) {
    const visits = source.size ** (query.wideLevel + 1);
    if (visits > MAX_XPATH_VISITS)
      fail(
        `a path inside a predicate scans the screen once per element: about ${visits.toExponential(1)} visits over ${source.size} elements, more than the ${MAX_XPATH_VISITS.toLocaleString('en')} evaluated here`,
      );
  }
  let value: XPathValue;
  try {
    value = query.expression.evaluate({ node: source.document.documentElement! as Node, functions: WDA_FUNCTIONS });
  } catch (error) {
    if (error instanceof SelectorError) throw error;
    fail(error instanceof Error ? error.message : String(error));
  }
  // FBXPath.m collectMatchingSnapshots: a value that is not a node set selects no element.
  if (!(value instanceof engine.XNodeSet)) return [];
  const out: number[] = [];
  for (const node of value.nodeset().toArray()) {
    const index = node.nodeType === 1 ? source.nodeOf.get(node as Element) : undefined;
    if (index === undefined) {
      if (node.nodeType === 1) continue; // the stand-in application above several tops
      fail(
        `it selects ${node.nodeType === 2 ? 'an attribute' : node.nodeType === 9 ? 'the document' : 'a text node'}; WebDriverAgent finds elements only and fails such a query`,
      );
    }
    out.push(index);
  }
  return out;
}

/** A string as an XPath literal (XPath 1.0 has no escapes: a string holding both quotes is a concat()). */
export function xpathString(text: string): string | undefined {
  if (!text.includes('"')) return `"${text}"`;
  if (!text.includes("'")) return `'${text}'`;
  return undefined;
}
