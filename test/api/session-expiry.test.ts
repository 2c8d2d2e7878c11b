// Expired sessions are purged in the background, whether or not their cookie
// is ever sent again (SESSION_PURGE_SECONDS).
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { eachDatabase, TestService, type TestUser } from '../support/service.js';

eachDatabase((kind) => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await TestService.start(kind, { SESSION_PURGE_SECONDS: '1' });
  });
  afterAll(() => svc?.close());

  async function sessionRow(user: TestUser, expiresAt: Date): Promise<string> {
    const hash = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');
    const now = new Date().toISOString();
    await svc.db.insertInto('sessions').values({ token_hash: hash, user_id: user.id, created_at: now, last_seen_at: now, expires_at: expiresAt.toISOString() }).execute();
    return hash;
  }

  const exists = async (hash: string) => (await svc.db.selectFrom('sessions').select('token_hash').where('token_hash', '=', hash).executeTakeFirst()) !== undefined;

  it('an expired session row disappears without being used; live ones stay', async () => {
    const user = await svc.user();
    const expired = await sessionRow(user, new Date(Date.now() - 60_000));
    const live = await sessionRow(user, new Date(Date.now() + 24 * 3600_000));
    await vi.waitFor(async () => expect(await exists(expired)).toBe(false), { timeout: 30_000, interval: 100 });
    expect(await exists(live)).toBe(true);
  }, 40_000);
});
