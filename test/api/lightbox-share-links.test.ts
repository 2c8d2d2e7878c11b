// Share links to a lightbox (docs/integrations.md "Share links", an API extension): created and
// listed at /lightboxes/<uuid>/share_links.xml, revoked at /share_links/<uuid>.xml like a
// gallery's; the recipient's page at <home>/_lightbox/<uuid> in the website's brand; expiry, view
// limit, password, download level and revocation each at the website and at /files; another
// photographer's lightbox a 404; bad input a 4xx. On SQLite and PostgreSQL.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { items, text } from '../../src/client/xml.js';
import { FileUrls } from '../../src/file-storage/file-urls.js';
import { eachDatabase, TestService, type DbKind } from '../support/service.js';
import { cookieOf, uploadPhoto, visit, waitForRenditions } from '../site/site-support.js';
import { failure, worldOn, type World } from '../support/world.js';

eachDatabase((kind: DbKind) => {
  describe('lightbox share links', () => {
    let w: World;
    let other: World;
    let lightbox: string;
    let medias: string[];
    /** A photo of the same gallery, not in the lightbox. */
    let outside: string;

    beforeAll(async () => {
      w = await worldOn(await TestService.start(kind));
      other = await worldOn(w.svc);
      // A gallery closed to everyone: only the lightbox's link shows its photos to a stranger.
      const r = await w.client.createGallery(w.urlname, { name: `Library ${randomBytes(3).toString('hex')}`, parent: w.rootUuid, acl: [{ email: 'DEFAULT', read: 0, comp_download: 0, hires_download: 0 }] });
      const gallery = text(r.doc, 'gallery-uuid')!;
      medias = [await uploadPhoto(w, gallery, 1), await uploadPhoto(w, gallery, 2)];
      outside = await uploadPhoto(w, gallery, 3);
      expect(await waitForRenditions(w, [...medias, outside])).toBe(true);
      lightbox = (await w.svc.core.lightboxes.create({ id: w.user.id }, 'Picks for <b>Ann</b>', medias)).uuid;
    }, 90_000);
    afterAll(async () => {
      await w?.svc.close();
    });

    const pagePath = () => `/sites/${w.urlname}/_lightbox/${lightbox}`;
    const params = (p: Record<string, string>) => Object.fromEntries(Object.entries(p).map(([k, v]) => [`share_link[${k}]`, v]));
    async function create(p: Record<string, string> = {}): Promise<{ uuid: string; path: string; doc: Awaited<ReturnType<World['client']['request']>>['doc'] }> {
      const r = await w.client.request('POST', `/lightboxes/${lightbox}/share_links.xml`, params({ recipient: 'Ann Client', ...p }));
      return { uuid: text(r.doc, 'share-link/uuid')!, path: new URL(text(r.doc, 'share-link/url')!).pathname, doc: r.doc };
    }
    async function open(path: string): Promise<{ status: number; cookie?: string; location?: string; referrer?: string }> {
      const r = await visit(w.svc, path);
      return { status: r.status, cookie: cookieOf(r), location: r.headers.location as string | undefined, referrer: r.headers['referrer-policy'] as string | undefined };
    }
    const fileHrefs = (body: string) => [...new Set([...body.matchAll(/\/files\/[^"\s,]+/g)].map((m) => m[0].replace(/&amp;/g, '&')))];
    const revoke = (uuid: string) => w.client.request('DELETE', `/share_links/${uuid}.xml`, {}, { methodOverride: true });
    const keyOf = async (uuid: string, name = 'original') =>
      name === 'original'
        ? (await w.svc.db.selectFrom('medias').select('storage_key').where('uuid', '=', uuid).executeTakeFirstOrThrow()).storage_key!
        : (await w.svc.db.selectFrom('renditions').innerJoin('medias', 'medias.id', 'renditions.media_id').select('renditions.storage_key').where('medias.uuid', '=', uuid).orderBy('renditions.width').executeTakeFirstOrThrow()).storage_key;

    it('the API: create replies <share-link> with <uuid>, <url> and the lightbox; listed without the URL; the recipient sees the photos in the brand with the viewer', async () => {
      const link = await create({ download: 'comps' });
      expect(link.uuid).toMatch(/^[0-9a-f-]{36}$/);
      expect(text(link.doc, 'share-link/lightbox-uuid')).toBe(lightbox);
      expect(text(link.doc, 'share-link/gallery-uuid')).toBeUndefined();
      expect(link.path).toMatch(new RegExp(`^/sites/${w.urlname}/_share/[A-Za-z0-9_-]{43}$`));
      // Nobody sees the page without the link.
      expect((await visit(w.svc, pagePath())).status).toBe(404);
      const first = await open(link.path);
      expect(first.status).toBe(303);
      expect(first.location).toBe(pagePath());
      expect(first.referrer).toBe('no-referrer');
      expect(first.cookie).toMatch(/^mps_share=/);
      const page = await visit(w.svc, pagePath(), { cookie: first.cookie });
      expect(page.status).toBe(200);
      expect(String(page.headers['x-robots-tag'])).toContain('noindex');
      expect(page.headers['referrer-policy']).toBe('no-referrer');
      expect(page.headers['cache-control']).toBe('no-store');
      // Escaped, the lightbox's photos (each with the viewer's data), none other.
      expect(page.body).toContain('Picks for &lt;b>Ann&lt;/b>');
      for (const m of medias) expect(page.body).toContain(`data-uuid="${m}"`);
      expect(page.body).not.toContain(outside);
      expect(page.body).toMatch(/data-width="\d+"/);
      const list = await w.client.request('GET', `/lightboxes/${lightbox}/share_links.xml`);
      const mine = items(list.doc, 'share-links').find((l) => text(l, 'uuid') === link.uuid)!;
      expect(text(mine, 'recipient')).toBe('Ann Client');
      expect(text(mine, 'views')).toBe('1');
      expect(Date.parse(text(mine, 'expires-at')!)).toBeGreaterThan(Date.now() + 29 * 86_400_000);
      expect(text(mine, 'url')).toBeUndefined();
      // A gallery's link cookie, or none, opens no lightbox; the sitemap never names it.
      expect((await visit(w.svc, `/sites/${w.urlname}/sitemap.xml`)).body).not.toContain('_lightbox');
      expect((await visit(w.svc, `/sites/${w.urlname}/_lightbox/${lightbox.toUpperCase()}`, { cookie: first.cookie })).status).toBe(404);
      expect((await visit(w.svc, `${pagePath()}?page=2`, { cookie: first.cookie })).status).toBe(404);
    });

    it('revocation: the link, the page and its /files addresses are refused at once', async () => {
      const link = await create({ download: 'originals' });
      const cookie = (await open(link.path)).cookie!;
      const page = await visit(w.svc, pagePath(), { cookie });
      const files = fileHrefs(page.body);
      expect(files.length).toBeGreaterThan(0);
      for (const f of files.slice(0, 4)) expect((await visit(w.svc, f)).status).toBe(200);
      expect((await revoke(link.uuid)).status).toBe(200);
      expect((await open(link.path)).status).toBe(410);
      expect((await visit(w.svc, pagePath(), { cookie })).status).toBe(404);
      for (const f of files.slice(0, 4)) expect((await visit(w.svc, f)).status).toBe(404);
      const list = await w.client.request('GET', `/lightboxes/${lightbox}/share_links.xml`);
      expect(text(items(list.doc, 'share-links').find((l) => text(l, 'uuid') === link.uuid)!, 'revoked-at')).toBeTruthy();
    });

    it('expiry: an expired link is refused (410), its page and /files addresses end', async () => {
      const link = await create({ expires_at: new Date(Date.now() + 1500).toISOString(), download: 'comps' });
      const cookie = (await open(link.path)).cookie!;
      const files = fileHrefs((await visit(w.svc, pagePath(), { cookie })).body);
      expect(files.length).toBeGreaterThan(0);
      await new Promise((r) => setTimeout(r, 1600));
      expect((await open(link.path)).status).toBe(410);
      expect((await visit(w.svc, pagePath(), { cookie })).status).toBe(404);
      for (const f of files.slice(0, 3)) expect((await visit(w.svc, f)).status).toBe(404);
    });

    it('view limit: each opening counts once, pages of a visit do not; past the limit the link is 410', async () => {
      const link = await create({ max_views: '2' });
      const a = await open(link.path);
      expect(a.status).toBe(303);
      for (let i = 0; i < 3; i++) expect((await visit(w.svc, pagePath(), { cookie: a.cookie })).status).toBe(200);
      expect((await open(link.path)).status).toBe(303);
      expect((await open(link.path)).status).toBe(410);
      expect((await visit(w.svc, pagePath(), { cookie: a.cookie })).status).toBe(200);
    });

    it('password: asked at the clean address, wrong refused (403), right opens the lightbox', async () => {
      const link = await create({ password: 'open sesame' });
      const first = await open(link.path);
      expect(first.location).toBe(`/sites/${w.urlname}/_share`);
      const origin = new URL(w.svc.url).origin;
      const wrong = await visit(w.svc, `/sites/${w.urlname}/_share`, { cookie: first.cookie, form: { password: 'nope' }, headers: { origin } });
      expect(wrong.status).toBe(403);
      const right = await visit(w.svc, `/sites/${w.urlname}/_share`, { cookie: first.cookie, form: { password: 'open sesame' }, headers: { origin } });
      expect(right.status).toBe(303);
      expect(right.headers.location).toBe(pagePath());
      const share = (right.headers['set-cookie'] as string[]).find((c) => c.startsWith('mps_share='))!.split(';')[0]!;
      expect((await visit(w.svc, pagePath(), { cookie: share })).status).toBe(200);
      expect((await visit(w.svc, pagePath(), { cookie: first.cookie })).status).toBe(404);
    });

    it('download level at the page and at /files: none, comps, originals; a photo outside the lightbox never; downloads counted on the link', async () => {
      const files = new FileUrls(w.svc.service.uploadSecret, '');
      const later = new Date(Date.now() + 3600_000);
      const [original, outsideImage, outsideOriginal] = [await keyOf(medias[0]!), await keyOf(outside, 'rendition'), await keyOf(outside)];
      for (const level of ['none', 'comps', 'originals'] as const) {
        const link = await create({ download: level, recipient: `r-${level}` });
        const cookie = (await open(link.path)).cookie!;
        const page = await visit(w.svc, pagePath(), { cookie });
        expect(page.status).toBe(200);
        const downloads = fileHrefs(page.body).filter((h) => h.includes('d=1'));
        // The viewer's download: the original at `originals`; at `comps` a watermarked comp, and this account has no watermark.
        expect(downloads.length > 0).toBe(level === 'originals');
        for (const d of downloads) expect((await visit(w.svc, d)).status).toBe(200);
        // /files decides by the link's level and the lightbox's contents, whatever address is made with the page's signature parts.
        const shown = new URL(fileHrefs(page.body).find((h) => h.includes('d=0'))!, 'http://x');
        expect((await visit(w.svc, shown.pathname + shown.search)).status).toBe(200);
        const [v, g] = ['v', 'g'].map((k) => shown.searchParams.get(k)!);
        expect(g).toBe(lightbox);
        expect((await visit(w.svc, files.signed(shown.pathname.slice('/files/'.length), later, v, g, true))).status).toBe(level === 'none' ? 404 : 200);
        expect((await visit(w.svc, files.signed(original, later, v, g, true))).status).toBe(level === 'originals' ? 200 : 404);
        expect((await visit(w.svc, files.signed(outsideImage, later, v, g))).status).toBe(404);
        expect((await visit(w.svc, files.signed(outsideOriginal, later, v, g, true))).status).toBe(404);
        const list = await w.client.request('GET', `/lightboxes/${lightbox}/share_links.xml`);
        const row = items(list.doc, 'share-links').find((l) => text(l, 'uuid') === link.uuid)!;
        expect(Number(text(row, 'downloads'))).toBe(level === 'none' ? 0 : downloads.length + 1 + (level === 'originals' ? 1 : 0));
      }
    });

    it("another photographer's lightbox is a 404 on every route, and their DELETE of this link too", async () => {
      const link = await create();
      expect((await failure(other.client.request('POST', `/lightboxes/${lightbox}/share_links.xml`, params({ recipient: 'x' })))).status).toBe(404);
      expect((await failure(other.client.request('GET', `/lightboxes/${lightbox}/share_links.xml`))).status).toBe(404);
      expect((await failure(other.client.request('DELETE', `/share_links/${link.uuid}.xml`, {}, { methodOverride: true }))).status).toBe(404);
      // Even with bad parameters, the foreign lightbox is a 404 first.
      expect((await failure(other.client.request('POST', `/lightboxes/${lightbox}/share_links.xml`, params({ download: 'all' })))).status).toBe(404);
      expect((await failure(w.client.request('POST', `/lightboxes/00000000-0000-4000-8000-000000000000/share_links.xml`, {}))).status).toBe(404);
      // The link still works for its holder.
      expect((await open(link.path)).status).toBe(303);
    });

    it('an account without a website cannot share a lightbox: 422, no link made', async () => {
      const lone = await w.svc.user();
      const client = w.svc.client(await w.svc.app(), lone);
      const box = (await w.svc.core.lightboxes.create({ id: lone.id }, 'Nowhere to show')).uuid;
      const r = await failure(client.request('POST', `/lightboxes/${box}/share_links.xml`, params({ recipient: 'x' })));
      expect(r.status).toBe(422);
      expect(r.message).toMatch(/website/);
      expect(items((await client.request('GET', `/lightboxes/${box}/share_links.xml`)).doc, 'share-links')).toEqual([]);
    });

    it('fuzzed inputs: 4xx at the API and the website, never 5xx', async () => {
      const bad: Array<Record<string, string>> = [
        { download: 'all' },
        { expires_at: 'soon' },
        { max_views: '0' },
        { max_views: '-1' },
        { max_views: '1e9' },
        { recipient: 'x'.repeat(201) },
        { password: 'p'.repeat(201) },
        { expires_at: '2026-13-45T99:00:00Z' },
        { unknown: '1' },
      ];
      for (const p of bad) {
        const r = await failure(w.client.request('POST', `/lightboxes/${lightbox}/share_links.xml`, params(p)));
        expect(r.status, JSON.stringify(p)).toBeGreaterThanOrEqual(400);
        expect(r.status, JSON.stringify(p)).toBeLessThan(500);
      }
      for (const u of ['x', 'A'.repeat(300), '%00', '..%2F..', lightbox.slice(0, 35), `${lightbox}/x`]) {
        const r = await failure(w.client.request('GET', `/lightboxes/${u}/share_links.xml`));
        expect(r.status, u).toBeGreaterThanOrEqual(400);
        expect(r.status, u).toBeLessThan(500);
      }
      for (const p of ['x', 'A'.repeat(300), '%00', '%E0%A4%A', `${lightbox}?page=0`, `${lightbox}?page=x`, `${lightbox}?utm=1`, `${lightbox}/x`, '00000000-0000-4000-8000-000000000000']) {
        const r = await visit(w.svc, `/sites/${w.urlname}/_lightbox/${p}`);
        expect(r.status, p).toBeGreaterThanOrEqual(400);
        expect(r.status, p).toBeLessThan(500);
      }
    });
  });
});
