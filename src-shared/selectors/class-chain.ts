/**
 * Appium's `-ios class chain` (docs/selectors.md#s-class-chain,
 * https://appium.github.io/appium-xcuitest-driver/latest/reference/ios-class-chain/): `/`-separated
 * steps, each an element type (`XCUIElementTypeButton`, `*` for any) with optional `` [`predicate`] ``,
 * `[$predicate$]` (has a descendant matching) and `[n]` positions (1-based, negative from the end),
 * applied in the order written. A step selects among the children of everything the previous step
 * selected, or among their descendants after `**`; the first step starts at the application.
 */
import { SelectorError } from './errors';
import { elementTypeByName, type ElementTypeName } from '@shared/model/element-type';
import { parsePredicate, type Predicate } from './predicate';
import type { ScreenView } from './screen';

type Filter = { kind: 'predicate'; test: Predicate } | { kind: 'contains'; test: Predicate } | { kind: 'position'; n: number };

interface ChainStep {
  descendant: boolean;
  type: ElementTypeName;
  filters: Filter[];
}

export interface ClassChain {
  steps: ChainStep[];
}

function fail(reason: string, at?: number): never {
  throw new SelectorError('appium', `class chain: ${reason}`, at);
}

/*
 * The reader is WebDriverAgent's own two passes (appium/WebDriverAgent
 * WebDriverAgentLib/Utilities/FBClassChainQueryParser.m), so it accepts and refuses what WDA does:
 *
 * 1. `tokenizedQueryWithQuery:` reads one UTF-16 unit at a time. Each token kind takes some characters
 *    (`allowedCharacters`, up to `maxLength`) and may be followed by a few kinds (`followingTokens`); a
 *    character nothing takes is "Unexpected character detected at position N". A type name is letters
 *    only (`letterCharacterSet`: no digits, no spaces); a second `*` turns a star into the descendant
 *    marker, which then takes `*` and `/` while it is a prefix of `**` + `/` (so `**X`, `***X` and
 *    `**` + `/X` all read as a descendant step); a position is digits and `-`; a predicate starts at its
 *    mark, drops marks while it is still empty, ends at a mark followed by anything but the same mark
 *    (a doubled mark is one literal mark), and what follows must be `]`. The last token must be a
 *    type, a star or `]`.
 * 2. `compiledQueryWithTokenizedQuery:` builds the steps: a predicate after the position ("must be set
 *    before position value"), a second position, a position that is not a non-zero integer
 *    (NSNumberFormatter, then `intValue`), a duplicated descendant marker, a marker with no type after
 *    it, and a type name FBElementTypeTransformer refuses are errors. FBElementTypeTransformer.m
 *    `elementTypeWithTypeName:` maps a name outside its table that still starts with `XCUIElementType`
 *    to XCUIElementTypeOther, and refuses any other name.
 */
type TokenKind = 'name' | 'star' | 'descendant' | 'splitter' | 'open' | 'close' | 'number' | 'self' | 'contains';

interface Token {
  kind: TokenKind;
  text: string;
  at: number;
  /** Predicates: the closing mark has been read (FBAbstractPredicateToken isParsingCompleted). */
  done?: boolean;
}

const DESCENDANT_MARKER = '**/';
const LETTER = /^[\p{L}\p{M}]$/u;
const DIGIT = /^\p{Nd}$/u;

/** Which token kinds may follow each (FBClassChainQueryParser.m, each token class's `followingTokens`). */
const FOLLOWING: Record<TokenKind, readonly TokenKind[]> = {
  name: ['splitter', 'open'],
  star: ['splitter', 'open'],
  descendant: ['name', 'star'],
  splitter: ['star', 'name'],
  open: ['number', 'self', 'contains'],
  number: ['close'],
  close: ['splitter', 'open'],
  self: ['close'],
  contains: ['close'],
};

