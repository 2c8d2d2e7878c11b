// Invitations (docs/delivery.md "Invitations", an API extension), as a
// photographer and their client meet them: the photographer invites through
// the signed API, a real SMTP server receives the mail, the client follows its
// link and the protected gallery opens. On SQLite and PostgreSQL.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bool, items, text } from '../../src/client/xml.js';
import { childEnv, runBuilt } from '../support/processes.js';
import { eachDatabase, type DbKind } from '../support/service.js';
import { StudioBrowser } from '../studio/studio-support.js';
import { linkIn, partsOf, startSmtp, type TestSmtp } from '../support/smtp.js';
import { visit, cookieOf } from '../site/site-support.js';
import { failure, rejection, startWorld, worldOn, type World } from '../support/world.js';

const uniqueEmail = (name: string) => `${name}-${randomBytes(4).toString('hex')}@example.com`;

async function until<T>(what: string, fn: () => T | undefined): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const v = fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`waited in vain for ${what}`);
}

/** A sub-gallery of the world's root; its UUID and full url path. */
async function gallery(w: World, acl?: Array<{ email: string; read: 0 | 1; comp_download: 0 | 1; hires_download: 0 | 1 }>): Promise<{ uuid: string; path: string; name: string }> {
  const name = `Wedding ${randomBytes(3).toString('hex')}`;
  const r = await w.client.createGallery(w.urlname, { name, parent: w.rootUuid, ...(acl ? { acl } : {}) });
  return { uuid: text(r.doc, 'gallery-uuid')!, path: text(r.doc, 'gallery/full-url-path')!, name };
}

const PRIVATE = [{ email: 'DEFAULT', read: 0 as const, comp_download: 0 as const, hires_download: 0 as const }];

