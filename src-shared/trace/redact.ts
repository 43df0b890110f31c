/**
 * Redaction for everything written to a trace: tokens and redacted values never enter one
 * (docs/protocol.md#p-trace).
 *
 * Traces get attached to bug reports and shared, so the writer passes every manifest field, event and
 * observation through `redactForTrace` before a byte reaches disk. It removes
 *  - secrets by key: token, authorization, appreveal_session_token, any *Token / *_token / *-token,
 *    X-AppReveal-Session, cookies, API keys and secrets (key names are compared without case,
 *    dashes or underscores; numbers and booleans under such names are kept, a token is text);
 *  - secrets inside strings: `token=` / `appreveal_session_token=` / `password=` style query and fragment
 *    parameters, and the same at the start of a string or after a space (a form body, a logged form), a password in a URL's user info, `Bearer <token>`, `"token": "..."` in logged JSON,
 *    `Authorization: ...` in logged headers, and any string the caller names in `options.secrets`
 *    (the web host's per-start token, an AppReveal session token);
 *  - values the device itself hides: every field model/node.ts `hidesText` calls secret (a password or
 *    secure field, a redacted value, a web password input, anything marked `sensitive: true`) keeps no
 *    text or value, and an action whose target is such a field keeps no typed text.
 */
import { hidesText } from '@shared/model/node';
import { isRecord } from '@shared/protocol/json';
import { MAX_APP_STATE_READING_CHARS } from '@shared/protocol/appreveal-tools';

export interface RedactOptions {
  /** Exact strings that must not survive anywhere (each occurrence becomes "[redacted]"). */
  secrets?: readonly string[];
  /**
   * Redact the named secrets whatever their length: values the user typed in for a replay (a password may
   * be short), where blanking a short word elsewhere is the lesser harm.
   */
  anyLength?: boolean;
}

export const REDACTED = '[redacted]';

/** A form field's own name: the last bracketed part of a Rails / PHP style name (`user[password]` is `password`). */
function ownName(key: string): string {
  return /\[([^[\]]+)\]$/.exec(key)?.[1] ?? key;
}

function normalizeKey(key: string): string {
  return ownName(key)
    .toLowerCase()
    .replace(/[-_\s]/g, '');
}

const SECRET_KEYS = new Set([
  'authorization',
  'proxyauthorization',
  'xapprevealsession',
  'cookie',
  'setcookie',
  'apikey',
  'xapikey',
  'secret',
  'clientsecret',
  'privatekey',
  'passphrase',
]);

/**
 * `password` is also a node flag ("true"/"false"), so a key of that name holds a secret only when its
 * value is not one of those; its spellings are compared as secret keys are. The names are the ones real
 * login, sign-up and change-password requests use: `pass`, `pwd`, `passcode`, and any name ending in
 * one (`currentPassword`, `new_password`, `password_confirmation`), but not `passwordRequired`.
 */
const PASSWORD_KEY = /^(pass|pwd)$|(password|passwd|passcode)(confirm|confirmation|again|repeat)?$/;
const isPasswordKey = (key: string): boolean => PASSWORD_KEY.test(normalizeKey(key));
/** Whether `value`, a string under `key` (a JSON member, a form or query parameter), is a secret. */
function namesSecretText(key: string, value: string): boolean {
  return isSecretKey(key) || (isPasswordKey(key) && value !== 'true' && value !== 'false');
}

/** Whether a key (object key, query parameter, header name) names a secret. */
export function isSecretKey(key: string): boolean {
  const k = normalizeKey(key);
  return k.endsWith('token') || k.endsWith('tokens') || SECRET_KEYS.has(k) || k.endsWith('authorization');
}

// ---- Strings and URLs -------------------------------------------------------------------------------

