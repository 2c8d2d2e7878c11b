// docs/conventions.md "Throttling wrong passwords": the limits hold under
// concurrency — every attempt is counted before its password is checked.
import { afterEach, expect, it } from 'vitest';
import { text } from '../../src/client/xml.js';
import { randomTotpSecret } from '../../src/users/totp.js';
import { basicAuth, eachDatabase, TestService, type TestApp, type TestUser } from '../support/service.js';
import { replyOf } from '../support/xml.js';

eachDatabase((kind) => {
  // A fresh service per test: the per-address counter (all tests come from 127.0.0.1) starts at 0.
  let svc: TestService | undefined;
  afterEach(async () => {
    await svc?.close();
    svc = undefined;
  });

  async function attempt(app: TestApp, login: string, password: string): Promise<{ status: number; code: string; retryAfter: string | null; setCookie: string | null }> {
    const res = await svc!.raw(app, 'GET', '/whoami.xml', { headers: { authorization: basicAuth(login, password) } });
    const r = await replyOf(res);
    return { status: r.status, code: text(r.doc, 'error-code') ?? '', retryAfter: res.headers.get('retry-after'), setCookie: res.headers.get('set-cookie') };
  }

  /** A fresh service with an application and a user. */
  async function fresh(user: Parameters<TestService['user']>[0] = {}): Promise<{ svc: TestService; app: TestApp; user: TestUser }> {
    const started = (svc = await TestService.start(kind));
    return { svc: started, app: await started.app(), user: await started.user(user) };
  }

  /** A login with the right password, expected to succeed. */
  async function logIn(app: TestApp, user: TestUser, path = '/whoami.xml', label = 'login'): Promise<void> {
    const ok = await svc!.raw(app, 'GET', path, { headers: { authorization: basicAuth(user.email, user.password) } });
    expect(ok.status, label).toBe(200);
    await ok.text();
  }

  /** Even the right password is refused while the window lasts. */
  async function expectThrottled(app: TestApp, user: TestUser): Promise<void> {
    const right = await attempt(app, user.email, user.password);
    expect(right.status).toBe(429);
    expect(right.code).toBe('login_throttled');
  }

  function tally(results: { status: number; code: string; retryAfter: string | null; setCookie: string | null }[]) {
    for (const r of results) {
      expect(r.setCookie).toBeNull();
      if (r.status === 401) expect(r.code).toBe('invalid_credentials');
      if (r.status === 429) {
        expect(r.code).toBe('login_throttled');
        expect(Number(r.retryAfter)).toBeGreaterThan(0);
      }
    }
    return { refused: results.filter((r) => r.status === 401).length, throttled: results.filter((r) => r.status === 429).length };
  }

  it('60 simultaneous wrong passwords for one account: exactly 10 are checked (401), 50 throttled (429)', async () => {
    const { app, user } = await fresh();
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => attempt(app, user.email, `wrong-${i}`)));
    expect(tally(results)).toEqual({ refused: 10, throttled: 50 });
    // The right password does not get through either until the window passes.
    await expectThrottled(app, user);
  });

  it('20 simultaneous right passwords for one account all log in: only failures count', async () => {
    const { svc, app, user } = await fresh();
    const results = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const res = await svc.raw(app, 'GET', '/whoami.xml', { headers: { authorization: basicAuth(user.email, user.password) } });
        await res.text();
        return { status: res.status, cookie: res.headers.get('set-cookie') !== null };
      }),
    );
    expect(results.filter((r) => r.status === 200 && r.cookie)).toHaveLength(20);
  });

  it('72 simultaneous wrong passwords over 8 accounts from one address: exactly 50 checked, 22 throttled', async () => {
    const { svc, app, user: first } = await fresh();
    const users: TestUser[] = [first];
    for (let i = 1; i < 8; i++) users.push(await svc.user());
    // 9 per account: under the per-account limit, so only the per-address one applies.
    const results = await Promise.all(users.flatMap((u) => Array.from({ length: 9 }, (_, i) => attempt(app, u.email, `wrong-${i}`))));
    expect(tally(results)).toEqual({ refused: 50, throttled: 22 });
    await expectThrottled(app, await svc.user());
  });

  it('a success clears the account counter; successes do not count against the address', async () => {
    const { svc, app, user } = await fresh();
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 9; i++) expect((await attempt(app, user.email, `wrong-${round}-${i}`)).status).toBe(401);
      await logIn(app, user);
    }
    // 27 failures so far from this address; 60 successful logins of other users leave it there.
    const others: TestUser[] = [];
    for (let i = 0; i < 3; i++) others.push(await svc.user());
    for (let i = 0; i < 60; i++) await logIn(app, others[i % others.length], '/ping.xml', `login ${i}`);
  });

  it('a two-factor account without a code is asked for it, and that costs no attempt', async () => {
    const { app, user } = await fresh({ otpSecret: randomTotpSecret() });
    const asked = await Promise.all(Array.from({ length: 20 }, () => attempt(app, user.email, user.password)));
    for (const r of asked) {
      expect(r.status).toBe(401);
      expect(r.code).toBe('otp_required');
    }
    // All 10 attempts are still there for the account.
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => attempt(app, user.email, `wrong-${i}+000000`)));
    expect(tally(results)).toEqual({ refused: 10, throttled: 2 });
    // Once throttled, a missing code is throttled as well.
    expect((await attempt(app, user.email, user.password)).code).toBe('login_throttled');
  });
});
