/**
 * Replies that a page pulls a piece at a time (docs/rules.md#r-mem-09): the Electron shell's IPC. The web
 * host writes a big reply as WebSocket fragments, each once the last was written (web-host.ts); an IPC
 * reply has no such backpressure, and handed over whole, the trace view's listing at the step limit (over
 * 100 MiB) was one structured clone made in the main process's thread. Here a reply is JSON text cut by
 * `jsonChunks` (the same pieces the web host sends, joined `JSON.stringify`'s text exactly): the first
 * piece answers the call, and the page asks for each next one by the reply's id, so the main process
 * stringifies about `JSON_CHUNK_CHARS` per turn and never holds the whole text. The page's side is
 * `joinReply` (src-shared/api/reply-pieces.ts).
 */
import type { ReplyPiece } from '@shared/api/reply-pieces';
import { jsonChunks, JSON_CHUNK_CHARS } from './json-chunks';

/**
 * Replies begun and not yet wholly taken, per page. A page that stops asking (it was closed, or reloaded
 * mid-reply) would otherwise hold each of them forever; past this many the oldest is let go.
 */
export const REPLIES_IN_FLIGHT = 4;

/** A piece asked for that is not there: the id was never given, was taken to its end, or was let go. */
export class ReplyGoneError extends Error {
  override readonly name = 'ReplyGoneError';
  readonly code = 'reply_gone';
}

export class ReplyPieces {
  private nextId = 1;
  /** Each reply in flight: its pieces still to be made, and the one made ahead (so the last says it is). */
  private readonly open = new Map<number, { pieces: Iterator<string>; ahead: string }>();

  constructor(
    private readonly budget = JSON_CHUNK_CHARS,
    private readonly inFlight = REPLIES_IN_FLIGHT,
  ) {}

  /** The reply's first piece; `more` names the reply when further pieces follow. */
  begin(reply: unknown): ReplyPiece {
    const pieces = jsonChunks(reply, this.budget);
    const first = pieces.next();
    const ahead = pieces.next();
    if (first.done || ahead.done) return { text: first.done ? '' : first.value };
    const id = this.nextId++;
    this.open.set(id, { pieces, ahead: ahead.value });
    for (const old of this.open.keys()) {
      if (this.open.size <= this.inFlight) break;
      this.open.delete(old);
    }
    return { text: first.value, more: id };
  }

  /** The next piece of reply `id`. Throws ReplyGoneError when it has none to give. */
  take(id: number): ReplyPiece {
    const entry = this.open.get(id);
    if (!entry)
      throw new ReplyGoneError(
        `reply ${id} has no more pieces: it was never begun, was taken to its end, or was let go of (a page has at most ${this.inFlight} replies in flight)`,
      );
    const text = entry.ahead;
    const next = entry.pieces.next();
    if (next.done) {
      this.open.delete(id);
      return { text };
    }
    entry.ahead = next.value;
    return { text, more: id };
  }

  /** Lets go of every reply in flight (the page started anew). */
  clear(): void {
    this.open.clear();
  }
}
