// Mail that works or says so (issue 30, item 5), with a real SMTP server, on SQLite and PostgreSQL:
// an invitation in the website's brand (title, accent, logo link; a hostile title escaped), its
// plain-text part whole; its delivery state queued → sent, failed when the server refuses the
// address (and "Send again" in the studio), and "not mailed" without SMTP_URL, the link shown.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { text } from '../../src/client/xml.js';
import { eachDatabase, type DbKind } from '../support/service.js';
import { LINK, partsOf, startSmtp, type TestSmtp } from '../support/smtp.js';
import { startWorld, type World } from '../support/world.js';
import { StudioBrowser } from '../studio/studio-support.js';
import { uploadLogo } from '../site/brand-support.js';
import { waitForRenditions } from '../site/site-support.js';

const TITLE = '<script>alert(1)</script> Ann & Co';
const ACCENT = '#b4531f';
const PRIVATE = { 'gallery[acl][0][email]': 'DEFAULT', 'gallery[acl][0][read]': '0' };

async function until<T>(what: string, fn: () => Promise<T | undefined> | T | undefined): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const v = await fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`waited in vain for ${what}`);
}

const unique = (name: string) => `${name}-${randomBytes(4).toString('hex')}@example.com`;

async function gallery(w: World): Promise<string> {
  const r = await w.client.request('POST', `/websites/${w.urlname}/galleries.xml`, { 'gallery[name]': `Wedding ${randomBytes(3).toString('hex')}`, 'gallery[parent]': w.rootUuid, ...PRIVATE });
  return text(r.doc, 'gallery/uuid')!;
}

const stateOf = (w: World, email: string) =>
  w.svc.db.selectFrom('invitation_deliveries').select(['state', 'code', 'queued_at', 'settled_at']).where('email', '=', email).orderBy('id', 'desc').executeTakeFirst();

