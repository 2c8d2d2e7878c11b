// The fast tier: `npm run test:fast`. The full tier's configuration with only
// the unit and service-level folders: nothing here starts the service, so a
// change to a rule is checked in seconds, not in the minutes the HTTP suites
// take to start a service per file and database.
import { defineConfig } from 'vitest/config';
import full, { FAST_TIER } from './vitest.config.js';

export default defineConfig({
  test: {
    ...full.test,
    include: FAST_TIER,
    // Each worker runs its files one after another without a fresh module graph: the
    // files share the imports of src/ instead of transforming and loading them again per
    // file, which halves this tier's CPU time (about 23 s instead of 48–58 s on 2 loaded
    // cores). No file of the tier changes module state another reads (each builds its
    // own core in its own temporary directory), and the full tier still runs every one
    // of them isolated.
    isolate: false,
  },
});
