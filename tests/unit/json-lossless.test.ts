import { describe, expect, it } from 'vitest';
import { parseJsonLossless, stringifyJsonLossless, UInt64Schema } from '@shared/protocol/json';

describe('R-WIRE-10: lossless JSON for capture identities', () => {
  it('keeps a captureIdentity above 2^53 digit for digit', () => {
    const parsed = parseJsonLossless('{"snapshot":{"captureIdentity":18446744073709551000,"n":1}}') as {
      snapshot: { captureIdentity: string; n: number };
    };
    expect(parsed.snapshot.captureIdentity).toBe('18446744073709551000');
    expect(parsed.snapshot.n).toBe(1);
  });

  it('leaves identity-looking text inside strings alone', () => {
    const text = JSON.stringify({ actionJson: '{"tap":{"observationIdentity":9007199254740993}}' });
    const parsed = parseJsonLossless(text) as { actionJson: string };
    expect(parsed.actionJson).toBe('{"tap":{"observationIdentity":9007199254740993}}');
  });

  it('writes identities back as bare digits', () => {
    const text = stringifyJsonLossless({ tap: { observationIdentity: '18446744073709551615', elementId: 'a' } });
    expect(text).toBe('{"tap":{"observationIdentity":18446744073709551615,"elementId":"a"}}');
  });

  it('rejects identities that are not UInt64', () => {
    expect(UInt64Schema.safeParse('18446744073709551616').success).toBe(false);
    expect(UInt64Schema.safeParse(-1).success).toBe(false);
    expect(UInt64Schema.safeParse(1.5).success).toBe(false);
    expect(UInt64Schema.parse(41)).toBe('41');
  });
});