/** The characters a token starts with (each class's `canConsumeCharacter:`). */
function starts(kind: TokenKind, c: string): boolean {
  switch (kind) {
    case 'name':
      return LETTER.test(c);
    case 'star':
      return c === '*';
    case 'descendant':
      return c === '*' || c === '/';
    case 'splitter':
      return c === '/';
    case 'open':
      return c === '[';
    case 'close':
      return c === ']';
    case 'number':
      return c === '-' || DIGIT.test(c);
    case 'self':
      return c === '`';
    case 'contains':
      return c === '$';
  }
}

function startToken(from: Token, c: string, at: number): Token | null {
  for (const kind of FOLLOWING[from.kind]) {
    if (!starts(kind, c)) continue;
    // A predicate token's first character is its opening mark, which it does not keep.
    return kind === 'self' || kind === 'contains' ? { kind, text: '', at, done: false } : { kind, text: c, at };
  }
  return null;
}

/** The token that reads `c` after `token`: `token` itself (grown), a new one, or null when none can. */
function next(token: Token, c: string, at: number): Token | null {
  switch (token.kind) {
    case 'name':
    case 'number':
      if (starts(token.kind, c)) {
        token.text += c;
        return token;
      }
      break;
    case 'star':
      // FBStarToken: a second star is the descendant marker, in place of the star.
      if (c === '*') return { kind: 'descendant', text: '**', at: token.at };
      break;
    case 'descendant':
      if (starts('descendant', c)) {
        if (!DESCENDANT_MARKER.startsWith(token.text)) return null;
        if (token.text.length < DESCENDANT_MARKER.length) {
          token.text += c;
          return token;
        }
      }
      break;
    case 'self':
    case 'contains': {
      const mark = token.kind === 'self' ? '`' : '$';
      if (!token.done) {
        if (c === mark && token.text === '') return token;
        token.text += c;
        if (c === mark) token.done = true;
        return token;
      }
      if (c === mark) {
        // A doubled mark: the one already kept is a literal mark, and the predicate goes on.
        token.done = false;
        return token;
      }
      token.text = token.text.slice(0, -1);
      break;
    }
    default:
      // "/", "[" and "]" are one character each.
      break;
  }
  return startToken(token, c, at);
}

function unexpected(text: string, at: number): never {
  fail(
    `unexpected character ${JSON.stringify(text[at] ?? '')} at position ${at + 1} (WebDriverAgent reads ${JSON.stringify(text.slice(0, at + 1))} and stops)`,
    at,
  );
}

function tokenize(text: string): Token[] {
  const first = text[0]!;
  let token: Token;
  if (text.startsWith(DESCENDANT_MARKER)) token = { kind: 'descendant', text: DESCENDANT_MARKER, at: 0 };
  else if (starts('name', first)) token = { kind: 'name', text: first, at: 0 };
  else if (first === '*') token = { kind: 'star', text: first, at: 0 };
  else unexpected(text, 0);
  const tokens: Token[] = [];
  for (let i = token.text.length; i < text.length; i++) {
    const n = next(token, text[i]!, i);
    if (n === null) unexpected(text, i);
    if (n !== token) {
      // A star that became the descendant marker is replaced by it, not followed by it.
      if (!(token.kind === 'star' && n.kind === 'descendant')) tokens.push(token);
      token = n;
    }
  }
  tokens.push(token);
  if (token.kind !== 'close' && token.kind !== 'name' && token.kind !== 'star') unexpected(text, text.length - 1);
  return tokens;
}

/** FBElementTypeTransformer.m `elementTypeWithTypeName:`: its table, else Other for an XCUIElementType… name. */
function typeNamed(name: string, at: number): ElementTypeName {
  const info = elementTypeByName(name);
  if (info && info.xcuiName === name) return info.name;
  if (name.startsWith('XCUIElementType') && name.length > 'XCUIElementType'.length) return 'Other';
  fail(`${JSON.stringify(name)} is a class name unknown to WebDriverAgent: did you mean XCUIElementType${name}?`, at);
}

