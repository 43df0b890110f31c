import { describe, expect, it, vi } from 'vitest';
import type { UiNode } from '@shared/protocol/runner';
import {
  isSecretKey,
  maskCapturedTraffic,
  MAX_MASK_PARSE_CHARS,
  redactForTrace,
  redactString,
  stripSecretParams,
  urlSecretProblem,
} from '@shared/trace/redact';
import { networkCallDetailView } from '@shared/inspect/app-state';

// The shape of an AppReveal per-start token (64 hex) and of the web host's token.
const APPREVEAL = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';
const HOST = 'pk_9XrT2vLw8QyZb4NcHs6DfJm1';
const OTHER = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJxYSJ9.c2lnbmF0dXJl';

/** Everything a session might try to record, with secrets in every place they have been seen to hide. */
function sessionRecord() {
  return {
    manifest: {
      device: {
        name: 'AppReveal-com.example.shop',
        kind: 'appreveal',
        url: `http://127.0.0.1:4723/mcp?appreveal_session_token=${APPREVEAL}&window=main`,
      },
    },
    connection: {
      headers: { Authorization: `Bearer ${APPREVEAL}`, 'X-AppReveal-Session': APPREVEAL, Accept: 'application/json' },
      webHost: { url: `ws://127.0.0.1:5173/api?token=${HOST}`, hostToken: HOST },
    },
    events: [
      {
        type: 'action.after',
        result: {
          success: false,
          failureReason: 'unauthorized',
          log: [`POST /mcp?appreveal_session_token=${APPREVEAL} -> 401`, `Authorization: Bearer ${APPREVEAL}`],
          body: JSON.stringify({ jsonrpc: '2.0', params: { session_token: APPREVEAL } }),
          nested: { deeper: [{ config: { accessToken: OTHER, refresh_token: OTHER, id_token: OTHER, TOKEN: OTHER } }] },
        },
      },
    ],
    links: [`myapp://oauth/callback#access_token=${OTHER}&state=42`, `https://qa:${HOST}@staging.example.com/`],
  };
}

