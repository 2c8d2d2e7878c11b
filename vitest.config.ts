import { defineConfig } from 'vitest/config';

/**
 * The fast tier (`npm run test:fast`, vitest.fast.config.ts): unit tests and
 * service-level tests on a temporary SQLite, no HTTP server started. The full
 * tier (`npm test`, this file) runs them too, with every HTTP-level suite.
 */
export const FAST_TIER = ['test/unit/**/*.test.ts', 'test/service/**/*.test.ts'];

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
