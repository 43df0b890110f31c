/**
 * What the selector parsers (predicate, XCUITest, XPath) share: one scanner over a selector's text, and a
 * cursor over the tokens it makes. Each language says only what its tokens look like (its readers, tried
 * in order at each position); skipping white space, the closing `end` token and the error for a character
 * no reader takes are the same everywhere (docs/selectors.md).
 */

/** A token read at `at`, `length` characters long; undefined when this reader does not start here. */
export type Reader<T> = (text: string, at: number, previous: T | undefined) => { token: T; length: number } | undefined;

export function scan<T>(text: string, readers: readonly Reader<T>[], end: (at: number) => T, unexpected: (char: string, at: number) => never): T[] {
  const tokens: T[] = [];
  let i = 0;
  outer: while (i < text.length) {
    if (/\s/.test(text[i]!)) {
      i++;
      continue;
    }
    for (const read of readers) {
      const found = read(text, i, tokens.at(-1));
      if (!found) continue;
      tokens.push(found.token);
      i += found.length;
      continue outer;
    }
    unexpected(text[i]!, i);
  }
  tokens.push(end(text.length));
  return tokens;
}

/** A reader for what `pattern` (anchored with `^`) matches here. */
export function patternReader<T>(pattern: RegExp, make: (match: string, at: number) => T | undefined): Reader<T> {
  return (text, at) => {
    const match = pattern.exec(text.slice(at));
    if (!match) return undefined;
    const token = make(match[0], at);
    return token === undefined ? undefined : { token, length: match[0].length };
  };
}

/** A reader for the first of `operators` (longest first, as the caller orders them) written here. */
export function operatorReader<T>(operators: readonly string[], make: (operator: string, at: number) => T): Reader<T> {
  return (text, at) => {
    const operator = operators.find((o) => text.startsWith(o, at));
    return operator === undefined ? undefined : { token: make(operator, at), length: operator.length };
  };
}

export class TokenCursor<T> {
  protected pos = 0;

  constructor(protected readonly tokens: readonly T[]) {}

  /** The token `offset` ahead, or the last one (every token list ends with its `end` token). */
  protected peek(offset = 0): T {
    return this.tokens[Math.min(this.pos + offset, this.tokens.length - 1)]!;
  }

  protected next(): T {
    return this.tokens[this.pos++]!;
  }
}
