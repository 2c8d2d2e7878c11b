// The login throttle's rules without a service: an attempt whose client has already gone
// (Fastify's req.ip is undefined once the socket is closed, as the API fuzz found on
// PostgreSQL) is counted under no address instead of throwing from the address's HMAC.
import { describe, expect, it } from 'vitest';
import { createLimiterFactory } from '../../src/http/limiter-store.js';
import { LoginThrottle, type LoginOrigins } from '../../src/users/login-throttle.js';

async function throttle(): Promise<{ t: LoginThrottle; remembered: string[] }> {
  const remembered: string[] = [];
  const origins: LoginOrigins = {
    knownOrigin: async (_userId, origin) => remembered.includes(origin),
    rememberOrigin: async (_userId, origin) => {
      remembered.push(origin);
    },
  };
  return { t: new LoginThrottle(await createLimiterFactory(), origins, Buffer.alloc(32, 7)), remembered };
}

describe('login throttle', () => {
  it('counts an attempt whose client address is unknown (the connection closed) without throwing', async () => {
    const { t, remembered } = await throttle();
    const gone = { accountKey: 'ann@example.com', address: undefined as unknown as string, user: { id: 1 } };
    await expect(t.take(gone)).resolves.toBeUndefined();
    await expect(t.check(gone)).resolves.toBeUndefined();
    await expect(t.succeeded(gone)).resolves.toBeUndefined();
    expect(remembered).toHaveLength(1);
  });
});
