import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { GOLDEN_DIR, SHARED_GOLDEN_DIR } from '../support/golden';

it('the recording Parallax ships is byte for byte the recorded runner traffic of the shared fixture', () => {
  expect(existsSync(SHARED_GOLDEN_DIR), `shared fixture expected at ${SHARED_GOLDEN_DIR}`).toBe(true);
  const recorded = readdirSync(SHARED_GOLDEN_DIR)
    .filter((name) => name.endsWith('.json'))
    .sort();
  expect(recorded).toHaveLength(14);
  expect(
    readdirSync(GOLDEN_DIR)
      .filter((name) => name.endsWith('.json'))
      .sort(),
  ).toEqual(recorded);
  for (const name of recorded) {
    expect(readFileSync(join(GOLDEN_DIR, name)).equals(readFileSync(join(SHARED_GOLDEN_DIR, name))), name).toBe(true);
  }
});
