/**
 * A reply's JSON text made a piece at a time (docs/rules.md#r-mem-07): the trace view's listing of a
 * trace at the 100,000-step limit is over 100 MiB of JSON, and one JSON.stringify of it held the host's
 * thread for seconds (4.6 s measured on a busy machine) and held the text whole beside the object. Here
 * the outer levels (the envelope, the result, its arrays) are walked, and each element below them is
 * stringified by itself; a chunk is given out once it holds `budget` characters. The text, joined, is
 * JSON.stringify(value) exactly: the same key order, `undefined` and functions left out of objects and
 * null in arrays, `toJSON` honoured (a value that has one is stringified whole).
 */

/** How deep the walk goes before it stringifies a value whole: envelope, result, its arrays, their elements. */
const WALKED_LEVELS = 3;

export const JSON_CHUNK_CHARS = 1 << 20;

function walked(value: unknown): value is Record<string, unknown> | unknown[] {
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return true;
  const proto = Object.getPrototypeOf(value) as unknown;
  return (proto === Object.prototype || proto === null) && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}

/** The pieces of JSON.stringify(value), each about `budget` characters (one element may make a piece longer). */
export function* jsonChunks(value: unknown, budget = JSON_CHUNK_CHARS): Generator<string> {
  let out = '';
  function* emit(text: string): Generator<string> {
    out += text;
    if (out.length >= budget) {
      yield out;
      out = '';
    }
  }
  function* walk(v: unknown, level: number): Generator<string> {
    if (level >= WALKED_LEVELS || !walked(v)) {
      yield* emit(JSON.stringify(v) ?? 'null');
      return;
    }
    if (Array.isArray(v)) {
      yield* emit('[');
      for (let i = 0; i < v.length; i++) {
        if (i > 0) yield* emit(',');
        const item: unknown = v[i];
        // As JSON.stringify: what has no JSON form is null in an array.
        if (item === undefined || typeof item === 'function' || typeof item === 'symbol') yield* emit('null');
        else yield* walk(item, level + 1);
      }
      yield* emit(']');
      return;
    }
    yield* emit('{');
    let first = true;
    for (const key of Object.keys(v)) {
      const item = v[key];
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
      yield* emit(`${first ? '' : ','}${JSON.stringify(key)}:`);
      first = false;
      yield* walk(item, level + 1);
    }
    yield* emit('}');
  }
  yield* walk(value, 0);
  if (out !== '') yield out;
}
