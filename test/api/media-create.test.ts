// POST /medias.xml around the upload machinery: placements and metadata given
// with step 1 or a direct upload, the reply elements, media[replace], and a
// refused upload leaving nothing behind.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Params } from '../../src/client/params.js';
import { all, text } from '../../src/client/xml.js';
import { eachDatabase } from '../support/service.js';
import { createCollection, createGallery, failure, getMedia, insertArtist, startMediaWorld, uuidsOf, worldOn, type MediaWorld } from '../support/media.js';
import { png } from './uploads-support.js';

eachDatabase((kind) => {
  let w: MediaWorld;
  let image: Buffer;
  beforeAll(async () => {
    w = await startMediaWorld(kind);
    image = await png(8, 6);
  });
  afterAll(() => w?.svc.close());

  const step1 = (fields: Params) =>
    w.client.request('POST', '/medias.xml', {
      'media[content][upload_location]': 'REQUEST',
      'media[content][file_size]': image.length,
      'media[content][mime_type]': 'image/png',
      ...fields,
    });
  const mediaCount = async () => Number((await w.svc.db.selectFrom('medias').select((eb) => eb.fn.countAll<number>().as('n')).where('owner_id', '=', w.user.id).executeTakeFirstOrThrow()).n);

  it('creates a pending media with its metadata, collections and galleries, and replies with upload instructions', async () => {
    const g = await createGallery(w, 'Incoming');
    const c = await createCollection(w, 'Incoming');
    const library = await insertArtist(w.svc.db, w.user, 'Uploads');
    const res = await step1({
      'media[content][file_name]': 'step1.png',
      'media[add_to_medias_collections]': [c],
      'media[publish_to_galleries]': [g],
      'media[title]': 'Fresh',
      'media[keywords]': 'new,upload',
      artist_id: library,
    });
    const uuid = text(res.doc, 'media/uuid')!;
    expect(text(res.doc, 'media-uuid')).toBe(uuid);
    expect(text(res.doc, 'location')).toBe(`/medias/${uuid}.xml`);
    expect(text(res.doc, 'media/upload-url')).toMatch(/^http/);
    expect(text(res.doc, 'media/title')).toBe('Fresh');
    expect(text(res.doc, 'message')).toBeTruthy();

    const m = (await getMedia(w.client, uuid)).doc;
    expect(text(m, 'media/status')).toBe('pending');
    expect(text(m, 'media/artist-uuid')).toBe(library);
    expect(all(m, 'media/keywords/keyword').map((k) => k.text)).toEqual(['new', 'upload']);
    expect(all(m, 'media/galleries/gallery/uuid').map((n) => n.text)).toEqual([g]);
    expect(all(m, 'media/medias-collections/medias-collection/uuid').map((n) => n.text)).toEqual([c]);
    // Pending: not listed yet.
    expect(uuidsOf(await w.client.request('GET', '/medias.xml'))).not.toContain(uuid);
  });

  it('validates every target before creating anything (422 naming it)', async () => {
    const before = await mediaCount();
    const other = await worldOn(w.svc);
    const theirCollection = await createCollection(other, 'Theirs');
    const bad = await failure(step1({ 'media[content][file_name]': 'x.png', 'media[add_to_medias_collections]': [theirCollection] }));
    expect(bad.status).toBe(422);
    expect(bad.message).toContain('media[add_to_medias_collections]');
    const badArtist = await failure(step1({ 'media[content][file_name]': 'x.png', artist_id: other.user.defaultArtistUuid }));
    expect(badArtist.status).toBe(422);
    expect(badArtist.message).toContain('artist_id');
    expect((await failure(step1({ 'media[content][file_name]': 'x.png', 'media[date_created]': 'soon' }))).status).toBe(422);
    expect((await failure(w.client.request('POST', '/medias.xml', { 'media[content][file_name]': 'x.png' }))).status).toBe(422);
    expect(await mediaCount()).toBe(before);
  });

  it('removes the media and its placements when the upload machinery refuses step 1', async () => {
    const g = await createGallery(w, 'Refused');
    const before = await mediaCount();
    const refused = await failure(step1({ 'media[content][file_name]': 'notes.txt', 'media[content][mime_type]': 'text/plain', 'media[publish_to_galleries]': [g] }));
    expect(refused.status).toBe(422);
    expect(await mediaCount()).toBe(before);
    const gid = (await w.svc.db.selectFrom('galleries').select('id').where('uuid', '=', g).executeTakeFirstOrThrow()).id;
    expect(await w.svc.db.selectFrom('media_galleries').select('media_id').where('gallery_id', '=', gid).execute()).toEqual([]);
  });

  it('media[replace]=1 keeps the UUID of the media with that file name and applies the metadata; creates one when none matches', async () => {
    const first = await step1({ 'media[content][file_name]': 'same-name.png' });
    const uuid = text(first.doc, 'media/uuid')!;
    const again = await step1({ 'media[content][file_name]': 'same-name.png', 'media[replace]': 1, 'media[title]': 'Replaced' });
    expect(text(again.doc, 'media/uuid')).toBe(uuid);
    expect(text(again.doc, 'media-uuid')).toBe(uuid);
    expect(text((await getMedia(w.client, uuid)).doc, 'media/title')).toBe('Replaced');
    const fresh = await step1({ 'media[content][file_name]': 'other-name.png', 'media[replace]': 1 });
    expect(text(fresh.doc, 'media/uuid')).not.toBe(uuid);
  });

  it('media[replace]=1 finds the media by the file name as the service stored it', async () => {
    const first = await step1({ 'media[content][file_name]': 'my "best" shot.png' });
    const uuid = text(first.doc, 'media/uuid')!;
    expect(text(first.doc, 'media/file-name')).toBe('my best shot.png');
    const again = await step1({ 'media[content][file_name]': 'my "best" shot.png', 'media[replace]': 1 });
    expect(text(again.doc, 'media/uuid')).toBe(uuid);
  });

  it('accepts the step 1 parameters on PUT to replace a file, artist_id and media[replace] included', async () => {
    const created = await step1({ 'media[content][file_name]': 'put-replace.png' });
    const uuid = text(created.doc, 'media/uuid')!;
    const library = await insertArtist(w.svc.db, w.user, 'Replaced into');
    const g = await createGallery(w, 'Replaced into');
    const res = await w.client.request(
      'PUT',
      `/medias/${uuid}.xml`,
      {
        'media[content][upload_location]': 'REQUEST',
        'media[content][file_name]': 'put-replace.png',
        'media[content][file_size]': image.length,
        'media[content][mime_type]': 'image/png',
        'media[replace]': 1,
        'media[publish_to_galleries]': [g],
        artist_id: library,
      },
      { multipart: true, methodOverride: true },
    );
    expect(text(res.doc, 'media/uuid')).toBe(uuid);
    expect(text(res.doc, 'media/upload-url')).toMatch(/^http/);
    expect(text(res.doc, 'media/artist-uuid')).toBe(library);
    expect(all(res.doc, 'media/galleries/gallery/uuid').map((n) => n.text)).toEqual([g]);
  });

  it('takes a direct upload with metadata and placements: live and listed at once', async () => {
    const g = await createGallery(w, 'Direct');
    const res = await w.client.request(
      'POST',
      '/medias.xml',
      { 'media[title]': 'Direct', 'media[publish_to_galleries]': [g] },
      { file: { field: 'media[content]', fileName: 'direct.png', contentType: 'image/png', data: image } },
    );
    const uuid = text(res.doc, 'media/uuid')!;
    expect(text(res.doc, 'media/status')).toBe('live');
    expect(text(res.doc, 'media/file-size')).toBe(String(image.length));
    expect(text(res.doc, 'media/title')).toBe('Direct');
    expect(uuidsOf(await w.client.request('GET', '/medias.xml', { gallery_id: g }))).toEqual([uuid]);

    // A new file for the same media through PUT (multipart POST + _method), with a metadata change.
    const bigger = await png(16, 12);
    const put = await w.client.request('PUT', `/medias/${uuid}.xml`, { 'media[title]': 'Redone' }, { methodOverride: true, file: { field: 'media[content]', fileName: 'direct.png', contentType: 'image/png', data: bigger } });
    expect(text(put.doc, 'media/uuid')).toBe(uuid);
    expect(text(put.doc, 'media/file-size')).toBe(String(bigger.length));
    expect(text(put.doc, 'media/title')).toBe('Redone');
    expect(text(put.doc, 'media/width')).toBe('16');
  });
});
