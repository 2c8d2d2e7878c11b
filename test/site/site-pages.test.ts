// The visitor website over HTTP, as a browser sees it: addresses (by urlname
// and by Host), the gallery and media pages, order, hidden galleries, media
// that must never show, passwords with their cookie and throttle, access
// lists, robots.txt and sitemap.xml, 404 pages, headers and escaping.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { all, text } from '../../src/client/xml.js';
import { FileUrls } from '../../src/file-storage/file-urls.js';
import { nowIso } from '../../src/database/db.js';
import { create, galleryId, publishMedias } from '../api/galleries-fixtures.js';
import { eachDatabase, TestService } from '../support/service.js';
import { startWorld, type World } from '../support/world.js';
import { cookieOf, mediaLinks, startSite, uploadPhoto, visit, waitForRenditions } from './site-support.js';

const CSP = "default-src 'none'; img-src 'self'; style-src 'self'; font-src 'self'; script-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

eachDatabase((kind) => {
  let w: World;
  let home: string;
  beforeAll(async () => void ({ w, home } = await startSite(kind, { VISITOR_RATE_LIMIT: 'off', SITE_CACHE_SECONDS: '0' })));
  afterAll(() => w?.svc.close());

  const mediaIdsOf = async (uuid: string) => all((await w.client.gallery(w.urlname, uuid, 'details_with_medias')).doc, 'gallery/medias/media/uuid').map((n) => n.text);

  describe('gallery pages', () => {
    it('needs no signature and shows the root gallery at the home, with strict headers', async () => {
      const page = await visit(w.svc, `${home}/`);
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.headers['content-security-policy']).toBe(CSP);
      expect(page.headers['x-content-type-options']).toBe('nosniff');
      expect(page.headers['referrer-policy']).toBe('same-origin');
      expect(page.body.startsWith('<!doctype html><html lang="en">')).toBe(true);
      expect(page.body).toContain('<main id="main">');
      // Nothing inline: no style attributes, no inline scripts (a JSON-LD data block is not one: never run).
      expect(page.body).not.toMatch(/ style=|<style|<script>|<script (?![^>]*type="application\/ld\+json")[^>]*>[^<]/);
      const asset = /href="(\/_site\/[A-Za-z0-9_-]+\.css)"/.exec(page.body)![1];
      const css = await visit(w.svc, asset);
      expect([css.status, css.headers['content-type'], css.headers['cache-control']]).toEqual([200, 'text/css; charset=utf-8', 'public, max-age=31536000, immutable']);
      expect((await visit(w.svc, '/_site/nothing.css')).status).toBe(404);
      // Without the trailing slash: sent to the home.
      const bare = await visit(w.svc, home);
      expect([bare.status, bare.headers.location]).toEqual([301, `${home}/`]);
    });

    it('lists medias in the order the API gives, never unpublished, pending or failed ones', async () => {
      const g = await create(w, 'Ordered', w.rootUuid, { content_order: 'file_name_nat', content_order_direction: 'desc' });
      const shown = await publishMedias(w.svc.db, w.user, g, ['IMG 2.jpg', 'IMG 10.jpg', 'IMG 1.jpg', 'img 3.jpg']);
      const [pending] = await publishMedias(w.svc.db, w.user, g, [{ file_name: 'IMG 4.jpg', status: 'pending' }]);
      const [failed] = await publishMedias(w.svc.db, w.user, g, ['IMG 5.jpg']);
      await w.svc.db.updateTable('medias').set({ renditions_state: 'failed' }).where('uuid', '=', failed).execute();
      // Published elsewhere only.
      const other = await create(w, 'Elsewhere');
      const [elsewhere] = await publishMedias(w.svc.db, w.user, other, ['IMG 6.jpg']);

      const page = await visit(w.svc, `${home}/-/ordered`);
      expect(page.status).toBe(200);
      const links = mediaLinks(page.body);
      expect(links).toEqual([shown[1], shown[3], shown[0], shown[2]]);
      expect(links).toEqual((await mediaIdsOf(g)).filter((u) => u !== failed));
      for (const hidden of [pending, failed, elsewhere]) {
        expect(page.body).not.toContain(hidden);
        expect((await visit(w.svc, `${home}/-/ordered/_/${hidden}`)).status).toBe(404);
      }
      // Alt text: the title, else its place in the gallery (a file name is never shown: issue 30); the shape is known before any rendition exists.
      expect(page.body).toContain('aria-label="Ordered: photo 1 of 4"');
      expect(page.body).not.toContain('IMG 10.jpg');
      // The default style (Grid) shows justified rows unless it crops (test/site/site-presentation.test.ts).
      expect(page.body).toMatch(/<ul class="media justified sp-normal" data-layout="justified">/);
    });

    it('shows listed sub-galleries with covers, hides hidden ones from navigation but serves them at their address', async () => {
      const parent = await create(w, 'Travels');
      const open = await create(w, 'Iceland', parent);
      const hidden = await create(w, 'Secret beach', parent, { hidden: 1 });
      await publishMedias(w.svc.db, w.user, open, ['a.jpg']);
      await publishMedias(w.svc.db, w.user, hidden, ['b.jpg']);
      const page = await visit(w.svc, `${home}/-/travels`);
      expect(page.body).toContain(`href="${home}/-/travels/iceland"`);
      expect(page.body).not.toContain('secret-beach');
      expect(page.body).not.toContain('Secret beach');
      const secret = await visit(w.svc, `${home}/-/travels/secret-beach`);
      expect(secret.status).toBe(200);
      expect(secret.body).toContain('<h1>Secret beach</h1>');
      // Breadcrumbs back up the tree.
      expect(secret.body).toContain(`<a href="${home}/-/travels">Travels</a>`);
      expect(secret.body).toContain('<span aria-current="page">Secret beach</span>');
    });

    it('paginates 60 medias a page, with links between pages; a page beyond the last is not found', async () => {
      const g = await create(w, 'Many', w.rootUuid, { content_order: 'manual-last' });
      const ids = await publishMedias(w.svc.db, w.user, g, Array.from({ length: 130 }, (_, i) => `m${i}.jpg`));
      const first = await visit(w.svc, `${home}/-/many`);
      expect(mediaLinks(first.body)).toEqual(ids.slice(0, 60));
      expect(first.body).toContain(`href="${home}/-/many?page=2" rel="next"`);
      const third = await visit(w.svc, `${home}/-/many?page=3`);
      expect(mediaLinks(third.body)).toEqual(ids.slice(120));
      expect(third.body).toContain(`href="${home}/-/many?page=2" rel="prev"`);
      for (const bad of ['4', '0', 'x', '-1']) expect((await visit(w.svc, `${home}/-/many?page=${bad}`)).status).toBe(404);
    });

    it('lays medias out as the display style says: masonry, slideshow, filmstrip', async () => {
      const styles = all((await w.client.request('GET', `/websites/${w.urlname}/gallery_display_styles.xml`, { view: 'details' })).doc, 'gallery-display-styles/gallery-display-style');
      const styleOf = (layout: string) => text(styles.find((s) => text(s, 'layout') === layout)!, 'uuid')!;
      for (const [layout, cls] of [
        ['masonry', 'masonry'],
        ['slideshow', 'slideshow'],
        ['filmstrip', 'filmstrip'],
      ] as const) {
        const g = await create(w, `Style ${layout}`, w.rootUuid, { display_style: styleOf(layout) });
        await publishMedias(w.svc.db, w.user, g, ['x.jpg']);
        const page = await visit(w.svc, `${home}/-/style-${layout}`);
        expect(page.body).toContain(`<ul class="media ${cls} sp-normal" data-layout="${layout}">`);
      }
    });

    it('shows a media page with its details and the previous and next media in gallery order', async () => {
      const g = await create(w, 'Details', w.rootUuid, { content_order: 'manual-last' });
      const [a, b, c] = await publishMedias(w.svc.db, w.user, g, ['a.jpg', 'b.jpg', 'c.jpg']);
      const id = (await w.svc.db.selectFrom('medias').select('id').where('uuid', '=', b).executeTakeFirstOrThrow()).id;
      await w.svc.db
        .updateTable('medias')
        .set({ title: 'Harbour at dawn', description: 'Fog over the water', location: 'Pier 3', city: 'Reykjavík', country: 'Iceland', shot_at: '2024-05-01T05:12:00Z' })
        .where('id', '=', id)
        .execute();
      await w.svc.db.insertInto('media_keywords').values([{ media_id: id, position: 1, keyword: 'fog' }, { media_id: id, position: 2, keyword: 'sea' }]).execute();
      const page = await visit(w.svc, `${home}/-/details/_/${b}`);
      expect(page.status).toBe(200);
      expect(page.body).toContain('<h1>Harbour at dawn</h1>');
      expect(page.body).toContain('Fog over the water');
      expect(page.body).toContain('Pier 3, Reykjavík, Iceland');
      expect(page.body).toContain('<time datetime="2024-05-01T05:12:00Z">1 May 2024, 05:12 UTC</time>');
      expect(page.body).toContain('<li>fog</li><li>sea</li>');
      expect(page.body).toContain(`href="${home}/-/details/_/${a}" rel="prev"`);
      expect(page.body).toContain(`href="${home}/-/details/_/${c}" rel="next"`);
      // No download without an access list that grants one.
      expect(page.body).not.toContain('Download');
      // A root gallery media has its own address form.
      const [r] = await publishMedias(w.svc.db, w.user, w.rootUuid, ['root.jpg']);
      expect((await visit(w.svc, `${home}/_/${r}`)).status).toBe(200);
      expect((await visit(w.svc, `${home}/-/details/_/${r}`)).status).toBe(404);
    });
  });

  describe('images', () => {
    // Needs the renditions the service makes after an upload (the renditions branch): before
    // they exist, the pages show placeholders of the photo's shape and this checks that.
    it('public galleries use permanent image addresses with srcset and sizes; protected ones addresses signed for the visitor', async () => {
      const open = await create(w, 'Open photos');
      const locked = await create(w, 'Locked photos', w.rootUuid, { password: 'pw' });
      const a = await uploadPhoto(w, open, 1, 800);
      const b = await uploadPhoto(w, locked, 2, 800);
      const made = await waitForRenditions(w, [a, b]);
      const openPage = await visit(w.svc, `${home}/-/open-photos`);
      const cookie = cookieOf(await visit(w.svc, `${home}/_password`, { form: { gallery: locked, password: 'pw', back: `${home}/-/locked-photos` } }))!;
      const lockedPage = await visit(w.svc, `${home}/-/locked-photos`, { cookie });
      const lockedMedia = await visit(w.svc, `${home}/-/locked-photos/_/${b}`, { cookie });
      expect(lockedPage.status).toBe(200);
      if (!made) {
        for (const p of [openPage, lockedPage, lockedMedia]) {
          expect(p.body).toMatch(/<svg class="ph" viewBox="0 0 800 533" width="800" height="533" role="img" aria-label="Photo \d">/);
          expect(p.body).not.toContain('/files/');
        }
        return;
      }
      const img = (html: string) => /<img src="([^"]+)" srcset="([^"]+)" sizes="([^"]+)" width="(\d+)" height="(\d+)" alt="([^"]*)" loading="(\w+)"/.exec(html.replace(/&amp;/g, '&'));
      const pub = img(openPage.body)!;
      expect(pub[1]).toMatch(/^\/files\/[A-Za-z0-9._/-]+$/);
      expect(pub[2].split(', ').every((c) => /^\/files\/[A-Za-z0-9._/-]+ \d+w$/.test(c))).toBe(true);
      expect([pub[4], pub[5], pub[6]]).toEqual(['800', '533', 'Photo 2']);
      const files = new FileUrls(w.svc.service.uploadSecret, '');
      for (const page of [lockedPage, lockedMedia]) {
        const m = img(page.body)!;
        for (const url of [m[1], ...m[2].split(', ').map((c) => c.split(' ')[0])]) {
          const u = new URL(url, 'http://x');
          expect(files.check(u.pathname.slice('/files/'.length), Object.fromEntries(u.searchParams))).toMatchObject({ kind: 'signed', download: false });
        }
        // The file answers at the signed address only.
        const signed = await fetch(w.svc.url + m[1]);
        expect(signed.status).toBe(200);
        expect([403, 404]).toContain((await fetch(w.svc.url + m[1].split('?')[0])).status);
      }
      const pubFile = await fetch(w.svc.url + pub[1]);
      expect(pubFile.status).toBe(200);
    });
  });

  describe('not found', () => {
    it('answers unknown websites, galleries, medias and paths with an HTML 404 page', async () => {
      for (const path of [
        '/sites/no-such-site/',
        `${home}/-/no-such-gallery`,
        `${home}/-/Ordered`,
        `${home}/_/00000000-0000-4000-8000-000000000000`,
        `${home}/_/not-a-uuid`,
        `${home}/elsewhere`,
        `${home}/-/../x`,
        `${home}/-/${'a'.repeat(1001)}`,
        `${home}/-/${'a/'.repeat(4000)}a`,
        `${home}/-/ordered?page=${'9'.repeat(50)}`,
      ]) {
        const page = await visit(w.svc, path);
        expect(page.status, path).toBe(404);
        expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(page.headers['content-security-policy']).toBe(CSP);
        expect(page.body).toContain('<h1>Not found</h1>');
      }
      // The API's own misses stay XML.
      const api = await visit(w.svc, '/no-such-endpoint.xml');
      expect(api.status).toBe(404);
      expect(api.headers['content-type']).toContain('xml');
    });
  });

  describe('passwords', () => {
    let locked: string;
    let inner: string;
    beforeAll(async () => {
      locked = await create(w, 'Wedding', w.rootUuid, { password: 'open sesame' });
      inner = await create(w, 'Reception', locked);
      await publishMedias(w.svc.db, w.user, locked, ['vows.jpg']);
      await publishMedias(w.svc.db, w.user, inner, ['cake.jpg']);
    });

    it('shows a form instead of the gallery and of its sub-galleries', async () => {
      for (const path of [`${home}/-/wedding`, `${home}/-/wedding/reception`]) {
        const page = await visit(w.svc, path);
        expect(page.status).toBe(403);
        expect(page.body).toContain(`<form class="pw" method="post" action="${home}/_password">`);
        expect(page.body).toContain(`name="gallery" value="${locked}"`);
        expect(page.body).toContain(`name="back" value="${path}"`);
        expect(page.body).not.toContain('vows.jpg');
        expect(page.body).not.toContain('cake.jpg');
        expect(page.headers['x-robots-tag']).toBe('noindex');
      }
      // A later page of the gallery is where the visitor comes back to (other query parameters are not kept).
      const odd = await visit(w.svc, `${home}/-/wedding?page=2&x=%22`);
      expect([odd.status, odd.headers.location]).toEqual([301, `${home}/-/wedding?page=2`]);
      const paged = await visit(w.svc, `${home}/-/wedding?page=2`);
      expect(paged.body).toContain(`name="back" value="${home}/-/wedding?page=2"`);
      // Off the home page by default (a client gallery: issue 30); chosen as featured, it is listed, marked protected, without a cover.
      expect((await visit(w.svc, `${home}/`)).body).not.toContain('Wedding<span class="sr"> (protected)</span>');
      await w.client.request('PUT', `/websites/${w.urlname}.xml`, { 'website[featured][0][gallery]': locked });
      const root = await visit(w.svc, `${home}/`);
      expect(root.body).toContain('Wedding<span class="sr"> (protected)</span>');
      await w.client.request('PUT', `/websites/${w.urlname}.xml`, { 'website[featured][0][gallery]': '' });
    });

    it('a wrong password shows the form again; the right one sets the pass cookie and goes back (303)', async () => {
      const wrong = await visit(w.svc, `${home}/_password`, { form: { gallery: locked, password: 'nope', back: `${home}/-/wedding/reception` } });
      expect(wrong.status).toBe(403);
      expect(wrong.body).toContain('That password is not right.');
      expect(wrong.headers['set-cookie']).toBeUndefined();

      const right = await visit(w.svc, `${home}/_password`, { form: { gallery: locked, password: 'open sesame', back: `${home}/-/wedding/reception` } });
      expect(right.status).toBe(303);
      expect(right.headers.location).toBe(`${home}/-/wedding/reception`);
      const set = String(right.headers['set-cookie']);
      expect(set).toMatch(/^mps_visitor=[^;]+; Max-Age=\d+; Path=\/sites\/[^;]+; HttpOnly; SameSite=Lax$/);
      const cookie = cookieOf(right)!;
      const page = await visit(w.svc, `${home}/-/wedding/reception`, { cookie });
      expect(page.status).toBe(200);
      expect(page.body).toMatch(/aria-label="[^"]+: photo 1 of \d+"/);
      expect(page.body).not.toContain('cake.jpg');
      // Protected pages are never indexed.
      expect(page.body).toContain('<meta name="robots" content="noindex"/>');
      expect((await visit(w.svc, `${home}/-/wedding`, { cookie })).status).toBe(200);
      // A cookie forged or for another website opens nothing.
      expect((await visit(w.svc, `${home}/-/wedding`, { cookie: cookie.slice(0, -3) + 'AAA' })).status).toBe(403);
      const other = await w.svc.website(w.user);
      expect((await visit(w.svc, `/sites/${other.urlname}/`, { cookie })).status).toBe(200);
    });

    it('goes back only to an address of this website', async () => {
      for (const back of ['https://evil.example/', '//evil.example/x', `/sites/other/`, `${home}/\\evil`]) {
        const res = await visit(w.svc, `${home}/_password`, { form: { gallery: locked, password: 'open sesame', back } });
        expect(res.status).toBe(303);
        expect(res.headers.location).toBe(`${home}/`);
      }
    });

    it('counts simultaneous wrong passwords before checking them: 12 at once, at most 5 are checked', async () => {
      const g = await create(w, 'Stampede', w.rootUuid, { password: 'right one' });
      const replies = await Promise.all(
        Array.from({ length: 12 }, (_, i) => visit(w.svc, `${home}/_password`, { form: { gallery: g, password: `guess ${i}`, back: `${home}/-/stampede` } })),
      );
      const statuses = replies.map((r) => r.status);
      expect(statuses.filter((s) => s === 403).length).toBeLessThanOrEqual(5);
      expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(7);
    });

    it('throttles wrong passwords per gallery and address: refused with 429 even for the right one', async () => {
      const g = await create(w, 'Throttled', w.rootUuid, { password: 'right one' });
      for (let i = 0; i < 5; i++) expect((await visit(w.svc, `${home}/_password`, { form: { gallery: g, password: `guess ${i}`, back: `${home}/-/throttled` } })).status).toBe(403);
      const refused = await visit(w.svc, `${home}/_password`, { form: { gallery: g, password: 'right one', back: `${home}/-/throttled` } });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(refused.headers['set-cookie']).toBeUndefined();
      // Another gallery is not affected.
      expect((await visit(w.svc, `${home}/_password`, { form: { gallery: locked, password: 'open sesame', back: `${home}/-/wedding` } })).status).toBe(303);
    });

    it('refuses an unknown gallery or a gallery without a password', async () => {
      const res = await visit(w.svc, `${home}/_password`, { form: { gallery: w.rootUuid, password: 'x', back: `${home}/` } });
      expect(res.status).toBe(404);
      expect((await visit(w.svc, `${home}/_password`, { form: { gallery: 'nope', password: 'x' } })).status).toBe(404);
      expect((await visit(w.svc, `${home}/_password`, { method: 'POST' })).status).toBe(400);
    });
  });

  describe('access lists', () => {
    it('a DEFAULT entry without read sends visitors to sign in, for the gallery and its sub-galleries', async () => {
      const g = await create(w, 'Clients', w.rootUuid, { acl: [{ email: 'DEFAULT', read: 0, comp_download: 0, hires_download: 0 }, { email: 'client@example.com', read: 1, comp_download: 1, hires_download: 1 }] });
      await create(w, 'Proofs', g);
      await publishMedias(w.svc.db, w.user, g, ['proof.jpg']);
      for (const path of [`${home}/-/clients`, `${home}/-/clients/proofs`]) {
        const page = await visit(w.svc, path);
        expect(page.status).toBe(403);
        expect(page.body).toContain(`href="${home}/_signin?back=${encodeURIComponent(path).replace(/%2F/g, '%2F')}"`);
        expect(page.body).not.toContain('proof.jpg');
      }
      const media = (await mediaIdsOf(g))[0];
      expect((await visit(w.svc, `${home}/-/clients/_/${media}`)).status).toBe(403);
    });

    it('offers the original only where hires_download allows it, at an address signed for the visitor that expires', async () => {
      const withHires = await create(w, 'Hires', w.rootUuid, { acl: [{ email: 'DEFAULT', read: 1, comp_download: 0, hires_download: 1 }] });
      const without = await create(w, 'No hires', w.rootUuid, { acl: [{ email: 'DEFAULT', read: 1, comp_download: 1, hires_download: 0 }] });
      const [m] = await publishMedias(w.svc.db, w.user, withHires, ['orig.jpg']);
      const mid = (await w.svc.db.selectFrom('medias').select('id').where('uuid', '=', m).executeTakeFirstOrThrow()).id;
      await w.svc.db.insertInto('media_galleries').values({ gallery_id: await galleryId(w.svc.db, without), media_id: mid, position: 1, published_at: nowIso() }).execute();
      await w.svc.db.updateTable('medias').set({ storage_key: 'media/ab/original-test.jpg', width: 6000, height: 4000 }).where('id', '=', mid).execute();
      const page = await visit(w.svc, `${home}/-/hires/_/${m}`);
      const href = /<a href="([^"]+)" download>Download the original \(6000 × 4000\)<\/a>/.exec(page.body.replace(/&amp;/g, '&'))?.[1];
      expect(href).toMatch(new RegExp(`^/files/media/ab/original-test\\.jpg\\?e=\\d+&v=anonymous&g=${withHires}&a=[\\w-]+&d=1&s=[\\w-]+$`));
      const files = new FileUrls(w.svc.service.uploadSecret, '');
      const query = Object.fromEntries(new URL(href!, 'http://x').searchParams);
      expect(files.check('media/ab/original-test.jpg', query)).toMatchObject({ kind: 'signed', visitor: 'anonymous', download: true });
      expect(files.check('media/ab/original-test.jpg', query, Date.now() + 3 * 3600_000).kind).toBe('expired');
      // No original where the list does not grant it; no comp before a watermarked rendition exists.
      const other = await visit(w.svc, `${home}/-/no-hires/_/${m}`);
      expect(other.status).toBe(200);
      expect(other.body).not.toContain('original-test');
      expect(other.body).not.toContain('Download');
    });

    it('a DEFAULT entry with read lets everyone in', async () => {
      const g = await create(w, 'Open list', w.rootUuid, { acl: [{ email: 'DEFAULT', read: 1, comp_download: 0, hires_download: 0 }] });
      await publishMedias(w.svc.db, w.user, g, ['open.jpg']);
      const page = await visit(w.svc, `${home}/-/open-list`);
      expect(page.status).toBe(200);
      expect(page.body).toContain('aria-label="Open list: photo 1 of 1"');
    });
  });

  describe('robots.txt and sitemap.xml', () => {
    it('list what may be indexed, following each gallery indexing', async () => {
      const site = await w.svc.website(w.user);
      const root = `/sites/${site.urlname}`;
      const c = w.svc.client(w.app, w.user);
      const mk = async (name: string, attrs: Record<string, unknown> = {}, parent = site.rootGalleryUuid) =>
        text((await c.createGallery(site.urlname, { name, parent, ...attrs })).doc, 'gallery/uuid')!;
      await mk('Auto');
      await mk('Never', { indexing: 0 });
      await mk('Hidden auto', { hidden: 1 });
      await mk('Hidden always', { hidden: 1, indexing: 2 });
      await mk('Locked', { password: 'pw' });
      await mk('Listed', { acl: [{ email: 'DEFAULT', read: 0 }] });
      // indexing 2 lets a page be indexed, never puts a hidden or protected one in the sitemap.
      const lockedAlways = await mk('Locked always', { password: 'pw', indexing: 2 });
      await mk('Inside locked', { indexing: 2 }, lockedAlways);
      await mk('Listed always', { acl: [{ email: 'DEFAULT', read: 0 }], indexing: 2 });
      const hiddenParent = await mk('Hidden parent', { hidden: 1 });
      await mk('Under hidden', { indexing: 2 }, hiddenParent);

      const sitemap = await visit(w.svc, `${root}/sitemap.xml`);
      expect(sitemap.status).toBe(200);
      expect(sitemap.headers['content-type']).toBe('application/xml; charset=utf-8');
      const locs = [...sitemap.body.matchAll(/<loc>([^<]*)<\/loc>/g)].map((m) => m[1]);
      const base = `${w.svc.url}${root}`;
      expect(locs.sort()).toEqual([`${base}/`, `${base}/-/auto`].sort());
      expect(sitemap.body.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>')).toBe(true);

      const robots = await visit(w.svc, `${root}/robots.txt`);
      expect(robots.body).toBe(`User-agent: *\nDisallow: ${root}/_password\nDisallow: ${root}/_signin\nDisallow: ${root}/_share\nDisallow: ${root}/_lightbox\nSitemap: ${base}/sitemap.xml\n`);
      expect((await visit(w.svc, `${root}/sitemap-1.xml`)).status).toBe(404);

      // indexing 0: noindex in the page and the header.
      const never = await visit(w.svc, `${root}/-/never`);
      expect(never.body).toContain('<meta name="robots" content="noindex"/>');
      expect(never.headers['x-robots-tag']).toBe('noindex');
      const auto = await visit(w.svc, `${root}/-/auto`);
      expect(auto.body).not.toContain('noindex');
      expect(auto.headers['x-robots-tag']).toBeUndefined();
      expect((await visit(w.svc, `${root}/-/hidden-auto`)).headers['x-robots-tag']).toBe('noindex');
      expect((await visit(w.svc, `${root}/-/hidden-always`)).headers['x-robots-tag']).toBeUndefined();
    });

    it('keeps crawlers out of a website with nothing to index', async () => {
      const site = await w.svc.website(w.user);
      await w.svc.client(w.app, w.user).updateGallery(site.urlname, site.rootGalleryUuid, { indexing: 0 });
      const robots = await visit(w.svc, `/sites/${site.urlname}/robots.txt`);
      expect(robots.body).toBe(`User-agent: *\nDisallow: /sites/${site.urlname}/\n`);
      expect((await visit(w.svc, `/sites/${site.urlname}/sitemap.xml`)).body).not.toContain('<url>');
    });

    it('lets crawlers in when only a hidden gallery whose indexing is 2 may be indexed (nothing listed)', async () => {
      const site = await w.svc.website(w.user);
      const root = `/sites/${site.urlname}`;
      const c = w.svc.client(w.app, w.user);
      await c.updateGallery(site.urlname, site.rootGalleryUuid, { indexing: 0 });
      await c.createGallery(site.urlname, { name: 'Shared always', parent: site.rootGalleryUuid, hidden: 1, indexing: 2 });
      // The page itself may be indexed once found; the sitemap still announces nothing.
      expect((await visit(w.svc, `${root}/-/shared-always`)).headers['x-robots-tag']).toBeUndefined();
      expect((await visit(w.svc, `${root}/sitemap.xml`)).body).not.toContain('<url>');
      const robots = await visit(w.svc, `${root}/robots.txt`);
      expect(robots.body).toBe(`User-agent: *\nDisallow: ${root}/_password\nDisallow: ${root}/_signin\nDisallow: ${root}/_share\nDisallow: ${root}/_lightbox\nSitemap: ${w.svc.url}${root}/sitemap.xml\n`);
      // Behind a password, indexing 2 opens nothing: the page a crawler meets is the refusal (noindex).
      const locked = await w.svc.website(w.user);
      await c.updateGallery(locked.urlname, locked.rootGalleryUuid, { indexing: 0 });
      await c.createGallery(locked.urlname, { name: 'Locked always', parent: locked.rootGalleryUuid, hidden: 1, indexing: 2, password: 'pw' });
      expect((await visit(w.svc, `/sites/${locked.urlname}/robots.txt`)).body).toBe(`User-agent: *\nDisallow: /sites/${locked.urlname}/\n`);
    });
  });

  describe('escaping', () => {
    it('escapes every user text in pages', async () => {
      const site = await w.svc.core.websites.create(w.user, { urlname: `esc-${randomBytes(3).toString('hex')}`, title: '</title><script>alert(1)</script>' });
      const c = w.svc.client(w.app, w.user);
      const g = text(
        (await c.createGallery(site.urlname, { name: '<script>alert(2)</script>', parent: site.rootGalleryUuid, url_path: 'x', description: '"onload="alert(3)' })).doc,
        'gallery/uuid',
      )!;
      const [m] = await publishMedias(w.svc.db, w.user, g, ['"><img src=x onerror=alert(4)>.jpg']);
      await w.svc.db.updateTable('medias').set({ title: '</title><b>bold</b>', description: '<iframe src=//x>' }).where('uuid', '=', m).execute();
      const id = (await w.svc.db.selectFrom('medias').select('id').where('uuid', '=', m).executeTakeFirstOrThrow()).id;
      await w.svc.db.insertInto('media_keywords').values({ media_id: id, position: 1, keyword: '<u>kw</u>' }).execute();
      const pages = [await visit(w.svc, `/sites/${site.urlname}/`), await visit(w.svc, `/sites/${site.urlname}/-/x`), await visit(w.svc, `/sites/${site.urlname}/-/x/_/${m}`)];
      for (const p of pages) {
        expect(p.status).toBe(200);
        expect(p.body).not.toMatch(/<script>alert|<img src=x|<b>bold|<iframe|<u>kw|"onload="alert/);
        expect(p.body.match(/<\/title>/g)).toHaveLength(1);
      }
      expect(pages[0].body).toContain('&lt;/title>&lt;script>alert(1)&lt;/script>');
      expect(pages[1].body).toContain('&quot;onload=&quot;alert(3)');
      expect(pages[2].body).toContain('&lt;/title>&lt;b>bold&lt;/b>');
      expect(pages[2].body).toContain('&lt;u>kw&lt;/u>');
    });
  });

  describe('a website at its own hostname', () => {
    it('serves the same paths without /sites/<urlname> when Host names it; other hosts get the API 404', async () => {
      const host = `photos-${randomBytes(3).toString('hex')}.example.test`;
      const site = await w.svc.core.websites.create(w.user, { urlname: `host-${randomBytes(3).toString('hex')}`, title: 'By host', hostname: host });
      const g = text((await w.client.createGallery(site.urlname, { name: 'Portraits', parent: site.rootGalleryUuid })).doc, 'gallery/uuid')!;
      const [m] = await publishMedias(w.svc.db, w.user, g, ['face.jpg']);
      const root = await visit(w.svc, '/', { host });
      expect(root.status).toBe(200);
      expect(root.body).toContain('href="/-/portraits"');
      const gallery = await visit(w.svc, '/-/portraits', { host: `${host.toUpperCase()}:8080` });
      expect(gallery.status).toBe(200);
      expect(gallery.body).toContain(`href="/-/portraits/_/${m}"`);
      expect((await visit(w.svc, `/-/portraits/_/${m}`, { host })).status).toBe(200);
      const missing = await visit(w.svc, '/-/portraits/nothing', { host });
      expect([missing.status, missing.body.includes('<h1>Not found</h1>')]).toEqual([404, true]);
      const locked = text((await w.client.createGallery(site.urlname, { name: 'Private', parent: site.rootGalleryUuid, password: 'pw' })).doc, 'gallery/uuid')!;
      const opened = await visit(w.svc, '/_password', { host, form: { gallery: locked, password: 'pw', back: '/-/private' } });
      expect([opened.status, opened.headers.location]).toEqual([303, '/-/private']);
      expect(String(opened.headers['set-cookie'])).toContain('; Path=/;');
      expect((await visit(w.svc, '/-/private', { host, cookie: cookieOf(opened) })).status).toBe(200);
      const sitemap = await visit(w.svc, '/sitemap.xml', { host });
      expect(sitemap.body).toContain(`<loc>https://${host}/-/portraits</loc>`);
      // Media pages too; within 50 000 addresses the sitemap is one file, and it has no parts.
      expect(sitemap.body).toContain(`<loc>https://${host}/-/portraits/_/${m}</loc>`);
      const part = await visit(w.svc, '/sitemap-1.xml', { host });
      expect([part.status, part.body.includes('<h1>Not found</h1>')]).toEqual([404, true]);
      expect((await visit(w.svc, '/robots.txt', { host })).body).toContain(`Sitemap: https://${host}/sitemap.xml`);
      // The API still answers on that host, and the site is not served to other hosts.
      expect((await visit(w.svc, '/ping.xml', { host })).status).not.toBe(404);
      const elsewhere = await visit(w.svc, '/-/portraits', { host: 'unknown.example.test' });
      expect(elsewhere.status).toBe(404);
      expect(elsewhere.headers['content-type']).toContain('xml');
    });

    it("a client gallery at the website's hostname: the site's sign-in link, the form, the mailed link and the pass agree", async () => {
      const host = `proofs-${randomBytes(3).toString('hex')}.example.test`;
      const site = await w.svc.core.websites.create(w.user, { urlname: `hp-${randomBytes(3).toString('hex')}`, title: 'Proofs by host', hostname: host });
      const acl = [
        { email: 'DEFAULT', read: 0, comp_download: 0, hires_download: 0 },
        { email: 'guest@example.com', read: 1, comp_download: 0, hires_download: 0 },
      ] as const;
      await w.client.createGallery(site.urlname, { name: 'Clients', parent: site.rootGalleryUuid, acl });
      const refused = await visit(w.svc, '/-/clients', { host });
      expect(refused.status).toBe(403);
      const href = /href="(\/_signin\?back=[^"]+)"/.exec(refused.body)?.[1].replace(/&amp;/g, '&');
      expect(href).toBe(`/_signin?back=${encodeURIComponent('/-/clients')}`);
      const form = await visit(w.svc, href!, { host });
      expect(form.status).toBe(200);
      expect(form.body).toContain('value="/-/clients"');
      // The link the mail would carry, made for this address; opened on the same host.
      const links = w.svc.core.visitorLinks;
      const link = await links.create(links.canonical((await links.site(site.urlname))!), 'guest@example.com', '/-/clients');
      expect(link.url.startsWith(`https://${host}/_signin/`)).toBe(true);
      const used = await visit(w.svc, new URL(link.url).pathname, { host });
      expect([used.status, used.headers.location]).toEqual([303, '/-/clients']);
      expect(String(used.headers['set-cookie'])).toContain('Path=/;');
      const seen = await visit(w.svc, '/-/clients', { host, cookie: cookieOf(used) });
      expect(seen.status).toBe(200);
      expect(seen.body).toContain('<h1>Clients</h1>');
    });
  });

  describe('medias published through the API', () => {
    it('appear at home once live and published, in order', async () => {
      const g = await create(w, 'Published', w.rootUuid, { content_order: 'manual-last' });
      const gid = await galleryId(w.svc.db, g);
      const now = nowIso();
      const [m] = await publishMedias(w.svc.db, w.user, w.rootUuid, ['first.jpg']);
      // Published in a second gallery too: shown in both.
      const mid = (await w.svc.db.selectFrom('medias').select('id').where('uuid', '=', m).executeTakeFirstOrThrow()).id;
      await w.svc.db.insertInto('media_galleries').values({ gallery_id: gid, media_id: mid, position: 1, published_at: now }).execute();
      expect(mediaLinks((await visit(w.svc, `${home}/-/published`)).body)).toEqual([m]);
    });
  });
});