eachDatabase((kind: DbKind) => {
  describe('branded invitations and their delivery state', () => {
    let smtp: TestSmtp;
    let w: World;
    let studio: StudioBrowser;

    beforeAll(async () => {
      smtp = await startSmtp({ user: 'mailer', pass: 's3cret' });
      w = await startWorld(kind, { SMTP_URL: `smtp://mailer:s3cret@127.0.0.1:${smtp.port}`, MAIL_FROM: 'photos@example.com' });
      const logo = await uploadLogo(w);
      expect(await waitForRenditions(w, [logo])).toBe(true);
      await w.client.request('PUT', `/websites/${w.urlname}.xml`, { 'website[title]': TITLE, 'website[accent_color]': ACCENT, 'website[logo]': logo });
      studio = await new StudioBrowser(w.svc).signIn(w.user);
    }, 300_000);
    afterAll(async () => {
      await w?.svc.close();
      await smtp?.close();
    });

    const invite = (uuid: string, email: string, message?: string) =>
      w.client.request('POST', `/galleries/${uuid}/invitations.xml`, { 'invitation[email]': email, ...(message ? { 'invitation[message]': message } : {}) });

    it("is in the website's brand, escapes its title, has the whole text part; queued, then sent", async () => {
      const uuid = await gallery(w);
      const email = unique('bride');
      const release = smtp.hold();
      const r = await invite(uuid, email, 'Dear Ann,\nyour photos are ready.');
      expect(r.status).toBe(200);
      // The server holds the message: the invitation is queued, and the studio says so.
      expect((await stateOf(w, email))?.state).toBe('queued');
      const queued = await studio.get(`/studio/galleries/${uuid}`);
      expect(queued.body).toMatch(/data-state="queued"[^>]*>Invitation being sent/);
      release();
      const sent = await until('sent', async () => ((await stateOf(w, email))?.state === 'sent' ? stateOf(w, email) : undefined));
      expect(sent!.code).toBeNull();
      expect(Date.parse(sent!.settled_at!)).toBeGreaterThanOrEqual(Date.parse(sent!.queued_at));
      const page = await studio.get(`/studio/galleries/${uuid}`);
      expect(page.body).toContain(`data-state="sent">Invitation sent ${sent!.settled_at!.slice(0, 16).replace('T', ' ')} UTC`);

      const mail = smtp.mails.find((m) => m.to.includes(email))!;
      const parts = partsOf(mail.raw);
      const html = parts.get('text/html')!;
      // The title escaped everywhere (the head's title, the header, the footer), never a tag.
      expect(html).not.toContain('<script>');
      expect(html).toContain('&lt;script>alert(1)&lt;/script> Ann &amp; Co');
      // The accent on the button, the logo an absolute link to its PNG rendition, with the title as alt text.
      expect(html).toContain(`background:${ACCENT}`);
      const img = /<img src="([^"]+)"[^>]*alt="([^"]*)"/.exec(html)!;
      expect(img[1]).toMatch(new RegExp(`^${w.svc.url}/files/\\S+`));
      expect(img[2]).toBe('&lt;script>alert(1)&lt;/script> Ann &amp; Co');
      const logo = await fetch(img[1]);
      expect(logo.status).toBe(200);
      expect(logo.headers.get('content-type')).toMatch(/^image\/(png|jpeg)$/);
      // Any page may draw it: a webmail's, the studio's sandboxed preview.
      expect(logo.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
      expect(html).toContain('max-width:600px');
      expect(html).toContain('<meta name="color-scheme" content="light dark"/>');
      // The plain text: the message, the gallery, the title, the link, how long it works.
      const plain = parts.get('text/plain')!;
      expect(plain).toContain('Dear Ann,\r\nyour photos are ready.');
      expect(plain).toContain(`on ${TITLE}. Open this link to sign in:`);
      expect(plain).toMatch(LINK);
      expect(plain).toContain('It works once, within 7 days');
      // The button and the address under it are the same link as the text's.
      const link = LINK.exec(plain)![0];
      expect(html.split(`href="${link}"`).length - 1).toBe(2);
    });

    it('is failed, with the reply code, when the server refuses the address; "Send again" sends it', async () => {
      const uuid = await gallery(w);
      const email = unique('refused');
      smtp.refuse.add(email);
      expect((await invite(uuid, email)).status).toBe(200);
      const failed = await until('failed', async () => ((await stateOf(w, email))?.state === 'failed' ? stateOf(w, email) : undefined));
      expect(failed!.code).toBe('550');
      const page = await studio.get(`/studio/galleries/${uuid}`);
      expect(page.body).toContain('Invitation not delivered (550');
      expect(page.body).toMatch(new RegExp(`<form id="resend-\\d+" method="post" action="/studio/galleries/${uuid}/resend" hidden>`));

      smtp.refuse.delete(email);
      const again = await studio.post(`/studio/galleries/${uuid}/resend`, { csrf: StudioBrowser.csrf(page), resend: email });
      expect(again.status).toBe(303);
      await until('sent again', async () => ((await stateOf(w, email))?.state === 'sent' ? true : undefined));
      expect(smtp.mails.filter((m) => m.to.includes(email))).toHaveLength(1);
      // An address not on the list is not mailed.
      const stranger = unique('stranger');
      await studio.post(`/studio/galleries/${uuid}/resend`, { csrf: StudioBrowser.csrf(page), resend: stranger });
      expect(await stateOf(w, stranger)).toBeUndefined();
    });
  });

  describe('invitations without a mail server', () => {
    let w: World;
    beforeAll(async () => {
      w = await startWorld(kind);
    });
    afterAll(async () => {
      await w?.svc.close();
    });

    it('says "not mailed" and shows the link to copy', async () => {
      const studio = await new StudioBrowser(w.svc).signIn(w.user);
      const uuid = await gallery(w);
      const email = unique('nomail');
      const r = await studio.submit(`/studio/galleries/${uuid}`, `/studio/galleries/${uuid}/invite`, { email });
      expect(r.status).toBe(200);
      expect(r.body).toContain('No mail server is set up');
      expect(r.body).toMatch(new RegExp(`<code class="secret" id="invite-link">${LINK.source}</code>`));
      expect((await stateOf(w, email))?.state).toBe('not_mailed');
      const page = await studio.get(`/studio/galleries/${uuid}`);
      expect(page.body).toContain('data-state="not_mailed">Invitation not mailed');
      expect(page.body).toContain('no mail server is set up, the link was shown to copy');
      // The API's invitation records the same.
      const api = unique('api');
      expect((await w.client.request('POST', `/galleries/${uuid}/invitations.xml`, { 'invitation[email]': api })).status).toBe(200);
      expect((await stateOf(w, api))?.state).toBe('not_mailed');
    });
  });
});
