// The fast tier: `npm run test:fast`. The full tier's configuration with only
// the unit and service-level folders: nothing here starts the service, so a
// change to a rule is checked in seconds, not in the minutes the HTTP suites
// take to start a service per file and database.
import { defineConfig } from 'vitest/config';
import full, { FAST_TIER } from './vitest.config.js';

export default defineConfig({
  test: { ...full.test, include: FAST_TIER },
});
