// PUT /medias/batch_update.xml: selections, attributes, the count check, and
// the job status resource that follows the asynchronous update.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { all, int, text } from '../../src/client/xml.js';
import type { Params } from '../../src/client/params.js';
import { eachDatabase } from '../support/service.js';
import {
  createCollection,
  createGallery,
  failure,
  getMedia,
  insertArtist,
  insertLightbox,
  insertMedias,
  insertPricingProfile,
  startMediaWorld,
  updateMedia,
  uuidsOf,
  waitForJob,
  worldOn,
  type MediaWorld,
} from '../support/media.js';

// A quick worker that gives a failing chunk up after three attempts.
const JOB_ENV = { JOB_POLL_MS: '50', JOB_RETRY_SECONDS: '0', JOB_MAX_ATTEMPTS: '3' };

eachDatabase((kind) => {
  let w: MediaWorld;
  beforeAll(async () => {
    w = await startMediaWorld(kind, JOB_ENV);
  });
  afterAll(() => w?.svc.close());

  /** As clients send it: multipart POST with _method=PUT. */
  const batch = (params: Params, client = w.client) => client.request('PUT', '/medias/batch_update.xml', params, { multipart: true, methodOverride: true });
  const jobCount = async () => Number((await w.svc.db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

  it('queues a job, replies with its UUID and location, and applies every attribute once done', async () => {
    const ms = await insertMedias(w.svc.db, w.user, [{ keywords: ['old', 'keep'] }, { keywords: ['keep'] }, {}]);
    const g = await createGallery(w, 'Batch');
    const c = await createCollection(w, 'Batch');
    const p = await insertPricingProfile(w.svc.db, w.user);
    const library = await insertArtist(w.svc.db, w.user, 'Moved');
    const res = await batch({
      select: ms.slice(0, 2).join(','),
      medias_count: 2,
      'medias[title]': 'Batch title',
      'medias[description]': 'Batch description',
      'medias[city]': 'Lyon',
      'medias[add_keywords]': 'new, KEEP',
      'medias[remove_keywords]': 'old',
      'medias[model_release]': 1,
      'medias[artist_rating]': 2,
      'medias[publish_to_galleries]': [g],
      'medias[add_to_medias_collections]': [c],
      'medias[add_pricing_profiles]': [p],
      'medias[artist_id]': library,
    });
    const jobUuid = text(res.doc, 'job-uuid')!;
    expect(text(res.doc, 'job/uuid')).toBe(jobUuid);
    expect(text(res.doc, 'location')).toBe(`/jobs/${jobUuid}.xml`);
    expect(int(res.doc, 'job/total')).toBe(2);
    expect(['queued', 'running', 'done']).toContain(text(res.doc, 'job/state'));
    expect(text(res.doc, 'message')).toBeTruthy();

    const done = await waitForJob(w.client, `/jobs/${jobUuid}.xml`);
    expect(text(done.doc, 'job/state')).toBe('done');
    expect(int(done.doc, 'job/processed')).toBe(2);
    expect(int(done.doc, 'job/failed')).toBe(0);
    expect(done.doc.children[0].children.find((c) => c.name === 'errors')!.attrs.type).toBe('array');
    expect(text(done.doc, 'job/started-at')).toMatch(/\+00:00$/);
    expect(text(done.doc, 'job/finished-at')).toMatch(/\+00:00$/);

    for (const u of ms.slice(0, 2)) {
      const m = (await getMedia(w.client, u)).doc;
      expect(text(m, 'media/title')).toBe('Batch title');
      expect(text(m, 'media/city')).toBe('Lyon');
      expect(text(m, 'media/model-release')).toBe('true');
      expect(int(m, 'media/artist-rating')).toBe(2);
      expect(text(m, 'media/artist-uuid')).toBe(library);
      expect(all(m, 'media/keywords/keyword').map((k) => k.text)).not.toContain('old');
      expect(all(m, 'media/keywords/keyword').map((k) => k.text)).toContain('new');
      expect(all(m, 'media/keywords/keyword').filter((k) => k.text.toLowerCase() === 'keep')).toHaveLength(1);
      expect(all(m, 'media/galleries/gallery/uuid').map((n) => n.text)).toEqual([g]);
      expect(all(m, 'media/medias-collections/medias-collection/uuid').map((n) => n.text)).toEqual([c]);
      expect(all(m, 'media/pricing-profiles/pricing-profile/uuid').map((n) => n.text)).toEqual([p]);
    }
    expect(text((await getMedia(w.client, ms[2])).doc, 'media/title')).toBeUndefined();
    expect(uuidsOf(await w.client.request('GET', '/medias.xml', { gallery_id: g }))).toEqual(ms.slice(0, 2));
  });

  it('selects all medias of a gallery, a collection or a lightbox scope, or all of the user', async () => {
    const w2 = await worldOn(w.svc);
    const ms = await insertMedias(w.svc.db, w2.user, 4);
    await insertMedias(w.svc.db, w2.user, [{ status: 'pending' }]);
    const g = await createGallery(w2, 'Scope');
    await updateMedia(w2.client, ms[1], { 'media[publish_to_galleries]': [g] });
    await updateMedia(w2.client, ms[3], { 'media[publish_to_galleries]': [g] });
    const scoped = await batch({ select: 'all', gallery_id: g, medias_count: 2, 'medias[region]': 'In gallery' }, w2.client);
    await waitForJob(w2.client, text(scoped.doc, 'location')!);
    const regions = async () => Promise.all(ms.map(async (u) => text((await getMedia(w2.client, u)).doc, 'media/region') ?? null));
    expect(await regions()).toEqual([null, 'In gallery', null, 'In gallery']);

    const lightbox = await insertLightbox(w.svc.db, w2.user, [ms[0]]);
    const inLightbox = await batch({ select: 'all', lightbox_id: lightbox, medias_count: 1, 'medias[region]': 'In lightbox' }, w2.client);
    await waitForJob(w2.client, text(inLightbox.doc, 'location')!);
    const c = await createCollection(w2, 'Scope');
    await updateMedia(w2.client, ms[2], { 'media[add_to_medias_collections]': [c] });
    const inCollection = await batch({ select: 'all', medias_group_id: c, medias_count: 1, 'medias[region]': 'In collection' }, w2.client);
    await waitForJob(w2.client, text(inCollection.doc, 'location')!);
    expect(await regions()).toEqual(['In lightbox', 'In gallery', 'In collection', 'In gallery']);

    const everything = await batch({ select: 'all', 'medias[region]': 'Everywhere' }, w2.client);
    expect(int(everything.doc, 'job/total')).toBe(4);
    await waitForJob(w2.client, text(everything.doc, 'location')!);
    expect(await regions()).toEqual(Array(4).fill('Everywhere'));
  });

  it('accepts the older medias[on]=medias selection, and urlencoded bodies', async () => {
    const ms = await insertMedias(w.svc.db, w.user, 3);
    const res = await w.client.request('PUT', '/medias/batch_update.xml', { 'medias[on]': 'medias', 'medias[medias]': `${ms[0]},${ms[2]}`, 'medias[keywords]': 'older' });
    const done = await waitForJob(w.client, text(res.doc, 'location')!);
    expect(int(done.doc, 'job/processed')).toBe(2);
    const kws = async (u: string) => all((await getMedia(w.client, u)).doc, 'media/keywords/keyword').map((k) => k.text);
    expect(await kws(ms[0])).toEqual(['older']);
    expect(await kws(ms[1])).toEqual([]);
    expect(await kws(ms[2])).toEqual(['older']);
  });

  it('applies galleries[] as the exact set and unpublish_from_galleries', async () => {
    const [a, b] = [await createGallery(w, 'A'), await createGallery(w, 'B')];
    const ms = await insertMedias(w.svc.db, w.user, 2);
    for (const u of ms) await updateMedia(w.client, u, { 'media[galleries]': [a, b] });
    let res = await batch({ select: ms.join(','), 'medias[unpublish_from_galleries]': [a] });
    await waitForJob(w.client, text(res.doc, 'location')!);
    expect(all((await getMedia(w.client, ms[0])).doc, 'media/galleries/gallery/uuid').map((n) => n.text)).toEqual([b]);
    res = await batch({ select: ms.join(','), 'medias[galleries]': [a] });
    await waitForJob(w.client, text(res.doc, 'location')!);
    for (const u of ms) expect(all((await getMedia(w.client, u)).doc, 'media/galleries/gallery/uuid').map((n) => n.text)).toEqual([a]);
  });

  it('deletes medias with medias[delete]=1', async () => {
    const ms = await insertMedias(w.svc.db, w.user, 3);
    const res = await batch({ select: ms.slice(0, 2).join(','), medias_count: 2, 'medias[delete]': 1 });
    await waitForJob(w.client, text(res.doc, 'location')!);
    expect((await failure(getMedia(w.client, ms[0]))).status).toBe(404);
    expect((await failure(getMedia(w.client, ms[1]))).status).toBe(404);
    expect(text((await getMedia(w.client, ms[2])).doc, 'media/uuid')).toBe(ms[2]);
  });

  it('refuses a wrong medias_count with 409 and invalid attributes with 422, creating no job', async () => {
    const ms = await insertMedias(w.svc.db, w.user, 2);
    const before = await jobCount();
    const mismatch = await failure(batch({ select: ms.join(','), medias_count: 3, 'medias[title]': 'x' }));
    expect(mismatch.status).toBe(409);
    const bad = await failure(batch({ select: ms.join(','), 'medias[artist_rating]': 9 }));
    expect(bad.status).toBe(422);
    expect(bad.message).toContain('medias[artist_rating]');
    expect((await failure(batch({ select: ms.join(','), 'medias[publish_to_galleries]': ['00000000-0000-4000-8000-000000000000'] }))).status).toBe(422);
    expect((await failure(batch({ select: ms.join(',') }))).status).toBe(422);
    expect((await failure(batch({ 'medias[title]': 'no selection' }))).status).toBe(422);
    // author and copyright are not batch attributes (spec 2.6).
    expect((await failure(batch({ select: ms.join(','), 'medias[author]': 'x' }))).status).toBe(400);
    expect(await jobCount()).toBe(before);
    for (const u of ms) expect(text((await getMedia(w.client, u)).doc, 'media/title')).toBeUndefined();
  });

  it("keeps other users' medias, scopes and jobs unreachable (404)", async () => {
    const other = await worldOn(w.svc);
    const [theirs] = await insertMedias(w.svc.db, other.user, [{ title: 'Theirs' }]);
    const [mine] = await insertMedias(w.svc.db, w.user, 1);
    expect((await failure(batch({ select: `${mine},${theirs}`, 'medias[title]': 'Taken' }))).status).toBe(404);
    expect((await failure(batch({ 'medias[on]': 'medias', 'medias[medias]': theirs, 'medias[title]': 'Taken' }))).status).toBe(404);
    const theirGallery = await createGallery(other, 'Theirs');
    expect((await failure(batch({ select: 'all', gallery_id: theirGallery, 'medias[title]': 'Taken' }))).status).toBe(404);
    const theirCollection = await createCollection(other, 'Theirs');
    expect((await failure(batch({ select: 'all', medias_group_id: theirCollection, 'medias[title]': 'Taken' }))).status).toBe(404);

    const theirJob = await batch({ select: theirs, 'medias[city]': 'Theirs' }, other.client);
    const location = text(theirJob.doc, 'location')!;
    expect((await failure(w.client.request('GET', location))).status).toBe(404);
    await waitForJob(other.client, location);
    // select=all of mine never reaches their media.
    const mineAll = await batch({ select: 'all', 'medias[title]': 'Mine' });
    await waitForJob(w.client, text(mineAll.doc, 'location')!);
    expect(text((await getMedia(other.client, theirs)).doc, 'media/title')).toBe('Theirs');
    expect(text((await getMedia(w.client, mine)).doc, 'media/title')).toBe('Mine');
  });

  it('completes a job with an empty selection at once', async () => {
    const c = await createCollection(w, 'Empty');
    const res = await batch({ select: 'all', medias_group_id: c, medias_count: 0, 'medias[title]': 'Nobody' });
    expect(int(res.doc, 'job/total')).toBe(0);
    const done = await waitForJob(w.client, text(res.doc, 'location')!);
    expect(text(done.doc, 'job/state')).toBe('done');
    expect(int(done.doc, 'job/processed')).toBe(0);
  });

  it('skips a gallery deleted between the request and the job', async () => {
    const g = await createGallery(w, 'Short-lived');
    const [m] = await insertMedias(w.svc.db, w.user, 1);
    const worker = w.svc.service.worker;
    await worker.stop();
    const res = await batch({ select: m, 'medias[publish_to_galleries]': [g], 'medias[title]': 'Still applied' });
    await w.client.deleteGallery(w.urlname, g);
    worker.start();
    const done = await waitForJob(w.client, text(res.doc, 'location')!);
    expect(text(done.doc, 'job/state')).toBe('done');
    expect(int(done.doc, 'job/failed')).toBe(0);
    const media = (await getMedia(w.client, m)).doc;
    expect(text(media, 'media/title')).toBe('Still applied');
    expect(all(media, 'media/galleries/gallery')).toHaveLength(0);
  });

  it('retries a chunk that fails, then gives the job up as failed with the reason, changing nothing', async () => {
    const [m] = await insertMedias(w.svc.db, w.user, [{ title: 'Untouched' }]);
    const id = (await w.svc.db.selectFrom('medias').select('id').where('uuid', '=', m).executeTakeFirstOrThrow()).id;
    // A change set the database refuses (a library that does not exist), as if it had vanished since validation.
    const now = new Date().toISOString();
    const uuid = '00000000-0000-4000-8000-0000000000ff';
    await w.svc.db
      .insertInto('jobs')
      .values({ uuid, owner_id: w.user.id, kind: 'media_batch_update', state: 'queued', payload: JSON.stringify({ ids: [id], changes: { columns: { title: 'Changed', artist_id: 987654 } } }), total: 1, created_at: now, updated_at: now })
      .execute();
    w.svc.service.worker.wake();
    const done = await waitForJob(w.client, `/jobs/${uuid}.xml`);
    expect(text(done.doc, 'job/state')).toBe('failed');
    expect(int(done.doc, 'job/processed')).toBe(0);
    const errors = all(done.doc, 'job/errors/error').map((e) => e.text);
    expect(errors.filter((e) => e.startsWith('attempt'))).toHaveLength(3);
    expect(errors[errors.length - 1]).toContain('given up after 3 attempts');
    expect(text(done.doc, 'job/finished-at')).toBeTruthy();
    expect(text((await getMedia(w.client, m)).doc, 'media/title')).toBe('Untouched');
  });

  it('shows a waiting job\'s lane and place in line (an extension), and neither place once it is done', async () => {
    const ms = await insertMedias(w.svc.db, w.user, 2);
    const worker = w.svc.service.worker;
    await worker.stop();
    const first = await batch({ select: ms[0]!, 'medias[title]': 'First' });
    const second = await batch({ select: ms[1]!, 'medias[title]': 'Second' });
    // The reply that queued it says its lane only.
    expect(text(first.doc, 'job/lane')).toBe('interactive');
    expect(all(first.doc, 'job/place-in-line')).toHaveLength(0);
    const waiting = await w.client.request('GET', text(second.doc, 'location')!);
    expect(text(waiting.doc, 'job/lane')).toBe('interactive');
    expect(int(waiting.doc, 'job/place-in-line')).toBe(2);
    expect(int((await w.client.request('GET', text(first.doc, 'location')!)).doc, 'job/place-in-line')).toBe(1);
    worker.start();
    const done = await waitForJob(w.client, text(second.doc, 'location')!);
    expect(text(done.doc, 'job/state')).toBe('done');
    expect(all(done.doc, 'job/place-in-line')).toHaveLength(0);
  });

  it('counts medias deleted before the job reached them as failed', async () => {
    const ms = await insertMedias(w.svc.db, w.user, 3);
    // Stop the worker so the job waits, delete one media, then let it run.
    const worker = w.svc.service.worker;
    await worker.stop();
    const res = await batch({ select: ms.join(','), 'medias[title]': 'Late' });
    await w.client.request('DELETE', `/medias/${ms[1]}.xml`);
    worker.start();
    const done = await waitForJob(w.client, text(res.doc, 'location')!);
    expect(text(done.doc, 'job/state')).toBe('done');
    expect(int(done.doc, 'job/processed')).toBe(3);
    expect(int(done.doc, 'job/failed')).toBe(1);
    expect(all(done.doc, 'job/errors/error')).toHaveLength(1);
  });
});