describe('redactForTrace', () => {
  it('lets no token survive anywhere in a deep object', () => {
    const clean = redactForTrace(sessionRecord());
    const text = JSON.stringify(clean);
    for (const secret of [APPREVEAL, HOST, OTHER]) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/token"\s*:/i);
  });

  it('keeps everything that is not a secret', () => {
    const clean = redactForTrace(sessionRecord());
    expect(clean.manifest.device).toEqual({
      name: 'AppReveal-com.example.shop',
      kind: 'appreveal',
      url: 'http://127.0.0.1:4723/mcp?window=main',
    });
    expect(clean.connection.headers).toEqual({ Accept: 'application/json' });
    expect(clean.connection.webHost).toEqual({ url: 'ws://127.0.0.1:5173/api' });
    const result = clean.events[0]!.result;
    expect(result.log).toEqual(['POST /mcp -> 401', 'Authorization: [redacted]']);
    expect(JSON.parse(result.body)).toEqual({ jsonrpc: '2.0', params: { session_token: '[redacted]' } });
    expect(result.nested).toEqual({ deeper: [{ config: {} }] });
    expect(clean.links).toEqual(['myapp://oauth/callback#state=42', 'https://qa@staging.example.com/']);
    expect(result.failureReason).toBe('unauthorized');
  });

  it('does not touch its input', () => {
    const record = sessionRecord();
    const before = JSON.stringify(record);
    redactForTrace(record);
    expect(JSON.stringify(record)).toBe(before);
  });

  it('removes secrets the caller names, wherever they appear', () => {
    const clean = redactForTrace({ note: `runner at ws://10.0.0.7:8765/${HOST}/ws`, list: [HOST] }, { secrets: [HOST] });
    expect(clean).toEqual({ note: 'runner at ws://10.0.0.7:8765/[redacted]/ws', list: ['[redacted]'] });
  });

  it('keeps content addresses and ordinary hex', () => {
    const ref = `sha256:${APPREVEAL}`;
    expect(redactForTrace({ observationRef: ref, 'view-id': '5feceb66-ffc8-6f38-d952-786c6d696c79' })).toEqual({
      observationRef: ref,
      'view-id': '5feceb66-ffc8-6f38-d952-786c6d696c79',
    });
  });

  it('drops the text of redacted and password nodes, but keeps the flags and labels', () => {
    const tree: UiNode = {
      className: 'XCUIApplication',
      node: [
        { className: 'UITextField', 'resource-id': 'email', text: 'qa@example.com', role: 'textfield' },
        { className: 'UISecureTextField', 'resource-id': 'password', 'hint-text': 'Password', text: 'hunter2hunter2', password: 'true' },
        {
          className: 'textfield',
          'content-desc': 'Card number',
          value: '4111 1111 1111 1111',
          text: '4111 1111 1111 1111',
          'value-redacted': 'true',
          'web-element-id': '7',
        },
      ],
    };
    const clean = redactForTrace(tree);
    expect(clean.node![0]).toEqual(tree.node![0]);
    expect(clean.node![1]).toEqual({ className: 'UISecureTextField', 'resource-id': 'password', 'hint-text': 'Password', password: 'true' });
    expect(clean.node![2]).toEqual({ className: 'textfield', 'content-desc': 'Card number', 'value-redacted': 'true', 'web-element-id': '7' });
    expect(JSON.stringify(clean)).not.toMatch(/hunter2|4111/);
  });

  it('drops a web element value the snapshot redacted, and a password input value', () => {
    const clean = redactForTrace({
      elements: [
        { id: 'pw', inputType: 'password', value: 'hunter2hunter2' },
        { id: 'ssn', valueRedacted: true, value: '078-05-1120' },
        { id: 'q', inputType: 'search', value: 'shoes' },
      ],
    });
    expect(clean.elements).toEqual([
      { id: 'pw', inputType: 'password' },
      { id: 'ssn', valueRedacted: true },
      { id: 'q', inputType: 'search', value: 'shoes' },
    ]);
  });

  it('drops what was typed into a secret field', () => {
    const event = {
      type: 'action.before',
      action: { kind: 'inputText', text: 'hunter2hunter2' },
      target: { nodeKey: '0.1', node: { className: 'UISecureTextField', password: 'true' } },
    };
    expect(redactForTrace(event).action).toEqual({ kind: 'inputText' });
    const plain = { ...event, target: { nodeKey: '0.0', node: { className: 'UITextField' } } };
    expect(redactForTrace(plain).action).toEqual({ kind: 'inputText', text: 'hunter2hunter2' });
  });

  it('keeps numbers and flags under token-like names', () => {
    expect(redactForTrace({ maxTokens: 4096, tokenExpired: true, token: null, sessionToken: { id: 'x' } })).toEqual({
      maxTokens: 4096,
      tokenExpired: true,
      token: null,
    });
  });

  it('treats a password key with a real value as a secret, and the node flag as a flag', () => {
    expect(redactForTrace({ login: { user: 'qa', password: 'hunter2' }, flag: { password: 'false' } })).toEqual({
      login: { user: 'qa' },
      flag: { password: 'false' },
    });
  });

  it('writes JSON-shaped values and survives cycles', () => {
    const cyclic: Record<string, unknown> = { name: 'loop', id: 12345678901234567890n, at: new Date(0), bytes: new Uint8Array([1]) };
    cyclic['self'] = cyclic;
    expect(redactForTrace(cyclic)).toEqual({ name: 'loop', id: '12345678901234567890', at: '1970-01-01T00:00:00.000Z' });
  });
});

