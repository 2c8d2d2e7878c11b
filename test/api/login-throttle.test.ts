// docs/conventions.md "Throttling wrong passwords": the limits hold under
// concurrency — every attempt is counted before its password is checked.
import { randomInt } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { text } from '../../src/client/xml.js';
import { randomTotpSecret, totpCode } from '../../src/users/totp.js';
import { basicAuth, eachDatabase, REDIS_URL, TestService, type DbKind, type TestApp, type TestUser } from '../support/service.js';
import { replyOf } from '../support/xml.js';
import { StudioBrowser } from '../studio/studio-support.js';

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

  it("a success clears the pair's count (the address is the account's from then on); successes do not count against the address", async () => {
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

// Targeted lockout (issue 29): strangers' wrong passwords spend the account's budget, which then
// refuses only addresses and browsers that never signed in to it; each (account, address) pair
// has a budget of its own. Addresses come through X-Forwarded-For (TRUST_PROXY=1), random ones
// per test, so that counters kept in a shared Redis never meet another test's.
const address = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

function targetedLockout(kind: DbKind, env: Record<string, string>) {
  let svc: TestService | undefined;
  afterEach(async () => {
    await svc?.close();
    svc = undefined;
  });

  /** One Basic login through the API from `ip`: status and error code. */
  async function login(app: TestApp, login: string, password: string, ip: string): Promise<{ status: number; code: string }> {
    const res = await svc!.raw(app, 'GET', '/whoami.xml', { headers: { authorization: basicAuth(login, password), 'x-forwarded-for': ip } });
    const r = await replyOf(res);
    return { status: r.status, code: text(r.doc, 'error-code') ?? '' };
  }

  it("ten strangers' wrong passwords lock the stranger out, not the owner at an address they signed in from; other strangers' addresses are refused", async () => {
    svc = await TestService.start(kind, { TRUST_PROXY: '1', ...env });
    const app = await svc.app();
    const owner = await svc.user();
    const [home, attacker, elsewhere, other] = [address(), address(), address(), address()];
    expect((await login(app, owner.email, owner.password, home)).status).toBe(200);
    for (let i = 0; i < 10; i++) expect((await login(app, owner.email, `wrong-${i}`, attacker)).status, `attempt ${i}`).toBe(401);
    // The stranger's pair is spent.
    expect(await login(app, owner.email, owner.password, attacker)).toEqual({ status: 429, code: 'login_throttled' });
    // The owner at home: in, and a typo there is theirs to make.
    expect((await login(app, owner.email, owner.password, home)).status).toBe(200);
    expect((await login(app, owner.email, 'a typo', home)).status).toBe(401);
    expect((await login(app, owner.email, owner.password, home)).status).toBe(200);
    // An address that never signed in to the account meets the spent account budget, right password or not.
    expect(await login(app, owner.email, owner.password, elsewhere)).toEqual({ status: 429, code: 'login_throttled' });
    expect(await login(app, owner.email, 'guess', other)).toEqual({ status: 429, code: 'login_throttled' });
  });

  it("the API's password + code path follows the same rule", async () => {
    svc = await TestService.start(kind, { TRUST_PROXY: '1', ...env });
    const app = await svc.app();
    const secret = randomTotpSecret();
    const owner = await svc.user({ otpSecret: secret });
    const [home, attacker, elsewhere] = [address(), address(), address()];
    expect((await login(app, owner.email, `${owner.password}+${totpCode(secret)}`, home)).status).toBe(200);
    for (let i = 0; i < 10; i++) expect((await login(app, owner.email, `wrong-${i}+123456`, attacker)).status, `attempt ${i}`).toBe(401);
    expect((await login(app, owner.email, `wrong+123456`, attacker)).code).toBe('login_throttled');
    // At home: asked for the code (no attempt spent), then in with the next one.
    expect(await login(app, owner.email, owner.password, home)).toEqual({ status: 401, code: 'otp_required' });
    expect((await login(app, owner.email, `${owner.password}+${totpCode(secret, Date.now() + 30_000)}`, home)).status).toBe(200);
    // Elsewhere: throttled before the code is even asked for.
    expect(await login(app, owner.email, owner.password, elsewhere)).toEqual({ status: 429, code: 'login_throttled' });
  });

  it('the studio: a browser that signed in to the account before (its device cookie) gets in from a new address; a new browser there does not; at home it does', async () => {
    svc = await TestService.start(kind, { TRUST_PROXY: '1', ...env });
    const app = await svc.app();
    const owner = await svc.user();
    const [home, attacker, cafe, hotel] = [address(), address(), address(), address()];
    const laptop = new StudioBrowser(svc);
    expect((await laptop.signInWith(owner.email, owner.password, { 'x-forwarded-for': home })).status).toBe(303);
    await laptop.submit('/studio/account', '/studio/signout', {});
    // The stranger goes through the API: one throttle for both faces.
    for (let i = 0; i < 10; i++) expect((await login(app, owner.email, `wrong-${i}`, attacker)).status).toBe(401);
    expect((await new StudioBrowser(svc).signInWith(owner.email, owner.password, { 'x-forwarded-for': cafe })).status).toBe(429);
    expect((await laptop.signInWith(owner.email, owner.password, { 'x-forwarded-for': cafe })).status).toBe(303);
    // Signed in from there, the café is now an address of the account's; the hotel is not.
    expect((await new StudioBrowser(svc).signInWith(owner.email, owner.password, { 'x-forwarded-for': cafe })).status).toBe(303);
    expect((await new StudioBrowser(svc).signInWith(owner.email, owner.password, { 'x-forwarded-for': hotel })).status).toBe(429);
    expect((await new StudioBrowser(svc).signInWith(owner.email, owner.password, { 'x-forwarded-for': home })).status).toBe(303);
    // A device cookie is the account's: a forged or another account's is a new browser.
    const stranger = new StudioBrowser(svc);
    stranger.jar.set('studio_device', `${owner.id}.AAAAAAAAAAAAAAAAAAAAAA.${'A'.repeat(43)}`);
    expect((await stranger.signInWith(owner.email, owner.password, { 'x-forwarded-for': hotel })).status).toBe(429);
  });
}

eachDatabase((kind) => describe('targeted lockout', () => targetedLockout(kind, {})));
describe.skipIf(!REDIS_URL)('targeted lockout, counters in Redis', () => targetedLockout('sqlite', { REDIS_URL: REDIS_URL! }));
