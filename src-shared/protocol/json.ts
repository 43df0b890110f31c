/**
 * JSON with exact UInt64 capture identities.
 *
 * `captureIdentity`, `observationIdentity` and `nextObservationIdentity` are UInt64 on the wire. A plain
 * `JSON.parse` rounds anything above 2^53, so before parsing we quote the digits of exactly those keys
 * (a key position is `{` or `,` then the quoted name; inside a JSON string the quotes would be escaped,
 * so string contents are never touched). Decoded identities are decimal strings; encoding turns them
 * back into bare digits.
 */
import { z } from 'zod';

export const UINT64_KEYS = ['captureIdentity', 'observationIdentity', 'nextObservationIdentity'] as const;

const UINT64_MAX = 18446744073709551615n;
/** What every identity key ends with, quote included: one scan of a text tells whether any is there. */
const KEY_TAIL = (() => {
  let tail = UINT64_KEYS[0] as string;
  while (!UINT64_KEYS.every((key) => key.endsWith(tail))) tail = tail.slice(1);
  return `${tail}"`;
})();
const KEY_NUMBER = new RegExp(`([{,]\\s*"(?:${UINT64_KEYS.join('|')})"\\s*:\\s*)(-?\\d+(?:\\.\\d+)?(?:[eE][+-]?\\d+)?)`, 'g');

/** JSON.parse, except that the identity keys keep every digit (as strings). */
export function parseJsonLossless(text: string): unknown {
  // A text naming no identity key parses as is: on a 6 MiB frame the replace's scan costs tens of ms.
  if (!text.includes(KEY_TAIL)) return JSON.parse(text);
  return JSON.parse(text.replace(KEY_NUMBER, '$1"$2"'));
}

/** JSON.stringify, except that identity keys holding decimal strings are written as bare numbers. */
export function stringifyJsonLossless(value: unknown): string {
  const text = JSON.stringify(value);
  return text.replace(new RegExp(`([{,]"(?:${UINT64_KEYS.join('|')})":)"(\\d+)"`, 'g'), '$1$2');
}

/** A JSON object (not an array, not null): what a decoder checks before it reads keys. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A UInt64 kept as its canonical decimal digits; never a JS number. */
export const UInt64Schema = z.union([z.string(), z.number()]).transform((raw, ctx) => {
  const text = typeof raw === 'number' ? (Number.isSafeInteger(raw) ? String(raw) : '') : raw;
  if (!/^\d+$/.test(text)) {
    ctx.addIssue({ code: 'custom', message: 'expected a UInt64 (decimal digits)' });
    return z.NEVER;
  }
  const value = BigInt(text);
  if (value > UINT64_MAX) {
    ctx.addIssue({ code: 'custom', message: 'UInt64 out of range' });
    return z.NEVER;
  }
  return value.toString();
});
export type UInt64 = z.output<typeof UInt64Schema>;

/**
 * Whether two decoded JSON values hold the same content (objects compared by their keys, whatever their
 * order; arrays by position). Used to keep one object for an unchanged 50,000-node tree across frames
 * (docs/rules.md#r-perf-03), so it walks with an explicit stack (real trees are deep) and stops at the
 * first difference: a changed screen usually differs within its first nodes.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  const left: unknown[] = [a];
  const right: unknown[] = [b];
  while (left.length > 0) {
    const x = left.pop();
    const y = right.pop();
    if (x === y) continue;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false;
      for (let i = x.length - 1; i >= 0; i--) {
        left.push(x[i]);
        right.push(y[i]);
      }
      continue;
    }
    if (Array.isArray(y)) return false;
    const xr = x as Record<string, unknown>;
    const yr = y as Record<string, unknown>;
    let count = 0;
    for (const key in xr) {
      const value = xr[key];
      if (value === undefined) continue;
      count++;
      const other = yr[key];
      // Leaves first, here: most of a node's fields are strings and numbers, not worth a push.
      if (value === other) continue;
      if (typeof value !== 'object' || typeof other !== 'object') return false;
      left.push(value);
      right.push(other);
    }
    for (const key in yr) if (yr[key] !== undefined) count--;
    if (count !== 0) return false;
  }
  return true;
}
