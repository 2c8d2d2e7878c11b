// The order of refusals on a route whose path names a resource: a request
// naming a missing (or not visible) gallery, media or group is a 404 whatever
// its parameters (clients read 404 as "gone", client-compat); the same request
// on one that exists is the 422 naming the wrong parameter. The router applies
// this the same way on every route (src/http/router.ts, `found`).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createCollection, createGallery, failure, insertMedias, startMediaWorld, updateMedia, worldOn, type MediaWorld } from '../support/media.js';
import { eachDatabase } from '../support/service.js';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

eachDatabase((kind) => {
  let w: MediaWorld;
  let other: MediaWorld;
  beforeAll(async () => {
    w = await startMediaWorld(kind);
    other = await worldOn(w.svc);
  });
  afterAll(() => w?.svc.close());

  async function refusals(call: (uuid: string) => Promise<unknown>, known: string, hidden: string) {
    return { unknown: await failure(call(UNKNOWN)), hidden: await failure(call(hidden)), known: await failure(call(known)) };
  }

  it('a gallery read with a bad view: 404 for an unknown gallery, 422 for a known one', async () => {
    const [mine, theirs] = [await createGallery(w, 'Known'), await createGallery(other, 'Theirs')];
    const r = await refusals((g) => w.client.request('GET', `/websites/${w.urlname}/galleries/${g}.xml`, { view: 'bogus' }), mine, theirs);
    expect(r.unknown.status).toBe(404);
    expect(r.hidden.status).toBe(404);
    expect(r.known).toMatchObject({ status: 422, message: expect.stringContaining('view') });
  });

  it('a gallery delete with a bad flag: 404 for an unknown gallery, 422 for a known one (nothing deleted)', async () => {
    const mine = await createGallery(w, 'Kept');
    const theirs = await createGallery(other, 'Theirs too');
    const r = await refusals((g) => w.client.request('DELETE', `/websites/${w.urlname}/galleries/${g}.xml`, { delete_medias: 'maybe' }), mine, theirs);
    expect(r.unknown.status).toBe(404);
    expect(r.hidden.status).toBe(404);
    expect(r.known).toMatchObject({ status: 422, message: expect.stringContaining('delete_medias') });
    expect((await w.client.request('GET', `/websites/${w.urlname}/galleries/${mine}.xml`)).status).toBe(200);
  });

  it('a gallery update with a bad attribute on an unknown website is a 404', async () => {
    const mine = await createGallery(w, 'Elsewhere');
    const f = await failure(w.client.request('PUT', `/websites/no-such-site/galleries/${mine}.xml`, { 'gallery[hidden]': 'maybe' }));
    expect(f.status).toBe(404);
    expect((await failure(w.client.request('PUT', `/websites/${w.urlname}/galleries/${mine}.xml`, { 'gallery[hidden]': 'maybe' }))).status).toBe(422);
  });

  it('a media read with a bad view: 404 for an unknown media, 422 for a known one', async () => {
    const [mine] = await insertMedias(w.svc.db, w.user, 1);
    const [theirs] = await insertMedias(w.svc.db, other.user, 1);
    const r = await refusals((m) => w.client.request('GET', `/medias/${m}.xml`, { view: 'bogus' }), mine, theirs);
    expect(r.unknown.status).toBe(404);
    expect(r.hidden.status).toBe(404);
    expect(r.known).toMatchObject({ status: 422, message: expect.stringContaining('view') });
  });

  it('a media update with a bad attribute: 404 for an unknown media, 422 for a known one', async () => {
    const [mine] = await insertMedias(w.svc.db, w.user, 1);
    const [theirs] = await insertMedias(w.svc.db, other.user, 1);
    const r = await refusals((m) => updateMedia(w.client, m, { 'media[artist_rating]': '9' }), mine, theirs);
    expect(r.unknown.status).toBe(404);
    expect(r.hidden.status).toBe(404);
    expect(r.known).toMatchObject({ status: 422, message: expect.stringContaining('media[artist_rating]') });
  });

  it('a collection update with a bad rule: 404 for an unknown group, 422 for a known one', async () => {
    const [mine, theirs] = [await createCollection(w, 'Mine'), await createCollection(other, 'Theirs')];
    const r = await refusals((g) => w.client.request('PUT', `/medias_groups/${g}.xml`, { 'medias_smart_collection[rules][match]': 'some' }), mine, theirs);
    expect(r.unknown.status).toBe(404);
    expect(r.hidden.status).toBe(404);
    expect(r.known).toMatchObject({ status: 422, message: expect.stringContaining('[rules][match]') });
  });
});
