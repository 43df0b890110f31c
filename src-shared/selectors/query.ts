/**
 * Any selector, in any of the syntaxes a QA engineer pastes, read and evaluated on an observation
 * (docs/selectors.md#s-try): a Maestro selector, an XCUITest query expression, an Appium strategy and
 * value (accessibility id, class name, `-ios predicate string`, `-ios class chain`, XPath), or the
 * Parallax CLI's `--id` / `--text`.
 *
 * Maestro, XCUITest and Appium find elements through XCTest, so they are evaluated on the screen's
 * XCTest view; what the same selector would find only among the bridge's and the DOM's nodes is
 * reported apart (`onlyMerged`), since those tools will not find it. The Parallax CLI resolves on the
 * merged tree, bridge and DOM identities included, with the dispatcher's own rules.
 */
import type { UiNode } from '@shared/protocol/runner';
import type { NodeKey } from '@shared/model/tree';
import { selectorMatches } from '@shared/model/match';
import { MAX_NESTING, MAX_SELECTOR_LENGTH, nestingDepth, SelectorError, type SelectorSyntax } from './errors';
import { elementTypeByName } from '@shared/model/element-type';
import { maestroQuery, parseMaestroSelector, type MaestroSelector } from './maestro';
import { maestroFind } from './maestro-match';
import { evaluateXcuiQuery, parseXcuiQuery, type XcuiQuery } from './xcuitest';
import { parsePredicate, type Predicate } from './predicate';
import { evaluateClassChain, parseClassChain, type ClassChain } from './class-chain';
import { evaluateXPath, parseXPath, type XPathQuery } from './xpath';
import { indexScreen, type ScreenIndex, type ScreenView, type ViewName } from './screen';

export const APPIUM_STRATEGIES = ['accessibility id', 'class name', '-ios predicate string', '-ios class chain', 'xpath'] as const;
export type AppiumStrategy = (typeof APPIUM_STRATEGIES)[number];

export type ParsedSelector =
  | { syntax: 'maestro'; strategy: 'maestro'; maestro: MaestroSelector }
  | { syntax: 'xcuitest'; strategy: 'query'; query: XcuiQuery }
  | { syntax: 'appium'; strategy: 'accessibility id'; value: string }
  | { syntax: 'appium'; strategy: 'class name'; type: string }
  | { syntax: 'appium'; strategy: '-ios predicate string'; predicate: Predicate }
  | { syntax: 'appium'; strategy: '-ios class chain'; chain: ClassChain }
  | { syntax: 'appium'; strategy: 'xpath'; xpath: XPathQuery }
  | { syntax: 'parallax'; strategy: '--id' | '--text'; value: string };

/** Strategy names as Appium clients spell them, to the driver's. */
const APPIUM_ALIASES: Record<string, AppiumStrategy> = {
  'accessibility id': 'accessibility id',
  accessibilityid: 'accessibility id',
  name: 'accessibility id',
  id: 'accessibility id',
  'class name': 'class name',
  classname: 'class name',
  '-ios predicate string': '-ios predicate string',
  'ios predicate string': '-ios predicate string',
  predicate: '-ios predicate string',
  iosnspredicatestring: '-ios predicate string',
  '-ios class chain': '-ios class chain',
  'ios class chain': '-ios class chain',
  'class chain': '-ios class chain',
  iosclasschain: '-ios class chain',
  xpath: 'xpath',
};

/** An Appium strategy and its value, as a client sends them. */
export function parseAppiumSelector(strategy: string, value: string): ParsedSelector {
  const name = APPIUM_ALIASES[strategy.trim().toLowerCase()];
  if (!name) throw new SelectorError('appium', `${JSON.stringify(strategy)} is not an XCUITest driver strategy (${APPIUM_STRATEGIES.join(', ')})`);
  const text = value.trim();
  if (text === '') throw new SelectorError('appium', `the ${name} value is empty`);
  switch (name) {
    case 'accessibility id':
      return { syntax: 'appium', strategy: name, value: text };
    case 'class name': {
      const type = elementTypeByName(text);
      if (!type || type.xcuiName !== text)
        throw new SelectorError('appium', `${JSON.stringify(text)} is not an XCUIElementType name (XCUIElementTypeButton, …)`);
      return { syntax: 'appium', strategy: name, type: type.xcuiName };
    }
    case '-ios predicate string':
      return { syntax: 'appium', strategy: name, predicate: parsePredicate(text, [], 'appium') };
    case '-ios class chain':
      return { syntax: 'appium', strategy: name, chain: parseClassChain(text) };
    case 'xpath':
      return { syntax: 'appium', strategy: name, xpath: parseXPath(text) };
  }
}

