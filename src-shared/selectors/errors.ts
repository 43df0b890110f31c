import { RE2JS } from 're2js';

/**
 * Why a selector is not one: the syntax it was read as, what is wrong, and where (docs/selectors.md#s-try).
 */

export const SELECTOR_SYNTAXES = ['maestro', 'xcuitest', 'appium', 'parallax'] as const;
export type SelectorSyntax = (typeof SELECTOR_SYNTAXES)[number];

export const SYNTAX_LABELS: Record<SelectorSyntax, string> = {
  maestro: 'Maestro',
  xcuitest: 'XCUITest',
  appium: 'Appium',
  parallax: 'Parallax CLI',
};

/** The longest selector read, checked before anything is parsed. */
export const MAX_SELECTOR_LENGTH = 4096;
/**
 * The deepest nesting of brackets read (docs/rules.md#r-hand-06): the readers recurse once per level, and
 * a 3.8 KB nested XPath threw RangeError into the render before this limit.
 */
export const MAX_NESTING = 64;

/** How deep `(`, `[` and `{` nest in `text`, outside quoted strings. */
export function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '(' || c === '[' || c === '{') max = Math.max(max, ++depth);
    else if ((c === ')' || c === ']' || c === '}') && depth > 0) depth--;
  }
  return max;
}

/** The longest regular expression or LIKE pattern compiled from a selector (a pattern runs once per node). */
export const MAX_PATTERN_LENGTH = 512;

export class SelectorError extends Error {
  override readonly name = 'SelectorError';

  constructor(
    /** The syntax the text was read as; undefined when no syntax fits it. */
    readonly syntax: SelectorSyntax | undefined,
    /** What is wrong, in one sentence. */
    readonly reason: string,
    /** 0-based offset in the text, when there is a place to point at. */
    readonly at?: number,
  ) {
    super(`${syntax ? `${SYNTAX_LABELS[syntax]}: ` : ''}${reason}${at !== undefined ? ` (at character ${at + 1})` : ''}`);
  }
}

/** A compiled pattern: `test` is true when it matches the whole value. */
export interface WholeMatch {
  test(value: string): boolean;
}

/**
 * A regular expression matched against a whole value, as Maestro and NSPredicate MATCHES do, compiled
 * with a linear-time engine (re2js): nothing typed in the try box can backtrack for seconds
 * (docs/rules.md#r-hand-06; `(a+)+b` against 31 `a`s took 34.5 s with the page's own RegExp). Flags are
 * `i` (case-insensitive), `s` (`.` matches a line break), `m` (`^` and `$` at line breaks).
 * Backreferences and lookaround, which need backtracking, are refused with that reason.
 */
export function wholeMatch(pattern: string, syntax: SelectorSyntax, flags = ''): WholeMatch {
  if (pattern.length > MAX_PATTERN_LENGTH) throw new SelectorError(syntax, `the pattern is longer than ${MAX_PATTERN_LENGTH} characters`);
  let bits = 0;
  if (flags.includes('i')) bits |= RE2JS.CASE_INSENSITIVE;
  if (flags.includes('s')) bits |= RE2JS.DOTALL;
  if (flags.includes('m')) bits |= RE2JS.MULTILINE;
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern, bits);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const backtracking = /\\[1-9]|\(\?<?[=!]/.test(pattern);
    throw new SelectorError(
      syntax,
      backtracking
        ? `${JSON.stringify(pattern)} uses a backreference or lookaround, which the try box does not evaluate (it matches in linear time so no pattern can freeze the page)`
        : `${JSON.stringify(pattern)} is not a valid regular expression (${message})`,
    );
  }
  return { test: (value) => re.matches(value) };
}