describe('secrets in strings', () => {
  it('removes secret parameters and keeps the rest of the URL', () => {
    expect(stripSecretParams('http://h/p?token=abc&b=1')).toBe('http://h/p?b=1');
    expect(stripSecretParams('http://h/p?b=1&token=abc')).toBe('http://h/p?b=1');
    expect(stripSecretParams('http://h/p?token=abc')).toBe('http://h/p');
    expect(stripSecretParams('http://h/p?token=a&token=b&c=3')).toBe('http://h/p?c=3');
    expect(stripSecretParams('http://h/p?a=1&appreveal%5Fsession%5Ftoken=abc#x')).toBe('http://h/p?a=1#x');
    expect(stripSecretParams('http://h/p?page=2&sort=asc')).toBe('http://h/p?page=2&sort=asc');
    expect(stripSecretParams('open "http://h/?token=abc" now')).toBe('open "http://h/" now');
  });

  it('says why a URL may not be recorded', () => {
    expect(urlSecretProblem('ws://127.0.0.1:8765/ws')).toBeUndefined();
    expect(urlSecretProblem(`http://127.0.0.1/?appreveal_session_token=${APPREVEAL}`)).toBe('the URL carries the parameter "appreveal_session_token"');
    expect(urlSecretProblem('https://u:p@example.com/')).toBe('the URL carries a password');
  });

  it('knows secret key names in their usual spellings', () => {
    for (const key of [
      'token',
      'Token',
      'authToken',
      'refresh_token',
      'x-api-key',
      'Authorization',
      'appreveal_session_token',
      'X-AppReveal-Session',
      'Cookie',
    ]) {
      expect(isSecretKey(key), key).toBe(true);
    }
    for (const key of ['text', 'tokenCount', 'password', 'frameContext', 'value-redacted', 'requestId']) {
      expect(isSecretKey(key), key).toBe(false);
    }
  });

  it.each([
    ['password=hunter2', ''],
    ['password=hunter2&username=bob', 'username=bob'],
    ['pass=hunter2&username=bob', 'username=bob'],
    ['pwd=hunter2', ''],
    ['token=abc123def&next=%2Ffeed', 'next=%2Ffeed'],
    ['access_token=abc123def', ''],
    ['user[password]=hunter2&user[name]=bob', 'user[name]=bob'],
    ['password=hunter2&token=abc123def&keep=1', 'keep=1'],
    // A form quoted in a log line: after a space, as after a `?`.
    ['POST /login body password=hunter2&username=bob', 'POST /login body username=bob'],
    ['sent pass=hunter2 then waited', 'sent  then waited'],
  ])('R-SECRET-11: redactString drops a secret form parameter that opens the string or a word: %j', (text, expected) => {
    expect(redactString(text)).toBe(expected);
  });

  it('R-SECRET-11: a string that starts like a parameter but names no secret is left as it is', () => {
    for (const text of ['username=bob&remember=1', 'password=true', 'passwordRequired=yes', 'a=b=c', 'x=1;password', 'compass=north']) {
      expect(redactString(text), text).toBe(text);
    }
  });

  it('masks bearer credentials without eating ordinary words', () => {
    expect(redactString(`curl -H "Authorization: Bearer ${OTHER}"`)).toBe('curl -H "Authorization: Bearer [redacted]"');
    expect(redactString('Tap the Bearer of news')).toBe('Tap the Bearer of news');
  });
});

describe('R-AR-32: a captured network call shows no password the app sent', () => {
  it('R-AR-32: a login body, as JSON text, as parsed JSON or form-encoded, loses its password; a boolean password flag stays', () => {
    const detail = {
      request: {
        headers: { 'Content-Type': 'application/json' },
        body: '{"username":"bob","password":"hunter2"}',
      },
      parsed: { username: 'bob', password: 'hunter2', passwd: 'hunter2' },
      form: 'username=bob&password=hunter2&remember=1',
      node: { password: 'false', text: 'Sign In' },
      url: 'https://shop.example/login?user=bob&password=hunter2',
    };
    const shown = redactForTrace(detail);
    expect(JSON.stringify(shown)).not.toContain('hunter2');
    expect(shown.request.body).toBe('{"username":"bob","password":"[redacted]"}');
    expect(shown.parsed).toEqual({ username: 'bob' });
    expect(shown.form).toBe('username=bob&remember=1');
    expect(shown.node).toEqual({ password: 'false', text: 'Sign In' });
    expect(shown.url).toBe('https://shop.example/login?user=bob');
    expect(urlSecretProblem('https://shop.example/login?password=hunter2')).toBe('the URL carries the parameter "password"');
  });
});

