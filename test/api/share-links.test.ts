// Share links per recipient (docs/integrations.md "Share links", an API extension): created,
// listed and revoked through the API; expiry, view limit, password, download level and
// revocation each at the website and at /files; views and downloads in the gallery's activity
// with the recipient; the token never in the log. On SQLite and PostgreSQL.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { items, text } from '../../src/client/xml.js';
import { pino } from 'pino';
import { redactPath } from '../../src/http/redact.js';
import { FileUrls } from '../../src/file-storage/file-urls.js';
import { eachDatabase, TestService, type DbKind } from '../support/service.js';
import { cookieOf, uploadPhoto, visit, waitForRenditions } from '../site/site-support.js';
import { failure, worldOn, type World } from '../support/world.js';

eachDatabase((kind: DbKind) => {
  describe('share links', () => {
    let w: World;
    let g: { uuid: string; path: string };
    let media: string;
    // Everything the service logs, to look for tokens in.
    const lines: string[] = [];

    beforeAll(async () => {
      w = await worldOn(await TestService.start(kind, {}, pino({ level: 'debug' }, { write: (s: string) => void lines.push(s) })));
      // A gallery closed to everyone but its access list: only a share link opens it to a stranger.
      const r = await w.client.createGallery(w.urlname, { name: `Proofs ${randomBytes(3).toString('hex')}`, parent: w.rootUuid, acl: [{ email: 'DEFAULT', read: 0, comp_download: 0, hires_download: 0 }] });
      g = { uuid: text(r.doc, 'gallery-uuid')!, path: text(r.doc, 'gallery/full-url-path')! };
      media = await uploadPhoto(w, g.uuid, 1);
      expect(await waitForRenditions(w, [media])).toBe(true);
    }, 60_000);
    afterAll(async () => {
      await w?.svc.close();
    });

    const galleryPath = () => `/sites/${w.urlname}/-/${g.path}`;
    async function create(params: Record<string, string> = {}): Promise<{ uuid: string; path: string }> {
      const r = await w.client.request('POST', `/galleries/${g.uuid}/share_links.xml`, Object.fromEntries(Object.entries({ recipient: 'Ann Client', ...params }).map(([k, v]) => [`share_link[${k}]`, v])));
      const url = text(r.doc, 'share-link/url')!;
      return { uuid: text(r.doc, 'share-link/uuid')!, path: new URL(url).pathname };
    }
    /** Opens a link: the visit's cookie and where it was sent. */
    async function open(path: string): Promise<{ status: number; cookie?: string; location?: string; body: string; referrer?: string }> {
      const r = await visit(w.svc, path);
      return { status: r.status, cookie: cookieOf(r), location: r.headers.location as string | undefined, body: r.body, referrer: r.headers['referrer-policy'] as string | undefined };
    }
    const fileHrefs = (body: string) => [...new Set([...body.matchAll(/\/files\/[^"\s,]+/g)].map((m) => m[0].replace(/&amp;/g, '&')))];
    const revoke = (uuid: string) => w.client.request('DELETE', `/share_links/${uuid}.xml`, {}, { methodOverride: true });

    it('opens the gallery for its holder: the token leaves the address bar, a cookie scoped to the gallery, noindex, listed without its URL', async () => {
      expect((await visit(w.svc, galleryPath())).status).not.toBe(200);
      const link = await create({ download: 'comps' });
      const first = await open(link.path);
      expect(first.status).toBe(303);
      expect(first.location).toBe(galleryPath());
      expect(first.referrer).toBe('no-referrer');
      expect(first.cookie).toMatch(/^mps_share=/);
      const page = await visit(w.svc, galleryPath(), { cookie: first.cookie });
      expect(page.status).toBe(200);
      expect(String(page.headers['x-robots-tag'] ?? '')).toContain('noindex');
      const list = await w.client.request('GET', `/galleries/${g.uuid}/share_links.xml`);
      const mine = items(list.doc, 'share-links').find((l) => text(l, 'uuid') === link.uuid)!;
      expect(text(mine, 'recipient')).toBe('Ann Client');
      expect(text(mine, 'views')).toBe('1');
      expect(text(mine, 'download')).toBe('comps');
      // 30 days by default.
      expect(Date.parse(text(mine, 'expires-at')!)).toBeGreaterThan(Date.now() + 29 * 86_400_000);
      expect(text(mine, 'url')).toBeUndefined();
      // Not in the sitemap, kept out by robots.txt.
      expect((await visit(w.svc, `/sites/${w.urlname}/sitemap.xml`)).body).not.toContain(g.path);
    });

    it('revocation: the link, the visit and its /files addresses are refused at once', async () => {
      const link = await create({ download: 'originals' });
      const cookie = (await open(link.path)).cookie!;
      const mediaPage = await visit(w.svc, `${galleryPath()}/_/${media}`, { cookie });
      expect(mediaPage.status).toBe(200);
      const files = fileHrefs(mediaPage.body);
      expect(files.length).toBeGreaterThan(0);
      for (const f of files) expect((await visit(w.svc, f)).status).toBe(200);
      expect((await revoke(link.uuid)).status).toBe(200);
      expect((await open(link.path)).status).toBe(410);
      expect((await visit(w.svc, galleryPath(), { cookie })).status).not.toBe(200);
      for (const f of files) expect((await visit(w.svc, f)).status).toBe(404);
      // Another photographer's link or none: a 404.
      expect((await failure(revoke('00000000-0000-4000-8000-000000000000'))).status).toBe(404);
    });

    it('expiry: an expired link is refused (410) and its visit ends, /files too', async () => {
      const link = await create({ expires_at: new Date(Date.now() + 1500).toISOString(), download: 'comps' });
      const cookie = (await open(link.path)).cookie!;
      const files = fileHrefs((await visit(w.svc, `${galleryPath()}/_/${media}`, { cookie })).body);
      expect(files.length).toBeGreaterThan(0);
      await new Promise((r) => setTimeout(r, 1600));
      expect((await open(link.path)).status).toBe(410);
      expect((await visit(w.svc, galleryPath(), { cookie })).status).not.toBe(200);
      for (const f of files) expect((await visit(w.svc, f)).status).toBe(404);
    });

    it('view limit: each visit counts once (not each image); past the limit the link is 410', async () => {
      const link = await create({ max_views: '2' });
      const a = await open(link.path);
      expect(a.status).toBe(303);
      // Pages and images of one visit are not views.
      for (let i = 0; i < 3; i++) expect((await visit(w.svc, galleryPath(), { cookie: a.cookie })).status).toBe(200);
      expect((await open(link.path)).status).toBe(303);
      expect((await open(link.path)).status).toBe(410);
      // A visit under way goes on.
      expect((await visit(w.svc, galleryPath(), { cookie: a.cookie })).status).toBe(200);
    });

    it('password: asked at the clean address, wrong refused (403), right opens; throttled', async () => {
      const link = await create({ password: 'open sesame' });
      const first = await open(link.path);
      expect(first.status).toBe(303);
      expect(first.location).toBe(`/sites/${w.urlname}/_share`);
      const pending = first.cookie!;
      const form = await visit(w.svc, `/sites/${w.urlname}/_share`, { cookie: pending });
      expect(form.status).toBe(200);
      expect(form.body).toContain('type="password"');
      const origin = new URL(w.svc.url).origin;
      const wrong = await visit(w.svc, `/sites/${w.urlname}/_share`, { cookie: pending, form: { password: 'nope' }, headers: { origin } });
      expect(wrong.status).toBe(403);
      const right = await visit(w.svc, `/sites/${w.urlname}/_share`, { cookie: pending, form: { password: 'open sesame' }, headers: { origin } });
      expect(right.status).toBe(303);
      const share = (right.headers['set-cookie'] as string[]).find((c) => c.startsWith('mps_share='))!.split(';')[0]!;
      expect((await visit(w.svc, galleryPath(), { cookie: share })).status).toBe(200);
      // Without the password nothing opens.
      expect((await visit(w.svc, galleryPath(), { cookie: pending })).status).not.toBe(200);
    });

    it('download level at the website and at /files: none, comps, originals; recorded with the recipient', async () => {
      const files = new FileUrls(w.svc.service.uploadSecret, '');
      const original = (await w.svc.db.selectFrom('medias').select('storage_key').where('uuid', '=', media).executeTakeFirstOrThrow()).storage_key!;
      const levels: Record<string, { original: boolean; archive: boolean }> = { none: { original: false, archive: false }, comps: { original: false, archive: true }, originals: { original: true, archive: true } };
      for (const [level, want] of Object.entries(levels)) {
        const link = await create({ download: level, recipient: `r-${level}` });
        const cookie = (await open(link.path)).cookie!;
        expect((await visit(w.svc, galleryPath(), { cookie })).status).toBe(200);
        const page = await visit(w.svc, `${galleryPath()}/_/${media}`, { cookie });
        expect(page.body.includes('Download the original')).toBe(want.original);
        for (const d of fileHrefs(page.body).filter((h) => h.includes('d=1'))) expect((await visit(w.svc, d)).status).toBe(200);
        // /files decides by the link's level, whatever address is made: the shown image's signature parts, re-signed for other files.
        const shown = new URL(fileHrefs(page.body).find((h) => h.includes('d=0'))!, 'http://x');
        expect((await visit(w.svc, shown.pathname + shown.search)).status).toBe(200);
        const [v, gallery, a] = ['v', 'g', 'a'].map((k) => shown.searchParams.get(k)!);
        const later = new Date(Date.now() + 3600_000);
        const asDownload = files.signed(shown.pathname.slice('/files/'.length), later, v, gallery, true, a);
        expect((await visit(w.svc, asDownload)).status).toBe(level === 'none' ? 404 : 200);
        const theOriginal = files.signed(original, later, v, gallery, true, a);
        expect((await visit(w.svc, theOriginal)).status).toBe(want.original ? 200 : 404);
        const archive = await visit(w.svc, `${galleryPath()}/_archive.zip`, { cookie });
        expect(archive.status === 200).toBe(want.archive);
      }
      await w.svc.service.core.activity.idle();
      const r = await w.client.request('GET', `/galleries/${g.uuid}/activity.xml`);
      const clients = items(r.doc, 'events').map((e) => `${text(e, 'kind')} ${text(e, 'client')}`);
      expect(clients, clients.join('; ')).toContain('view share link: r-comps');
      expect(clients).toContain('download share link: r-originals');
      expect(clients).toContain('archive share link: r-originals');
    });

    it('malformed, unknown and revoked tokens: 404 or 410, never 5xx; the API refuses bad input at its field', async () => {
      for (const t of ['x', 'A'.repeat(43), '%00', 'A'.repeat(300), '..%2F..']) {
        const r = await visit(w.svc, `/sites/${w.urlname}/_share/${t}`);
        expect([404, 410]).toContain(r.status);
      }
      expect((await visit(w.svc, `/sites/${w.urlname}/_share`)).status).toBe(404);
      const bad = await failure(w.client.request('POST', `/galleries/${g.uuid}/share_links.xml`, { 'share_link[download]': 'all' }));
      expect(bad.status).toBe(422);
      expect((await failure(w.client.request('POST', `/galleries/${g.uuid}/share_links.xml`, { 'share_link[expires_at]': 'soon' }))).status).toBe(422);
      expect((await failure(w.client.request('POST', `/galleries/00000000-0000-4000-8000-000000000000/share_links.xml`, {}))).status).toBe(404);
    });

    it('the log never shows a token: every test above, then refusals and errors at token addresses', async () => {
      const token = 'A'.repeat(43);
      expect(redactPath(`/sites/x/_share/${token}`)).toBe('/sites/x/_share/[token]');
      const link = await create({ password: 'pw' });
      const secret = link.path.slice(link.path.lastIndexOf('/') + 1);
      await visit(w.svc, link.path, { method: 'POST', form: { x: '1' } });
      await visit(w.svc, `${link.path}/more`);
      await visit(w.svc, link.path, { method: 'PUT' });
      await visit(w.svc, `/_share/${secret}`, { host: 'unknown.example' });
      await w.svc.service.core.activity.idle();
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.filter((l) => l.includes(secret))).toEqual([]);
      // No other token of the tests either: 43 base64url characters after /_share/.
      expect(lines.filter((l) => /_share\/[A-Za-z0-9_-]{43}/.test(l))).toEqual([]);
    });
  });
});
