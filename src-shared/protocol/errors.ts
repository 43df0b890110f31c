/**
 * Typed decode failures for every wire decoder: a malformed message never crashes a decoder; it is
 * rejected with a typed error that names the field (docs/protocol.md#p-conventions,
 * docs/rules.md#r-wire-01).
 */
import type { z } from 'zod';
import { parseJsonLossless } from './json';

/** `truncated`: the text stops mid-way (a reply cut short), which says more than "invalid JSON". */
export type DecodeErrorKind = 'invalid_json' | 'truncated' | 'too_large' | 'invalid_message';

export class ProtocolDecodeError extends Error {
  override readonly name = 'ProtocolDecodeError';

  constructor(
    readonly kind: DecodeErrorKind,
    /** Dotted path of the offending field (`data.hierarchy.node.3.bounds.left`), or '' for the whole frame. */
    readonly field: string,
    detail: string,
    /** The frame's requestId when it had a string one, so a client can fail that request now, not at its timeout. */
    readonly requestId?: string,
  ) {
    super(`${kind} at ${field === '' ? '(frame)' : field}: ${oneLine(detail)}`);
  }
}

export type DecodeResult<T> = { ok: true; value: T } | { ok: false; error: ProtocolDecodeError };

/**
 * The largest frame any decoder accepts (docs/rules.md#r-lim-01): a 50 MB screenshot reply fits more
 * than twice over; a bigger frame is refused before it is parsed.
 */
export const MAX_FRAME_BYTES = 128 * 1024 * 1024;

/** Size check and lossless JSON parse of one text frame. */
export function parseFrame(text: string, maxBytes = MAX_FRAME_BYTES): DecodeResult<unknown> {
  const bytes = utf8Length(text, maxBytes);
  if (bytes > maxBytes) {
    return fail('too_large', '', `frame of ${utf8Length(text, Infinity)} bytes is over the ${maxBytes}-byte limit`);
  }
  try {
    return { ok: true, value: parseJsonLossless(text) };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (endsMidway(text, message)) return fail('truncated', '', `the frame stops mid-way after ${bytes} bytes (cut short): ${message}`);
    return fail('invalid_json', '', message);
  }
}

/** Whether the parser ran out of text rather than met a wrong character (R-LIM-04). */
function endsMidway(text: string, message: string): boolean {
  if (text.trim() === '') return false;
  if (/end of JSON input/i.test(message)) return true;
  const at = /at position (\d+)/.exec(message);
  return at !== null && Number(at[1]) >= text.trimEnd().length;
}

/** Runs `schema` on an already parsed value; the first zod issue becomes the error. Never throws. */
export function validateWith<T>(schema: z.ZodType<T>, value: unknown, requestId?: string): DecodeResult<T> {
  try {
    const result = schema.safeParse(value);
    if (result.success) return { ok: true, value: result.data };
    const issue = deepestIssue(result.error.issues);
    if (!issue) return fail('invalid_message', '', 'does not match the schema', requestId);
    return fail('invalid_message', issue.path.map(String).join('.'), issue.message, requestId);
  } catch (error) {
    // A pathologically deep tree can overflow the stack inside zod; that is a bad frame, not a crash.
    return fail('invalid_message', '', error instanceof Error ? error.message : String(error), requestId);
  }
}

/** parseFrame then validateWith. Never throws. */
export function decodeWith<T>(schema: z.ZodType<T>, text: string, maxBytes = MAX_FRAME_BYTES): DecodeResult<T> {
  const parsed = parseFrame(text, maxBytes);
  return parsed.ok ? validateWith(schema, parsed.value) : parsed;
}

export function fail(kind: DecodeErrorKind, field: string, detail: string, requestId?: string): { ok: false; error: ProtocolDecodeError } {
  return { ok: false, error: new ProtocolDecodeError(kind, field, detail, requestId) };
}

interface FlatIssue {
  path: PropertyKey[];
  message: string;
}

/**
 * The first issue, except that a failed union is replaced by the deepest issue among its branches:
 * "perfTiming.children.0.durationMs: expected number" says more than "perfTiming: invalid input".
 */
function deepestIssue(issues: readonly z.core.$ZodIssue[], prefix: PropertyKey[] = []): FlatIssue | undefined {
  const first = issues[0];
  if (!first) return undefined;
  const path = [...prefix, ...first.path];
  if (first.code === 'invalid_union' && first.errors.length > 0) {
    let best: FlatIssue | undefined;
    for (const branch of first.errors) {
      const candidate = deepestIssue(branch, path);
      if (candidate && (!best || candidate.path.length > best.path.length)) best = candidate;
    }
    if (best) return best;
  }
  return { path, message: first.message };
}

/** UTF-8 byte length of `text`, counting no further than just past `limit` (Infinity: the exact length). */
function utf8Length(text: string, limit: number): number {
  // Every UTF-16 unit is 1 to 3 UTF-8 bytes, so the cheap bounds settle almost every frame.
  if (limit !== Infinity) {
    if (text.length > limit) return text.length;
    if (text.length * 3 <= limit) return text.length;
  }
  let bytes = 0;
  for (let i = 0; i < text.length && bytes <= limit; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

function oneLine(text: string): string {
  // Parser messages quote the input, which may hold control characters or be huge.
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ');
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
}