describe('R-AR-32: a network call detail shown in the App panel masks what the app sent in secret', () => {
  // A login POST as get_network_call_detail answers it (docs/API.md's shape): AppReveal masked the
  // Authorization header itself (CapturedRequest.swift sensitiveHeaders) but not the body's password.
  const loginCall = {
    id: 'call-7',
    method: 'POST',
    url: 'https://shop.example/login?next=%2Ffeed&access_token=abc123def456',
    statusCode: 200,
    request: {
      headers: { Authorization: '[REDACTED]', 'X-Client-Token': 'tok-0123456789', 'Content-Type': 'application/json' },
      body: '{"username":"bob","password":"hunter2","remember":true}',
      bodySize: 55,
      bodyTruncated: false,
    },
    response: { headers: { 'Set-Cookie': 'sid=s3cr3t-session' }, body: 'username=bob&password=hunter2', bodySize: 29, bodyTruncated: false },
    sseEvents: [{ event: 'message', data: '{"password":"hunter2"}' }],
    parsed: { password: 'hunter2', passwordRequired: true, note: { password: 'false' } },
  };

  it('R-AR-32: the body, the form, SSE data, the URL and secret headers are masked in place; every key stays', () => {
    const masked = maskCapturedTraffic(loginCall) as typeof loginCall;
    expect(JSON.stringify(masked)).not.toMatch(/hunter2|tok-0123456789|s3cr3t-session|abc123def456/);
    expect(masked.request.body).toBe('{"username":"bob","password":"[redacted]","remember":true}');
    expect(masked.request.headers).toEqual({ Authorization: '[REDACTED]', 'X-Client-Token': '[redacted]', 'Content-Type': 'application/json' });
    expect(masked.response.headers['Set-Cookie']).toBe('[redacted]');
    expect(masked.response.body).toBe('username=bob');
    expect(masked.parsed).toEqual({ password: '[redacted]', passwordRequired: true, note: { password: 'false' } });
    expect(masked.url).toBe('https://shop.example/login?next=%2Ffeed');
    expect(masked.statusCode).toBe(200);
  });

  it('R-AR-32: the panel view of that call shows no password, and still shows that one was sent', () => {
    const view = networkCallDetailView(loginCall)!;
    expect(JSON.stringify(view)).not.toContain('hunter2');
    expect(view.request.body).toContain('"password":"[redacted]"');
    expect(view.request.headers.find((h) => h.name === 'Authorization')?.value).toBe('[REDACTED]');
    expect(view.sseEvents[0]?.data).toBe('{"password":"[redacted]"}');
  });
});