/** NSNumberFormatter (decimal style) `numberFromString:`, then WDA refuses nil and `intValue == 0`. */
function positionOf(token: Token): number {
  const n = /^-?[0-9]+$/.test(token.text) ? Number(token.text) : NaN;
  // intValue keeps the low 32 bits, so 4294967296 is 0 to WDA.
  if (!Number.isSafeInteger(n) || Number(BigInt.asIntN(32, BigInt(n))) === 0)
    fail(`the position ${JSON.stringify(token.text)} is not an integer other than 0 (positions start at 1, or -1 for the last)`, token.at);
  return n;
}

/** Reads a class chain exactly as WebDriverAgent does, or throws a SelectorError saying why WDA would refuse it. */
export function parseClassChain(text: string): ClassChain {
  if (text === '') fail('the chain is empty');
  const tokens = tokenize(text);
  const steps: ChainStep[] = [];
  let type: ElementTypeName = 'Any';
  let typeSet = false;
  let descendant = false;
  let filters: Filter[] = [];
  const hasPosition = () => filters.some((f) => f.kind === 'position');
  for (const token of tokens) {
    switch (token.kind) {
      case 'name':
      case 'star':
        type = token.kind === 'star' ? 'Any' : typeNamed(token.text, token.at);
        typeSet = true;
        break;
      case 'descendant':
        if (descendant) fail('"**/" twice in a row: descendant markers cannot be duplicated', token.at);
        descendant = true;
        typeSet = false;
        filters = [];
        break;
      case 'self':
      case 'contains': {
        if (hasPosition()) fail('a predicate after the position: WebDriverAgent takes [n] last', token.at);
        const test = parsePredicate(token.text, [], 'appium');
        filters.push({ kind: token.kind === 'self' ? 'predicate' : 'contains', test });
        break;
      }
      case 'number':
        if (hasPosition()) fail('two positions in one step', token.at);
        filters.push({ kind: 'position', n: positionOf(token) });
        break;
      case 'splitter':
        if (!descendant || typeSet) steps.push({ descendant, type, filters });
        descendant = false;
        typeSet = false;
        filters = [];
        break;
      default:
        break;
    }
  }
  if (descendant && !typeSet) fail('"**/" must be followed by an element type or *');
  steps.push({ descendant, type, filters });
  return { steps };
}

/** The elements (node indices, document order) the chain selects in `view`. */
export function evaluateClassChain(chain: ClassChain, view: ScreenView): number[] {
  // Nothing above the application: the chain starts with the application's children (or descendants).
  let current = view.has(0) ? [0] : [-1];
  for (const step of chain.steps) {
    let candidates: number[];
    if (step.descendant) candidates = view.descendantsOf(current);
    else {
      candidates = [];
      for (const p of current) candidates.push(...view.children(p));
      candidates.sort((a, b) => a - b);
    }
    candidates = candidates.filter((i) => step.type === 'Any' || view.attrs[i]!.type === step.type);
    for (const filter of step.filters) {
      if (filter.kind === 'predicate') candidates = candidates.filter((i) => filter.test(view.attrs[i]!));
      else if (filter.kind === 'contains') {
        const prefix = new Int32Array(view.attrs.length + 1);
        for (let j = 0; j < view.attrs.length; j++) prefix[j + 1] = prefix[j]! + (view.attrs[j] !== null && filter.test(view.attrs[j]!) ? 1 : 0);
        candidates = candidates.filter((i) => prefix[view.subtreeEnd(i)]! - prefix[i + 1]! > 0);
      } else {
        const at = filter.n > 0 ? filter.n - 1 : candidates.length + filter.n;
        candidates = candidates[at] === undefined ? [] : [candidates[at]!];
      }
    }
    current = candidates;
    if (current.length === 0) break;
  }
  return current;
}

/** A predicate for a class chain step: backticks, with a backtick inside doubled. */
export function chainPredicate(predicate: string): string {
  return `[\`${predicate.replaceAll('`', '``')}\`]`;
}