eachDatabase((kind: DbKind) => {
  describe('invitations', () => {
    let smtp: TestSmtp;
    let w: World;

    beforeAll(async () => {
      smtp = await startSmtp({ user: 'mailer', pass: 's3cret' });
      w = await startWorld(kind, { SMTP_URL: `smtp://mailer:s3cret@127.0.0.1:${smtp.port}`, MAIL_FROM: 'photos@example.com', INVITATIONS_PER_HOUR: '8' });
    });
    afterAll(async () => {
      await w?.svc.close();
      await smtp?.close();
    });

    const mailsTo = (email: string) => smtp.mails.filter((m) => m.to.includes(email));
    const invite = (world: World, uuid: string, params: Record<string, string | number>) => world.client.request('POST', `/galleries/${uuid}/invitations.xml`, params);
    const aclOf = async (uuid: string) =>
      w.svc.db
        .selectFrom('gallery_acl')
        .innerJoin('galleries', 'galleries.id', 'gallery_acl.gallery_id')
        .select(['gallery_acl.position', 'gallery_acl.email', 'gallery_acl.can_read', 'gallery_acl.comp_download', 'gallery_acl.hires_download'])
        .where('galleries.uuid', '=', uuid)
        .orderBy('gallery_acl.position')
        .execute();

    it('mails a link with the message; following it signs the client in and the protected gallery opens', async () => {
      const g = await gallery(w, PRIVATE);
      const email = uniqueEmail('bride');
      const home = `/sites/${w.urlname}`;
      // Before: the gallery asks a visitor to sign in.
      expect((await visit(w.svc, `${home}/-/${g.path}`)).status).toBe(403);

      const message = 'Dear <b>Ann</b> & "Tom",\nyour photos are ready.';
      const r = await invite(w, g.uuid, { 'invitation[email]': email.toUpperCase(), 'invitation[message]': message, 'invitation[comp_download]': 1 });
      expect(text(r.doc, 'invitation/email')).toBe(email);
      expect(bool(r.doc, 'invitation/entry-created')).toBe(true);
      const expiresAt = Date.parse(text(r.doc, 'invitation/expires-at')!);
      expect(expiresAt - Date.now()).toBeGreaterThan(7 * 86_400_000 - 120_000);

      // The entry was added after DEFAULT, with the rights asked for.
      expect(await aclOf(g.uuid)).toEqual([
        { position: 0, email: 'DEFAULT', can_read: 0, comp_download: 0, hires_download: 0 },
        { position: 1, email, can_read: 1, comp_download: 1, hires_download: 0 },
      ]);

      const mail = await until('the invitation mail', () => mailsTo(email)[0]);
      expect(mail.from).toBe('photos@example.com');
      const parts = partsOf(mail.raw);
      expect(parts.get('text/plain')).toContain('Dear <b>Ann</b> & "Tom",\r\nyour photos are ready.');
      const html = parts.get('text/html')!;
      expect(html).toContain('Dear &lt;b>Ann&lt;/b> &amp; &quot;Tom&quot;,<br/>your photos are ready.');
      expect(html).not.toContain('<b>Ann');
      expect(html).toContain(g.name);
      const link = linkIn(mail);
      expect(link.startsWith(`${w.svc.url}${home}/_signin/`)).toBe(true);

      // The same token table as the website's own sign-in, with the invitation's lifetime.
      const token = link.slice(link.lastIndexOf('/') + 1);
      const row = await w.svc.db.selectFrom('visitor_links').selectAll().where('token_hash', '=', createHash('sha256').update(token).digest('base64url')).executeTakeFirstOrThrow();
      expect(Date.parse(row.expires_at) - Date.parse(row.created_at)).toBe(7 * 86_400_000);
      expect(row.back).toBe(`${home}/-/${g.path}`);

      const used = await visit(w.svc, new URL(link).pathname);
      expect(used.status).toBe(303);
      expect(used.headers.location).toBe(`${home}/-/${g.path}`);
      const cookie = cookieOf(used)!;
      const page = await visit(w.svc, `${home}/-/${g.path}`, { cookie });
      expect(page.status).toBe(200);
      expect(page.body).toContain(g.name);
      // Once only, as every sign-in link.
      expect((await visit(w.svc, new URL(link).pathname)).status).toBe(410);
    });

    it('makes the access-list entry once, leaves an existing one as it was, and opens a gallery with no list to everyone still', async () => {
      const open = await gallery(w);
      const email = uniqueEmail('guest');
      const first = await invite(w, open.uuid, { 'invitation[email]': email });
      expect(bool(first.doc, 'invitation/entry-created')).toBe(true);
      const second = await invite(w, open.uuid, { 'invitation[email]': email, 'invitation[hires_download]': 1 });
      expect(bool(second.doc, 'invitation/entry-created')).toBe(false);
      expect(await aclOf(open.uuid)).toEqual([
        { position: 0, email: 'DEFAULT', can_read: 1, comp_download: 0, hires_download: 0 },
        { position: 1, email, can_read: 1, comp_download: 0, hires_download: 0 },
      ]);
      await until('two mails', () => (mailsTo(email).length === 2 ? true : undefined));
      // An anonymous visitor still sees it: DEFAULT keeps what an empty list gave.
      expect((await visit(w.svc, `/sites/${w.urlname}/-/${open.path}`)).status).toBe(200);

      // A client entry given at creation is kept, rights and all.
      const listed = uniqueEmail('listed');
      const g = await gallery(w, [...PRIVATE, { email: listed, read: 1, comp_download: 1, hires_download: 1 }]);
      const r = await invite(w, g.uuid, { 'invitation[email]': listed });
      expect(bool(r.doc, 'invitation/entry-created')).toBe(false);
      expect((await aclOf(g.uuid)).map((e) => [e.email, e.hires_download])).toEqual([['DEFAULT', 0], [listed, 1]]);
    });

    it('records the invitation in the gallery activity', async () => {
      const g = await gallery(w, PRIVATE);
      const email = uniqueEmail('act');
      await invite(w, g.uuid, { 'invitation[email]': email });
      await w.svc.service.core.activity.idle();
      const a = await w.client.request('GET', `/galleries/${g.uuid}/activity.xml`);
      const events = items(a.doc, 'events');
      expect(events.map((e) => [text(e, 'kind'), text(e, 'client'), bool(e, 'client-verified')])).toEqual([['invited', email, false]]);
    });

    it("answers another owner's gallery and an unknown one 404, and bad input 4xx, sending nothing", async () => {
      const g = await gallery(w, PRIVATE);
      const other = await worldOn(w.svc);
      const email = uniqueEmail('nobody');
      expect((await failure(invite(other, g.uuid, { 'invitation[email]': email }))).status).toBe(404);
      expect((await failure(invite(w, '7d4c4f0e-0000-4000-8000-000000000000', { 'invitation[email]': email }))).status).toBe(404);
      // 404 whatever the parameters, for a gallery one cannot see.
      expect((await failure(invite(other, g.uuid, { 'invitation[email]': 'not an address' }))).status).toBe(404);
      expect((await failure(invite(w, g.uuid, {}))).status).toBe(422);
      expect((await failure(invite(w, g.uuid, { 'invitation[email]': 'not an address' }))).status).toBe(422);
      expect((await failure(invite(w, g.uuid, { 'invitation[email]': email, 'invitation[message]': 'x'.repeat(2001) }))).status).toBe(422);
      expect((await failure(invite(w, g.uuid, { 'invitation[email]': email, 'invitation[comp_download]': 'maybe' }))).status).toBe(422);
      expect((await failure(invite(w, g.uuid, { 'invitation[email]': email, 'invitation[cc]': 'x@example.com' }))).status).toBe(400);
      expect(await aclOf(g.uuid)).toHaveLength(1);
      await new Promise((r) => setTimeout(r, 200));
      expect(mailsTo(email)).toEqual([]);
    });

    it('the admin command invites too, mailing through the same settings', async () => {
      const g = await gallery(w, PRIVATE);
      const email = uniqueEmail('cli');
      const env = childEnv({
        DATA_DIR: w.svc.config.dataDir,
        DATABASE_URL: w.svc.config.databaseUrl,
        PUBLIC_URL: w.svc.url,
        SMTP_URL: `smtp://mailer:s3cret@127.0.0.1:${smtp.port}`,
      });
      const res = await runBuilt('cli/admin.js', ['client', 'invite', '--owner', w.user.email, '--gallery', g.uuid, '--email', email, '--message', 'From the command line', '--json'], { env });
      expect(res.code, res.stderr).toBe(0);
      const out = JSON.parse(res.stdout) as { email: string; gallery: string; entryCreated: boolean };
      expect(out).toMatchObject({ email, gallery: g.uuid, entryCreated: true });
      // The command waited for its mail before it exited.
      const mail = mailsTo(email)[0];
      expect(partsOf(mail.raw).get('text/plain')).toContain('From the command line');
      expect(linkIn(mail).startsWith(`${w.svc.url}/sites/${w.urlname}/_signin/`)).toBe(true);
      expect((await aclOf(g.uuid)).map((e) => e.email)).toEqual(['DEFAULT', email]);
      const bad = await runBuilt('cli/admin.js', ['client', 'invite', '--owner', w.user.email, '--gallery', g.uuid, '--email', 'nope'], { env });
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain('e-mail address');
    });

    it('refuses an owner past INVITATIONS_PER_HOUR with 429, not another owner', async () => {
      const busy = await worldOn(w.svc);
      const r = await busy.client.createGallery(busy.urlname, { name: 'Busy', parent: busy.rootUuid });
      const uuid = text(r.doc, 'gallery-uuid')!;
      for (let i = 0; i < 8; i++) await invite(busy, uuid, { 'invitation[email]': uniqueEmail(`n${i}`) });
      const impatient = w.svc.client(busy.app, busy.user, { retry429: false });
      const refused = await rejection(impatient.request('POST', `/galleries/${uuid}/invitations.xml`, { 'invitation[email]': uniqueEmail('late') }));
      expect(refused.status).toBe(429);
      expect(refused.message).toContain('too many invitations');
      // Another owner is not held back by this one.
      const g = await gallery(w);
      expect(bool((await invite(w, g.uuid, { 'invitation[email]': uniqueEmail('free') })).doc, 'invitation/entry-created')).toBe(true);
    });
  });

  // Issue 29: invitations relay a photographer's text to any address under the service's name.
  describe('invitations: what keeps them from being a spam relay', () => {
    let smtp: TestSmtp;
    const worlds: World[] = [];
    beforeAll(async () => {
      smtp = await startSmtp({ user: 'mailer', pass: 's3cret' });
    });
    afterAll(async () => {
      for (const w of worlds) await w.svc.close();
      await smtp?.close();
    });
    const world = async (env: Record<string, string> = {}) => {
      const w = await startWorld(kind, { SMTP_URL: `smtp://mailer:s3cret@127.0.0.1:${smtp.port}`, MAIL_FROM: 'photos@example.com', ...env });
      worlds.push(w);
      return w;
    };
    const mailsTo = (email: string) => smtp.mails.filter((m) => m.to.includes(email));
    const invite = (w: World, uuid: string, params: Record<string, string | number>) => w.client.request('POST', `/galleries/${uuid}/invitations.xml`, params);
    const subjectOf = (raw: string) => /^Subject: (.*)$/m.exec(raw)?.[1];
    const settle = (w: World) => w.svc.service.visitors.mailer.idle();

    it("keeps the subject the service's own and shows the message's links as text, never as links", async () => {
      const w = await world();
      await w.client.request('PUT', `/websites/${w.urlname}.xml`, { 'website[title]': 'Your Bank' });
      const r = await w.client.createGallery(w.urlname, { name: 'Urgent: confirm your account', parent: w.rootUuid });
      const uuid = text(r.doc, 'gallery-uuid')!;
      const email = uniqueEmail('target');
      const message = 'Log in at https://evil.example/login or www.bad.example/x, or write to help@evil.example.';
      await invite(w, uuid, { 'invitation[email]': email, 'invitation[message]': message });
      const mail = await until('the invitation', () => mailsTo(email)[0]);
      expect(subjectOf(mail.raw)).toBe('An invitation to see photos');
      const parts = partsOf(mail.raw);
      const plain = parts.get('text/plain')!;
      const html = parts.get('text/html')!;
      for (const part of [plain, html]) {
        expect(part).not.toContain('https://evil.example');
        expect(part).not.toContain('www.bad.example');
        expect(part).not.toContain('help@evil.example');
      }
      expect(plain).toContain('https[:]//evil[.]example/login');
      expect(plain).toContain('www[.]bad[.]example/x');
      expect(html).not.toMatch(/href="[^"]*evil/);
      // The service's own link is still there, and a link.
      expect(linkIn(mail).startsWith(`${w.svc.url}/sites/${w.urlname}/_signin/`)).toBe(true);
    });

    it('caps the invitations one address receives per day, whoever sends them (INVITATIONS_PER_RECIPIENT_PER_DAY)', async () => {
      const w = await world({ INVITATIONS_PER_RECIPIENT_PER_DAY: '2' });
      const other = await worldOn(w.svc);
      const mine = await gallery(w);
      const theirs = text((await other.client.createGallery(other.urlname, { name: 'Theirs', parent: other.rootUuid })).doc, 'gallery-uuid')!;
      const email = uniqueEmail('popular');
      await invite(w, mine.uuid, { 'invitation[email]': email });
      await invite(other, theirs, { 'invitation[email]': email.toUpperCase() });
      const impatient = w.svc.client(other.app, other.user, { retry429: false });
      const refused = await rejection(impatient.request('POST', `/galleries/${theirs}/invitations.xml`, { 'invitation[email]': email }));
      expect(refused.status).toBe(429);
      expect(refused.message).toContain('this address');
      await settle(w);
      expect(mailsTo(email)).toHaveLength(2);
      // Nothing made for the refused one; another address is still served.
      expect(bool((await invite(other, theirs, { 'invitation[email]': uniqueEmail('else') })).doc, 'invitation/entry-created')).toBe(true);
    });

    it('caps the invitations of the whole service per day (INVITATIONS_PER_DAY)', async () => {
      const w = await world({ INVITATIONS_PER_DAY: '3' });
      const other = await worldOn(w.svc);
      const g = await gallery(w);
      for (let i = 0; i < 3; i++) await invite(w, g.uuid, { 'invitation[email]': uniqueEmail(`d${i}`) });
      const theirs = text((await other.client.createGallery(other.urlname, { name: 'Theirs', parent: other.rootUuid })).doc, 'gallery-uuid')!;
      const late = uniqueEmail('late');
      const refused = await rejection(w.svc.client(other.app, other.user, { retry429: false }).request('POST', `/galleries/${theirs}/invitations.xml`, { 'invitation[email]': late }));
      expect(refused.status).toBe(429);
      expect(refused.message).toContain('the service');
      await settle(w);
      expect(mailsTo(late)).toEqual([]);
    });

    it("an operator stops a photographer's mail (admin command or the studio) and lets it go again", async () => {
      const w = await world();
      const g = await gallery(w);
      const env = childEnv({ DATA_DIR: w.svc.config.dataDir, DATABASE_URL: w.svc.config.databaseUrl, PUBLIC_URL: w.svc.url });
      const off = await runBuilt('cli/admin.js', ['user', 'mail', '--email', w.user.email, '--off', '--json'], { env });
      expect(off.code, off.stderr).toBe(0);
      expect(JSON.parse(off.stdout)).toMatchObject({ email: w.user.email, mail: false });
      const stopped = uniqueEmail('stopped');
      const refused = await failure(invite(w, g.uuid, { 'invitation[email]': stopped }));
      expect(refused.status).toBe(403);
      expect(refused.message).toContain('stopped');
      await settle(w);
      expect(mailsTo(stopped)).toEqual([]);
      // The studio's administration shows it, and lets it go.
      const admin = await w.svc.user();
      await w.svc.core.users.setAdmin(admin.email, true);
      const ab = await new StudioBrowser(w.svc).signIn(admin);
      const page = await ab.get('/studio/admin/accounts');
      const row = page.body.split('<tr').find((tr) => tr.includes(w.user.email))!;
      expect(row).toContain('mail stopped');
      expect((await ab.submit('/studio/admin/accounts', `/studio/admin/accounts/${w.user.uuid}/mail-on`, {})).status).toBe(303);
      expect(bool((await invite(w, g.uuid, { 'invitation[email]': uniqueEmail('again') })).doc, 'invitation/entry-created')).toBe(true);
      // And stops it from there too.
      expect((await ab.submit('/studio/admin/accounts', `/studio/admin/accounts/${w.user.uuid}/mail-off`, {})).status).toBe(303);
      expect((await failure(invite(w, g.uuid, { 'invitation[email]': uniqueEmail('third') }))).status).toBe(403);
      const on = await runBuilt('cli/admin.js', ['user', 'mail', '--email', w.user.email, '--on'], { env });
      expect(on.code, on.stderr).toBe(0);
      expect((await invite(w, g.uuid, { 'invitation[email]': uniqueEmail('fourth') })).status).toBe(200);
    });
  });
});
