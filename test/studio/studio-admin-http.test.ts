// The studio's administration and applications (docs/studio.md "Administration"), on SQLite and
// PostgreSQL: operators only (anyone else gets the 404 page, even with a right token); an
// invitation mailed through a real SMTP server whose link sets a password once; a disabled
// account's sessions end and its API login is refused; an application created in the studio
// signs a request the API accepts, its secret shown once, and once revoked signs nothing.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { find, text } from '../../src/client/xml.js';
import { basicAuth, eachDatabase, sessionCookieOf, type TestApp, type TestUser } from '../support/service.js';
import { partsOf, startSmtp, type TestSmtp } from '../support/smtp.js';
import { startWorld, type World } from '../support/world.js';
import { fieldError, StudioBrowser } from './studio-support.js';

const WELCOME = /https?:\/\/[^\s"<>]+\/studio\/welcome\/([A-Za-z0-9_-]{43})/;

eachDatabase((kind) => {
  let w: World;
  let smtp: TestSmtp;
  let admin: TestUser;
  let ab: StudioBrowser;
  let plain: StudioBrowser;
  beforeAll(async () => {
    smtp = await startSmtp({ user: 'mailer', pass: 'secret' });
    w = await startWorld(kind, { SMTP_URL: `smtp://mailer:secret@127.0.0.1:${smtp.port}`, MAIL_FROM: 'studio@example.com', SITE_CACHE_SECONDS: '0' });
    admin = await w.svc.user();
    await w.svc.core.users.setAdmin(admin.email, true);
    ab = await new StudioBrowser(w.svc).signIn(admin);
    plain = await new StudioBrowser(w.svc).signIn(w.user);
  });
  afterAll(async () => {
    await w?.svc.close();
    await smtp?.close();
  });

  /** A signed API request of `app` as `user` (Basic): its status. */
  const whoami = async (app: TestApp, user: { email: string; password: string }) => (await w.svc.raw(app, 'GET', '/whoami.xml', { headers: { authorization: basicAuth(user.email, user.password) } })).status;

  describe('operators only', () => {
    const GETS = ['/studio/admin', '/studio/admin/accounts', '/studio/admin/apps', '/studio/admin/jobs'];
    const POSTS = ['/studio/admin/accounts', '/studio/admin/apps', `/studio/admin/accounts/00000000-0000-4000-8000-000000000000/disable`, `/studio/admin/accounts/00000000-0000-4000-8000-000000000000/mail-off`, '/studio/admin/apps/0123456789abcdef0123456789abcdef/revoke'];

    it('answers a photographer, or no one signed in, with the 404 page, even with a right token; the header names no administration', async () => {
      const csrf = StudioBrowser.csrf(await plain.get('/studio/account'));
      const anonymous = new StudioBrowser(w.svc);
      for (const path of GETS) {
        const page = await plain.get(path);
        expect(page.status, path).toBe(404);
        expect(page.body).toContain('There is no such page in the studio.');
        expect((await anonymous.get(path)).status, path).toBe(404);
      }
      for (const path of POSTS) {
        expect((await plain.post(path, { csrf, email: 'x@example.com', name: 'x' })).status, path).toBe(404);
        expect((await plain.post(path, {})).status, path).toBe(404);
      }
      expect((await plain.get('/studio/websites')).body).not.toContain('/studio/admin');
      expect((await ab.get('/studio/websites')).body).toContain('href="/studio/admin"');
      expect((await ab.get('/studio/admin')).status).toBe(303);
      // An operator's post still needs its token.
      expect((await ab.post('/studio/admin/apps', { name: 'x' })).status).toBe(403);
    });
  });

  describe('accounts', () => {
    it('lists the accounts with the storage their library takes', async () => {
      const page = await ab.get('/studio/admin/accounts');
      expect(page.status).toBe(200);
      expect(page.body).toContain(w.user.email);
      expect(page.body).toContain(admin.email);
      expect(page.body).toMatch(/<td class="num">0 B used<\/td>/);
    });

    it('creates an account with an invitation mailed through SMTP; its link sets the password once, then the API accepts it', async () => {
      const email = `new-${Date.now()}@example.com`;
      const before = smtp.mails.length;
      const res = await ab.submit('/studio/admin/accounts', '/studio/admin/accounts', { email, first_name: 'Nova', last_name: 'Lens' });
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('/studio/admin/accounts?done=invited');
      await w.svc.service.visitors.mailer.idle();
      const mail = smtp.mails[before];
      expect(mail.to).toEqual([email]);
      const textPart = partsOf(mail.raw).get('text/plain') ?? '';
      const m = WELCOME.exec(textPart);
      expect(m).not.toBeNull();
      const path = new URL(m![0]).pathname;
      // The database keeps only a hash of the token.
      const rows = await w.svc.db.selectFrom('user_invitations').select('token_hash').execute();
      expect(rows.some((r) => r.token_hash === m![1])).toBe(false);
      // Before the link: no password works.
      const guest = new StudioBrowser(w.svc);
      const form = await guest.get(path);
      expect(form.status).toBe(200);
      expect(form.body).toContain(email);
      const short = await guest.post(path, { csrf: StudioBrowser.csrf(form), password: 'short' });
      expect(short.status).toBe(422);
      expect(fieldError(short.body, 'password')).toContain('at least 10');
      const set = await guest.post(path, { csrf: StudioBrowser.csrf(short), password: 'a-new-password-1' });
      expect(set.status).toBe(303);
      expect(set.headers.get('location')).toBe('/studio/signin');
      // Once: the link is spent.
      const again = await guest.get(path);
      expect(again.status).toBe(404);
      expect(again.body).toContain('has been used or has expired');
      const second = await guest.post(path, { csrf: StudioBrowser.csrf(await guest.get('/studio/signin')), password: 'another-password-2' });
      expect(second.status).toBe(404);
      // The password the link set signs in, to the studio and the API.
      await new StudioBrowser(w.svc).signIn({ email, password: 'a-new-password-1' });
      expect(await whoami(w.app, { email, password: 'a-new-password-1' })).toBe(200);
      expect(await whoami(w.app, { email, password: 'another-password-2' })).toBe(401);
      // The account is listed, with the names given.
      expect((await ab.get('/studio/admin/accounts')).body).toContain('Nova Lens');
    });

    it('refuses a taken or malformed address next to the field', async () => {
      const taken = await ab.submit('/studio/admin/accounts', '/studio/admin/accounts', { email: w.user.email.toUpperCase() });
      expect(taken.status).toBe(409);
      expect(fieldError(taken.body, 'email')).toContain('exists already');
      const bad = await ab.submit('/studio/admin/accounts', '/studio/admin/accounts', { email: 'not an address' });
      expect(bad.status).toBe(422);
      expect(fieldError(bad.body, 'email')).toContain('must be an e-mail address');
    });

    it("disables an account: its studio and API sessions end, its logins are refused, its website is gone; enabled, it signs in again", async () => {
      const victim = await w.svc.user();
      const site = await w.svc.website(victim);
      const home = () => fetch(`${w.svc.url}/sites/${site.urlname}/`);
      expect((await home()).status).toBe(200);
      const vb = await new StudioBrowser(w.svc).signIn(victim);
      const api = await w.svc.raw(w.app, 'GET', '/whoami.xml', { headers: { authorization: basicAuth(victim.email, victim.password) } });
      const cookie = sessionCookieOf(api)!;
      expect(cookie).toBeTruthy();
      const res = await ab.submit('/studio/admin/accounts', `/studio/admin/accounts/${victim.uuid}/disable`, {});
      expect(res.status).toBe(303);
      expect((await vb.get('/studio/websites')).status).toBe(303);
      expect((await w.svc.raw(w.app, 'GET', '/whoami.xml', { headers: { cookie } })).status).toBe(401);
      expect(await whoami(w.app, victim)).toBe(403);
      const studio = await new StudioBrowser(w.svc).signInWith(victim.email, victim.password);
      expect(studio.status).toBe(403);
      expect(studio.body).toContain('disabled');
      // A wrong password is told nothing more than before.
      expect(await whoami(w.app, { email: victim.email, password: 'wrong-password' })).toBe(401);
      expect((await ab.get('/studio/admin/accounts')).body).toMatch(/disabled/);
      // Its website answers as no website does (no page, no title, nothing of the photographer's).
      const gone = await home();
      expect(gone.status).toBe(404);
      expect(await gone.text()).not.toContain(site.urlname);
      // A session made in a race with the disabling (here, written behind its back) is no session either.
      const raced = randomBytes(32).toString('base64url');
      const now = new Date();
      await w.svc.db
        .insertInto('sessions')
        .values({ token_hash: createHash('sha256').update(raced).digest('base64url'), user_id: victim.id, created_at: now.toISOString(), last_seen_at: now.toISOString(), expires_at: new Date(now.getTime() + 86_400_000).toISOString() })
        .execute();
      expect((await w.svc.raw(w.app, 'GET', '/whoami.xml', { headers: { cookie: `_ficelle_session=${raced}` } })).status).toBe(401);
      expect((await ab.submit('/studio/admin/accounts', `/studio/admin/accounts/${victim.uuid}/enable`, {})).status).toBe(303);
      expect(await whoami(w.app, victim)).toBe(200);
      expect((await home()).status).toBe(200);
      // Not one's own account.
      expect((await ab.submit('/studio/admin/accounts', `/studio/admin/accounts/${admin.uuid}/disable`, {})).status).toBe(422);
    });
  });

  describe('applications', () => {
    const secretIn = (body: string) => /id="new-secret">([0-9a-f]{64})</.exec(body)?.[1];
    const keyIn = (body: string) => /id="new-key">([0-9a-f]{32})</.exec(body)?.[1];

    it("a photographer creates an API key under Account; it signs requests the API accepts; the secret is shown once; revoked, it signs nothing", async () => {
      const made = await plain.submit('/studio/account/apps', '/studio/account/apps', { name: 'My export script' });
      expect(made.status).toBe(200);
      const key = keyIn(made.body)!;
      const secret = secretIn(made.body)!;
      expect(key).toMatch(/^[0-9a-f]{32}$/);
      expect(secret).toMatch(/^[0-9a-f]{64}$/);
      expect(made.headers.get('cache-control')).toBe('no-store');
      // The signed API accepts it: the SDK client, logging in as the photographer.
      const client = w.svc.client({ key, secret }, w.user);
      const found = await client.request('GET', '/websites.xml');
      expect(text(find(found.doc, 'websites')!, 'website/urlname')).toBe(w.urlname);
      // Shown once: the list names the key, never the secret.
      const list = await plain.get('/studio/account/apps');
      expect(list.body).toContain(key);
      expect(list.body).toContain('My export script');
      expect(list.body).not.toContain(secret);
      // Another photographer neither sees it nor revokes it.
      const other = await new StudioBrowser(w.svc).signIn(await w.svc.user());
      expect((await other.get('/studio/account/apps')).body).not.toContain(key);
      expect((await other.submit('/studio/account/apps', `/studio/account/apps/${key}/revoke`, {})).status).toBe(404);
      expect(await whoami({ key, secret }, w.user)).toBe(200);
      // The operator sees it with its owner, still without its secret.
      const all = await ab.get('/studio/admin/apps');
      expect(all.body).toContain(key);
      expect(all.body).toContain(w.user.email);
      expect(all.body).not.toContain(secret);
      // Revoked: refused at once.
      expect((await plain.submit('/studio/account/apps', `/studio/account/apps/${key}/revoke`, {})).status).toBe(303);
      const refused = await w.svc.raw({ key, secret }, 'GET', '/whoami.xml', { headers: { authorization: basicAuth(w.user.email, w.user.password) } });
      expect(refused.status).toBe(401);
      expect(await refused.text()).toContain('unknown API key');
      expect((await plain.get('/studio/account/apps')).body).toContain('revoked');
    });

    it("a photographer's own application signs only for its owner (403 for anyone else), and stops while its owner is disabled; the operator's list shows the owner's state", async () => {
      const owner = await w.svc.user();
      const ob = await new StudioBrowser(w.svc).signIn(owner);
      const made = await ob.submit('/studio/account/apps', '/studio/account/apps', { name: 'Owner script' });
      const app = { key: keyIn(made.body)!, secret: secretIn(made.body)! };
      expect(await whoami(app, owner)).toBe(200);
      // Another photographer's login through it: 403 from the catalogue, and no session made.
      const other = await w.svc.user();
      const refused = await w.svc.raw(app, 'GET', '/whoami.xml', { headers: { authorization: basicAuth(other.email, other.password) } });
      expect(refused.status).toBe(403);
      expect(refused.headers.get('set-cookie')).toBeNull();
      const body = await refused.text();
      expect(body).toContain('<error-code>forbidden</error-code>');
      expect(body).toContain('signs only for its owner');
      // Nor with the other's session, made through an operator's application.
      const otherCookie = sessionCookieOf(await w.svc.raw(w.app, 'GET', '/whoami.xml', { headers: { authorization: basicAuth(other.email, other.password) } }))!;
      expect((await w.svc.raw(app, 'GET', '/whoami.xml', { headers: { cookie: otherCookie } })).status).toBe(403);
      // The operator's application still works for everyone.
      expect(await whoami(w.app, other)).toBe(200);
      expect(await whoami(w.app, owner)).toBe(200);
      // Its owner disabled: it signs nothing, not even a ping; the list says so; enabled again, it works.
      expect((await w.svc.raw(app, 'GET', '/ping.xml')).status).toBe(200);
      expect((await ab.submit('/studio/admin/accounts', `/studio/admin/accounts/${owner.uuid}/disable`, {})).status).toBe(303);
      const ping = await w.svc.raw(app, 'GET', '/ping.xml');
      expect(ping.status).toBe(403);
      expect(await ping.text()).toContain('<error-code>forbidden</error-code>');
      const list = await ab.get('/studio/admin/apps');
      const row = list.body.split('<li>').find((li) => li.includes(app.key))!;
      expect(row).toContain(owner.email);
      expect(row).toContain('owner disabled');
      expect((await ab.submit('/studio/admin/accounts', `/studio/admin/accounts/${owner.uuid}/enable`, {})).status).toBe(303);
      expect((await w.svc.raw(app, 'GET', '/ping.xml')).status).toBe(200);
      expect((await ab.get('/studio/admin/apps')).body.split('<li>').find((li) => li.includes(app.key))).not.toContain('owner disabled');
    });

    it('an operator creates and revokes an application; a blank name is refused', async () => {
      const made = await ab.submit('/studio/admin/apps', '/studio/admin/apps', { name: 'Publishing plugin' });
      expect(made.status).toBe(200);
      const key = keyIn(made.body)!;
      const secret = secretIn(made.body)!;
      expect(await whoami({ key, secret }, w.user)).toBe(200);
      expect((await ab.submit('/studio/admin/apps', `/studio/admin/apps/${key}/revoke`, {})).status).toBe(303);
      expect(await whoami({ key, secret }, w.user)).toBe(401);
      const blank = await ab.submit('/studio/admin/apps', '/studio/admin/apps', { name: '  ' });
      expect(blank.status).toBe(422);
      expect(blank.body).toContain('may not be blank');
    });
  });

  describe('job queue', () => {
    it('shows the depth of each lane and the jobs running', async () => {
      const page = await ab.get('/studio/admin/jobs');
      expect(page.status).toBe(200);
      expect(page.body).toContain('interactive');
      expect(page.body).toContain('background');
      expect(page.body).toMatch(/No job is running|<progress/);
    });
  });
});
