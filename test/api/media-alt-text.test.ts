// media[alt_text], an extension (docs/media.md): set, shown in the details and public views,
// trimmed and bounded like a text attribute, cleared when blank, single update only, and out of
// reach on another user's media.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { find, text } from '../../src/client/xml.js';
import { eachDatabase } from '../support/service.js';
import { failure, getMedia, insertMedias, startMediaWorld, updateMedia, worldOn, type MediaWorld } from '../support/media.js';

eachDatabase((kind) => {
  let w: MediaWorld;
  beforeAll(async () => {
    w = await startMediaWorld(kind);
  });
  afterAll(() => w?.svc.close());

  const isNil = async (uuid: string, view?: string) => find((await getMedia(w.client, uuid, view)).doc, 'media')!.children.find((c) => c.name === 'alt-text')?.attrs.nil === 'true';

  it('sets, shows (details and public views) and clears the alt text', async () => {
    const [uuid] = await insertMedias(w.svc.db, w.user, [{ title: 'Dune' }]);
    expect(await isNil(uuid)).toBe(true);
    const res = await updateMedia(w.client, uuid, { 'media[alt_text]': '  Two hikers on a <dune> at dusk & a dog ' });
    expect(text(res.doc, 'media/alt-text')).toBe('Two hikers on a <dune> at dusk & a dog');
    expect(text((await getMedia(w.client, uuid)).doc, 'media/alt-text')).toBe('Two hikers on a <dune> at dusk & a dog');
    expect(text((await getMedia(w.client, uuid, 'public_details')).doc, 'media/alt-text')).toBe('Two hikers on a <dune> at dusk & a dog');
    // Other attributes leave it alone; a blank value clears it.
    await updateMedia(w.client, uuid, { 'media[title]': 'Dune at dusk' });
    expect(text((await getMedia(w.client, uuid)).doc, 'media/alt-text')).toBe('Two hikers on a <dune> at dusk & a dog');
    await updateMedia(w.client, uuid, { 'media[alt_text]': '   ' });
    expect(await isNil(uuid)).toBe(true);
  });

  it('refuses an alt text over 1000 characters with a 422 naming it, saving nothing', async () => {
    const [uuid] = await insertMedias(w.svc.db, w.user, 1);
    const bad = await failure(updateMedia(w.client, uuid, { 'media[title]': 'After', 'media[alt_text]': 'a'.repeat(1001) }));
    expect(bad.status).toBe(422);
    expect(bad.message).toContain('media[alt_text]');
    expect(text((await getMedia(w.client, uuid)).doc, 'media/title')).toBeUndefined();
    await updateMedia(w.client, uuid, { 'media[alt_text]': 'é'.repeat(1000) });
    expect(text((await getMedia(w.client, uuid)).doc, 'media/alt-text')).toBe('é'.repeat(1000));
  });

  it('is a single-update attribute: a batch update does not know it (400)', async () => {
    const [uuid] = await insertMedias(w.svc.db, w.user, 1);
    const r = await failure(w.client.request('PUT', '/medias/batch_update.xml', { select: uuid, 'medias[alt_text]': 'x' }, { multipart: true, methodOverride: true }));
    expect(r.status).toBe(400);
  });

  it("keeps another user's media out of reach (404)", async () => {
    const other = await worldOn(w.svc);
    const [theirs] = await insertMedias(w.svc.db, other.user, [{ title: 'Theirs' }]);
    expect((await failure(updateMedia(w.client, theirs, { 'media[alt_text]': 'Mine now' }))).status).toBe(404);
    expect((await failure(getMedia(w.client, theirs))).status).toBe(404);
    expect(text((await getMedia(other.client, theirs)).doc, 'media/alt-text')).toBeUndefined();
  });
});
