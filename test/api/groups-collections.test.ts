// /medias_groups: collections and smart collections, their replies (spec 2.5,
// 4.6), deletion with medias_count, and other users' groups out of reach.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { all, int, text } from '../../src/client/xml.js';
import { eachDatabase } from '../support/service.js';
import {
  createCollection,
  failure,
  getMedia,
  insertArtist,
  insertMedias,
  startMediaWorld,
  updateMedia,
  uuidsOf,
  worldOn,
  type MediaWorld,
} from '../support/media.js';

eachDatabase((kind) => {
  let w: MediaWorld;
  beforeAll(async () => {
    w = await startMediaWorld(kind);
  });
  afterAll(() => w?.svc.close());

  it('creates a collection with the reply of spec 2.5', async () => {
    const res = await w.client.request('POST', '/medias_groups.xml', { 'medias_collection[name]': 'Portfolio' });
    const uuid = text(res.doc, 'medias-collection-uuid')!;
    expect(uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(text(res.doc, 'medias-collection/uuid')).toBe(uuid);
    expect(text(res.doc, 'medias-collection/name')).toBe('Portfolio');
    expect(int(res.doc, 'medias-collection/medias-count')).toBe(0);
    expect(text(res.doc, 'location')).toBe(`/medias_groups/${uuid}.xml`);
    expect(text(res.doc, 'message')).toBeTruthy();
  });

  it('creates a smart collection, in a library', async () => {
    const library = await insertArtist(w.svc.db, w.user, 'Lib');
    const res = await w.client.request('POST', '/medias_groups.xml', { 'medias_smart_collection[name]': 'Recent', artist_id: library });
    const uuid = text(res.doc, 'medias-smart-collection-uuid')!;
    expect(text(res.doc, 'medias-smart-collection/uuid')).toBe(uuid);
    expect(text(res.doc, 'medias-smart-collection/artist-uuid')).toBe(library);
    expect(text(res.doc, 'medias-smart-collection/match')).toBe('all');
  });

  it('refuses a missing name, both names, and an unknown library', async () => {
    expect((await failure(w.client.request('POST', '/medias_groups.xml', {}))).status).toBe(422);
    expect((await failure(w.client.request('POST', '/medias_groups.xml', { 'medias_collection[name]': 'a', 'medias_smart_collection[name]': 'b' }))).status).toBe(422);
    expect((await failure(w.client.request('POST', '/medias_groups.xml', { 'medias_collection[name]': ' ' }))).status).toBe(422);
    const other = await worldOn(w.svc);
    const bad = await failure(w.client.request('POST', '/medias_groups.xml', { 'medias_collection[name]': 'x', artist_id: other.user.defaultArtistUuid }));
    expect(bad.status).toBe(422);
    expect(bad.message).toContain('artist_id');
  });

  it('lists groups with views, library filter and pagination; counts live medias', async () => {
    const w2 = await worldOn(w.svc);
    const library = await insertArtist(w.svc.db, w2.user, 'Second');
    const c1 = await createCollection(w2, 'One');
    const c2 = await createCollection(w2, 'Two', { artist_id: library });
    const [a, b] = await insertMedias(w.svc.db, w2.user, 2);
    await insertMedias(w.svc.db, w2.user, [{ status: 'pending' }]);
    for (const m of [a, b]) await updateMedia(w2.client, m, { 'media[add_to_medias_collections]': [c1] });
    await w2.client.request('POST', '/medias_groups.xml', { 'medias_smart_collection[name]': 'All' });

    const listView = await w2.client.request('GET', '/medias_groups.xml');
    expect(all(listView.doc, 'medias-groups/medias-group/name').map((n) => n.text)).toEqual(['One', 'Two', 'All']);
    expect(text(listView.doc, 'medias-groups/medias-group/medias-count')).toBeUndefined();
    const details = await w2.client.request('GET', '/medias_groups.xml', { view: 'details' });
    const groups = all(details.doc, 'medias-groups/medias-group');
    expect(groups.map((g) => [text(g, 'type'), int(g, 'medias-count')])).toEqual([
      ['medias_collection', 2],
      ['medias_collection', 0],
      ['medias_smart_collection', 2],
    ]);
    expect(uuidsOf(await w2.client.request('GET', '/medias_groups.xml', { artist_id: library }), 'medias-groups/medias-group/uuid')).toEqual([c2]);
    const page2 = await w2.client.request('GET', '/medias_groups.xml', { per_page: 2, page: 2 });
    expect(all(page2.doc, 'medias-groups/medias-group/name').map((n) => n.text)).toEqual(['All']);
    expect(int(page2.doc, 'total-pages')).toBe(2);
    expect((await failure(w2.client.request('GET', '/medias_groups.xml', { per_page: 501 }))).status).toBe(422);

    const one = await w2.client.request('GET', `/medias_groups/${c1}.xml`, { view: 'details_with_medias' });
    expect(int(one.doc, 'medias-group/medias-count')).toBe(2);
    expect(uuidsOf(one, 'medias-group/medias/media/uuid')).toEqual([a, b]);
  });

  it('renames a group by its kind', async () => {
    const c = await createCollection(w, 'Old');
    const res = await w.client.request('PUT', `/medias_groups/${c}.xml`, { 'medias_collection[name]': 'New' });
    expect(text(res.doc, 'medias-collection/name')).toBe('New');
    expect((await failure(w.client.request('PUT', `/medias_groups/${c}.xml`, { 'medias_smart_collection[name]': 'X' }))).status).toBe(422);
    expect(text((await w.client.request('GET', `/medias_groups/${c}.xml`)).doc, 'medias-group/name')).toBe('New');
  });

  describe('delete', () => {
    it('checks medias_count (409, nothing done), keeps medias unless delete_medias=1', async () => {
      const c = await createCollection(w, 'Del');
      const ms = await insertMedias(w.svc.db, w.user, 3);
      for (const m of ms) await updateMedia(w.client, m, { 'media[add_to_medias_collections]': [c] });
      const mismatch = await failure(w.client.request('DELETE', `/medias_groups/${c}.xml`, { medias_count: 2, delete_medias: 1 }));
      expect(mismatch.status).toBe(409);
      expect(int((await w.client.request('GET', `/medias_groups/${c}.xml`)).doc, 'medias-group/medias-count')).toBe(3);
      for (const m of ms) await getMedia(w.client, m);

      await w.client.request('DELETE', `/medias_groups/${c}.xml`, { medias_count: 3, delete_medias: 1 });
      expect((await failure(w.client.request('GET', `/medias_groups/${c}.xml`))).status).toBe(404);
      for (const m of ms) expect((await failure(getMedia(w.client, m))).status).toBe(404);

      const keep = await createCollection(w, 'Keep');
      const [kept] = await insertMedias(w.svc.db, w.user, 1);
      await updateMedia(w.client, kept, { 'media[add_to_medias_collections]': [keep] });
      await w.client.request('DELETE', `/medias_groups/${keep}.xml`);
      expect(text((await getMedia(w.client, kept)).doc, 'media/uuid')).toBe(kept);
    });
  });

  it("answers 404 for another user's group on every route", async () => {
    const other = await worldOn(w.svc);
    const theirs = await createCollection(other, 'Theirs');
    expect((await failure(w.client.request('GET', `/medias_groups/${theirs}.xml`))).status).toBe(404);
    expect((await failure(w.client.request('PUT', `/medias_groups/${theirs}.xml`, { 'medias_collection[name]': 'Mine' }))).status).toBe(404);
    expect((await failure(w.client.request('DELETE', `/medias_groups/${theirs}.xml`))).status).toBe(404);
    expect(uuidsOf(await w.client.request('GET', '/medias_groups.xml'), 'medias-groups/medias-group/uuid')).not.toContain(theirs);
    expect(text((await other.client.request('GET', `/medias_groups/${theirs}.xml`)).doc, 'medias-group/name')).toBe('Theirs');
  });
});
