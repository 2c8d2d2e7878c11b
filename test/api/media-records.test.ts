// One media: reading it, updating every attribute of spec 2.6 (and the
// client-compat extras), the galleries[] rule, validation, deletion, and
// other users' medias staying out of reach.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { all, bool, int, text } from '../../src/client/xml.js';
import { eachDatabase } from '../support/service.js';
import {
  createCollection,
  createGallery,
  failure,
  getMedia,
  insertArtist,
  insertMedias,
  insertPricingProfile,
  insertWatermark,
  mediaId,
  startMediaWorld,
  updateMedia,
  worldOn,
  type MediaWorld,
} from '../support/media.js';

eachDatabase((kind) => {
  let w: MediaWorld;
  beforeAll(async () => {
    w = await startMediaWorld(kind);
  });
  afterAll(() => w?.svc.close());

  it('takes array parameters with and without the [] suffix', async () => {
    const [m] = await insertMedias(w.svc.db, w.user, 1);
    const [a, b, c] = [await createGallery(w, 'Arr A'), await createGallery(w, 'Arr B'), await createGallery(w, 'Arr C')];
    // A string value goes on the wire as `media[publish_to_galleries]=A`, a list as `…[]=B&…[]=C`.
    await updateMedia(w.client, m, { 'media[publish_to_galleries]': a });
    await updateMedia(w.client, m, { 'media[publish_to_galleries]': [b, c] });
    const galleries = all((await getMedia(w.client, m)).doc, 'media/galleries/gallery/uuid').map((n) => n.text);
    expect(galleries.sort()).toEqual([a, b, c].sort());
  });

  it('shows a media in the details view, pending ones included', async () => {
    const [live, pending] = await insertMedias(w.svc.db, w.user, [{ title: 'Dune', file_name: 'dune.jpg' }, { status: 'pending', file_name: 'later.jpg' }]);
    const res = await getMedia(w.client, live);
    expect(text(res.doc, 'media/uuid')).toBe(live);
    expect(text(res.doc, 'media/file-name')).toBe('dune.jpg');
    expect(text(res.doc, 'media/title')).toBe('Dune');
    expect(text(res.doc, 'media/status')).toBe('live');
    expect(res.doc.children.find((c) => c.name === 'media')!.children.find((c) => c.name === 'file-size')!.attrs.type).toBe('integer');
    expect(text(res.doc, 'media/artist-uuid')).toBe(w.user.defaultArtistUuid);
    expect(bool(res.doc, 'media/model-release')).toBe(false);
    const p = await getMedia(w.client, pending);
    expect(text(p.doc, 'media/status')).toBe('pending');
    expect(text(p.doc, 'media/file-size')).toBeUndefined();
  });

  it('updates every metadata attribute through a multipart PUT (POST + _method)', async () => {
    const [uuid] = await insertMedias(w.svc.db, w.user, 1);
    const library = await insertArtist(w.svc.db, w.user);
    const watermark = await insertWatermark(w.svc.db, library);
    const res = await updateMedia(w.client, uuid, {
      'media[title]': 'Salt <flats> & "sky"',
      'media[description]': 'Long exposure',
      'media[keywords]': ' salt , Sky,salt, lake ,',
      'media[location]': 'Salar',
      'media[city]': 'Uyuni',
      'media[state]': 'Potosí',
      'media[country]': 'Bolivia',
      'media[region]': 'Altiplano',
      'media[author]': 'Ann Lee',
      'media[copyright]': '© 2026 Ann Lee',
      'media[model_release]': 1,
      'media[property_release]': 0,
      'media[artist_rating]': 4,
      'media[date_created]': '2025-03-04T05:06:07+02:00',
      'media[watermark_uuid]': watermark,
      'media[artist_id]': library,
    });
    expect(text(res.doc, 'message')).toBe('media updated');
    expect(text(res.doc, 'location')).toBe(`/medias/${uuid}.xml`);
    const m = (await getMedia(w.client, uuid)).doc;
    expect(text(m, 'media/title')).toBe('Salt <flats> & "sky"');
    expect(all(m, 'media/keywords/keyword').map((k) => k.text)).toEqual(['salt', 'Sky', 'lake']);
    expect(text(m, 'media/state')).toBe('Potosí');
    expect(text(m, 'media/copyright')).toBe('© 2026 Ann Lee');
    expect(bool(m, 'media/model-release')).toBe(true);
    expect(bool(m, 'media/property-release')).toBe(false);
    expect(int(m, 'media/artist-rating')).toBe(4);
    expect(text(m, 'media/shot-at')).toBe('2025-03-04T03:06:07+00:00');
    expect(text(m, 'media/watermark-uuid')).toBe(watermark);
    expect(text(m, 'media/artist-uuid')).toBe(library);
  });

  it('adds and removes keywords case-insensitively, keeping order', async () => {
    const [uuid] = await insertMedias(w.svc.db, w.user, [{ keywords: ['Alpha', 'beta'] }]);
    await updateMedia(w.client, uuid, { 'media[add_keywords]': 'ALPHA, gamma, delta', 'media[remove_keywords]': 'BETA' });
    const m = (await getMedia(w.client, uuid)).doc;
    expect(all(m, 'media/keywords/keyword').map((k) => k.text)).toEqual(['Alpha', 'gamma', 'delta']);
    await updateMedia(w.client, uuid, { 'media[keywords]': '' });
    expect(all((await getMedia(w.client, uuid)).doc, 'media/keywords/keyword')).toHaveLength(0);
  });

  it('clears the rating with delete_artist_rating and refuses ratings outside 0-5', async () => {
    const [uuid] = await insertMedias(w.svc.db, w.user, [{ artist_rating: 3 }]);
    expect((await failure(updateMedia(w.client, uuid, { 'media[artist_rating]': 6 }))).status).toBe(422);
    await updateMedia(w.client, uuid, { 'media[artist_rating]': 0 });
    expect(int((await getMedia(w.client, uuid)).doc, 'media/artist-rating')).toBe(0);
    await updateMedia(w.client, uuid, { 'media[delete_artist_rating]': 1 });
    const node = (await getMedia(w.client, uuid)).doc.children.find((c) => c.name === 'media')!.children.find((c) => c.name === 'artist-rating')!;
    expect(node.attrs.nil).toBe('true');
  });

  it('reads date_created in the ISO 8601 forms clients send, and refuses impossible dates', async () => {
    const [uuid] = await insertMedias(w.svc.db, w.user, 1);
    const shotAt = async (value: string) => {
      await updateMedia(w.client, uuid, { 'media[date_created]': value });
      return text((await getMedia(w.client, uuid)).doc, 'media/shot-at');
    };
    expect(await shotAt('2024-02-29')).toBe('2024-02-29T00:00:00+00:00');
    expect(await shotAt('2024-02-29T23:30:00-0100')).toBe('2024-03-01T00:30:00+00:00');
    expect(await shotAt('2024-02-29T10:11:12Z')).toBe('2024-02-29T10:11:12+00:00');
    for (const bad of ['2023-02-29', '2024-13-01', '2024-01-01T24:00:00Z', '01/02/2024']) {
      const r = await failure(updateMedia(w.client, uuid, { 'media[date_created]': bad }));
      expect(r.status).toBe(422);
    }
    expect(await shotAt('')).toBeUndefined();
  });

  it('names the bad attribute in a 422 and saves nothing', async () => {
    const [uuid] = await insertMedias(w.svc.db, w.user, [{ title: 'Before' }]);
    const bad = await failure(updateMedia(w.client, uuid, { 'media[title]': 'After', 'media[date_created]': 'yesterday' }));
    expect(bad.status).toBe(422);
    expect(bad.message).toContain('media[date_created]');
    const badGallery = await failure(updateMedia(w.client, uuid, { 'media[title]': 'After', 'media[publish_to_galleries]': ['00000000-0000-4000-8000-000000000000'] }));
    expect(badGallery.status).toBe(422);
    expect(badGallery.message).toContain('media[publish_to_galleries]');
    expect((await failure(updateMedia(w.client, uuid, { 'media[model_release]': 'yes' }))).status).toBe(422);
    expect((await failure(updateMedia(w.client, uuid, { 'media[color]': 'red' }))).status).toBe(400);
    expect(text((await getMedia(w.client, uuid)).doc, 'media/title')).toBe('Before');
  });

  it('refuses a form-urlencoded PUT with 415', async () => {
    const [uuid] = await insertMedias(w.svc.db, w.user, 1);
    expect((await failure(w.client.request('PUT', `/medias/${uuid}.xml`, { 'media[title]': 'x' }))).status).toBe(415);
    expect((await failure(w.client.request('PUT', `/medias/${uuid}.xml`, { 'media[title]': 'x' }, { methodOverride: true }))).status).toBe(415);
  });

  describe('galleries', () => {
    it('galleries[] replaces the set; publish/unpublish do not; publishing appends at the end', async () => {
      const [g1, g2, g3] = [await createGallery(w, 'One'), await createGallery(w, 'Two'), await createGallery(w, 'Three')];
      const [a, b] = await insertMedias(w.svc.db, w.user, 2);
      await updateMedia(w.client, a, { 'media[galleries]': [g1, g2] });
      await updateMedia(w.client, b, { 'media[publish_to_galleries]': g1 });
      const galleriesOf = async (u: string) => all((await getMedia(w.client, u)).doc, 'media/galleries/gallery/uuid').map((n) => n.text).sort();
      expect(await galleriesOf(a)).toEqual([g1, g2].sort());
      expect(await galleriesOf(b)).toEqual([g1]);
      const g1id = (await w.svc.db.selectFrom('galleries').select('id').where('uuid', '=', g1).executeTakeFirstOrThrow()).id;
      const order = await w.svc.db.selectFrom('media_galleries').select(['media_id', 'position']).where('gallery_id', '=', g1id).orderBy('position').execute();
      expect(order.map((r) => r.media_id)).toEqual([await mediaId(w.svc.db, a), await mediaId(w.svc.db, b)]);
      expect(order.map((r) => r.position)).toEqual([1, 2]);

      await updateMedia(w.client, a, { 'media[publish_to_galleries]': [g3], 'media[unpublish_from_galleries]': [g2] });
      expect(await galleriesOf(a)).toEqual([g1, g3].sort());
      await updateMedia(w.client, a, { 'media[galleries]': [g2] });
      expect(await galleriesOf(a)).toEqual([g2]);
      // Republishing to g1 puts it after b.
      await updateMedia(w.client, a, { 'media[publish_to_galleries]': [g1] });
      const again = await w.svc.db.selectFrom('media_galleries').select(['media_id']).where('gallery_id', '=', g1id).orderBy('position').execute();
      expect(again.map((r) => r.media_id)).toEqual([await mediaId(w.svc.db, b), await mediaId(w.svc.db, a)]);
    });
  });

  it('gives concurrent publications to one gallery distinct positions at the end', async () => {
    const g = await createGallery(w, 'Concurrent');
    const ms = await insertMedias(w.svc.db, w.user, 12);
    await Promise.all(ms.map((u) => updateMedia(w.client, u, { 'media[publish_to_galleries]': [g] })));
    const gid = (await w.svc.db.selectFrom('galleries').select('id').where('uuid', '=', g).executeTakeFirstOrThrow()).id;
    const rows = await w.svc.db.selectFrom('media_galleries').select('position').where('gallery_id', '=', gid).orderBy('position').execute();
    expect(rows.map((r) => r.position)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
  });

  it('manages collection membership and pricing profiles', async () => {
    const [c1, c2] = [await createCollection(w, 'Best'), await createCollection(w, 'Print')];
    const [p1, p2] = [await insertPricingProfile(w.svc.db, w.user, 'A'), await insertPricingProfile(w.svc.db, w.user, 'B')];
    const [uuid] = await insertMedias(w.svc.db, w.user, 1);
    await updateMedia(w.client, uuid, { 'media[add_to_medias_collections]': [c1], 'media[add_pricing_profiles]': [p1, p2] });
    let m = (await getMedia(w.client, uuid)).doc;
    expect(all(m, 'media/medias-collections/medias-collection/uuid').map((n) => n.text)).toEqual([c1]);
    expect(all(m, 'media/pricing-profiles/pricing-profile/uuid').map((n) => n.text).sort()).toEqual([p1, p2].sort());
    await updateMedia(w.client, uuid, { 'media[medias_collections]': [c2], 'media[remove_pricing_profiles]': [p1] });
    m = (await getMedia(w.client, uuid)).doc;
    expect(all(m, 'media/medias-collections/medias-collection/uuid').map((n) => n.text)).toEqual([c2]);
    expect(all(m, 'media/pricing-profiles/pricing-profile/uuid').map((n) => n.text)).toEqual([p2]);
    await updateMedia(w.client, uuid, { 'media[remove_from_medias_collections]': [c2] });
    expect(all((await getMedia(w.client, uuid)).doc, 'media/medias-collections/medias-collection')).toHaveLength(0);
  });

  it('deletes a media with its relations', async () => {
    const g = await createGallery(w, 'Doomed');
    const [uuid] = await insertMedias(w.svc.db, w.user, 1);
    await updateMedia(w.client, uuid, { 'media[publish_to_galleries]': [g], 'media[keywords]': 'x' });
    const id = await mediaId(w.svc.db, uuid);
    const res = await w.client.request('DELETE', `/medias/${uuid}.xml`);
    expect(text(res.doc, 'message')).toBe('media deleted');
    expect((await failure(getMedia(w.client, uuid))).status).toBe(404);
    expect(await w.svc.db.selectFrom('media_galleries').select('media_id').where('media_id', '=', id).execute()).toHaveLength(0);
    expect(await w.svc.db.selectFrom('media_keywords').select('media_id').where('media_id', '=', id).execute()).toHaveLength(0);
    expect((await failure(w.client.request('DELETE', `/medias/${uuid}.xml`))).status).toBe(404);
  });

  it("keeps another user's media, library and collections out of reach (404 / 422)", async () => {
    const other = await worldOn(w.svc);
    const [theirs] = await insertMedias(w.svc.db, other.user, [{ title: 'Theirs' }]);
    const [mine] = await insertMedias(w.svc.db, w.user, 1);
    expect((await failure(getMedia(w.client, theirs))).status).toBe(404);
    expect((await failure(updateMedia(w.client, theirs, { 'media[title]': 'Mine now' }))).status).toBe(404);
    expect((await failure(w.client.request('DELETE', `/medias/${theirs}.xml`))).status).toBe(404);
    const theirCollection = await createCollection(other, 'Theirs');
    const theirGallery = await createGallery(other, 'Theirs');
    expect((await failure(updateMedia(w.client, mine, { 'media[add_to_medias_collections]': [theirCollection] }))).status).toBe(422);
    expect((await failure(updateMedia(w.client, mine, { 'media[galleries]': [theirGallery] }))).status).toBe(422);
    expect((await failure(updateMedia(w.client, mine, { 'media[artist_id]': other.user.defaultArtistUuid }))).status).toBe(422);
    expect(text((await getMedia(other.client, theirs)).doc, 'media/title')).toBe('Theirs');
  });
});
