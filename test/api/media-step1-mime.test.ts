// Upload step 1 needs media[content][mime_type] (spec 4.7), on POST /medias.xml
// and on the replace form of PUT /medias/<uuid>.xml; a direct upload does not.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { text } from '../../src/client/xml.js';
import { eachDatabase } from '../support/service.js';
import { failure, insertMedias, startMediaWorld, updateMedia, type MediaWorld } from '../support/media.js';
import { rejection } from '../support/world.js';
import { png } from './uploads-support.js';

eachDatabase((kind) => {
  let w: MediaWorld;
  beforeAll(async () => {
    w = await startMediaWorld(kind);
  });
  afterAll(() => w?.svc.close());

  const count = async (table: 'medias' | 'uploads') => Number((await w.svc.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  const step1 = { 'media[content][upload_location]': 'REQUEST', 'media[content][file_name]': 'a.jpg', 'media[content][file_size]': 1000 };

  it('refuses step 1 without media[content][mime_type]: 422 missing_parameter naming it, nothing created', async () => {
    const before = await count('medias');
    for (const mime of [undefined, '']) {
      const e = await rejection(w.client.request('POST', '/medias.xml', mime === undefined ? step1 : { ...step1, 'media[content][mime_type]': mime }));
      expect(e.status).toBe(422);
      expect(e.errorCode).toBe('missing_parameter');
      expect(e.message).toContain('media[content][mime_type]');
    }
    expect(await count('medias')).toBe(before);
    expect(await count('uploads')).toBe(0);
  });

  it('refuses the replace form of PUT without it, and leaves the media as it was', async () => {
    const [uuid] = await insertMedias(w.svc.db, w.user, 1);
    const e = await failure(updateMedia(w.client, uuid, step1));
    expect(e.status).toBe(422);
    expect(e.message).toContain('media[content][mime_type]');
    expect(await count('uploads')).toBe(0);
  });

  it('does not need it for a direct upload, where the file is the part itself', async () => {
    const res = await w.client.request('POST', '/medias.xml', {}, { file: { field: 'media[content]', fileName: 'direct.png', data: await png() } });
    expect(text(res.doc, 'media/mime-type')).toBe('image/png');
  });
});
