// Favourites on or off per gallery and named lists per client (issue 30 item 2; docs/delivery.md),
// over HTTP on both databases: the default rule (on behind a password or an access list, off in
// public galleries), the endpoints refusing when off, list names bounded (422 naming the field),
// picks put in lists and counted, the lightbox XML and the studio's proofing per list, and another
// client's or photographer's lists never visible.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { all, text } from '../../src/client/xml.js';
import { eachDatabase, TestService } from '../support/service.js';
import { partsOf, startSmtp, type TestSmtp } from '../support/smtp.js';
import { failure, worldOn, type World } from '../support/world.js';
import { StudioBrowser } from '../studio/studio-support.js';
import { cookieOf, publishBulk, visit } from './site-support.js';

eachDatabase((kind) =>
  describe('favourites on or off, named lists', () => {
    let w: World;
    let smtp: TestSmtp;
    let home: string;
    const g: Record<string, string> = {};
    const photos: Record<string, string[]> = {};
    const origin = () => ({ origin: w.svc.url });
    const galleryId = async (uuid: string) => (await w.svc.db.selectFrom('galleries').select('id').where('uuid', '=', uuid).executeTakeFirstOrThrow()).id;
    const put = (uuid: string, params: Record<string, string>) => w.client.request('PUT', `/websites/${w.urlname}/galleries/${uuid}.xml`, params, { methodOverride: true });
    const xmlOf = async (uuid: string) => (await w.client.request('GET', `/websites/${w.urlname}/galleries/${uuid}.xml`)).doc;
    const post = (what: string, cookie: string | undefined, form: Record<string, string>, json = false) =>
      visit(w.svc, `${home}/_favourites/${what}`, { cookie, form, headers: { ...origin(), ...(json ? { accept: 'application/json' } : {}) } });
    const guest = async (name: string, email: string, cookie?: string) => cookieOf(await post('identify', cookie, { name, email, back: `${home}/` })) ?? cookie!;

    beforeAll(async () => {
      smtp = await startSmtp({ user: 'mailer', pass: 'secret' });
      w = await worldOn(
        await TestService.start(kind, { VISITOR_RATE_LIMIT: 'off', SITE_CACHE_SECONDS: '0', SMTP_URL: `smtp://mailer:secret@127.0.0.1:${smtp.port}`, MAIL_FROM: 'Photos <photos@example.com>', JOB_POLL_MS: '50' }),
      );
      home = `/sites/${w.urlname}`;
      const make = async (key: string, attrs: Record<string, unknown>) => {
        g[key] = text((await w.client.createGallery(w.urlname, { name: key, parent: w.rootUuid, ...(attrs as object) })).doc, 'gallery/uuid')!;
      };
      await make('Public', {});
      await make('Locked', { password: 'pw' });
      await make('Listed', { acl: [{ email: 'DEFAULT', read: 1, comp_download: 0, hires_download: 0 }] });
      await make('Proofs', { password: 'pw', favourite_lists: 'Album\nPrints' });
      let from = 0;
      for (const key of Object.keys(g)) {
        await publishBulk(w.svc.db, { ownerId: w.user.id, artistUuid: w.user.defaultArtistUuid, batch: 10, galleryId: await galleryId(g[key]), from, to: from + 3 });
        from += 3;
        photos[key] = (
          await w.svc.db.selectFrom('media_galleries as mg').innerJoin('medias as m', 'm.id', 'mg.media_id').select('m.uuid').where('mg.gallery_id', '=', await galleryId(g[key])).orderBy('mg.position').execute()
        ).map((r) => r.uuid);
      }
    }, 120_000);
    afterAll(async () => {
      await w?.svc.close();
      await smtp?.close();
    });

    /** A visitor's cookie that opens the password galleries and names them. */
    const client = async (name: string, email: string) => {
      let cookie = await guest(name, email);
      for (const key of ['Locked', 'Proofs']) {
        const res = await visit(w.svc, `${home}/_password`, { cookie, form: { gallery: g[key], password: 'pw', back: `${home}/` }, headers: origin() });
        cookie = cookieOf(res) ?? cookie;
      }
      return cookie;
    };

    it('reads and writes gallery[favourites] and gallery[favourite_lists] through the API (extensions), bounded', async () => {
      expect(text(await xmlOf(g.Public), 'gallery/favourites')).toBe('default');
      expect(all(await xmlOf(g.Proofs), 'gallery/favourite-lists/list').map((n) => n.text)).toEqual(['Album', 'Prints']);
      await put(g.Listed, { 'gallery[favourites]': 'off' });
      expect(text(await xmlOf(g.Listed), 'gallery/favourites')).toBe('off');
      await put(g.Listed, { 'gallery[favourites]': 'default' });
      expect(text(await xmlOf(g.Listed), 'gallery/favourites')).toBe('default');
      const refused = async (params: Record<string, string>, field: string) => {
        const f = await failure(put(g.Public, params));
        expect(f.status, JSON.stringify(params)).toBe(422);
        expect(f.message).toContain(field);
      };
      await refused({ 'gallery[favourites]': 'maybe' }, 'gallery[favourites]');
      await refused({ 'gallery[favourite_lists]': Array.from({ length: 11 }, (_, i) => `L${i}`).join('\n') }, 'gallery[favourite_lists]');
      await refused({ 'gallery[favourite_lists]': 'x'.repeat(41) }, 'gallery[favourite_lists]');
      await refused({ 'gallery[favourite_lists]': 'Album\nalbum' }, 'gallery[favourite_lists]');
      await refused({ 'gallery[favourite_lists]': 'Al\u0007bum' }, 'gallery[favourite_lists]');
      // Ten names of forty characters are fine; blank clears them.
      const ten = Array.from({ length: 10 }, (_, i) => `${i}`.padEnd(40, 'x'));
      await put(g.Public, { 'gallery[favourite_lists]': ten.join('\n') });
      expect(all(await xmlOf(g.Public), 'gallery/favourite-lists/list')).toHaveLength(10);
      await put(g.Public, { 'gallery[favourite_lists]': '' });
      expect(all(await xmlOf(g.Public), 'gallery/favourite-lists/list')).toHaveLength(0);
    });

    it('follows the default rule: off in a public gallery (no hearts, every endpoint refused), on behind a password or an access list', async () => {
      const cookie = await client('Ann', 'ann@example.com');
      const publicPage = await visit(w.svc, `${home}/-/public`, { cookie });
      expect(publicPage.status).toBe(200);
      expect(publicPage.body).not.toContain('class="fav"');
      expect(publicPage.body).not.toContain('_favourites/pick');
      expect((await post('pick', cookie, { gallery: g.Public, pick: photos.Public[0] }, true)).status).toBe(403);
      expect((await post('pick', cookie, { gallery: g.Public, pick: photos.Public[0] })).status).toBe(403);
      expect((await post('send', cookie, { gallery: g.Public })).status).toBe(403);
      expect((await post('list', cookie, { gallery: g.Public, media: photos.Public[0], list: 'Album', on: '1' })).status).toBe(403);
      expect((await visit(w.svc, `${home}/_favourites/${g.Public}`, { cookie })).status).toBe(403);
      expect(await w.svc.db.selectFrom('lightboxes').select('id').where('gallery_id', '=', await galleryId(g.Public)).execute()).toHaveLength(0);
      // A password gallery and one with an access list: on by default.
      for (const key of ['Locked', 'Listed']) {
        const page = await visit(w.svc, `${home}/-/${key.toLowerCase()}`, { cookie });
        expect(page.body, key).toContain('class="fav"');
        const res = await post('pick', cookie, { gallery: g[key], pick: photos[key][0] }, true);
        expect(res.status, key).toBe(200);
      }
      // Turned on in the public gallery: hearts; turned off in the locked one: refused, whatever was picked.
      await put(g.Public, { 'gallery[favourites]': 'on' });
      expect((await visit(w.svc, `${home}/-/public`, { cookie })).body).toContain('class="fav"');
      expect((await post('pick', cookie, { gallery: g.Public, pick: photos.Public[0] }, true)).status).toBe(200);
      await put(g.Locked, { 'gallery[favourites]': 'off' });
      expect((await visit(w.svc, `${home}/-/locked`, { cookie })).body).not.toContain('class="fav"');
      expect((await post('pick', cookie, { gallery: g.Locked, pick: photos.Locked[1] }, true)).status).toBe(403);
      expect((await visit(w.svc, `${home}/_favourites/${g.Locked}`, { cookie })).status).toBe(403);
      expect((await visit(w.svc, `${home}/_favourites`, { cookie })).body).not.toContain('>Locked<');
      await put(g.Locked, { 'gallery[favourites]': 'default' });
      expect((await post('pick', cookie, { gallery: g.Locked, pick: photos.Locked[1] }, true)).status).toBe(200);
    });

    it('puts photos in named lists, counts them, keeps them with the pick, and refuses a list the gallery does not offer', async () => {
      const cookie = await client('Bea', 'bea@example.com');
      const list = (media: string, name: string, on: '0' | '1') => post('list', cookie, { gallery: g.Proofs, media, list: name, on }, true);
      const r = await list(photos.Proofs[0], 'Album', '1');
      expect(r.status).toBe(200);
      expect(JSON.parse(r.body)).toMatchObject({ lists: ['Album'], count: 1, listCounts: [{ name: 'Album', count: 1 }, { name: 'Prints', count: 0 }] });
      await list(photos.Proofs[0], 'Prints', '1');
      await list(photos.Proofs[1], 'Prints', '1');
      // Without script: a post and a redirect back.
      const plain = await post('list', cookie, { gallery: g.Proofs, media: photos.Proofs[2], list: 'Album', on: '1', back: `${home}/_favourites/${g.Proofs}` });
      expect([plain.status, plain.headers.location]).toEqual([303, `${home}/_favourites/${g.Proofs}`]);
      await list(photos.Proofs[2], 'Album', '0');
      const bad = await list(photos.Proofs[0], 'Retouch', '1');
      expect(bad.status).toBe(422);
      expect(JSON.parse(bad.body).error).toContain('list');
      expect((await post('list', cookie, { gallery: g.Proofs, media: photos.Proofs[0], list: 'Album', on: 'yes' })).status).toBe(422);
      const mine = await visit(w.svc, `${home}/_favourites/${g.Proofs}`, { cookie });
      expect(mine.body).toMatch(/Album: <strong>1<\/strong>/);
      expect(mine.body).toMatch(/Prints: <strong>2<\/strong>/);
      expect(mine.body).toContain('3 chosen');
      expect(mine.body).toContain('aria-pressed="true">Prints</button>');
      // The lightbox XML carries each pick's lists.
      const lb = await w.svc.db.selectFrom('lightboxes').select('uuid').where('client_email', '=', 'bea@example.com').executeTakeFirstOrThrow();
      const doc = (await w.client.request('GET', `/lightboxes/${lb.uuid}.xml`)).doc;
      const medias = all(doc, 'lightbox/medias/media');
      expect(medias.map((m) => all(m, 'lists/list').map((l) => l.text))).toEqual([['Album', 'Prints'], ['Prints'], []]);
      // Sent: read-only, lists included.
      expect((await post('send', cookie, { gallery: g.Proofs, confirm: 'yes' })).status).toBe(303);
      // The photographer's mail says how many in each list.
      await expect.poll(() => smtp.mails.find((m) => m.to.includes(w.user.email)), { timeout: 20_000 }).toBeTruthy();
      expect(partsOf(smtp.mails.find((m) => m.to.includes(w.user.email))!.raw).get('text/plain')).toContain('Lists: Album 1, Prints 2');
      expect((await list(photos.Proofs[1], 'Album', '1')).status).toBe(409);
      // The studio's proofing: a tab per list, its photos and its names.
      const b = await new StudioBrowser(w.svc).signIn(w.user);
      const base = `/studio/galleries/${g.Proofs}/proofing?selection=${lb.uuid}`;
      const all3 = await b.get(base);
      expect(all3.body).toContain('All favourites <span class="count">3</span>');
      expect(all3.body).toContain('Prints <span class="count">2</span>');
      const prints = await b.get(`${base}&list=Prints`);
      expect(prints.status).toBe(200);
      expect(prints.body).toContain('Prints (2)');
      expect(prints.body).toContain('Copy Prints for Lightroom');
      expect(prints.body).toContain('IMG_0010, IMG_0011');
      expect((await b.get(`${base}&list=Nope`)).status).toBe(404);
    });

    it("never shows another client's or another photographer's lists", async () => {
      const cookie = await client('Cid', 'cid@example.com');
      const mine = await visit(w.svc, `${home}/_favourites/${g.Proofs}`, { cookie });
      expect(mine.body).toMatch(/Album: <strong>0<\/strong>/);
      expect(mine.body).toMatch(/Prints: <strong>0<\/strong>/);
      const lb = await w.svc.db.selectFrom('lightboxes').select('uuid').where('client_email', '=', 'bea@example.com').executeTakeFirstOrThrow();
      const stranger = await w.svc.user();
      const sb = await new StudioBrowser(w.svc).signIn(stranger);
      expect((await sb.get(`/studio/galleries/${g.Proofs}/proofing?selection=${lb.uuid}&list=Prints`)).status).toBe(404);
      expect((await sb.get(`/studio/galleries/${g.Proofs}/proofing`)).status).toBe(404);
      const theirs = w.svc.client(await w.svc.app(), stranger);
      expect((await failure(theirs.request('GET', `/lightboxes/${lb.uuid}.xml`))).status).toBe(404);
      expect((await failure(theirs.request('PUT', `/websites/${w.urlname}/galleries/${g.Proofs}.xml`, { 'gallery[favourite_lists]': 'Mine' }, { methodOverride: true }))).status).toBe(404);
    });

    it('sets favourites and lists in the studio by the gallery spec (CSRF, 422 at the field)', async () => {
      const b = await new StudioBrowser(w.svc).signIn(w.user);
      const page = `/studio/galleries/${g.Listed}`;
      expect((await b.get(page)).body).toContain('Favourites and lists');
      const saved = await b.submit(page, `${page}/favourites`, { favourites: 'off', favourite_lists: 'Album\r\nPrints\r\n', pick_limit: '20' });
      expect([saved.status, saved.headers.get('location')]).toEqual([303, `${page}?done=favourites#favourites-card`]);
      const doc = await xmlOf(g.Listed);
      expect([text(doc, 'gallery/favourites'), text(doc, 'gallery/pick-limit')]).toEqual(['off', '20']);
      expect(all(doc, 'gallery/favourite-lists/list').map((n) => n.text)).toEqual(['Album', 'Prints']);
      const bad = await b.submit(page, `${page}/favourites`, { favourites: 'on', favourite_lists: 'y'.repeat(41), pick_limit: '' });
      expect(bad.status).toBe(422);
      expect(bad.body).toContain('id="favourite_lists-error"');
      expect(text(await xmlOf(g.Listed), 'gallery/favourites')).toBe('off');
      expect((await b.post(`${page}/favourites`, { favourites: 'on' })).status).toBe(403);
    });
  }),
);
