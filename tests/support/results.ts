/** A result that must have failed: asserts it, and hands back its error (so no assertion sits behind an `if`). */
import { expect } from 'vitest';

export function failed<E>(result: { ok: true } | { ok: false; error: E }): E {
  expect(result.ok, 'expected a failure').toBe(false);
  if (result.ok) throw new Error('expected a failure');
  return result.error;
}
