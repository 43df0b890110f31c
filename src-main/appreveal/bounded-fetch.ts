/**
 * The MCP SDK reads a reply's whole body (`response.json()`) before anything of ours sees it. This fetch
 * holds each AppReveal reply to a byte limit while it streams: a declared length over the limit is
 * refused before the body is read, and a body that grows past it is cut off at that chunk, the socket
 * closed, so a flooding app costs at most the limit (docs/rules.md#r-lim-06).
 */
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { MAX_FRAME_BYTES } from '@shared/protocol/errors';

/** Every AppReveal reply, a screenshot included, fits in what a runner frame may hold. */
export const MAX_APPREVEAL_REPLY_BYTES = MAX_FRAME_BYTES;

export class ReplyTooLargeError extends Error {
  override readonly name = 'ReplyTooLargeError';
  constructor(
    /** What the reply declared or had reached when it was refused. */
    readonly bytes: number,
    readonly limit: number,
    readonly declared: boolean,
  ) {
    super(`the reply is ${declared ? '' : 'over '}${bytes} bytes${declared ? ' (declared)' : ''}, over the ${limit}-byte limit`);
  }
}

export function boundedFetch(limit: number, inner: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    const response = await inner(url, init);
    const declared = Number(response.headers.get('content-length') ?? NaN);
    if (Number.isFinite(declared) && declared > limit) {
      await response.body?.cancel().catch(() => undefined);
      throw new ReplyTooLargeError(declared, limit, true);
    }
    if (!response.body) return response;
    let seen = 0;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen > limit) controller.error(new ReplyTooLargeError(seen, limit, false));
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** The refusal in an error or in its causes (the SDK may wrap what fetch threw). */
export function replyTooLarge(error: unknown): ReplyTooLargeError | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof ReplyTooLargeError) return e;
  }
  return undefined;
}
