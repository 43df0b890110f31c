import { defineConfig } from '@playwright/test';
import { LAUNCH_ARGS } from '@demo/phone/browser';

export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 1,
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
