// Visitors' e-mail sign-in (docs/visitors.md), as a visitor meets it: ask for
// a link on a website, read the mail a real SMTP server received, open the
// link, carry the pass. On SQLite and PostgreSQL.
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { pino, type Logger } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLimiterFactory } from '../../src/http/limiter-store.js';
import type { UserRow } from '../../src/database/schema.js';
import { PassCodec } from '../../src/site/signin/pass.js';
import { LINK_LIMITS, PasswordThrottle, PASSWORD_LIMITS } from '../../src/site/limits/throttle.js';
import { childEnv, freePort, runNode, type RunResult } from '../support/processes.js';
import { eachDatabase, REDIS_URL, TEST_REDIS_PREFIX, TestService, type DbKind } from '../support/service.js';
import { linkIn, partsOf, startSmtp, type ReceivedMail, type TestSmtp } from '../support/smtp.js';
import { worldOn, type World } from '../support/world.js';

// ---------------------------------------------------------------- logs and HTTP

interface Captured {
  logger: Logger;
  lines: Array<Record<string, unknown>>;
}

function captureLogs(): Captured {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) });
  return { logger, lines };
}

interface Visit {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request as a browser sends it: any Host, no signature. */
function visit(base: string, method: string, path: string, opts: { headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<Visit> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path, headers: opts.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

const FORM = 'application/x-www-form-urlencoded';

function post(base: string, path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Visit> {
  return visit(base, 'POST', path, { headers: { 'content-type': FORM, ...headers }, body: new URLSearchParams(fields).toString() });
}

function setCookieOf(v: Visit): string | undefined {
  const c = v.headers['set-cookie'];
  return Array.isArray(c) ? c[0] : c;
}

/** `name=value` of a Set-Cookie. */
function cookiePair(setCookie: string): string {
  return setCookie.split(';')[0];
}

async function until<T>(what: string, fn: () => T | undefined): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const v = fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`waited in vain for ${what}`);
}

let addressCounter = 0;
/** Each test its own client address (TRUST_PROXY is on): the per-address throttle of one test does not reach the next. */
const freshAddress = () => `10.${(addressCounter >> 8) & 255}.${addressCounter++ & 255}.${randomBytes(1)[0]}`;

/** A website of the world's user with one gallery whose access list names `invited`. */
async function invite(w: World, invited: string): Promise<void> {
  await w.client.createGallery(w.urlname, {
    name: `Proofs ${randomBytes(3).toString('hex')}`,
    parent: w.rootUuid,
    acl: [
      { email: 'DEFAULT', read: 0, comp_download: 0, hires_download: 0 },
      { email: invited, read: 1, comp_download: 1, hires_download: 0 },
    ],
  });
}

const uniqueEmail = (name: string) => `${name}-${randomBytes(4).toString('hex')}@example.com`;

eachDatabase((kind: DbKind) => {
  describe('sign-in by mail through SMTP_URL', () => {
    let smtp: TestSmtp;
    let logs: Captured;
    let w: World;
    let codec: PassCodec;
    let site: { uuid: string; urlname: string };
    let owner: UserRow;
    const TITLE = `Ann's <script>alert(1)</script> & "Co" </title>`;

    beforeAll(async () => {
      smtp = await startSmtp({ user: 'mailer', pass: 's3cret' });
      logs = captureLogs();
      const svc = await TestService.start(
        kind,
        { SMTP_URL: `smtp://mailer:s3cret@127.0.0.1:${smtp.port}`, MAIL_FROM: 'Ann Photos <photos@example.com>', VISITOR_LINK_TTL_SECONDS: '600', TRUST_PROXY: '1' },
        logs.logger,
      );
      w = await worldOn(svc);
      owner = (await svc.core.users.byEmail(w.user.email))!;
      site = await w.svc.core.visitorLinks.site(w.urlname).then((s) => ({ uuid: s!.uuid, urlname: s!.urlname }));
      codec = new PassCodec(w.svc.service.uploadSecret);
    });
    afterAll(async () => {
      await w?.svc.close();
      await smtp?.close();
    });

    const home = () => `/sites/${w.urlname}`;
    const mailsTo = (email: string) => smtp.mails.filter((m) => m.to.includes(email));

    /** Asks for a link as `email` and returns the mail it brought. */
    async function askAndRead(email: string, back?: string): Promise<{ link: string; mail: ReceivedMail }> {
      const before = mailsTo(email.toLowerCase()).length;
      const res = await post(w.svc.url, `${home()}/_signin`, { email, ...(back ? { back } : {}) }, { 'x-forwarded-for': freshAddress() });
      expect(res.status).toBe(200);
      const mail = await until('the sign-in mail', () => mailsTo(email.toLowerCase())[before]);
      return { link: linkIn(mail), mail };
    }

    it('mails a one-time link whose use sets the pass with the proved address and leads back', async () => {
      const email = uniqueEmail('Client');
      await invite(w, email);

      const form = await visit(w.svc.url, 'GET', `${home()}/_signin?back=${encodeURIComponent(`${home()}/-/proofs`)}`);
      expect(form.status).toBe(200);
      expect(form.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(form.headers['x-content-type-options']).toBe('nosniff');
      expect(form.headers['content-security-policy']).toContain("default-src 'none'");
      expect(form.body).toContain(`action="${home()}/_signin"`);
      expect(form.body).toContain(`value="${home()}/-/proofs"`);
      // Dressed as the website's pages: its stylesheet (allowed by the policy), its name linking home.
      expect(form.body).toMatch(/<link rel="stylesheet" href="\/_site\/[^"]+\.css"/);
      expect(form.headers['content-security-policy']).toContain("style-src 'self'");
      expect(form.body).toContain(`<header class="site"><a class="brand" href="${home()}/">`);
      // A browser posts a form with `Origin: null` from a page whose policy is no-referrer, and
      // the post refuses that origin: the form's own page must let its origin be sent.
      expect(form.headers['referrer-policy']).toBe('same-origin');

      const { link, mail } = await askAndRead(email.toUpperCase(), `${home()}/-/proofs`);
      expect(mail.user, 'the mail server saw our SMTP login').toBe('mailer');
      expect(mail.from).toBe('photos@example.com');
      expect(mail.to).toEqual([email.toLowerCase()]);
      expect(link.startsWith(`${w.svc.url}${home()}/_signin/`)).toBe(true);
      const token = link.slice(link.lastIndexOf('/') + 1);

      // Only the token's hash is stored.
      const rows = await w.svc.db.selectFrom('visitor_links').selectAll().execute();
      expect(rows.some((r) => r.token_hash === token || JSON.stringify(r).includes(token))).toBe(false);

      const used = await visit(w.svc.url, 'GET', new URL(link).pathname);
      expect(used.status).toBe(303);
      expect(used.headers.location).toBe(`${home()}/-/proofs`);
      // The address holding the token is never sent on as a referrer.
      expect(used.headers['referrer-policy']).toBe('no-referrer');
      const setCookie = setCookieOf(used)!;
      expect(setCookie).toMatch(/^mps_visitor=/);
      expect(setCookie).toContain(`Path=${home()}`);
      expect(setCookie).toContain('HttpOnly');
      expect(setCookie).toContain('SameSite=Lax');
      expect(setCookie).not.toContain('Secure');
      const pass = codec.decode(decodeURIComponent(cookiePair(setCookie).slice('mps_visitor='.length)), site.uuid);
      expect(pass?.email).toBe(email.toLowerCase());

      // Once only.
      const again = await visit(w.svc.url, 'GET', new URL(link).pathname);
      expect(again.status).toBe(410);
      expect(again.headers['referrer-policy']).toBe('no-referrer');
      expect(again.body).toContain('used already');
      expect(setCookieOf(again)).toBeUndefined();
    });

    it('escapes the website title in the mail and keeps the galleries the pass already opened', async () => {
      const email = uniqueEmail('esc');
      const titled = await w.svc.core.websites.create(owner, { urlname: `t-${randomBytes(4).toString('hex')}`, title: TITLE });
      await invite({ ...w, urlname: titled.urlname, rootUuid: titled.rootGalleryUuid }, email);
      const res = await post(w.svc.url, `/sites/${titled.urlname}/_signin`, { email }, { 'x-forwarded-for': freshAddress() });
      expect(res.body).toContain('&lt;script>alert(1)&lt;/script>');
      expect(res.body).not.toContain('<script>');
      const mail = await until('the mail', () => mailsTo(email)[0]);
      const link = linkIn(mail);
      const html = partsOf(mail.raw).get('text/html') ?? '';
      expect(html).toContain('&lt;script>alert(1)&lt;/script>');
      expect(html).not.toContain('<script>');
      expect(html).toContain('&lt;/title>');

      const before = codec.withGallery(codec.fresh(titled.uuid), 'gallery-opened-by-password', '$argon2id$some-hash');
      const used = await visit(w.svc.url, 'GET', new URL(link).pathname, { headers: { cookie: `other=1; mps_visitor=${codec.encode(before)}` } });
      expect(used.status).toBe(303);
      const pass = codec.decode(decodeURIComponent(cookiePair(setCookieOf(used)!).slice('mps_visitor='.length)), titled.uuid)!;
      expect(pass).toMatchObject({ id: before.id, galleries: before.galleries, email });
    });

    it('answers an address on no access list exactly as a listed one, and mails nothing to it', async () => {
      const listed = uniqueEmail('listed');
      const stranger = uniqueEmail('stranger');
      await invite(w, listed);
      const a = await post(w.svc.url, `${home()}/_signin`, { email: listed }, { 'x-forwarded-for': freshAddress() });
      const b = await post(w.svc.url, `${home()}/_signin`, { email: stranger }, { 'x-forwarded-for': freshAddress() });
      expect(b.status).toBe(a.status);
      expect(b.body).toBe(a.body);
      expect(Object.keys(b.headers).sort()).toEqual(Object.keys(a.headers).sort());
      await until('the listed mail', () => mailsTo(listed)[0]);
      await w.svc.service.visitors.signIn.idle();
      expect(mailsTo(stranger)).toEqual([]);
    });

    it('refuses an expired link and an unknown or malformed one with a page, never a 5xx', async () => {
      const email = uniqueEmail('late');
      const at = w.svc.core.visitorLinks.canonical((await w.svc.core.visitorLinks.site(w.urlname))!);
      // Made an hour ago with a ten-minute lifetime.
      const old = await w.svc.core.visitorLinks.create(at, email, `${home()}/`, new Date(Date.now() - 3600_000));
      const expired = await visit(w.svc.url, 'GET', new URL(old.url).pathname);
      expect(expired.status).toBe(410);
      expect(expired.body).toContain('expired');
      expect(setCookieOf(expired)).toBeUndefined();

      for (const token of [randomBytes(32).toString('base64url'), 'short', 'x'.repeat(290), '%E0%A4%A']) {
        const res = await visit(w.svc.url, 'GET', `${home()}/_signin/${token}`);
        expect(res.status, token).toBeGreaterThanOrEqual(400);
        expect(res.status, token).toBeLessThan(500);
        expect(setCookieOf(res)).toBeUndefined();
      }
      const unknown = await visit(w.svc.url, 'GET', `${home()}/_signin/${randomBytes(32).toString('base64url')}`);
      expect(unknown.status).toBe(404);
      expect(unknown.body).toContain('not valid');
      const noSite = await visit(w.svc.url, 'GET', `/sites/no-such-site/_signin`);
      expect(noSite.status).toBe(404);
    });

    it('keeps the link lifetime of VISITOR_LINK_TTL_SECONDS', async () => {
      const email = uniqueEmail('ttl');
      await invite(w, email);
      const { link } = await askAndRead(email);
      const token = link.slice(link.lastIndexOf('/') + 1);
      const { createHash } = await import('node:crypto');
      const row = await w.svc.db.selectFrom('visitor_links').selectAll().where('token_hash', '=', createHash('sha256').update(token).digest('base64url')).executeTakeFirstOrThrow();
      expect(Date.parse(row.expires_at) - Date.parse(row.created_at)).toBe(600_000);
      expect(row.used_at).toBeNull();
    });

    it('opens only the website the link was made for', async () => {
      const email = uniqueEmail('cross');
      await invite(w, email);
      const other = await w.svc.website(w.user);
      const { link } = await askAndRead(email);
      const token = link.slice(link.lastIndexOf('/') + 1);
      const elsewhere = await visit(w.svc.url, 'GET', `/sites/${other.urlname}/_signin/${token}`);
      expect(elsewhere.status).toBe(404);
      expect(setCookieOf(elsewhere)).toBeUndefined();
      // Not used up by the attempt.
      expect((await visit(w.svc.url, 'GET', new URL(link).pathname)).status).toBe(303);
    });

    it('refuses return addresses off the website (no open redirect)', async () => {
      const email = uniqueEmail('redirect');
      await invite(w, email);
      const other = await w.svc.website(w.user);
      const bad = [
        'https://evil.example/',
        '//evil.example/x',
        '/\\evil.example',
        `${home()}/../../sites/${other.urlname}/`,
        `/sites/${other.urlname}/`,
        `${home()}x/`,
        'javascript:alert(1)',
        `${home()}/\r\nLocation: https://evil.example`,
        `${home()}/#x`,
      ];
      const before = smtp.mails.length;
      for (const back of bad) {
        const form = await visit(w.svc.url, 'GET', `${home()}/_signin?back=${encodeURIComponent(back)}`);
        expect(form.status, back).toBe(422);
        const res = await post(w.svc.url, `${home()}/_signin`, { email, back }, { 'x-forwarded-for': freshAddress() });
        expect(res.status, back).toBe(422);
        expect(res.body).toContain('not on this website');
      }
      await w.svc.service.visitors.signIn.idle();
      expect(smtp.mails.length).toBe(before);
      // A stored return address is checked again when the link is used.
      const at = w.svc.core.visitorLinks.canonical((await w.svc.core.visitorLinks.site(w.urlname))!);
      const forged = await w.svc.core.visitorLinks.create(at, email, 'https://evil.example/');
      const used = await visit(w.svc.url, 'GET', new URL(forged.url).pathname);
      expect(used.status).toBe(303);
      expect(used.headers.location).toBe(`${home()}/`);
    });

    it('throttles requests per address, and per address and e-mail, listed or not, with Retry-After', async () => {
      const listed = uniqueEmail('many');
      await invite(w, listed);
      for (const email of [listed, uniqueEmail('unlisted')]) {
        const address = freshAddress();
        const replies = [];
        for (let i = 0; i < 4; i++) replies.push(await post(w.svc.url, `${home()}/_signin`, { email }, { 'x-forwarded-for': address }));
        expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 429]);
        expect(Number(replies[3].headers['retry-after'])).toBeGreaterThan(0);
      }
      // The owner of the address, elsewhere, is not locked out by those requests: the link comes.
      await askAndRead(listed);
      const address = freshAddress();
      const statuses = [];
      for (let i = 0; i < 11; i++) statuses.push((await post(w.svc.url, `${home()}/_signin`, { email: uniqueEmail('addr') }, { 'x-forwarded-for': address })).status);
      expect(statuses).toEqual([...Array(10).fill(200), 429]);
    });

    it('refuses an e-mail address only far beyond what one person asks for, from many addresses', async () => {
      const email = uniqueEmail('target');
      const limit = LINK_LIMITS.perEmail.points;
      // Several times the three a person may ask for in a quarter of an hour.
      expect(limit).toBeGreaterThanOrEqual(5 * 3);
      const statuses = [];
      for (let i = 0; i <= limit; i++) statuses.push((await post(w.svc.url, `${home()}/_signin`, { email }, { 'x-forwarded-for': freshAddress() })).status);
      expect(statuses).toEqual([...Array(limit).fill(200), 429]);
    });

    it('refuses a post from another origin, and malformed forms with 4xx pages', async () => {
      const email = uniqueEmail('origin');
      const from = (origin: string) => post(w.svc.url, `${home()}/_signin`, { email }, { origin, 'x-forwarded-for': freshAddress() });
      expect((await from('https://evil.example')).status).toBe(403);
      expect((await from('null')).status).toBe(403);
      expect((await from(new URL(w.svc.url).origin)).status).toBe(200);

      const path = `${home()}/_signin`;
      const h = { 'x-forwarded-for': freshAddress() };
      const cases: Array<[string, Promise<Visit>, number]> = [
        ['multipart', visit(w.svc.url, 'POST', path, { headers: { ...h, 'content-type': 'multipart/form-data; boundary=x' }, body: '--x--\r\n' }), 415],
        ['too large', visit(w.svc.url, 'POST', path, { headers: { ...h, 'content-type': FORM }, body: `email=${'a'.repeat(20_000)}` }), 413],
        ['bad UTF-8', visit(w.svc.url, 'POST', path, { headers: { ...h, 'content-type': FORM }, body: Buffer.from([0x65, 0x6d, 0x61, 0x69, 0x6c, 0x3d, 0xff]) }), 400],
        ['email twice', visit(w.svc.url, 'POST', path, { headers: { ...h, 'content-type': FORM }, body: 'email=a@example.com&email=b@example.com' }), 400],
        ['no email', visit(w.svc.url, 'POST', path, { headers: { ...h, 'content-type': FORM }, body: '' }), 422],
        ['not an email', post(w.svc.url, path, { email: '<b>x</b>' }, h), 422],
      ];
      for (const [what, reply, status] of cases) {
        const res = await reply;
        expect(res.status, what).toBe(status);
        expect(res.headers['content-type'], what).toBe('text/html; charset=utf-8');
      }
      const typed = await post(w.svc.url, path, { email: '"><script>x</script>' }, h);
      expect(typed.status).toBe(422);
      expect(typed.body).not.toContain('<script>x');
    });

    it('does not use a link up on HEAD (link checkers)', async () => {
      const email = uniqueEmail('head');
      await invite(w, email);
      const { link } = await askAndRead(email);
      const head = await visit(w.svc.url, 'HEAD', new URL(link).pathname);
      expect(head.status).toBeGreaterThanOrEqual(400);
      expect((await visit(w.svc.url, 'GET', new URL(link).pathname)).status).toBe(303);
    });

    it('serves a website on its own host name: link at that host, cookie for the whole host', async () => {
      const host = `photos-${randomBytes(3).toString('hex')}.example.test`;
      const created = await w.svc.core.websites.create(owner, { urlname: `h-${randomBytes(3).toString('hex')}`, title: 'Hosted', hostname: host.toUpperCase() });
      const hosted = await w.svc.core.visitorLinks.site(created.uuid);
      const email = uniqueEmail('hosted');
      await w.client.createGallery(created.urlname, {
        name: 'Hosted proofs',
        parent: created.rootGalleryUuid,
        acl: [
          { email: 'DEFAULT', read: 0 },
          { email, read: 1 },
        ],
      });
      const hostHeaders = { host: `${host}:443`, 'x-forwarded-for': freshAddress() };
      const form = await visit(w.svc.url, 'GET', '/_signin', { headers: hostHeaders });
      expect(form.status).toBe(200);
      expect(form.body).toContain('action="/_signin"');
      expect(form.body).toContain('Hosted');
      const res = await post(w.svc.url, '/_signin', { email, back: '/-/hosted-proofs' }, hostHeaders);
      expect(res.status).toBe(200);
      const mail = await until('the mail', () => mailsTo(email)[0]);
      const link = linkIn(mail);
      expect(link.startsWith(`https://${host}/_signin/`)).toBe(true);
      const used = await visit(w.svc.url, 'GET', new URL(link).pathname, { headers: { host } });
      expect(used.status).toBe(303);
      expect(used.headers.location).toBe('/-/hosted-proofs');
      expect(setCookieOf(used)).toContain('Path=/;');
      expect(codec.decode(decodeURIComponent(cookiePair(setCookieOf(used)!).slice('mps_visitor='.length)), hosted!.uuid)?.email).toBe(email);
      // The API's own host serves no website.
      expect((await visit(w.svc.url, 'GET', '/_signin')).status).toBe(404);
    });

    it('purges long-dead links in the cleanup sweep', async () => {
      const at = w.svc.core.visitorLinks.canonical((await w.svc.core.visitorLinks.site(w.urlname))!);
      const dead = await w.svc.core.visitorLinks.create(at, uniqueEmail('dead'), `${home()}/`, new Date(Date.now() - 3 * 24 * 3600_000));
      const live = await w.svc.core.visitorLinks.create(at, uniqueEmail('live'), `${home()}/`);
      const result = await w.svc.service.sweep();
      expect(result.visitorLinks).toBeGreaterThanOrEqual(1);
      expect((await visit(w.svc.url, 'GET', new URL(dead.url).pathname)).status).toBe(404);
      expect((await visit(w.svc.url, 'GET', new URL(live.url).pathname)).status).toBe(303);
    });

    it('logs no link or token when mailing', () => {
      const all = JSON.stringify(logs.lines);
      expect(all).not.toMatch(/_signin\/[A-Za-z0-9_-]{43}/);
      expect(all).not.toContain('s3cret');
      expect(logs.lines.some((l) => l.msg === 'visitor sign-in mail sent')).toBe(true);
    });
  });

  describe('sign-in with the mail server down', () => {
    let logs: Captured;
    let w: World;
    beforeAll(async () => {
      logs = captureLogs();
      const port = await freePort();
      w = await worldOn(await TestService.start(kind, { SMTP_URL: `smtp://u:p@127.0.0.1:${port}`, TRUST_PROXY: '1' }, logs.logger));
    });
    afterAll(() => w?.svc.close());

    it('gives the visitor the same answer, logs the failure and keeps serving', async () => {
      const email = uniqueEmail('down');
      await invite(w, email);
      const res = await post(w.svc.url, `/sites/${w.urlname}/_signin`, { email }, { 'x-forwarded-for': freshAddress() });
      expect(res.status).toBe(200);
      expect(res.body).toContain('Check your mail');
      await w.svc.service.visitors.signIn.idle();
      const failure = await until('the logged failure', () => logs.lines.find((l) => l.msg === 'visitor sign-in mail could not be sent'));
      expect(failure.level).toBe(50);
      expect(String(failure.reason)).toContain('ECONNREFUSED');
      expect(JSON.stringify(failure)).not.toContain('u:p');
      expect((await visit(w.svc.url, 'GET', `/sites/${w.urlname}/_signin`)).status).toBe(200);
    });
  });

  describe('sign-in with no SMTP_URL: the log and the admin command line', () => {
    let logs: Captured;
    let w: World;
    beforeAll(async () => {
      logs = captureLogs();
      w = await worldOn(await TestService.start(kind, { TRUST_PROXY: '1' }, logs.logger));
    });
    afterAll(() => w?.svc.close());

    const admin = (...args: string[]): Promise<RunResult> =>
      runNode(['src/cli/admin.ts', ...args], { env: childEnv({ DATA_DIR: w.svc.config.dataDir, DATABASE_URL: w.svc.config.databaseUrl, PUBLIC_URL: w.svc.url }), timeoutMs: 60_000 });

    it('writes the link to the log at info level, and it signs in', async () => {
      const email = uniqueEmail('logged');
      await invite(w, email);
      const res = await post(w.svc.url, `/sites/${w.urlname}/_signin`, { email }, { 'x-forwarded-for': freshAddress() });
      expect(res.status).toBe(200);
      const line = await until('the logged link', () => logs.lines.find((l) => l.to === email));
      expect(line.level).toBe(30);
      expect(String(line.msg)).toContain('no SMTP_URL');
      const used = await visit(w.svc.url, 'GET', new URL(String(line.url)).pathname);
      expect(used.status).toBe(303);
      expect(setCookieOf(used)).toMatch(/^mps_visitor=/);
    });

    it('hands out a link with `admin client link`, by urlname or UUID, and refuses bad input', async () => {
      const email = uniqueEmail('Operator');
      const byName = await admin('client', 'link', '--website', w.urlname, '--email', email, '--back', `/sites/${w.urlname}/-/x`, '--json');
      expect(byName.stderr).toBe('');
      expect(byName.code).toBe(0);
      const { url, expiresAt } = JSON.parse(byName.stdout) as { url: string; expiresAt: string };
      expect(url).toMatch(new RegExp(`^${w.svc.url}/sites/${w.urlname}/_signin/[A-Za-z0-9_-]{43}$`));
      expect(Date.parse(expiresAt)).toBeGreaterThan(Date.now());
      const used = await visit(w.svc.url, 'GET', new URL(url).pathname);
      expect(used.status).toBe(303);
      expect(used.headers.location).toBe(`/sites/${w.urlname}/-/x`);
      const pass = new PassCodec(w.svc.service.uploadSecret).decode(
        decodeURIComponent(cookiePair(setCookieOf(used)!).slice('mps_visitor='.length)),
        (await w.svc.core.visitorLinks.site(w.urlname))!.uuid,
      );
      expect(pass?.email).toBe(email.toLowerCase());

      const byUuid = await admin('client', 'link', '--website', (await w.svc.core.visitorLinks.site(w.urlname))!.uuid, '--email', email);
      expect(byUuid.code).toBe(0);
      expect(byUuid.stdout).toMatch(/\/_signin\/[A-Za-z0-9_-]{43}\n/);

      for (const args of [
        ['--website', 'no-such-site', '--email', email],
        ['--website', w.urlname, '--email', 'not-an-address'],
        ['--website', w.urlname, '--email', email, '--back', 'https://evil.example/'],
      ]) {
        const res = await admin('client', 'link', ...args);
        expect(res.code, args.join(' ')).not.toBe(0);
        expect(res.stdout, args.join(' ')).toBe('');
        expect(res.stderr, args.join(' ')).toMatch(/^[^\n]*\S[^\n]*\n?$/);
      }
    });

    it('answers a concurrent double use of one link once', async () => {
      const at = w.svc.core.visitorLinks.canonical((await w.svc.core.visitorLinks.site(w.urlname))!);
      const link = await w.svc.core.visitorLinks.create(at, uniqueEmail('race'), `/sites/${w.urlname}/`);
      const replies = await Promise.all(Array.from({ length: 8 }, () => visit(w.svc.url, 'GET', new URL(link.url).pathname)));
      expect(replies.filter((r) => r.status === 303)).toHaveLength(1);
      expect(replies.filter((r) => r.status === 410)).toHaveLength(7);
    });
  });
});

describe('password throttle of the gallery password form', () => {
  it('refuses the attempt after five wrong ones, counts parallel attempts, forgives right ones', async () => {
    const limiters = await createLimiterFactory();
    const throttle = new PasswordThrottle(limiters);
    const takes = await Promise.all(Array.from({ length: 12 }, () => throttle.take('site', 'gallery-a', '192.0.2.1')));
    expect(takes.filter((t) => t.ok)).toHaveLength(PASSWORD_LIMITS.perGallery.points);
    const refused = takes.find((t) => !t.ok);
    expect(refused && !refused.ok && refused.retryAfterSeconds).toBeGreaterThan(0);
    // Another gallery, another address: their own counts.
    expect((await throttle.take('site', 'gallery-b', '192.0.2.1')).ok).toBe(true);
    expect((await throttle.take('site', 'gallery-a', '192.0.2.2')).ok).toBe(true);
    // Right passwords give their attempt back.
    for (let i = 0; i < 10; i++) {
      expect((await throttle.take('site', 'gallery-c', '192.0.2.3')).ok).toBe(true);
      await throttle.succeeded('site', 'gallery-c', '192.0.2.3');
    }
    // Many galleries from one address: the address's own count stops the spraying.
    const spray = [];
    for (let i = 0; i < PASSWORD_LIMITS.perAddress.points + 1; i++) spray.push((await throttle.take('site', `g-${i}`, '192.0.2.9')).ok);
    expect(spray.filter((ok) => !ok)).toHaveLength(1);
    await limiters.close();
  });
});

describe.skipIf(!REDIS_URL)('visitor throttles shared through Redis', () => {
  it('counts password attempts of one gallery in one store for every process', async () => {
    const a = await createLimiterFactory(REDIS_URL, TEST_REDIS_PREFIX);
    const b = await createLimiterFactory(REDIS_URL, TEST_REDIS_PREFIX);
    try {
      const site = randomBytes(6).toString('hex');
      const [ta, tb] = [new PasswordThrottle(a), new PasswordThrottle(b)];
      const takes = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? ta : tb).take(site, 'g', '198.51.100.7')));
      expect(takes.filter((t) => t.ok)).toHaveLength(PASSWORD_LIMITS.perGallery.points);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('throttles sign-in requests of one address across two services', async () => {
    const svcs = await Promise.all([TestService.start('sqlite', { REDIS_URL: REDIS_URL!, TRUST_PROXY: '1' }), TestService.start('sqlite', { REDIS_URL: REDIS_URL!, TRUST_PROXY: '1' })]);
    try {
      const worlds = await Promise.all(svcs.map((s) => worldOn(s)));
      const address = `2001:db8::${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}`;
      const statuses = [];
      for (let i = 0; i < 11; i++) {
        const w = worlds[i % 2];
        statuses.push((await post(w.svc.url, `/sites/${w.urlname}/_signin`, { email: uniqueEmail('r') }, { 'x-forwarded-for': address })).status);
      }
      expect(statuses).toEqual([...Array(10).fill(200), 429]);
    } finally {
      await Promise.all(svcs.map((s) => s.close()));
    }
  });
});
