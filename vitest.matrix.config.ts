// What `.ci/run` runs on the Node versions other than the full tier's
// (docs/testing.md, "Other Node versions"): the fast tier and one pass
// through each face (test/smoke), which load every native module.
import { defineConfig } from 'vitest/config';
import fast from './vitest.fast.config.js';
import { FAST_TIER } from './vitest.config.js';

export const MATRIX = [...FAST_TIER, 'test/smoke/**/*.test.ts'];

export default defineConfig({
  test: {
    ...fast.test,
    include: MATRIX,
  },
});
