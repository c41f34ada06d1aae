import { defineConfig } from '@playwright/test';

// The console's browser tests. They drive a running Assay (ASSAY_GATEWAY_URL,
// ASSAY_ADMIN_EMAIL, ASSAY_ADMIN_PASSWORD, as `make run` prints them) in
// Debian's Chromium headless shell: `playwright install` cannot download here.
// tests/e2e/console.test.ts starts the real launcher and runs them; to run them
// against your own `make run`: `source .assay/bootstrap.env && pnpm --filter @assay/tests exec playwright test -c console`.
const executablePath = process.env.CONSOLE_CHROMIUM_PATH ?? '/usr/lib/chromium/chromium-headless-shell';

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 240_000,
  expect: { timeout: 30_000 },
  reporter: [['list']],
  outputDir: '../.tmp/console-results',
  use: {
    baseURL: process.env.ASSAY_GATEWAY_URL,
    headless: true,
    viewport: { width: 1280, height: 860 },
    launchOptions: { executablePath, args: ['--no-sandbox'] },
    trace: 'off',
    screenshot: 'only-on-failure',
  },
});