describe('visitor rate limit', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await TestService.start('sqlite', { VISITOR_RATE_LIMIT: '3/60s', RATE_LIMIT: '100/60s' });
  });
  afterAll(() => svc?.close());

  it('refuses a visitor beyond the budget with a 429 page, apart from the API budget', async () => {
    const user = await svc.user();
    const site = await svc.website(user);
    for (let i = 0; i < 3; i++) expect((await visit(svc, `/sites/${site.urlname}/`)).status).toBe(200);
    const refused = await visit(svc, `/sites/${site.urlname}/`);
    expect(refused.status).toBe(429);
    expect(refused.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.body).toContain('<h1>Too many requests</h1>');
    // The API keeps its own budget.
    const app = await svc.app();
    const ping = await svc.raw(app, 'GET', '/ping.xml');
    expect(ping.status).toBe(200);
    expect(ping.headers.get('ratelimit-remaining')).toBe('99');
  });
});

describe('page micro-cache', () => {
  let w: World;
  beforeAll(async () => {
    w = await startWorld('sqlite', { VISITOR_RATE_LIMIT: 'off', SITE_CACHE_SECONDS: '60' });
  });
  afterAll(() => w?.svc.close());

  it('serves anonymous visitors a page from memory for its period; a visitor with a pass gets it fresh', async () => {
    const home = `/sites/${w.urlname}`;
    const g = await create(w, 'Cached');
    const [a] = await publishMedias(w.svc.db, w.user, g, ['a.jpg']);
    expect(mediaLinks((await visit(w.svc, `${home}/-/cached`)).body)).toEqual([a]);
    const [b] = await publishMedias(w.svc.db, w.user, g, ['b.jpg']);
    const again = await visit(w.svc, `${home}/-/cached`);
    expect(again.headers['content-security-policy']).toBe(CSP);
    expect(mediaLinks(again.body)).toEqual([a]);
    const locked = await create(w, 'Locked', w.rootUuid, { password: 'pw' });
    const cookie = cookieOf(await visit(w.svc, `${home}/_password`, { form: { gallery: locked, password: 'pw', back: `${home}/` } }))!;
    expect(mediaLinks((await visit(w.svc, `${home}/-/cached`, { cookie })).body)).toEqual([a, b]);
  });
});
