/**
 * R-MEM-09: a reply the Electron shell gives a piece at a time (src-main/host/reply-pieces.ts), joined by
 * the preload (src-shared/api/reply-pieces.ts), is JSON.stringify's text, byte for byte; a piece asked for
 * that is not there is a typed refusal.
 */
import { describe, expect, it } from 'vitest';
import { ReplyGoneError, ReplyPieces } from '@main/host/reply-pieces';
import { joinReply, type ReplyPiece } from '@shared/api/reply-pieces';

const listing = {
  ok: true,
  result: {
    path: '/t/many.parallax-trace',
    steps: Array.from({ length: 20_000 }, (_, i) => ({ callId: `call-${i}`, action: 'tap "Sign In"', target: '#login.submit', startTime: i })),
    warnings: ['\u2028 and "quotes"'],
  },
};

/** Everything a page would ask for, the way the preload asks. */
async function pulled(replies: ReplyPieces, value: unknown): Promise<{ text: string; pieces: ReplyPiece[] }> {
  const pieces: ReplyPiece[] = [];
  const first = replies.begin(value);
  pieces.push(first);
  const text = await joinReply(first, async (id) => {
    const piece = replies.take(id);
    pieces.push(piece);
    return piece;
  });
  return { text, pieces };
}

describe('R-MEM-09: replies taken a piece at a time', () => {
  it('R-MEM-09: a big reply comes in pieces of about the budget; joined, it is JSON.stringify of the reply', async () => {
    const budget = 64 * 1024;
    const { text, pieces } = await pulled(new ReplyPieces(budget), listing);
    expect(text).toBe(JSON.stringify(listing));
    expect(pieces.length).toBeGreaterThan(text.length / (budget + 200));
    // Every piece but the last says there is more; none is much over the budget (a step is far smaller).
    expect(pieces.slice(0, -1).every((p) => p.more !== undefined)).toBe(true);
    expect(pieces.at(-1)!.more).toBeUndefined();
    expect(Math.max(...pieces.map((p) => p.text.length))).toBeLessThanOrEqual(budget + 200);
  });

  it('R-MEM-09: a small reply is one piece, with nothing more to ask for', async () => {
    const replies = new ReplyPieces();
    const small = { ok: false, error: { code: 'bad_request', message: 'a call is {method, params}' } };
    expect(replies.begin(small)).toEqual({ text: JSON.stringify(small) });
    expect((await pulled(replies, { ok: true, result: {} })).pieces).toHaveLength(1);
  });

  it('R-MEM-09: a piece of a reply taken to its end, or never begun, is refused as reply_gone', async () => {
    const replies = new ReplyPieces(1024);
    const { pieces } = await pulled(replies, listing);
    const id = pieces[0]!.more!;
    expect(() => replies.take(id)).toThrow(ReplyGoneError);
    expect(() => replies.take(id)).toThrow(/reply \d+ has no more pieces/);
    expect(() => replies.take(999_999)).toThrow(expect.objectContaining({ code: 'reply_gone' }) as Error);
  });

  it('R-MEM-09: a page that stops asking holds at most REPLIES_IN_FLIGHT replies: past them the oldest is let go, naming the limit', async () => {
    const replies = new ReplyPieces(1024, 2);
    const first = replies.begin(listing);
    const second = replies.begin(listing);
    const third = replies.begin(listing);
    expect(() => replies.take(first.more!)).toThrow(/at most 2 replies in flight/);
    // The two newest still come whole.
    for (const piece of [second, third]) expect(await joinReply(piece, (id) => Promise.resolve(replies.take(id)))).toBe(JSON.stringify(listing));
  });

  it('R-MEM-09: joinReply refuses what is not a piece', async () => {
    await expect(joinReply({ ok: true }, () => Promise.resolve({}))).rejects.toThrow('a reply piece is {text, more?}');
    await expect(joinReply({ text: '{"a":', more: 1 }, () => Promise.resolve('x'))).rejects.toThrow('a reply piece is {text, more?}');
  });
});