// A parameter inside a URL-ish string: separator, name, value. Values stop at the next separator,
// whitespace or a quote, so a URL embedded in a log line is handled too. The string's start and a
// space are separators as well (docs/rules.md#r-secret-11): a form body as a string
// (`password=…&username=…`), or one quoted in a log line, opens with its first parameter.
// A name is at most 256 characters: a longer run (a base64 screenshot, which opens a string and ends in
// `=`) is no parameter, and is passed over without decoding it.
const PARAM = /(^|[?&#;]|\s)([^=&#?;\s"'<>]{1,256})=([^&#;\s"'<>]*)/g;
const BEARER = /\b(Bearer|Basic)(\s+)[A-Za-z0-9._~+/=-]{8,}/gi;
// "token": "abc" inside a string that holds JSON (a logged request body), and "passcode": 4711, a
// password written as a number (a PIN): masked only under a password's name, since a number under a
// token's name is a count (maxTokens). One pass for both.
const JSON_MEMBER = /"((?:[^"\\\n]|\\.)*)"(\s*:\s*)(?:"((?:[^"\\\n]|\\.)*)"|(-?\d[\d.eE+-]*))/g;
// "X-AppReveal-Session: abc" on a line of a logged header block.
const HEADER_LINE = /^([ \t]*)([A-Za-z0-9-]+)([ \t]*:[ \t]*)(\S.*)$/gm;
// scheme://user:password@host
const USERINFO_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/?#@:]*):[^\s/?#@]*@/gi;
const MARK = '\uE000';
const MARKED_LAST = new RegExp(`[?#]${MARK}(?=$|[#\\s"'<>])`, 'g');
const MARKED_FIRST = new RegExp(`([?#])${MARK}[&;]`, 'g');
const MARKED_LATER = new RegExp(`[&;]${MARK}`, 'g');
const MARKED_OPENING_LAST = new RegExp(`(^|\\s)${MARK}(?=$|[#\\s"'<>])`, 'g');
const MARKED_OPENING_FIRST = new RegExp(`(^|\\s)${MARK}[&;]`, 'g');

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/**
 * Drops secret query / fragment parameters from every URL inside `text`, keeping the rest of each URL,
 * and a secret parameter that opens the string or a word (a form body, a form quoted in a log line).
 */
export function stripSecretParams(text: string): string {
  if (!text.includes('=')) return text;
  let removed = false;
  const marked = text.replace(PARAM, (match, sep: string, name: string, value: string) => {
    if (!namesSecretText(decodeName(name), value)) return match;
    removed = true;
    return `${sep}${MARK}`;
  });
  if (!removed) return text;
  let out = marked;
  // Each round settles the separators around the removed parameters; adjacent ones need several rounds.
  while (out.includes(MARK)) {
    const next = out
      // "?token=x" with nothing after it: the "?" goes too
      .replace(MARKED_LAST, '')
      // "?token=x&a=1" → "?a=1"
      .replace(MARKED_FIRST, '$1')
      // "?a=1&token=x" → "?a=1"
      .replace(MARKED_LATER, '')
      // "password=x&a=1" → "a=1", "body password=x" → "body "
      .replace(MARKED_OPENING_FIRST, '$1')
      .replace(MARKED_OPENING_LAST, '$1');
    if (next === out) break;
    out = next;
  }
  return out.replaceAll(MARK, '');
}

/** Why a URL may not be recorded as is, or undefined when it holds no secret. */
export function urlSecretProblem(url: string): string | undefined {
  for (const match of url.matchAll(PARAM)) {
    const name = decodeName(match[2] ?? '');
    if (namesSecretText(name, match[3] ?? '')) return `the URL carries the parameter "${name}"`;
  }
  if (url.match(USERINFO_PASSWORD) !== null) return 'the URL carries a password';
  return undefined;
}

/** A string with every secret this module knows how to spot removed. */
export function redactString(text: string, options: RedactOptions = {}): string {
  let out = text;
  for (const secret of options.secrets ?? []) {
    // Short strings would blank out ordinary words; real tokens are long.
    if ((secret.length >= 8 || (options.anyLength === true && secret !== '')) && out.includes(secret)) out = out.replaceAll(secret, REDACTED);
  }
  out = stripSecretParams(out);
  if (out.includes('@')) out = out.replace(USERINFO_PASSWORD, '$1@');
  if (/bearer|basic/i.test(out)) out = out.replace(BEARER, `$1$2${REDACTED}`);
  if (/"\s*:/.test(out)) {
    out = out.replace(JSON_MEMBER, (match, key: string, colon: string, text: string | undefined) =>
      (text !== undefined ? namesSecretText(key, text) : isPasswordKey(key)) ? `"${key}"${colon}"${REDACTED}"` : match,
    );
  }
  if (out.includes(':')) {
    out = out.replace(HEADER_LINE, (match, indent: string, name: string, colon: string) => (isSecretKey(name) ? `${indent}${name}${colon}${REDACTED}` : match));
  }
  return out;
}

// ---- Captured traffic (shown, never recorded) -------------------------------------------------------

/** A value that is already a mask (AppReveal writes "[REDACTED]" for its listed headers). */
const isMask = (value: unknown): boolean => typeof value === 'string' && value.toLowerCase() === REDACTED;

/**
 * A captured network call (get_network_call_detail) with every secret masked in place: unlike
 * `redactForTrace`, which removes secret keys so a trace still fits its schema, this keeps each key and
 * puts "[redacted]" in its value, so the App panel still shows that an Authorization header or a password
 * field was sent (docs/rules.md#r-ar-32). Bodies are text (JSON, a form, SSE data) and go through
 * `redactString`. AppReveal masks only the headers it lists (CapturedRequest.swift `sensitiveHeaders`), so a
 * login POST's password would otherwise reach the panel and the API's JSON in clear.
 */
export function maskCapturedTraffic(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return maskBodyText(value, depth);
  if (depth > 32 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => maskCapturedTraffic(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    const secret = typeof item === 'string' ? namesSecretText(key, item) : isSecretKey(key) || (isPasswordKey(key) && typeof item !== 'boolean');
    out[key] = secret && item !== null && item !== undefined && !isMask(item) ? REDACTED : maskCapturedTraffic(item, depth + 1);
  }
  return out;
}

/** A whole form body (`a=1&b=2`), not a URL or a sentence: what `stripSecretParams` reads only after a `?`. */
const FORM_BODY = /^[^\s=&?#]+=[^\s&]*(?:&[^\s=&]+=[^\s&]*)*\s*$/;

/**
 * The longest text `maskBodyText` parses as JSON (docs/rules.md#r-secret-12): an AppReveal reading's own
 * limit (a call detail larger than that is refused as it is read), so a body over it never came from the
 * app as one; checked before `JSON.parse` spends memory on an object graph several times the text's size.
 */
export const MAX_MASK_PARSE_CHARS = MAX_APP_STATE_READING_CHARS;

/**
 * One text of a captured call (a body, a header, SSE data). JSON text is masked as the value it is, so a
 * password written as a number or in pretty-printed JSON is found too, and written back as it was laid
 * out (indented when it came on several lines); it is left as it came when it held no secret. A form body
 * loses its secret fields wherever they stand, the first one included. A text over MAX_MASK_PARSE_CHARS
 * is not parsed: the string rules mask it in place (a JSON member by its name, a string or number
 * password, a form's or URL's parameter), each a linear scan.
 */
function maskBodyText(text: string, depth: number): string {
  const parseable = text.length <= MAX_MASK_PARSE_CHARS;
  const trimmed = parseable ? text.trimStart() : '';
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (parsed !== null && typeof parsed === 'object') {
      const masked = maskCapturedTraffic(parsed, depth + 1);
      if (JSON.stringify(masked) !== JSON.stringify(parsed)) return JSON.stringify(masked, null, text.includes('\n') ? 2 : undefined);
    }
  }
  const form = FORM_BODY.test(text) ? stripSecretParams(`?${text}`) : undefined;
  return redactString(form === undefined ? text : form.slice(1));
}

// ---- Deep values ------------------------------------------------------------------------------------

/** The target of an action (or its node copy) is a secret field, so what is typed into it is secret too. */
function targetHidesText(target: unknown): boolean {
  if (!isRecord(target)) return false;
  if (hidesText(target)) return true;
  const node = target['node'];
  return isRecord(node) && hidesText(node);
}

const TEXT_KEYS = new Set(['text', 'value']);

/**
 * A deep copy of `value`, JSON-shaped, without secrets (see the module comment). Keys whose value is
 * secret are removed rather than masked, so the result still fits schemas where they are optional.
 * Binary data is dropped (it belongs in a resource), bigints become decimal strings and dates ISO strings.
 */
export function redactForTrace<T>(value: T, options: RedactOptions = {}): T {
  const secrets = (options.secrets ?? []).filter((s) => typeof s === 'string' && (s.length >= 8 || (options.anyLength === true && s !== '')));
  const opts: RedactOptions = { secrets, ...(options.anyLength ? { anyLength: true } : {}) };
  const ancestors = new Set<object>();

  const walk = (input: unknown, dropText: boolean): unknown => {
    if (typeof input === 'string') return redactString(input, opts);
    if (typeof input === 'bigint') return input.toString();
    if (typeof input === 'number') return Number.isFinite(input) ? input : null;
    if (input === null || typeof input === 'boolean') return input;
    if (typeof input !== 'object') return undefined; // undefined, functions, symbols: not JSON
    if (input instanceof Date) return Number.isNaN(input.getTime()) ? null : input.toISOString();
    if (ArrayBuffer.isView(input) || input instanceof ArrayBuffer) return undefined;
    if (ancestors.has(input)) return undefined; // a cycle cannot be written as JSON
    ancestors.add(input);
    try {
      if (Array.isArray(input)) return input.map((item) => walk(item, false) ?? null);
      if (input instanceof Map) return walk(Object.fromEntries(input), dropText);
      if (input instanceof Set) return walk([...input], false);
      const record = input as Record<string, unknown>;
      const hide = dropText || hidesText(record);
      const actionTextHidden = 'action' in record && targetHidesText(record['target']);
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(record)) {
        // A token is a string (or holds strings); a number under such a name (maxTokens) is harmless.
        if (isSecretKey(key) && !(typeof item === 'number' || typeof item === 'boolean' || item === null)) continue;
        if (hide && TEXT_KEYS.has(key)) continue;
        // `password` is a node flag ("true"/"false"); any other value under that name is a password.
        if (isPasswordKey(key) && !(item === 'true' || item === 'false' || typeof item === 'boolean')) continue;
        const next = walk(item, key === 'action' && actionTextHidden);
        if (next !== undefined) out[key] = next;
      }
      return out;
    } finally {
      ancestors.delete(input);
    }
  };

  return walk(value, false) as T;
}
