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

/** A regular expression matched against a whole value, as Maestro and NSPredicate MATCHES do. */
export function wholeMatch(pattern: string, syntax: SelectorSyntax, flags = ''): RegExp {
  if (pattern.length > MAX_PATTERN_LENGTH) throw new SelectorError(syntax, `the pattern is longer than ${MAX_PATTERN_LENGTH} characters`);
  try {
    return new RegExp(`^(?:${pattern})$`, flags);
  } catch (error) {
    throw new SelectorError(syntax, `${JSON.stringify(pattern)} is not a valid regular expression (${error instanceof Error ? error.message : String(error)})`);
  }
}
