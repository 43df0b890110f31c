/** What the selector parsers (predicate, XCUITest, XPath) share: a cursor over their tokens. */
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