describe('R-AR-32, R-SECRET-02: request bodies real apps send are masked however they are written', () => {
  // Each body as a login, sign-up or change-password screen of a real app sends it: the password first
  // in a form, a Rails-style `user[password]`, the usual other names, pretty-printed JSON, a PIN as a number.
  const bodies: Array<[string, string, string]> = [
    ['a form with the password first', 'password=hunter2&username=bob', 'username=bob'],
    ['a bracketed form name (Rails, PHP)', 'user%5Bname%5D=bob&user%5Bpassword%5D=hunter2', 'user%5Bname%5D=bob'],
    ['a bracketed form name, unencoded', 'user[name]=bob&user[password]=hunter2', 'user[name]=bob'],
    ['pass and pwd', 'user=bob&pass=hunter2&pwd=hunter2', 'user=bob'],
    ['a change-password form', 'current_password=hunter2&new_password=hunter2&password_confirmation=hunter2&id=7', 'id=7'],
    ['pretty-printed JSON', '{\n  "username" : "bob",\n  "password" : "hunter2"\n}', '{\n  "username": "bob",\n  "password": "[redacted]"\n}'],
    [
      'JSON with the usual other names',
      '{"currentPassword":"hunter2","newPassword":"hunter2","user":"bob"}',
      '{"currentPassword":"[redacted]","newPassword":"[redacted]","user":"bob"}',
    ],
    ['a PIN or passcode as a JSON number', '{"user":"bob","passcode":123456}', '{"user":"bob","passcode":"[redacted]"}'],
  ];
  for (const [what, body, shown] of bodies) {
    it(`R-AR-32: ${what}`, () => {
      const masked = maskCapturedTraffic({ request: { body } }) as { request: { body: string } };
      expect(masked.request.body).not.toMatch(/hunter2|123456/);
      expect(masked.request.body).toBe(shown);
    });
  }

  it('R-AR-32: what is no password stays: a boolean or "true" flag, a password-reset page URL, a body that only mentions one', () => {
    const body = '{"passwordRequired":true,"password":"false","hint":"password must be 8 characters"}';
    expect((maskCapturedTraffic({ body }) as { body: string }).body).toBe(body);
    expect(maskCapturedTraffic('https://shop.example/password/reset?step=2')).toBe('https://shop.example/password/reset?step=2');
    expect(maskCapturedTraffic('grant_type=password&scope=read')).toBe('grant_type=password&scope=read');
  });
});

describe('R-SECRET-12: a captured body over the parse limit is masked without JSON.parse', () => {
  /** A login answer padded past the limit: a password as a string, one as a number, and a nested one, pretty-printed. */
  function hugeJson(): string {
    const rows = Array.from({ length: Math.ceil(MAX_MASK_PARSE_CHARS / 40) + 10 }, (_, i) => ({ id: i, name: `row ${i}` }));
    return JSON.stringify({ user: { name: 'bob', password: 'hunter2' }, pin: { passcode: 98765432 }, rows, token: 'tok-0123456789' }, null, 2);
  }

  it('R-SECRET-12: the limit is checked before parsing: a body over it is never handed to JSON.parse, and still loses every secret', () => {
    const body = hugeJson();
    expect(body.length).toBeGreaterThan(MAX_MASK_PARSE_CHARS);
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const masked = maskCapturedTraffic({ request: { body } }) as { request: { body: string } };
      expect(parse.mock.calls.filter(([text]) => typeof text === 'string' && text.length > MAX_MASK_PARSE_CHARS)).toEqual([]);
      expect(masked.request.body).not.toMatch(/hunter2|98765432|tok-0123456789/);
      // Masked in place, as the parsed form is: each key stays, the layout and the rest of the body too.
      expect(masked.request.body).toContain('"password": "[redacted]"');
      expect(masked.request.body).toContain('"passcode": "[redacted]"');
      expect(masked.request.body).toContain('"name": "row 7"');
      expect(masked.request.body.length).toBeGreaterThan(MAX_MASK_PARSE_CHARS);
    } finally {
      parse.mockRestore();
    }
  });

  it('R-SECRET-12: under the limit the body is parsed as before (a number password found as the value it is)', () => {
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const masked = maskCapturedTraffic({ body: '{"passcode":4711,"name":"bob"}' }) as { body: string };
      expect(masked.body).toBe('{"passcode":"[redacted]","name":"bob"}');
      expect(parse).toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
  });

  it('R-SECRET-12: a number under a password key in logged JSON is masked; a count under a token name is not', () => {
    expect(redactString('{"passcode": 4711, "maxTokens": 512}')).toBe('{"passcode": "[redacted]", "maxTokens": 512}');
  });
});
