import { defineConfig } from 'vitest/config';
import LongestFirst from './test/support/sequencer.js';

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
    // Two files at a time on the 2 cores CI has: most of a file's time is spent waiting on
    // services, renditions and the browser, and every file has its own databases, folders, ports
    // and Redis names (test/support). TEST_WORKERS sets another count.
    maxWorkers: Number(process.env.TEST_WORKERS) || 2,
    // The longest files first (test/support/file-seconds.json), so both workers end together.
    sequence: { sequencer: LongestFirst },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // TEST_REPORT_JSON=<file> also writes vitest's JSON report, from which
    // scripts/file-seconds.mjs remakes the sequencer's order after a full run.
    reporters: [
      'default',
      './test/support/summary-reporter.ts',
      ...(process.env.TEST_REPORT_JSON ? [['json', { outputFile: process.env.TEST_REPORT_JSON }] as ['json', { outputFile: string }]] : []),
    ],
  },
});
