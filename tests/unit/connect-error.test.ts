/** R-CONN-WORDS: a failed connection says what it means and what to do next, with the library's words kept in brackets. */
import { describe, expect, it } from 'vitest';
import { plainConnectError } from '@shared/inspect/connect-error';

const URL_ = 'ws://127.0.0.1:8765/ws';
describe('R-CONN-WORDS: connection errors in plain words', () => {
  const table: { name: string; error: { code?: string; message: string }; says: RegExp }[] = [
    {
      name: 'a closed port',
      error: { code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:8765' },
      says: /^nothing is listening at 127\.0\.0\.1:8765: start the runner .*\(connect ECONNREFUSED/,
    },
    {
      name: 'a URL without /ws',
      error: { message: 'Unexpected server response: 404' },
      says: /not at this path \(404\): a runner URL ends in \/ws, as in ws:\/\/127\.0\.0\.1:8765\/ws/,
    },
    { name: 'a wrong token', error: { message: 'Unexpected server response: 401' }, says: /refused the connection \(401\): the token in the URL is wrong/ },
    {
      name: 'TLS to a plain port',
      error: { code: 'EPROTO', message: 'write EPROTO ... wrong version number' },
      says: /secure connection .* failed: use ws:\/\//,
    },
    { name: 'an unknown host', error: { code: 'ENOTFOUND', message: 'getaddrinfo ENOTFOUND iphone.local' }, says: /host name .* is not known/ },
  ];
  for (const row of table) {
    it(`R-CONN-WORDS: ${row.name}`, () => {
      const text = plainConnectError(row.error, URL_);
      expect(text).toMatch(row.says);
      expect(text).toContain(row.error.message);
    });
  }
  it('R-CONN-WORDS: anything else is passed on as it was', () => {
    expect(plainConnectError({ message: 'socket hang up' }, URL_)).toBe('socket hang up');
  });
});
