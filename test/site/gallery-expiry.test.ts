// A gallery past its expiry (docs/website.md "Expiry"): every visitor, with a pass or none, gets
// the closed page (410, in the website's frame, with its contact) for it, its sub-galleries, its
// media pages, archive and favourites; /files refuses its files; the sitemap and listings drop it;
// the photographer's API still sees it all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { text } from '../../src/client/xml.js';
import { create } from '../api/galleries-fixtures.js';
import { eachDatabase } from '../support/service.js';
import type { World } from '../support/world.js';
import { cookieOf, mediaLinks, startSite, uploadPhoto, visit, waitForRenditions } from './site-support.js';

const PAST = '2020-01-01T00:00:00Z';
const FUTURE = '2099-01-01T00:00:00Z';
const filesOf = (html: string) => [...html.matchAll(/(?:src|srcset)="(\/files\/[^" ]+)/g)].map((m) => m[1].replace(/&amp;/g, '&'));

eachDatabase((kind) => {
  let w: World;
  let home: string;
  let wedding: string;
  let reception: string;
  let locked: string;
  let photos: string[];
  beforeAll(async () => {
    ({ w, home } = await startSite(kind, { VISITOR_RATE_LIMIT: 'off', SITE_CACHE_SECONDS: '0' }));
    await w.client.request('PUT', `/websites/${w.urlname}.xml`, { 'website[title]': 'Ann Lee', 'website[contact_email]': 'ann@example.com' });
    wedding = await create(w, 'Wedding', w.rootUuid, { expires_at: FUTURE });
    reception = await create(w, 'Reception', wedding);
    locked = await create(w, 'Proofs', w.rootUuid, { password: 'pw', expires_at: FUTURE });
    photos = [await uploadPhoto(w, wedding, 1, 600), await uploadPhoto(w, reception, 2, 600), await uploadPhoto(w, locked, 3, 600)];
    expect(await waitForRenditions(w, photos)).toBe(true);
  }, 180_000);
  afterAll(() => w?.svc.close());

  const coverKeys = async () => (await w.svc.db.selectFrom('renditions as r').innerJoin('medias as m', 'm.id', 'r.media_id').select('r.storage_key').where('m.uuid', '=', photos[2]).orderBy('r.id').execute()).map((r) => r.storage_key);
  const expire = (uuid: string, at: string) => w.client.updateGallery(w.urlname, uuid, { expires_at: at });

  it('serves the gallery before its expiry, and lists it in the sitemap', async () => {
    const page = await visit(w.svc, `${home}/-/wedding`);
    expect(page.status).toBe(200);
    expect(mediaLinks(page.body)).toEqual([photos[0]]);
    expect((await visit(w.svc, `${home}/sitemap.xml`)).body).toContain(`${home}/-/wedding</loc>`);
    expect((await visit(w.svc, `${home}/`)).body).toContain(`href="${home}/-/wedding"`);
  });

  describe('once expired', () => {
    let publicFiles: string[];
    let signedFiles: string[];
    let cookie: string;
    beforeAll(async () => {
      // The file addresses a visitor was given before the expiry (not fetched yet: the public ones are remembered briefly once served).
      publicFiles = filesOf((await visit(w.svc, `${home}/-/wedding/reception`)).body);
      cookie = cookieOf(await visit(w.svc, `${home}/_password`, { form: { gallery: locked, password: 'pw', back: `${home}/-/proofs` } }))!;
      signedFiles = filesOf((await visit(w.svc, `${home}/-/proofs`, { cookie })).body);
      expect(publicFiles.length).toBeGreaterThan(0);
      expect(signedFiles.length).toBeGreaterThan(0);
      // The signed ones work until then.
      expect((await visit(w.svc, signedFiles[0], { cookie })).status).toBe(200);
      await expire(wedding, PAST);
      await expire(locked, new Date(Date.now() - 1000).toISOString());
    });

    it('shows the closed page (410) for the gallery, its sub-galleries, media pages and archive, in the brand with its contact', async () => {
      for (const path of ['/-/wedding', '/-/wedding/reception', `/-/wedding/_/${photos[0]}`, `/-/wedding/reception/_/${photos[1]}`, '/-/wedding/_archive.zip', '/-/wedding/_archive.zip?folders=1']) {
        const page = await visit(w.svc, home + path);
        expect(page.status, path).toBe(410);
        expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(page.body).toContain('This gallery has closed');
        expect(page.body).toContain('href="mailto:ann@example.com"');
        expect(page.body).toContain('Ann Lee');
        expect(page.body).toContain('<meta name="robots" content="noindex"');
        expect(page.body).not.toContain('/files/');
      }
    });

    it('is closed to a visitor with a pass too: no password asked, favourites refused', async () => {
      const page = await visit(w.svc, `${home}/-/proofs`, { cookie });
      expect(page.status).toBe(410);
      expect(page.body).not.toContain('class="pw"');
      expect((await visit(w.svc, `${home}/-/proofs`)).status).toBe(410);
      const fav = await visit(w.svc, `${home}/_favourites/${locked}`, { cookie });
      expect(fav.status).toBe(410);
      expect(fav.body).toContain('This gallery has closed');
      expect(fav.body).toContain('mailto:ann@example.com');
    });

    it('serves none of its files through /files, signed or not', async () => {
      for (const f of publicFiles) expect((await visit(w.svc, f)).status, f).not.toBe(200);
      for (const f of signedFiles) expect((await visit(w.svc, f, { cookie })).status, f).not.toBe(200);
    });

    it('makes the public cover chosen for it public no more', async () => {
      await w.client.updateGallery(w.urlname, locked, { public_cover_media: photos[2] });
      const keys = await coverKeys();
      expect(keys.length).toBeGreaterThan(1);
      expect((await visit(w.svc, `/files/${keys[0]}`)).status).not.toBe(200);
    });

    it('leaves the sitemap and the listing of its parent', async () => {
      const sitemap = (await visit(w.svc, `${home}/sitemap.xml`)).body;
      expect(sitemap).not.toContain('/-/wedding');
      expect((await visit(w.svc, `${home}/`)).body).not.toContain(`${home}/-/wedding"`);
    });

    it('still shows everything to the photographer through the API', async () => {
      const res = await w.client.gallery(w.urlname, wedding, 'details_with_medias');
      expect(text(res.doc, 'gallery/expires-at')).toBe('2020-01-01T00:00:00+00:00');
      expect(text(res.doc, 'gallery/medias/media/uuid')).toBe(photos[0]);
    });

    it('opens again when the expiry is moved on or cleared', async () => {
      await expire(wedding, FUTURE);
      expect((await visit(w.svc, `${home}/-/wedding/reception`)).status).toBe(200);
      await expire(locked, '');
      expect((await visit(w.svc, `${home}/-/proofs`, { cookie })).status).toBe(200);
      expect((await visit(w.svc, signedFiles[0], { cookie })).status).toBe(200);
      // The cover is public again (another of its renditions: a refusal is remembered for a few seconds).
      expect((await visit(w.svc, `/files/${(await coverKeys())[1]}`)).status).toBe(200);
    });
  });
});
