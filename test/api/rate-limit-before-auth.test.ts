// Spec 8: the request budget is taken before any password check or database
// write — a request beyond the bucket runs no argon2, opens no session, sets no
// cookie and neither slides nor deletes a session row.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { text } from '../../src/client/xml.js';
import { basicAuth, eachDatabase, sessionCookieOf, TestService, type TestUser } from '../support/service.js';
import { replyOf } from '../support/xml.js';

eachDatabase((kind) => {
  let svc: TestService;
  beforeAll(async () => {
    // No purge during these tests: they look at expired rows themselves.
    svc = await TestService.start(kind, { RATE_LIMIT: '5/60s', SESSION_PURGE_SECONDS: '86400' });
  });
  afterAll(() => svc?.close());

  const sessionsOf = async (user: TestUser) =>
    Number((await svc.db.selectFrom('sessions').select((eb) => eb.fn.countAll<number>().as('n')).where('user_id', '=', user.id).executeTakeFirstOrThrow()).n);

  /** A session row written directly (never read by the service, so not in its cache). */
  async function sessionRow(user: TestUser, expiresAt: Date, lastSeenAt: Date): Promise<{ cookie: string; hash: string }> {
    const token = randomBytes(32).toString('base64url');
    const hash = createHash('sha256').update(token).digest('base64url');
    await svc.db
      .insertInto('sessions')
      .values({ token_hash: hash, user_id: user.id, created_at: lastSeenAt.toISOString(), last_seen_at: lastSeenAt.toISOString(), expires_at: expiresAt.toISOString() })
      .execute();
    return { cookie: `_ficelle_session=${token}`, hash };
  }

  const expectThrottled = async (res: Response) => {
    const r = await replyOf(res);
    expect(r.status).toBe(429);
    expect(text(r.doc, 'error-code')).toBe('rate_limited');
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(res.headers.get('ratelimit-limit')).toBe('5, 5;w=60');
    expect(res.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  };

  it('10 Basic logins with the right password: 5 open a session, 5 are 429 without a cookie or a session row', async () => {
    const app = await svc.app();
    const user = await svc.user();
    for (let i = 0; i < 10; i++) {
      const res = await svc.raw(app, 'GET', '/whoami.xml', { headers: { authorization: basicAuth(user.email, user.password) } });
      if (i < 5) {
        expect(res.status, `login ${i + 1}`).toBe(200);
        expect(sessionCookieOf(res)).toMatch(/^_ficelle_session=/);
        expect(res.headers.get('ratelimit-remaining')).toBe(String(4 - i));
        await res.text();
      } else {
        await expectThrottled(res);
      }
    }
    expect(await sessionsOf(user)).toBe(5);
  });

  it('10 simultaneous Basic logins: at most 5 sessions', async () => {
    const app = await svc.app();
    const user = await svc.user();
    const all = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const res = await svc.raw(app, 'GET', '/whoami.xml', { headers: { authorization: basicAuth(user.email, user.password) } });
        await res.text();
        return { status: res.status, cookie: res.headers.get('set-cookie') };
      }),
    );
    expect(all.filter((r) => r.status === 200 && r.cookie).length).toBe(5);
    expect(all.filter((r) => r.status === 429 && !r.cookie).length).toBe(5);
    expect(await sessionsOf(user)).toBe(5);
  });

  it('a wrong password beyond the bucket is 429, not 401', async () => {
    const app = await svc.app();
    const user = await svc.user();
    for (let i = 0; i < 5; i++) {
      const res = await svc.raw(app, 'GET', '/ping.xml', { headers: { authorization: basicAuth(user.email, user.password) } });
      expect(res.status).toBe(200);
      await res.text();
    }
    for (let i = 0; i < 3; i++) {
      await expectThrottled(await svc.raw(app, 'GET', '/whoami.xml', { headers: { authorization: basicAuth(user.email, `wrong-${i}`) } }));
    }
  });

  it('wrong passwords use the bucket too: the 6th is 429', async () => {
    const app = await svc.app();
    const user = await svc.user();
    for (let i = 0; i < 5; i++) {
      const r = await replyOf(await svc.raw(app, 'GET', '/whoami.xml', { headers: { authorization: basicAuth(user.email, `wrong-${i}`) } }));
      expect(r.status).toBe(401);
    }
    await expectThrottled(await svc.raw(app, 'GET', '/whoami.xml', { headers: { authorization: basicAuth(user.email, user.password) } }));
    expect(await sessionsOf(user)).toBe(0);
  });

  it('a session cookie beyond the bucket does not slide the session', async () => {
    const app = await svc.app();
    const user = await svc.user();
    // The user's budget is spent through a session of theirs.
    const login = await svc.raw(app, 'GET', '/ping.xml', { headers: { authorization: basicAuth(user.email, user.password) } });
    expect(login.status).toBe(200);
    await login.text();
    for (let i = 0; i < 5; i++) {
      const res = await svc.raw(app, 'GET', '/ping.xml', { headers: { cookie: sessionCookieOf(login)! } });
      expect(res.status).toBe(200);
      await res.text();
    }
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    const expires = new Date(Date.now() + 24 * 3600_000);
    const s = await sessionRow(user, expires, twoHoursAgo);
    await expectThrottled(await svc.raw(app, 'GET', '/whoami.xml', { headers: { cookie: s.cookie } }));
    const row = await svc.db.selectFrom('sessions').select(['last_seen_at', 'expires_at']).where('token_hash', '=', s.hash).executeTakeFirstOrThrow();
    expect(row).toEqual({ last_seen_at: twoHoursAgo.toISOString(), expires_at: expires.toISOString() });

    // Within the budget (another application), the same cookie does slide it.
    const app2 = await svc.app();
    const ok = await svc.raw(app2, 'GET', '/whoami.xml', { headers: { cookie: s.cookie } });
    expect(ok.status).toBe(200);
    await ok.text();
    const slid = await svc.db.selectFrom('sessions').select(['last_seen_at']).where('token_hash', '=', s.hash).executeTakeFirstOrThrow();
    expect(Date.parse(slid.last_seen_at)).toBeGreaterThan(twoHoursAgo.getTime());
  });

  it('an expired session cookie beyond the bucket deletes nothing; within it, the row goes', async () => {
    const app = await svc.app();
    const user = await svc.user();
    const s = await sessionRow(user, new Date(Date.now() - 1000), new Date(Date.now() - 31 * 24 * 3600_000));
    for (let i = 0; i < 5; i++) {
      const res = await svc.raw(app, 'GET', '/ping.xml');
      expect(res.status).toBe(200);
      await res.text();
    }
    await expectThrottled(await svc.raw(app, 'GET', '/whoami.xml', { headers: { cookie: s.cookie } }));
    expect(await sessionsOf(user)).toBe(1);

    const app2 = await svc.app();
    const r = await replyOf(await svc.raw(app2, 'GET', '/whoami.xml', { headers: { cookie: s.cookie } }));
    expect(r.status).toBe(401);
    expect(text(r.doc, 'error')).toMatch(/session/);
    expect(await sessionsOf(user)).toBe(0);
  });
});
