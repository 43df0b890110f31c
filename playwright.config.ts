import { defineConfig } from '@playwright/test';
import { LAUNCH_ARGS } from '@demo/phone/browser';

export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  // Two: each has its own shared demo device and its tests' own hosts and pages (e2e/harness.ts), and
  // the specs wait on the devices more than they compute; on the 2-core machine the stage took 424 s with
  // two, against 511-528 s with one.
  workers: 2,
  retries: 0,
  reporter: [['list']],
  use: {
    viewport: { width: 1400, height: 900 },
    launchOptions: {
      executablePath: process.env.PARALLAX_BROWSER ?? '/usr/bin/chromium',
      // The same flags the demo device uses: without them Chromium keeps dialling hosts it cannot reach.
      args: LAUNCH_ARGS,
    },
  },
});
