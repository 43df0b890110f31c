import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { SOURCE_ALIASES } from './aliases.config';

export default defineConfig({
  resolve: { alias: SOURCE_ALIASES },
  test: {
    include: ['tests/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Tests never touch the user's settings or traces, and never send multicast on the real network
    // (the Bonjour test makes its own network namespace).
    env: {
      PARALLAX_HOME: mkdtempSync(join(tmpdir(), 'parallax-test-home-')),
      PARALLAX_MDNS: 'off',
    },
  },
});
