// GET /medias.xml: views, pagination, filters and who sees what.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { all, int, text } from '../../src/client/xml.js';
import { eachDatabase } from '../support/service.js';
import {
  createCollection,
  createGallery,
  failure,
  insertArtist,
  insertLightbox,
  insertMedias,
  startMediaWorld,
  updateMedia,
  uuidsOf,
  worldOn,
  type MediaWorld,
} from '../support/media.js';

eachDatabase((kind) => {
  let w: MediaWorld;
  let medias: string[];
  let pending: string;
  beforeAll(async () => {
    w = await startMediaWorld(kind);
    medias = await insertMedias(w.svc.db, w.user, 12);
    [pending] = await insertMedias(w.svc.db, w.user, [{ status: 'pending' }]);
  });
  afterAll(() => w?.svc.close());

  const list = (params: Record<string, string | number | undefined> = {}) => w.client.request('GET', '/medias.xml', params);

  it('lists only the live medias of the user, in id order, in the list view by default', async () => {
    const other = await worldOn(w.svc);
    await insertMedias(w.svc.db, other.user, 3);
    const res = await list();
    expect(uuidsOf(res)).toEqual(medias);
    expect(uuidsOf(res)).not.toContain(pending);
    const first = res.doc.children.find((c) => c.name === 'medias')!;
    expect(first.attrs.type).toBe('array');
    expect(first.children[0].children.map((c) => c.name)).toEqual(['uuid', 'file-name']);
    expect(int(res.doc, 'total-pages')).toBe(1);
  });

  it('paginates with page/per_page, at most 500 per page', async () => {
    const p1 = await list({ per_page: 5, page: 1 });
    const p3 = await list({ per_page: 5, page: 3 });
    expect(uuidsOf(p1)).toEqual(medias.slice(0, 5));
    expect(uuidsOf(p3)).toEqual(medias.slice(10, 12));
    expect(int(p1.doc, 'total-pages')).toBe(3);
    expect(uuidsOf(await list({ per_page: 5, page: 4 }))).toEqual([]);
    expect((await failure(list({ per_page: 501 }))).status).toBe(422);
    const collected: string[] = [];
    for await (const m of w.client.paginate('/medias.xml', { per_page: 4 }, 'medias/media')) collected.push(text(m, 'uuid')!);
    expect(collected).toEqual(medias);
  });

  it('gives the fields of each view', async () => {
    await updateMedia(w.client, medias[0], { 'media[title]': 'T', 'media[keywords]': 'k1,k2', 'media[author]': 'Ann', 'media[model_release]': 1 });
    const base = await list({ view: 'base', per_page: 1 });
    expect(text(base.doc, 'medias/media/title')).toBe('T');
    expect(text(base.doc, 'medias/media/mime-type')).toBe('image/jpeg');
    expect(all(base.doc, 'medias/media/keywords/keyword').map((k) => k.text)).toEqual(['k1', 'k2']);
    expect(text(base.doc, 'medias/media/author')).toBeUndefined();
    const details = await list({ view: 'details', per_page: 1 });
    expect(text(details.doc, 'medias/media/author')).toBe('Ann');
    expect(text(details.doc, 'medias/media/model-release')).toBe('true');
    const pub = await list({ view: 'public_details', per_page: 1 });
    expect(text(pub.doc, 'medias/media/author')).toBe('Ann');
    expect(text(pub.doc, 'medias/media/model-release')).toBeUndefined();
    expect(text(pub.doc, 'medias/media/artist-uuid')).toBeUndefined();
    expect(text(pub.doc, 'medias/media/status')).toBeUndefined();
    expect((await failure(list({ view: 'everything' }))).status).toBe(422);
  });

  it('filters by library, gallery (in gallery order), collection and lightbox', async () => {
    const library = await insertArtist(w.svc.db, w.user);
    const inLibrary = await insertMedias(w.svc.db, w.user, [{ artist_uuid: library }, { artist_uuid: library }]);
    expect(uuidsOf(await list({ artist_id: library }))).toEqual(inLibrary);

    const g = await createGallery(w, 'Filter');
    for (const u of [medias[5], medias[2], medias[9]]) await updateMedia(w.client, u, { 'media[publish_to_galleries]': [g] });
    expect(uuidsOf(await list({ gallery_id: g }))).toEqual([medias[5], medias[2], medias[9]]);
    expect(uuidsOf(await list({ gallery_id: g, per_page: 2, page: 2 }))).toEqual([medias[9]]);

    const c = await createCollection(w, 'Filter');
    for (const u of [medias[7], medias[1]]) await updateMedia(w.client, u, { 'media[add_to_medias_collections]': [c] });
    expect(uuidsOf(await list({ medias_group_id: c }))).toEqual([medias[7], medias[1]]);

    const lb = await insertLightbox(w.svc.db, w.user, [medias[3], medias[0]]);
    expect(uuidsOf(await list({ lightbox_id: lb }))).toEqual([medias[3], medias[0]]);
    // Filters combine.
    expect(uuidsOf(await list({ gallery_id: g, medias_group_id: c }))).toEqual([]);
  });

  it('answers 404 for unknown or foreign filter targets', async () => {
    const other = await worldOn(w.svc);
    const theirGallery = await createGallery(other, 'Theirs');
    const theirCollection = await createCollection(other, 'Theirs');
    const theirLightbox = await insertLightbox(w.svc.db, other.user);
    for (const params of [
      { artist_id: other.user.defaultArtistUuid },
      { gallery_id: theirGallery },
      { medias_group_id: theirCollection },
      { lightbox_id: theirLightbox },
      { gallery_id: 'not-a-uuid' },
    ]) {
      expect((await failure(list(params))).status).toBe(404);
    }
  });
});
