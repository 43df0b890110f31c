/**
 * A reply taken a piece at a time (docs/rules.md#r-mem-09): the Electron shell answers a call with the
 * first piece of its JSON text, and the page (the preload) asks for each next one by the reply's id until
 * a piece comes without one. The host's side is src-main/host/reply-pieces.ts.
 */

/** A piece of a reply: its text, and while more follow, the id to ask for the next by. */
export interface ReplyPiece {
  text: string;
  more?: number;
}

function isReplyPiece(value: unknown): value is ReplyPiece {
  if (value === null || typeof value !== 'object') return false;
  const { text, more } = value as Record<string, unknown>;
  return typeof text === 'string' && (more === undefined || (typeof more === 'number' && Number.isSafeInteger(more)));
}

/** The reply's whole text: `first`, then every piece `take` gives, in order. Throws on a piece that is not one. */
export async function joinReply(first: unknown, take: (id: number) => Promise<unknown>): Promise<string> {
  const texts: string[] = [];
  let piece = first;
  for (;;) {
    if (!isReplyPiece(piece)) throw new Error('a reply piece is {text, more?}');
    texts.push(piece.text);
    if (piece.more === undefined) return texts.join('');
    piece = await take(piece.more);
  }
}
