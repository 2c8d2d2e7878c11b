// Starts every Redis key and channel of the services a test file starts (REDIS_PREFIX): files
// run side by side on one Redis, and their fresh databases hand out the same user ids.
import { randomBytes } from 'node:crypto';

export const TEST_REDIS_PREFIX = `mps-test-${randomBytes(4).toString('hex')}:`;
