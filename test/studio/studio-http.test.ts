// The studio over HTTP (docs/studio.md), on SQLite and PostgreSQL: sign-in on the API's
// throttle and second factor, its cookie, CSRF on every post, the API's 404 rule for another
// owner's website, and a change made in the studio read back through the signed API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { all, find, text } from '../../src/client/xml.js';
import { verifyPassword } from '../../src/users/passwords.js';
import { randomTotpSecret, totpCode } from '../../src/users/totp.js';
import { basicAuth, eachDatabase, sessionCookieOf } from '../support/service.js';
import { startWorld, type World } from '../support/world.js';
import { uploadLogo } from '../site/brand-support.js';
import { waitForRenditions } from '../site/site-support.js';
import { fieldError, StudioBrowser } from './studio-support.js';

eachDatabase((kind) => {
  let w: World;
  beforeAll(async () => {
    w = await startWorld(kind);
  });
  afterAll(() => w?.svc.close());

  const apiTitle = async () => text(find((await w.client.request('GET', `/websites/${w.urlname}.xml`)).doc, 'website')!, 'title');

  describe('sign-in', () => {
    it('signs in with e-mail and password, with a cookie of its own, and lists the websites', async () => {
      const b = new StudioBrowser(w.svc);
      const form = await b.get('/studio/signin');
      expect(form.status).toBe(200);
      expect(form.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(form.headers.get('content-security-policy')).toContain("style-src 'self'");
      expect(form.body).not.toMatch(/<script|style=/);
      const res = await b.post('/studio/signin', { csrf: StudioBrowser.csrf(form), email: w.user.email.toUpperCase(), password: w.user.password });
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('/studio/websites');
      const cookie = res.setCookies.find((c) => c.startsWith('studio_session='))!;
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Strict/);
      expect(cookie).toMatch(/Path=\/studio/);
      const list = await b.get('/studio/websites');
      expect(list.status).toBe(200);
      expect(list.body).toContain(`/studio/websites/${w.urlname}`);
      expect(list.body).toContain(`/sites/${w.urlname}`);
      // The stylesheet at its content-hashed address, cached for ever.
      const css = /href="(\/studio\/_assets\/[A-Za-z0-9_-]+\.css)"/.exec(list.body)![1];
      const asset = await fetch(w.svc.url + css);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    });

    it('refuses a wrong password with the form again, and no session', async () => {
      const b = new StudioBrowser(w.svc);
      const res = await b.signInWith(w.user.email, 'not-the-password');
      expect(res.status).toBe(401);
      expect(res.body).toContain('The e-mail address or the password is not right.');
      expect(b.jar.has('studio_session')).toBe(false);
      expect((await b.get('/studio/websites')).status).toBe(303);
    });

    it('answers 429 once the API login throttle of the account is spent, even for the right password', async () => {
      const user = await w.svc.user();
      const b = new StudioBrowser(w.svc);
      for (let i = 0; i < 10; i++) expect((await b.signInWith(user.email, `wrong-${i}`)).status).toBe(401);
      const refused = await b.signInWith(user.email, user.password);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      // The same counter as the API's Basic login.
      const api = await w.svc.raw(w.app, 'GET', '/whoami.xml', { headers: { authorization: basicAuth(user.email, user.password) } });
      expect(api.status).toBe(429);
    });

    it('asks a two-factor user for the code, refuses a wrong one, and signs in with the right one', async () => {
      const secret = randomTotpSecret();
      const user = await w.svc.user({ otpSecret: secret });
      const b = new StudioBrowser(w.svc);
      const step1 = await b.signInWith(user.email, user.password);
      expect(step1.status).toBe(200);
      expect(step1.body).toContain('name="code"');
      expect(b.jar.has('studio_session')).toBe(false);
      expect((await b.get('/studio/websites')).status).toBe(303);
      const wrong = await b.post('/studio/signin/code', { csrf: StudioBrowser.csrf(step1), code: totpCode(secret) === '000000' ? '111111' : '000000' });
      expect(wrong.status).toBe(401);
      expect(b.jar.has('studio_session')).toBe(false);
      const right = await b.post('/studio/signin/code', { csrf: StudioBrowser.csrf(wrong), code: totpCode(secret) });
      expect(right.status).toBe(303);
      expect(b.jar.has('studio_session')).toBe(true);
      expect((await b.get('/studio/websites')).status).toBe(200);
      // The code step without a right password first is refused.
      const other = new StudioBrowser(w.svc);
      const form = await other.get('/studio/signin');
      expect((await other.post('/studio/signin/code', { csrf: StudioBrowser.csrf(form), code: totpCode(secret) })).status).toBe(401);
    });
  });

  describe('second factor and current passwords (issue 29)', () => {
    /** Signs a two-factor user in with the code of `at`; the browser. */
    const signInWithCode = async (user: { email: string; password: string }, secret: string, at = Date.now()) => {
      const b = new StudioBrowser(w.svc);
      const step1 = await b.signInWith(user.email, user.password);
      expect(step1.status).toBe(200);
      expect((await b.post('/studio/signin/code', { csrf: StudioBrowser.csrf(step1), code: totpCode(secret, at) })).status).toBe(303);
      return b;
    };
    const apiSession = async (user: { email: string; password: string }) => sessionCookieOf(await w.svc.raw(w.app, 'GET', '/whoami.xml', { headers: { authorization: basicAuth(user.email, user.password) } }))!;
    const whoamiWith = async (cookie: string) => (await w.svc.raw(w.app, 'GET', '/whoami.xml', { headers: { cookie } })).status;

    it('a session cannot replace an active second factor: a new secret is refused while one is on, and the old one still signs in', async () => {
      const old = randomTotpSecret();
      const user = await w.svc.user({ otpSecret: old });
      const b = await signInWithCode(user, old);
      // The enrolment screen is not offered, and its post is refused even with the password and a right code of the new secret.
      expect((await b.get('/studio/account/two-factor')).status).toBe(303);
      const fresh = randomTotpSecret();
      const res = await b.submit('/studio/account', '/studio/account/two-factor', { secret: fresh, password: user.password, code: totpCode(fresh) });
      expect(res.status).toBe(422);
      expect(res.body).toContain('turn it off first');
      // The old secret is still the one asked for.
      const api = await w.svc.raw(w.app, 'GET', '/whoami.xml', { headers: { authorization: basicAuth(user.email, `${user.password}+${totpCode(old, Date.now() + 30_000)}`) } });
      expect(api.status).toBe(200);
    });

    it('turning a second factor on needs the password; off needs the password and a current code; each ends the other sessions', async () => {
      const user = await w.svc.user();
      const b = await new StudioBrowser(w.svc).signIn(user);
      const other = await new StudioBrowser(w.svc).signIn(user);
      const api = await apiSession(user);
      const page = await b.get('/studio/account/two-factor');
      expect(page.body).toContain('name="password"');
      const secret = /name="secret" value="([A-Z2-7]+)"/.exec(page.body)![1];
      // Without the password, or with a wrong one: refused, nothing changed.
      expect((await b.post('/studio/account/two-factor', { csrf: StudioBrowser.csrf(page), secret, code: totpCode(secret) })).status).toBe(422);
      const wrong = await b.post('/studio/account/two-factor', { csrf: StudioBrowser.csrf(page), secret, password: 'not-the-password', code: totpCode(secret) });
      expect(wrong.status).toBe(422);
      expect(wrong.body).toContain('password');
      expect((await other.get('/studio/account')).body).toContain('Two-factor sign-in is off');
      // On: this session stays, the others (studio and API) end.
      expect((await b.post('/studio/account/two-factor', { csrf: StudioBrowser.csrf(page), secret, password: user.password, code: totpCode(secret) })).status).toBe(303);
      expect((await b.get('/studio/account')).status).toBe(200);
      expect((await other.get('/studio/account')).status).toBe(303);
      expect(await whoamiWith(api)).toBe(401);
      // Off: the password alone is not enough, nor a wrong code.
      const later = totpCode(secret, Date.now() + 30_000);
      // Other sessions again (made directly: the codes of this step and the last are spent).
      const other2 = new StudioBrowser(w.svc);
      other2.jar.set('studio_session', await w.svc.service.sessions.create(user.id));
      expect((await other2.get('/studio/account')).status).toBe(200);
      const api2 = `_ficelle_session=${await w.svc.service.sessions.create(user.id)}`;
      expect(await whoamiWith(api2)).toBe(200);
      const noCode = await b.submit('/studio/account', '/studio/account/two-factor/off', { password: user.password });
      expect(noCode.status).toBe(422);
      expect((await b.submit('/studio/account', '/studio/account/two-factor/off', { password: user.password, code: later === '000000' ? '111111' : '000000' })).status).toBe(422);
      expect((await b.get('/studio/account')).body).toContain('Two-factor sign-in is on');
      expect((await b.submit('/studio/account', '/studio/account/two-factor/off', { password: user.password, code: totpCode(secret, Date.now() + 30_000) })).status).toBe(303);
      expect((await b.get('/studio/account')).body).toContain('Two-factor sign-in is off');
      expect((await other2.get('/studio/account')).status).toBe(303);
      expect(await whoamiWith(api2)).toBe(401);
    });

    it("the current-password checks of the account screens count on the login throttle: 10 wrong ones lock them and the account's sign-in from that address", async () => {
      const user = await w.svc.user();
      const b = await new StudioBrowser(w.svc).signIn(user);
      for (let i = 0; i < 10; i++) {
        const res = await b.submit('/studio/account', '/studio/account/password', { current: `wrong-${i}`, next: 'a-new-password-1' });
        expect(res.status, `attempt ${i}`).toBe(422);
      }
      const locked = await b.submit('/studio/account', '/studio/account/password', { current: user.password, next: 'a-new-password-1' });
      expect(locked.status).toBe(429);
      expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await b.get('/studio/account/two-factor')).status).toBe(200);
      const page = await b.get('/studio/account/two-factor');
      const secret = /name="secret" value="([A-Z2-7]+)"/.exec(page.body)![1];
      expect((await b.post('/studio/account/two-factor', { csrf: StudioBrowser.csrf(page), secret, password: user.password, code: totpCode(secret) })).status).toBe(429);
      // The same counters as the sign-in: this address is refused for the account.
      expect((await new StudioBrowser(w.svc).signInWith(user.email, user.password)).status).toBe(429);
      // The password did not change.
      expect(await verifyPassword((await w.svc.core.users.byEmail(user.email))!.password_hash, user.password)).toBe(true);
    });
  });

  describe('changes', () => {
    let b: StudioBrowser;
    beforeAll(async () => {
      b = await new StudioBrowser(w.svc).signIn(w.user);
    });

    it('refuses a post without the token, with a foreign Origin, or from another site, and changes nothing', async () => {
      const before = await apiTitle();
      const page = await b.get(`/studio/websites/${w.urlname}`);
      const csrf = StudioBrowser.csrf(page);
      const noToken = await b.post(`/studio/websites/${w.urlname}`, { title: 'Hijacked' });
      expect(noToken.status).toBe(403);
      expect(noToken.headers.get('content-type')).toContain('text/html');
      const wrongToken = await b.post(`/studio/websites/${w.urlname}`, { csrf: csrf.slice(0, -2) + 'xx', title: 'Hijacked' });
      expect(wrongToken.status).toBe(403);
      expect((await b.post(`/studio/websites/${w.urlname}`, { csrf, title: 'Hijacked' }, { origin: 'https://evil.example' })).status).toBe(403);
      expect((await b.post(`/studio/websites/${w.urlname}`, { csrf, title: 'Hijacked' }, { site: 'cross-site' })).status).toBe(403);
      expect((await b.post('/studio/signout-everywhere', {})).status).toBe(403);
      // Another session's token is not this one's.
      const other = await new StudioBrowser(w.svc).signIn(w.user);
      const otherCsrf = StudioBrowser.csrf(await other.get('/studio/account'));
      expect((await b.post(`/studio/websites/${w.urlname}`, { csrf: otherCsrf, title: 'Hijacked' })).status).toBe(403);
      expect(await apiTitle()).toBe(before);
      // The sign-in form has its own token too.
      expect((await new StudioBrowser(w.svc).post('/studio/signin', { email: w.user.email, password: w.user.password })).status).toBe(403);
    });

    it("answers another owner's website with the 404 page, as the API does", async () => {
      const stranger = await w.svc.user();
      const theirs = await w.svc.website(stranger);
      const page = await b.get(`/studio/websites/${theirs.urlname}`);
      expect(page.status).toBe(404);
      expect(page.body).toContain('Not found');
      const csrf = StudioBrowser.csrf(await b.get('/studio/account'));
      expect((await b.post(`/studio/websites/${theirs.urlname}`, { csrf, title: 'Mine now' })).status).toBe(404);
      expect((await b.get(`/studio/websites/${theirs.urlname}/pages`)).status).toBe(404);
      expect((await b.get('/studio/websites/no-such-site')).status).toBe(404);
      expect((await b.get('/studio/websites/Not_A_Name')).status).toBe(404);
    });

    it('saves the settings through the websites service: the signed API answers the same', async () => {
      const logo = await uploadLogo(w);
      await waitForRenditions(w, [logo]);
      const page = await b.get(`/studio/websites/${w.urlname}`);
      expect(page.body).toContain(`value="${logo}"`);
      expect(page.body).toContain(`<img src="/studio/thumbs/${logo}" alt `);
      // The thumbnail of an image not yet public, for its owner only.
      const thumb = await b.get(`/studio/thumbs/${logo}`);
      expect(thumb.status).toBe(200);
      expect(thumb.headers.get('content-type')).toMatch(/^image\//);
      const stranger = await new StudioBrowser(w.svc).signIn(await w.svc.user());
      expect((await stranger.get(`/studio/thumbs/${logo}`)).status).toBe(404);
      expect((await new StudioBrowser(w.svc).get(`/studio/thumbs/${logo}`)).status).toBe(303);
      const res = await b.post(`/studio/websites/${w.urlname}`, {
        csrf: StudioBrowser.csrf(page),
        title: 'Ann Lee <Studio>',
        tagline: 'Weddings & portraits',
        theme: 'editorial',
        color_scheme: 'dark',
        accent_color: '#C2410C',
        credit: 'Photographs by Ann Lee',
        copyright: '© 2026 Ann Lee',
        contact_email: 'ann@example.com',
        social_links: 'https://www.instagram.com/annlee\r\nhttps://example.org/blog\r\n',
        logo,
        favicon: '',
      });
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe(`/studio/websites/${w.urlname}?done=saved`);
      const s = find((await w.client.request('GET', `/websites/${w.urlname}.xml`)).doc, 'website')!;
      expect(text(s, 'title')).toBe('Ann Lee <Studio>');
      expect(text(s, 'tagline')).toBe('Weddings & portraits');
      expect(text(s, 'theme')).toBe('editorial');
      expect(text(s, 'color-scheme')).toBe('dark');
      expect(text(s, 'accent-color')).toBe('#c2410c');
      expect(text(s, 'credit')).toBe('Photographs by Ann Lee');
      expect(text(s, 'contact-email')).toBe('ann@example.com');
      expect(text(s, 'logo')).toBe(logo);
      expect(all(s, 'social-links/social-link').map((n) => n.text)).toEqual(['https://www.instagram.com/annlee', 'https://example.org/blog']);
      const again = await b.get(res.headers.get('location')!);
      expect(again.body).toContain('value="Ann Lee &lt;Studio>"');
      expect(again.body).toContain('Saved.');
    });

    it('shows the service’s 422 next to the field and changes nothing', async () => {
      const before = await apiTitle();
      const page = await b.get(`/studio/websites/${w.urlname}`);
      const res = await b.post(`/studio/websites/${w.urlname}`, { csrf: StudioBrowser.csrf(page), title: 'Changed?', accent_color: 'red' });
      expect(res.status).toBe(422);
      expect(fieldError(res.body, 'accent_color')).toMatch(/#rrggbb/);
      expect(res.body).toContain('value="Changed?"');
      expect(await apiTitle()).toBe(before);
      const blank = await b.post(`/studio/websites/${w.urlname}`, { csrf: StudioBrowser.csrf(page), title: '  ' });
      expect(blank.status).toBe(422);
      expect(fieldError(blank.body, 'title')).toMatch(/blank/);
      const notMine = await b.post(`/studio/websites/${w.urlname}`, { csrf: StudioBrowser.csrf(page), logo: '00000000-0000-4000-8000-000000000000' });
      expect(notMine.status).toBe(422);
      expect(fieldError(notMine.body, 'logo')).toBeTruthy();
    });

    it('creates, edits and deletes a Markdown page, as the API sees it', async () => {
      const base = `/studio/websites/${w.urlname}`;
      const created = await b.submit(`${base}/new-page`, `${base}/new-page`, { slug: 'about', title: 'About me', body: '# Hello\n\nI *photograph* weddings.', position: '2' });
      expect(created.status).toBe(303);
      let pages = await w.client.request('GET', `/websites/${w.urlname}/pages.xml`);
      expect(all(pages.doc, 'pages/page').map((p) => text(p, 'slug'))).toEqual(['about']);
      const dup = await b.submit(`${base}/new-page`, `${base}/new-page`, { slug: 'about', title: 'Again' });
      expect(dup.status).toBe(422);
      const badSlug = await b.submit(`${base}/new-page`, `${base}/new-page`, { slug: 'Not a slug!', title: 'X' });
      expect(badSlug.status).toBe(422);
      expect(fieldError(badSlug.body, 'slug')).toBeTruthy();
      const edited = await b.submit(`${base}/pages/about`, `${base}/pages/about`, { title: 'About', body: 'Short.', position: '1' });
      expect(edited.status).toBe(303);
      const one = find((await w.client.request('GET', `/websites/${w.urlname}/pages/about.xml`)).doc, 'page')!;
      expect(text(one, 'title')).toBe('About');
      expect((await b.get(`${base}/pages/nope`)).status).toBe(404);
      const deleted = await b.submit(`${base}/pages/about`, `${base}/pages/about/delete`, {});
      expect(deleted.status).toBe(303);
      pages = await w.client.request('GET', `/websites/${w.urlname}/pages.xml`);
      expect(all(pages.doc, 'pages/page')).toHaveLength(0);
    });
  });

  describe('the rate limits', () => {
    let r: World;
    beforeAll(async () => {
      r = await startWorld(kind, { RATE_LIMIT: '8/60s', STUDIO_RATE_LIMIT: '5/60s' });
    });
    afterAll(() => r?.svc.close());

    it('counts studio requests per session (the API budget per address before sign-in) and answers 429 with its headers', async () => {
      const b = new StudioBrowser(r.svc);
      const first = await b.get('/studio/signin');
      expect(first.headers.get('ratelimit-limit')).toBe('8, 8;w=60');
      await b.post('/studio/signin', { csrf: StudioBrowser.csrf(first), email: r.user.email, password: r.user.password });
      let last = first;
      for (let i = 0; i < 12 && last.status !== 429; i++) last = await b.get('/studio/websites');
      expect(last.status).toBe(429);
      expect(last.headers.get('ratelimit-limit')).toBe('5, 5;w=60');
      expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(last.body).toContain('Too many requests');
    });
  });

  describe('account', () => {
    it('changes the password (the current one required) and ends the other sessions, the API’s too', async () => {
      const user = await w.svc.user();
      const apiLogin = await w.svc.raw(w.app, 'GET', '/whoami.xml', { headers: { authorization: basicAuth(user.email, user.password) } });
      const apiCookie = sessionCookieOf(apiLogin)!;
      const b = await new StudioBrowser(w.svc).signIn(user);
      const wrong = await b.submit('/studio/account', '/studio/account/password', { current: 'nope', next: 'a-long-new-password' });
      expect(wrong.status).toBe(422);
      expect(fieldError(wrong.body, 'current')).toBeTruthy();
      const short = await b.submit('/studio/account', '/studio/account/password', { current: user.password, next: 'short' });
      expect(short.status).toBe(422);
      expect(fieldError(short.body, 'next')).toMatch(/at least/);
      const ok = await b.submit('/studio/account', '/studio/account/password', { current: user.password, next: 'a-long-new-password' });
      expect(ok.status).toBe(303);
      // This browser stays signed in; the API session has ended; the new password works.
      expect((await b.get('/studio/account')).status).toBe(200);
      expect((await w.svc.raw(w.app, 'GET', '/whoami.xml', { headers: { cookie: apiCookie } })).status).toBe(401);
      expect((await w.svc.raw(w.app, 'GET', '/whoami.xml', { headers: { authorization: basicAuth(user.email, 'a-long-new-password') } })).status).toBe(200);
    });

    it('signs out, and signs out everywhere (the API sessions too)', async () => {
      const user = await w.svc.user();
      const apiCookie = sessionCookieOf(await w.svc.raw(w.app, 'GET', '/whoami.xml', { headers: { authorization: basicAuth(user.email, user.password) } }))!;
      const one = await new StudioBrowser(w.svc).signIn(user);
      const two = await new StudioBrowser(w.svc).signIn(user);
      const out = await one.submit('/studio/account', '/studio/signout', {});
      expect(out.status).toBe(303);
      expect((await one.get('/studio/account')).status).toBe(303);
      expect((await two.get('/studio/account')).status).toBe(200);
      expect((await w.svc.raw(w.app, 'GET', '/whoami.xml', { headers: { cookie: apiCookie } })).status).toBe(200);
      const all = await two.submit('/studio/account', '/studio/signout-everywhere', {});
      expect(all.status).toBe(303);
      expect((await two.get('/studio/account')).status).toBe(303);
      expect((await w.svc.raw(w.app, 'GET', '/whoami.xml', { headers: { cookie: apiCookie } })).status).toBe(401);
    });

    it('enrols two-factor only once a code proves it, and then asks for the code at sign-in', async () => {
      const user = await w.svc.user();
      const b = await new StudioBrowser(w.svc).signIn(user);
      const page = await b.get('/studio/account/two-factor');
      expect(page.status).toBe(200);
      expect(page.body).toContain('<svg');
      const secret = /name="secret" value="([A-Z2-7]+)"/.exec(page.body)![1];
      const wrong = await b.post('/studio/account/two-factor', { csrf: StudioBrowser.csrf(page), secret, password: user.password, code: totpCode(secret) === '123456' ? '654321' : '123456' });
      expect(wrong.status).toBe(422);
      expect((await new StudioBrowser(w.svc).signInWith(user.email, user.password)).status).toBe(303);
      const ok = await b.post('/studio/account/two-factor', { csrf: StudioBrowser.csrf(page), secret, password: user.password, code: totpCode(secret) });
      expect(ok.status).toBe(303);
      // At once, though the session's user was read a moment ago.
      expect((await b.get('/studio/account')).body).toContain('Two-factor sign-in is on.');
      const next = new StudioBrowser(w.svc);
      const step1 = await next.signInWith(user.email, user.password);
      expect(step1.status).toBe(200);
      expect(step1.body).toContain('name="code"');
      // The API asks for the code too.
      const api = await w.svc.raw(w.app, 'GET', '/whoami.xml', { headers: { authorization: basicAuth(user.email, user.password) } });
      expect(api.status).toBe(401);
      // Off again, with the password and a current code (the next step's: the enrolment spent this one).
      const later = totpCode(secret, Date.now() + 30_000);
      expect((await b.submit('/studio/account', '/studio/account/two-factor/off', { password: 'wrong', code: later })).status).toBe(422);
      expect((await b.submit('/studio/account', '/studio/account/two-factor/off', { password: user.password, code: later })).status).toBe(303);
      expect((await b.get('/studio/account')).body).toContain('Two-factor sign-in is off.');
      expect((await new StudioBrowser(w.svc).signInWith(user.email, user.password)).status).toBe(303);
    });
  });
});
