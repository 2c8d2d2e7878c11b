// Spec 5.2 and client-compat: Basic once, then the session cookie; 2FA with
// PASSWORD+CODE; a 401 changes nothing; wrong passwords are throttled.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { text } from '../../src/client/xml.js';
import { randomTotpSecret, totpCode } from '../../src/users/totp.js';
import { basicAuth, eachDatabase, serviceWithApp, sessionCookieOf, type TestApp, TestService, type TestUser } from '../support/service.js';
import { replyOf } from '../support/xml.js';

eachDatabase((kind) => {
  let svc: TestService;
  let app: TestApp;
  beforeAll(async () => void ({ svc, app } = await serviceWithApp(kind)));
  afterAll(() => svc?.close());

  const sessionCount = async () => Number((await svc.db.selectFrom('sessions').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

  it('Basic credentials on ping.xml open a session; the cookie alone then authenticates', async () => {
    const user = await svc.user({ firstName: 'Zoé' });
    const res = await svc.raw(app, 'GET', '/ping.xml', { headers: { authorization: basicAuth(user.email, user.password) } });
    expect(res.status).toBe(200);
    const setCookie = res.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/^_ficelle_session=[A-Za-z0-9_-]{20,}; /);
    expect(setCookie).toMatch(/Path=\//);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Lax/);
    expect(setCookie).not.toMatch(/Secure/);
    const who = await replyOf(await svc.raw(app, 'GET', '/whoami.xml', { headers: { cookie: sessionCookieOf(res)! } }));
    expect(who.status).toBe(200);
    expect(text(who.doc, 'user/email')).toBe(user.email);
    expect(text(who.doc, 'user/firstname')).toBe('Zoé');
    expect(text(who.doc, 'user/lastname')).toBe('User');
  });

  it('needs a user on whoami and ping_auth, not on ping', async () => {
    for (const path of ['/whoami.xml', '/ping_auth.xml', '/websites.xml', '/artists.xml']) {
      const r = await replyOf(await svc.raw(app, 'GET', path));
      expect(r.status).toBe(401);
      expect(text(r.doc, 'auth-method')).toBe('basic');
    }
    expect((await svc.raw(app, 'GET', '/ping.xml')).status).toBe(200);
  });

  it('a wrong password is a 401 with auth-method basic and changes nothing', async () => {
    const user = await svc.user();
    const before = await sessionCount();
    const res = await svc.raw(app, 'GET', '/ping.xml', { headers: { authorization: basicAuth(user.email, 'wrong-password') } });
    const r = await replyOf(res);
    expect(r.status).toBe(401);
    expect(text(r.doc, 'auth-method')).toBe('basic');
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(await sessionCount()).toBe(before);
    const unknown = await replyOf(await svc.raw(app, 'GET', '/whoami.xml', { headers: { authorization: basicAuth('nobody@example.com', 'x') } }));
    expect(unknown.status).toBe(401);
    expect(text(unknown.doc, 'error')).toBe(text(r.doc, 'error'));
  });

  it('logout ends the session', async () => {
    const user = await svc.user();
    const login = await svc.raw(app, 'GET', '/whoami.xml', { headers: { authorization: basicAuth(user.email, user.password) } });
    const cookie = sessionCookieOf(login)!;
    expect((await svc.raw(app, 'GET', '/whoami.xml', { headers: { cookie } })).status).toBe(200);
    const out = await svc.raw(app, 'GET', '/logout.xml', { headers: { cookie } });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/_ficelle_session=;.*Max-Age=0/);
    const after = await replyOf(await svc.raw(app, 'GET', '/whoami.xml', { headers: { cookie } }));
    expect(after.status).toBe(401);
    expect(text(after.doc, 'error')).toMatch(/session/);
  });

  it('every user has at least one media library', async () => {
    const user = await svc.user();
    const c = svc.client(app, user);
    const r = await c.artists('details');
    expect(text(r.doc, 'artists/artist/uuid')).toBe(user.defaultArtistUuid);
    expect(text(r.doc, 'artists/artist/name')).toBeTruthy();
  });

  describe('two-factor authentication', () => {
    let user: TestUser;
    let secret: string;
    beforeAll(async () => {
      secret = randomTotpSecret();
      user = await svc.user({ otpSecret: secret });
    });

    it('asks for the code with auth-method basic:password+otp, without a session', async () => {
      const before = await sessionCount();
      const res = await svc.raw(app, 'GET', '/ping.xml', { headers: { authorization: basicAuth(user.email, user.password) } });
      const r = await replyOf(res);
      expect(r.status).toBe(401);
      expect(text(r.doc, 'auth-method')).toBe('basic:password+otp');
      expect(res.headers.get('set-cookie')).toBeNull();
      expect(await sessionCount()).toBe(before);
    });

    it('accepts PASSWORD+CODE once, sets the cookie, and refuses the same code again', async () => {
      const code = totpCode(secret);
      const res = await svc.raw(app, 'GET', '/whoami.xml', { headers: { authorization: basicAuth(user.email, `${user.password}+${code}`) } });
      expect(res.status).toBe(200);
      const cookie = sessionCookieOf(res)!;
      expect(cookie).toMatch(/^_ficelle_session=/);
      expect((await svc.raw(app, 'GET', '/whoami.xml', { headers: { cookie } })).status).toBe(200);
      const again = await replyOf(await svc.raw(app, 'GET', '/whoami.xml', { headers: { authorization: basicAuth(user.email, `${user.password}+${code}`) } }));
      expect(again.status).toBe(401);
      expect(text(again.doc, 'auth-method')).toBe('basic:password+otp');
    });

    it('tolerates one step of drift, not two', async () => {
      const u = await svc.user({ otpSecret: secret });
      const twoAgo = totpCode(secret, Date.now() - 60_000);
      const current = totpCode(secret);
      if (twoAgo !== current) {
        const r = await replyOf(await svc.raw(app, 'GET', '/whoami.xml', { headers: { authorization: basicAuth(u.email, `${u.password}+${twoAgo}`) } }));
        expect(r.status).toBe(401);
      }
      const oneAhead = totpCode(secret, Date.now() + 30_000);
      expect((await svc.raw(app, 'GET', '/whoami.xml', { headers: { authorization: basicAuth(u.email, `${u.password}+${oneAhead}`) } })).status).toBe(200);
    });

    it('a wrong code or wrong password with a code answers basic:password+otp', async () => {
      const u = await svc.user({ otpSecret: secret });
      const wrongCode = (Number(totpCode(secret)) + 1) % 1_000_000;
      const r1 = await replyOf(await svc.raw(app, 'GET', '/whoami.xml', { headers: { authorization: basicAuth(u.email, `${u.password}+${String(wrongCode).padStart(6, '0')}`) } }));
      expect(r1.status).toBe(401);
      expect(text(r1.doc, 'auth-method')).toBe('basic:password+otp');
      const r2 = await replyOf(await svc.raw(app, 'GET', '/whoami.xml', { headers: { authorization: basicAuth(u.email, `nope+${totpCode(secret)}`) } }));
      expect(r2.status).toBe(401);
    });

    it('the SDK asks for the code and resends the same request', async () => {
      const u = await svc.user({ otpSecret: secret });
      let asked = 0;
      const c = svc.client(app, u, { otp: () => { asked++; return totpCode(secret, Date.now() + 30_000); } });
      const r = await c.whoami();
      expect(text(r.doc, 'user/email')).toBe(u.email);
      expect(asked).toBe(1);
    });
  });

  it('throttles repeated wrong passwords per account, even when the right one follows', async () => {
    const user = await svc.user();
    for (let i = 0; i < 10; i++) {
      expect((await svc.raw(app, 'GET', '/whoami.xml', { headers: { authorization: basicAuth(user.email, `wrong-${i}`) } })).status).toBe(401);
    }
    const res = await svc.raw(app, 'GET', '/whoami.xml', { headers: { authorization: basicAuth(user.email, user.password) } });
    const r = await replyOf(res);
    expect(r.status).toBe(429);
    expect(text(r.doc, 'error-code')).toBe('login_throttled');
    const retry = Number(res.headers.get('retry-after'));
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(120);
    // Another account from the same address is not locked out by it.
    const other = await svc.user();
    expect((await svc.raw(app, 'GET', '/whoami.xml', { headers: { authorization: basicAuth(other.email, other.password) } })).status).toBe(200);
  });
});

eachDatabase((kind) => {
  describe('cookies over https', () => {
    it('are Secure when PUBLIC_URL is https', async () => {
      const svc = await TestService.start(kind, { PUBLIC_URL: 'https://photos.example.com' });
      try {
        const app = await svc.app();
        const user = await svc.user();
        const res = await svc.raw(app, 'GET', '/ping.xml', { headers: { authorization: basicAuth(user.email, user.password) } });
        expect(res.headers.get('set-cookie')).toMatch(/; Secure/);
      } finally {
        await svc.close();
      }
    });
  });
});