/** `--id VALUE`, `--text "VALUE"`, `--id=VALUE`, with shell quoting. */
export function parseParallaxSelector(input: string): ParsedSelector {
  const m = /^--(id|text)(?:=|\s+)([\s\S]*)$/.exec(input.trim());
  if (!m) throw new SelectorError('parallax', 'write --id VALUE or --text VALUE');
  const value = shellWord(m[2]!.trim());
  if (value === '') throw new SelectorError('parallax', `--${m[1]} needs a value`);
  return { syntax: 'parallax', strategy: m[1] === 'id' ? '--id' : '--text', value };
}

/** One shell word: single quotes are literal, double quotes keep backslash escapes of " \ $ `. */
function shellWord(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "'") {
      const close = text.indexOf("'", i + 1);
      if (close < 0) throw new SelectorError('parallax', 'a single quote is not closed', i);
      out += text.slice(i + 1, close);
      i = close + 1;
    } else if (c === '"') {
      let j = i + 1;
      for (;;) {
        if (j >= text.length) throw new SelectorError('parallax', 'a double quote is not closed', i);
        const d = text[j]!;
        if (d === '"') break;
        if (d === '\\' && '"\\$`'.includes(text[j + 1] ?? '')) {
          out += text[j + 1];
          j += 2;
          continue;
        }
        out += d;
        j++;
      }
      i = j + 1;
    } else if (c === '\\' && i + 1 < text.length) {
      out += text[i + 1];
      i += 2;
    } else if (/\s/.test(c)) {
      throw new SelectorError('parallax', 'the value is more than one word: quote it', i);
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

const APPIUM_PREFIX =
  /^(accessibility id|class name|-ios predicate string|-ios class chain|ios predicate string|ios class chain|xpath|name)\s*(?::|=(?!=))\s*([\s\S]*)$/i;
const PREDICATE_WORDS = /(==|!=|<>|\b(BEGINSWITH|ENDSWITH|CONTAINS|LIKE|MATCHES|IN|AND|OR)\b)/i;

/**
 * Reads a selector in whichever syntax it is written (or the one `syntax` names), or throws a
 * SelectorError saying why it is not one.
 */
export function parseSelector(input: string, syntax?: SelectorSyntax): ParsedSelector {
  if (input.length > MAX_SELECTOR_LENGTH) throw new SelectorError(syntax, `the selector is longer than ${MAX_SELECTOR_LENGTH} characters`);
  const depth = nestingDepth(input);
  if (depth > MAX_NESTING) throw new SelectorError(syntax, `the selector nests ${depth} levels deep; at most ${MAX_NESTING} are read`);
  const text = input.trim();
  if (text === '') throw new SelectorError(syntax, 'the selector is empty');
  if (syntax === 'maestro') return { syntax: 'maestro', strategy: 'maestro', maestro: parseMaestroSelector(text) };
  if (syntax === 'xcuitest') return { syntax: 'xcuitest', strategy: 'query', query: parseXcuiQuery(text) };
  if (syntax === 'parallax') return parseParallaxSelector(text);
  if (text.startsWith('--')) return parseParallaxSelector(text);
  if (/^(app\b|XCUIApplication\b)/.test(text) && syntax !== 'appium') return { syntax: 'xcuitest', strategy: 'query', query: parseXcuiQuery(text) };
  const explicit = APPIUM_PREFIX.exec(text);
  if (explicit) return parseAppiumSelector(explicit[1]!, explicit[2]!);
  if (text.startsWith('~')) return parseAppiumSelector('accessibility id', text.slice(1));
  if (text.startsWith('/') || text.startsWith('(') || text.startsWith('./')) return parseAppiumSelector('xpath', text);
  if (text.startsWith('**/') || /^(XCUIElementType\w+|\*)(\[|\/)/.test(text)) return parseAppiumSelector('-ios class chain', text);
  if (/^XCUIElementType\w+$/.test(text)) return parseAppiumSelector('class name', text);
  if (syntax === 'appium') {
    if (PREDICATE_WORDS.test(text)) return parseAppiumSelector('-ios predicate string', text);
    return parseAppiumSelector('accessibility id', text);
  }
  if (/^\s*(-\s+)?[A-Za-z]\w*\s*:/.test(text) || text.startsWith('{')) return { syntax: 'maestro', strategy: 'maestro', maestro: parseMaestroSelector(text) };
  if (PREDICATE_WORDS.test(text)) return parseAppiumSelector('-ios predicate string', text);
  throw new SelectorError(
    undefined,
    `${JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text)} is not a selector in any syntax read here: write id: 'x' or text: 'x' (Maestro), app.buttons["x"] (XCUITest), ~x, //XCUIElementTypeButton[@name="x"], **/XCUIElementTypeButton, a predicate such as label == 'x' (Appium), or --id x / --text x (Parallax CLI)`,
  );
}

/** The view a syntax finds elements in. */
export function viewOf(parsed: ParsedSelector): ViewName {
  return parsed.syntax === 'parallax' ? 'merged' : 'xctest';
}

/** The node indices (document order) `parsed` selects in `view` of `screen`. */
export function evaluateIn(parsed: ParsedSelector, screen: ScreenIndex, viewName: ViewName): number[] {
  if (viewName === 'xctest') {
    // Maestro, XCUITest and Appium ask XCTest, so they are answered on the tree XCTest reported, whatever
    // the merge moved (docs/rules.md#r-hand-10); the answer names the merged nodes that stand for it.
    const reported = screen.xctestReported();
    if (reported) return evaluateRaw(parsed, reported.screen, 'xctest').map((j) => reported.origin[j]!);
  }
  const found = evaluateRaw(parsed, screen, viewName);
  return viewName !== 'merged' || parsed.syntax === 'parallax' ? found : oneElementPerPair(found, screen);
}

/**
 * In the merged tree a bridge node and the XCTest node it was merged beside are one element: the
 * bridge node, which carries the identity, answers for both (as the dispatcher's resolution does).
 */
export function oneElementPerPair(found: number[], screen: ScreenIndex): number[] {
  let paired = false;
  for (const i of found) if (screen.partner[i]! >= 0) paired = true;
  if (!paired) return found;
  const set = new Set(found);
  return found.filter((i) => {
    const partner = screen.partner[i]!;
    return !(partner >= 0 && set.has(partner) && screen.xctest.has(i));
  });
}

function evaluateRaw(parsed: ParsedSelector, screen: ScreenIndex, viewName: ViewName): number[] {
  const view: ScreenView = screen[viewName];
  switch (parsed.strategy) {
    case 'maestro': {
      // Maestro's own rules: case, regex flags, the text it reads, deepest match, screen order (maestro-match.ts).
      return maestroFind(view, maestroQuery(parsed.maestro), view.members());
    }
    case 'query':
      return evaluateXcuiQuery(parsed.query, view);
    case 'accessibility id':
      return view.members().filter((i) => (view.attrs[i]!.identifier ?? view.attrs[i]!.label) === parsed.value);
    case 'class name':
      return view.members().filter((i) => view.attrs[i]!.xcuiType === parsed.type);
    case '-ios predicate string':
      return view.members().filter((i) => parsed.predicate(view.attrs[i]!));
    case '-ios class chain':
      return evaluateClassChain(parsed.chain, view);
    case 'xpath':
      return evaluateXPath(parsed.xpath, view);
    case '--id':
    case '--text': {
      const selector = parsed.strategy === '--id' ? { id: parsed.value } : { text: parsed.value };
      return selectorMatches(selector, screen.root, screen.nodes)
        .map((f) => screen.byKey.get(f.key))
        .filter((i): i is number => i !== undefined);
    }
  }
}

export interface SelectorMatches {
  syntax: SelectorSyntax;
  strategy: ParsedSelector['strategy'];
  /** What the selector's tool finds (Maestro, XCUITest, Appium: through XCTest; the CLI: on the merged tree). */
  matches: NodeKey[];
  /** What it would find only among bridge and DOM nodes, which its tool does not see; empty for the CLI. */
  onlyMerged: NodeKey[];
}

/** Evaluates a parsed selector on an observation's tree. */
export function matchSelector(parsed: ParsedSelector, root: UiNode): SelectorMatches {
  return matchSelectorIn(parsed, indexScreen(root));
}

/** The same on a tree already indexed, for many selectors on one observation (the selectors panel). */
export function matchSelectorIn(parsed: ParsedSelector, screen: ScreenIndex): SelectorMatches {
  const viewName = viewOf(parsed);
  const found = evaluateIn(parsed, screen, viewName);
  const keys = found.map((i) => screen.nodes[i]!.key);
  let onlyMerged: NodeKey[] = [];
  if (viewName === 'xctest') {
    const seen = new Set(found);
    onlyMerged = evaluateIn(parsed, screen, 'merged')
      .filter((i) => !seen.has(i) && !seen.has(screen.partner[i]!))
      .map((i) => screen.nodes[i]!.key);
  }
  return { syntax: parsed.syntax, strategy: parsed.strategy, matches: keys, onlyMerged };
}

export type SelectorTry = ({ ok: true } & SelectorMatches) | { ok: false; error: SelectorError };

/** Reads and evaluates `input` on `root`; an invalid selector is an error that says why, never a throw. */
export function trySelector(input: string, root: UiNode | undefined, syntax?: SelectorSyntax): SelectorTry {
  try {
    const parsed = parseSelector(input, syntax);
    if (!root) return { ok: true, syntax: parsed.syntax, strategy: parsed.strategy, matches: [], onlyMerged: [] };
    return { ok: true, ...matchSelector(parsed, root) };
  } catch (error) {
    if (error instanceof SelectorError) return { ok: false, error };
    throw error;
  }
}
