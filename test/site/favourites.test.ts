// Favourites (issue 23, docs/delivery.md) over HTTP, as a browser without
// script and as the gallery page's script (JSON): who is choosing, picks with
// notes up to the gallery's limit (simultaneous picks included), read-only
// once sent, the photographer's mail through a real SMTP server, and the
// photographer's side through the signed API: the lightbox listed, its notes,
// `GET /medias.xml?lightbox_id=` exactly the picks, a batch update on it,
// reopening it, another owner's lightbox a 404. What a visitor may not see
// (a photo of another gallery, a gallery behind a password) is a 404.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { all, find, int, text } from '../../src/client/xml.js';
import { waitForJob } from '../support/media.js';
import { eachDatabase, TestService } from '../support/service.js';
import { partsOf, startSmtp, type TestSmtp } from '../support/smtp.js';
import { failure, worldOn, type World } from '../support/world.js';
import { cookieOf, publishBulk, visit, type Page } from './site-support.js';

const LIMIT = 3;

eachDatabase((kind) =>
  describe('favourites', () => {
    let smtp: TestSmtp;
    let w: World;
    let home: string;
    let proofs: string;
    let family: string;
    const photos: string[] = [];
    const familyPhotos: string[] = [];
    const origin = () => ({ origin: w.svc.url });

    const galleryOf = async (uuid: string) => (await w.svc.db.selectFrom('galleries').select('id').where('uuid', '=', uuid).executeTakeFirstOrThrow()).id;
    const uuidsIn = async (galleryId: number) =>
      (await w.svc.db.selectFrom('media_galleries as mg').innerJoin('medias as m', 'm.id', 'mg.media_id').select('m.uuid').where('mg.gallery_id', '=', galleryId).orderBy('mg.position').execute()).map((r) => r.uuid);

    /** A new visitor who said who they are (name and address, not verified): their pass cookie. */
    const guest = async (name: string, email: string): Promise<string> => {
      const res = await visit(w.svc, `${home}/_favourites/identify`, { form: { name, email, back: `${home}/` }, headers: origin() });
      expect(res.status).toBe(303);
      return cookieOf(res)!;
    };
    const post = (what: string, cookie: string | undefined, form: Record<string, string>, headers: Record<string, string> = {}) =>
      visit(w.svc, `${home}/_favourites/${what}`, { cookie, form, headers: { ...origin(), ...headers } });
    const pickJson = async (cookie: string, media: string, extra: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> => {
      const res = await post('pick', cookie, { gallery: proofs, pick: media, ...extra }, { accept: 'application/json' });
      return { status: res.status, body: JSON.parse(res.body) as Record<string, unknown> };
    };
    const lightboxOf = async (email: string) =>
      w.svc.db.selectFrom('lightboxes').selectAll().where('client_email', '=', email).executeTakeFirstOrThrow();

    beforeAll(async () => {
      smtp = await startSmtp({ user: 'mailer', pass: 'secret' });
      const svc = await TestService.start(kind, {
        SMTP_URL: `smtp://mailer:secret@127.0.0.1:${smtp.port}`,
        MAIL_FROM: 'Photos <photos@example.com>',
        VISITOR_RATE_LIMIT: 'off',
        SITE_CACHE_SECONDS: '0',
        JOB_POLL_MS: '50',
      });
      w = await worldOn(svc);
      home = `/sites/${w.urlname}`;
      proofs = text((await w.client.createGallery(w.urlname, { name: 'Wedding proofs', parent: w.rootUuid, pick_limit: LIMIT, favourites: 'on' })).doc, 'gallery/uuid')!;
      family = text((await w.client.createGallery(w.urlname, { name: 'Family', parent: w.rootUuid, password: 'let me in' })).doc, 'gallery/uuid')!;
      const base = { ownerId: w.user.id, artistUuid: w.user.defaultArtistUuid, batch: 50 };
      await publishBulk(w.svc.db, { ...base, galleryId: await galleryOf(proofs), from: 0, to: 8 });
      await publishBulk(w.svc.db, { ...base, galleryId: await galleryOf(family), from: 8, to: 10 });
      photos.push(...(await uuidsIn(await galleryOf(proofs))));
      familyPhotos.push(...(await uuidsIn(await galleryOf(family))));
    }, 120_000);
    afterAll(async () => {
      await w?.svc.close();
      await smtp?.close();
    });

    it('reads and writes the gallery pick limit through the API (an extension)', async () => {
      const res = await w.client.request('GET', `/websites/${w.urlname}/galleries/${proofs}.xml`);
      expect(int(res.doc, 'gallery/pick-limit')).toBe(LIMIT);
      const other = text((await w.client.createGallery(w.urlname, { name: 'No limit', parent: w.rootUuid })).doc, 'gallery/uuid')!;
      const none = await w.client.request('GET', `/websites/${w.urlname}/galleries/${other}.xml`);
      expect(find(none.doc, 'gallery/pick-limit')?.attrs.nil).toBe('true');
      expect((await failure(w.client.request('PUT', `/websites/${w.urlname}/galleries/${other}.xml`, { 'gallery[pick_limit]': '0' }, { methodOverride: true }))).status).toBe(422);
      await w.client.request('PUT', `/websites/${w.urlname}/galleries/${other}.xml`, { 'gallery[pick_limit]': '12' }, { methodOverride: true });
      expect(int((await w.client.request('GET', `/websites/${w.urlname}/galleries/${other}.xml`)).doc, 'gallery/pick-limit')).toBe(12);
    });

    it('asks who is choosing first, then makes the pick that brought the visitor', async () => {
      const asked = await post('pick', undefined, { gallery: proofs, pick: photos[7], back: `${home}/-/wedding-proofs` });
      expect(asked.status).toBe(200);
      expect(asked.body).toContain('Who is choosing?');
      expect(asked.headers['cache-control']).toBe('no-store');
      const json = await post('pick', undefined, { gallery: proofs, pick: photos[7] }, { accept: 'application/json' });
      expect(json.status).toBe(403);
      expect(JSON.parse(json.body)).toMatchObject({ identify: true });
      const bad = await post('identify', undefined, { name: '', email: 'x@example.com', back: `${home}/` });
      expect(bad.status).toBe(422);
      const res = await post('identify', undefined, { name: 'Zoé <b>', email: 'zoe@example.com', back: `${home}/-/wedding-proofs`, gallery: proofs, pick: photos[7] });
      expect(res.status).toBe(303);
      expect(res.headers.location).toBe(`${home}/-/wedding-proofs`);
      const lb = await lightboxOf('zoe@example.com');
      expect(lb.client_verified).toBe(0);
      expect(lb.name).toBe('Zoé <b> — Wedding proofs');
      // The gallery page now shows the heart pressed and the counter, escaped names and all.
      const page = await visit(w.svc, `${home}/-/wedding-proofs`, { cookie: cookieOf(res) });
      expect(page.body).toContain(`name="unpick" value="${photos[7]}"`);
      expect(page.body).toContain(`1 of ${LIMIT} chosen`);
      const mine = await visit(w.svc, `${home}/_favourites/${proofs}`, { cookie: cookieOf(res) });
      expect(mine.status).toBe(200);
      expect(mine.body).toContain('Zoé &lt;b>');
      expect(mine.body).toContain('(address not verified)');
      expect(mine.headers['cache-control']).toBe('no-store');
    });

    it('keeps picks with notes up to the limit, refuses one more, and sends once; then it is read-only', async () => {
      const cookie = await guest('Anna', 'anna@example.com');
      expect(await pickJson(cookie, photos[0], { note: 'Crop tighter' })).toEqual({ status: 200, body: { count: 1, limit: LIMIT, picked: true } });
      // Without script: the form's post and a redirect back.
      const plain = await post('pick', cookie, { gallery: proofs, pick: photos[1], note: 'Black and white?', back: `${home}/-/wedding-proofs` });
      expect(plain.status).toBe(303);
      expect((await pickJson(cookie, photos[2])).body).toMatchObject({ count: 3 });
      // Picking one already picked changes its note only.
      expect((await pickJson(cookie, photos[2], { note: 'Brighter' })).body).toMatchObject({ count: 3 });
      const full = await pickJson(cookie, photos[3]);
      expect(full.status).toBe(409);
      expect(String(full.body.error)).toContain(`most this gallery allows is ${LIMIT}`);
      const fullPage = await post('pick', cookie, { gallery: proofs, pick: photos[3] });
      expect(fullPage.status).toBe(409);
      expect(fullPage.body).toContain(`most this gallery allows is ${LIMIT}`);
      // A note too long is refused and changes nothing.
      expect((await pickJson(cookie, photos[0], { note: 'x'.repeat(501) })).status).toBe(422);
      // Unpick and pick another.
      expect((await post('pick', cookie, { gallery: proofs, unpick: photos[1] }, { accept: 'application/json' })).body).toBe(JSON.stringify({ count: 2, limit: LIMIT, picked: false }));
      expect((await pickJson(cookie, photos[4], { note: 'Print this one' })).body).toMatchObject({ count: 3 });

      const page = await visit(w.svc, `${home}/_favourites/${proofs}`, { cookie });
      expect(page.body).toContain(`3 of ${LIMIT} chosen`);
      expect(page.body).toContain('Crop tighter');
      expect(page.body).toContain('Brighter');
      expect(page.body).not.toContain('Black and white?');

      const before = smtp.mails.length;
      const ask = await post('send', cookie, { gallery: proofs });
      expect(ask.status).toBe(200);
      expect(ask.body).toContain('Send your selection?');
      expect(smtp.mails.length).toBe(before);
      const sent = await post('send', cookie, { gallery: proofs, confirm: 'yes' });
      expect(sent.status).toBe(303);
      expect(sent.headers.location).toBe(`${home}/_favourites/${proofs}`);
      await w.svc.service.visitors.mailer.idle();
      const mail = smtp.mails.slice(before).find((m) => m.to.includes(w.user.email));
      expect(mail).toBeDefined();
      const body = partsOf(mail!.raw).get('text/plain')!;
      const lb = await lightboxOf('anna@example.com');
      expect(body).toContain('3 photos');
      expect(body).toContain('Anna <anna@example.com> (address not verified)');
      expect(body).toContain(lb.uuid);
      expect(lb.state).toBe('sent');

      // Read-only: no pick, no unpick, no second send.
      expect((await pickJson(cookie, photos[5])).status).toBe(409);
      expect((await post('pick', cookie, { gallery: proofs, unpick: photos[0] }, { accept: 'application/json' })).status).toBe(409);
      expect((await post('send', cookie, { gallery: proofs, confirm: 'yes' })).status).toBe(409);
      const readOnly = await visit(w.svc, `${home}/_favourites/${proofs}`, { cookie });
      expect(readOnly.body).toContain('You have sent this selection');
      expect(readOnly.body).not.toContain('name="unpick"');

      // The photographer's side: the lightbox, its notes, exactly its medias, a batch update on it.
      const list = await w.client.request('GET', '/lightboxes.xml');
      const entry = all(list.doc, 'lightboxes/lightbox').find((l) => text(l, 'uuid') === lb.uuid)!;
      expect(text(entry, 'state')).toBe('sent');
      expect(text(entry, 'client-email')).toBe('anna@example.com');
      expect(text(entry, 'client-verified')).toBe('false');
      expect(text(entry, 'gallery-uuid')).toBe(proofs);
      expect(int(entry, 'medias-count')).toBe(3);
      const details = await w.client.request('GET', `/lightboxes/${lb.uuid}.xml`);
      const picks = all(details.doc, 'lightbox/medias/media');
      expect(picks.map((m) => text(m, 'uuid'))).toEqual([photos[0], photos[2], photos[4]]);
      expect(picks.map((m) => text(m, 'note'))).toEqual(['Crop tighter', 'Brighter', 'Print this one']);
      expect(picks.every((m) => /\+00:00$/.test(text(m, 'picked-at') ?? ''))).toBe(true);
      const listed = await w.client.request('GET', `/medias.xml?lightbox_id=${lb.uuid}`);
      expect(all(listed.doc, 'medias/media').map((m) => text(m, 'uuid'))).toEqual([photos[0], photos[2], photos[4]]);
      const job = await w.client.request('PUT', '/medias/batch_update.xml', { select: 'all', lightbox_id: lb.uuid, medias_count: 3, 'medias[add_keywords]': 'chosen' }, { multipart: true, methodOverride: true });
      const done = await waitForJob(w.client, text(job.doc, 'location')!);
      expect(text(done.doc, 'job/state')).toBe('done');
      const tagged = await w.svc.db
        .selectFrom('media_keywords as k')
        .innerJoin('medias as m', 'm.id', 'k.media_id')
        .select('m.uuid')
        .where('k.keyword', '=', 'chosen')
        .execute();
      expect(tagged.map((r) => r.uuid).sort()).toEqual([photos[0], photos[2], photos[4]].sort());

      // Reopened by the photographer: the client may change it again.
      const reopened = await w.client.request('PUT', `/lightboxes/${lb.uuid}.xml`, { 'lightbox[state]': 'open' }, { methodOverride: true });
      expect(text(reopened.doc, 'lightbox/state')).toBe('open');
      expect((await post('pick', cookie, { gallery: proofs, unpick: photos[0] }, { accept: 'application/json' })).body).toBe(JSON.stringify({ count: 2, limit: LIMIT, picked: false }));
    }, 60_000);

    it('lets simultaneous picks of one client pass the limit never', async () => {
      const cookie = await guest('Racer', 'racer@example.com');
      const replies = await Promise.all(photos.map((m) => pickJson(cookie, m)));
      expect(replies.filter((r) => r.status === 200)).toHaveLength(LIMIT);
      expect(replies.filter((r) => r.status === 409)).toHaveLength(photos.length - LIMIT);
      const lb = await lightboxOf('racer@example.com');
      const n = await w.svc.db.selectFrom('lightbox_medias').select((eb) => eb.fn.countAll<number>().as('n')).where('lightbox_id', '=', lb.id).executeTakeFirstOrThrow();
      expect(Number(n.n)).toBe(LIMIT);
    });

    it('refuses posts from another site, photos of another gallery, and galleries the visitor may not open', async () => {
      const cookie = await guest('Eve', 'eve@example.com');
      const cross = await post('pick', cookie, { gallery: proofs, pick: photos[0] }, { origin: 'https://evil.example' });
      expect(cross.status).toBe(403);
      expect((await post('identify', undefined, { name: 'X', email: 'x@example.com' }, { origin: 'https://evil.example' })).status).toBe(403);
      expect((await post('send', cookie, { gallery: proofs, confirm: 'yes' }, { origin: 'https://evil.example' })).status).toBe(403);
      // A photo of the password gallery, named in the open one: not there.
      expect((await pickJson(cookie, familyPhotos[0])).status).toBe(404);
      // The password gallery itself, without its password: not there either.
      const locked = await post('pick', cookie, { gallery: family, pick: familyPhotos[0] }, { accept: 'application/json' });
      expect(locked.status).toBe(404);
      expect((await visit(w.svc, `${home}/_favourites/${family}`, { cookie })).status).toBe(404);
      // With the password given, the visitor may choose there.
      const opened = await visit(w.svc, `${home}/_password`, { cookie, form: { gallery: family, password: 'let me in', back: `${home}/-/family` }, headers: origin() });
      expect(opened.status).toBe(303);
      const withPass = cookieOf(opened)!;
      const ok = await post('pick', withPass, { gallery: family, pick: familyPhotos[0] }, { accept: 'application/json' });
      expect(ok.status).toBe(200);
      // Nothing was stored by the refusals.
      const eve = await w.svc.db.selectFrom('lightboxes').select(['id', 'gallery_id']).where('client_email', '=', 'eve@example.com').execute();
      expect(eve.map((l) => l.gallery_id)).toEqual([await galleryOf(family)]);
      // Unknown gallery, malformed UUIDs, a media that does not exist: 404, never a 5xx.
      expect((await post('pick', cookie, { gallery: randomBytes(4).toString('hex'), pick: photos[0] })).status).toBe(404);
      expect((await post('pick', cookie, { gallery: proofs, pick: 'not-a-uuid' })).status).toBe(404);
      expect((await post('pick', cookie, { gallery: proofs })).status).toBe(422);
      expect((await post('nope', cookie, { gallery: proofs })).status).toBe(404);
      expect((await visit(w.svc, `${home}/_favourites/not-a-gallery`, { cookie })).status).toBe(404);
      // One address per page: a query is sent to the page's own address.
      const redirected = await visit(w.svc, `${home}/_favourites?utm=1`, { cookie });
      expect(redirected.status).toBe(301);
    });

    it('lists the visitor’s selections on the website, and a guest never sees another client’s selection', async () => {
      const cookie = await guest('Anna again', 'anna@example.com');
      // Same address typed again, new pass: not the first Anna's selection.
      const mine: Page = await visit(w.svc, `${home}/_favourites/${proofs}`, { cookie });
      expect(mine.body).toContain(`0 of ${LIMIT} chosen`);
      const overview = await visit(w.svc, `${home}/_favourites`, { cookie });
      expect(overview.status).toBe(200);
      expect(overview.body).toContain('My favourites');
      const first = await guest('Lister', 'lister@example.com');
      await pickJson(first, photos[6]);
      const listing = await visit(w.svc, `${home}/_favourites`, { cookie: first });
      expect(listing.body).toContain('Wedding proofs');
      expect(listing.body).toContain(`1 of ${LIMIT} chosen`);
      const anonymous = await visit(w.svc, `${home}/_favourites`);
      expect(anonymous.body).toContain('Who is choosing?');
    });

    it('answers 404 for another owner’s lightbox', async () => {
      const lb = await lightboxOf('anna@example.com');
      const other = await worldOn(w.svc);
      expect((await failure(other.client.request('GET', `/lightboxes/${lb.uuid}.xml`))).status).toBe(404);
      expect((await failure(other.client.request('PUT', `/lightboxes/${lb.uuid}.xml`, { 'lightbox[state]': 'open' }, { methodOverride: true }))).status).toBe(404);
      const list = await other.client.request('GET', '/lightboxes.xml');
      expect(all(list.doc, 'lightboxes/lightbox')).toHaveLength(0);
    });
  }),
);
