// Section 8 and client-compat: per application and user (address without a
// user), RateLimit-* on every reply, 429 with Retry-After.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { text } from '../../src/client/xml.js';
import { basicAuth, eachDatabase, serviceWithApp, sessionCookieOf, type TestApp, type TestService } from '../support/service.js';
import { replyOf } from '../support/xml.js';

eachDatabase((kind) => {
  let svc: TestService;
  let app: TestApp;
  beforeAll(async () => void ({ svc, app } = await serviceWithApp(kind, { RATE_LIMIT: '5/60s' })));
  afterAll(() => svc?.close());

  it('counts down, then answers 429 with Retry-After, per user', async () => {
    const user = await svc.user();
    // The Basic login is counted against the address (it has no session yet), later requests against the user.
    const login = await svc.raw(app, 'GET', '/whoami.xml', { headers: { authorization: basicAuth(user.email, user.password) } });
    const cookie = sessionCookieOf(login)!;
    expect(login.headers.get('ratelimit-limit')).toBe('5, 5;w=60');
    expect(login.headers.get('ratelimit-remaining')).toBe('4');
    const remaining: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await svc.raw(app, 'GET', '/whoami.xml', { headers: { cookie } });
      expect(res.status).toBe(200);
      remaining.push(res.headers.get('ratelimit-remaining')!);
      const reset = Number(res.headers.get('ratelimit-reset'));
      expect(reset).toBeGreaterThan(0);
      expect(reset).toBeLessThanOrEqual(120);
    }
    expect(remaining).toEqual(['4', '3', '2', '1', '0']);
    const throttled = await svc.raw(app, 'GET', '/whoami.xml', { headers: { cookie } });
    const r = await replyOf(throttled);
    expect(r.status).toBe(429);
    expect(text(r.doc, 'error-code')).toBe('rate_limited');
    const retry = Number(throttled.headers.get('retry-after'));
    expect(Number.isInteger(retry)).toBe(true);
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(120);
    expect(throttled.headers.get('ratelimit-remaining')).toBe('0');
    expect(throttled.headers.get('ratelimit-limit')).toBe('5, 5;w=60');

    // Another user of the same application logs in from the same address (its bucket again), then has a bucket of their own.
    const other = await svc.user();
    const otherLogin = await svc.raw(app, 'GET', '/whoami.xml', { headers: { authorization: basicAuth(other.email, other.password) } });
    expect(otherLogin.status).toBe(200);
    expect(otherLogin.headers.get('ratelimit-remaining')).toBe('3');
    const res = await svc.raw(app, 'GET', '/whoami.xml', { headers: { cookie: sessionCookieOf(otherLogin)! } });
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-remaining')).toBe('4');
  });

  it('a Basic login without a session spends the address budget, whether the account exists or not', async () => {
    const app3 = await svc.app();
    const user = await svc.user();
    const known = await svc.raw(app3, 'GET', '/ping.xml', { headers: { authorization: basicAuth(user.email, 'wrong password') } });
    const unknown = await svc.raw(app3, 'GET', '/ping.xml', { headers: { authorization: basicAuth('nobody-here@example.com', 'wrong password') } });
    expect([known.status, unknown.status]).toEqual([401, 401]);
    // One bucket for both: the headers do not tell which address has an account.
    expect([known.headers.get('ratelimit-remaining'), unknown.headers.get('ratelimit-remaining')]).toEqual(['4', '3']);
  });

  it('without a user the bucket is per address, and errors carry the headers too', async () => {
    const app2 = await svc.app();
    for (let i = 0; i < 5; i++) {
      const res = await svc.raw(app2, 'GET', '/ping.xml');
      expect(res.status).toBe(200);
    }
    const refused = await svc.raw(app2, 'GET', '/ping.xml');
    expect(refused.status).toBe(429);
    const unauth = await svc.raw(app2, 'GET', '/whoami.xml');
    expect(unauth.status).toBe(429);
    expect(unauth.headers.get('ratelimit-limit')).toBe('5, 5;w=60');
  });
});
