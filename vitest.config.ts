import { mkdtempSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import { SOURCE_ALIASES } from './aliases.config';
import LongestFirst from './tests/support/longest-first';

export default defineConfig({
  resolve: { alias: SOURCE_ALIASES },
  test: {
    include: ['tests/**/*.test.{ts,tsx}'],
    // Wide margins, not a measure of speed: at load 30-40 on two cores a 3 s test takes over 20 s, and a
    // timeout then fails CI on a bad day without finding anything (issue 29).
    testTimeout: 60_000,
    // The default report, and the slowest files with where their time went (tests/support/slowest-files.ts).
    reporters: ['default', './tests/support/slowest-files.ts'],
    // Integration files spend most of their time waiting on sockets and the demo's Chromium, so even on
    // two cores three workers finish sooner (vitest's default is one fewer than the cores: one, here). On
    // the 2-core machine the stage took 577 s with three, against 648-761 s with two.
    maxWorkers: Math.max(3, availableParallelism() - 1),
    // The longest files first, by a whole run's durations (tests/support/file-durations.json): each worker
    // takes the next file when it is done, so a long file started last would run alone at the end.
    sequence: { sequencer: LongestFirst },
    hookTimeout: 90_000,
    // Tests never touch the user's settings or traces, and never send multicast on the real network
    // (the Bonjour test makes its own network namespace).
    env: {
      PARALLAX_HOME: mkdtempSync(join(tmpdir(), 'parallax-test-home-')),
      PARALLAX_MDNS: 'off',
    },
  },
});
