// A gallery's medias: details_with_medias in the gallery's content order,
// the manual reorder of gallery[medias_order], details_with_contents.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { all, text } from '../../src/client/xml.js';
import { insertMedias, updateMedia, waitForJob } from '../support/media.js';
import { eachDatabase } from '../support/service.js';
import { create, details, failure, publishMedias, startWorld, type GalleryWorld } from './galleries-fixtures.js';

eachDatabase((kind) => {
  let w: GalleryWorld;
  beforeAll(async () => {
    w = await startWorld(kind);
  });
  afterAll(() => w?.svc.close());

  async function order(uuid: string): Promise<string[]> {
    return all((await details(w, uuid, 'details_with_medias')).doc, 'gallery/medias/media/uuid').map((n) => n.text);
  }

  it('lists media UUIDs in gallery order for every content order', async () => {
    const g = await create(w, 'Ordered');
    const [a, b, c, d] = await publishMedias(w.svc.db, w.user, g, [
      { file_name: 'img10.jpg', shot_at: '2024-05-01T10:00:00.000Z', artist_rating: 3 },
      { file_name: 'IMG9.jpg', shot_at: '2023-01-01T10:00:00.000Z', artist_rating: 5 },
      { file_name: 'b.jpg', artist_rating: 1 },
      { file_name: 'a.jpg', shot_at: '2025-01-01T10:00:00.000Z' },
    ]);
    await publishMedias(w.svc.db, w.user, g, [{ file_name: 'pending.jpg', status: 'pending' }]);
    const cases: Array<[string, 'asc' | 'desc', string[]]> = [
      ['manual-last', 'asc', [a, b, c, d]],
      ['manual-first', 'desc', [d, c, b, a]],
      ['file_name', 'asc', [d, c, a, b]],
      ['file_name_nat', 'asc', [d, c, b, a]],
      ['file_name_nat', 'desc', [a, b, c, d]],
      ['shot_at', 'asc', [b, a, d, c]],
      ['shot_at', 'desc', [d, a, b, c]],
      ['artist_rating', 'desc', [b, a, c, d]],
      ['published_at', 'asc', [a, b, c, d]],
      ['created_at', 'asc', [a, b, c, d]],
    ];
    for (const [contentOrder, direction, expected] of cases) {
      await w.client.updateGallery(w.urlname, g, { content_order: contentOrder, content_order_direction: direction });
      expect(await order(g), `${contentOrder} ${direction}`).toEqual(expected);
    }
    // The plain details view carries no media list.
    expect(all((await details(w, g)).doc, 'gallery/medias')).toHaveLength(0);
  });

  it('reorders medias with gallery[medias_order]: the listed ones first, the others after in their order', async () => {
    const g = await create(w, 'Reorder');
    const [a, b, c, d, e] = await publishMedias(w.svc.db, w.user, g, ['1.jpg', '2.jpg', '3.jpg', '4.jpg', '5.jpg']);
    await w.client.updateGallery(w.urlname, g, { content_order: 'manual-last', medias_order: [d, b].join(',') });
    expect(await order(g)).toEqual([d, b, a, c, e]);
    await w.client.updateGallery(w.urlname, g, { medias_order: [e, d, c, b, a] });
    expect(await order(g)).toEqual([e, d, c, b, a]);
    // A media not published in the gallery: 422, order unchanged.
    const [elsewhere] = await publishMedias(w.svc.db, w.user, w.rootUuid, ['x.jpg']);
    const f = await failure(w.client.updateGallery(w.urlname, g, { medias_order: [a, elsewhere] }));
    expect(f.status).toBe(422);
    expect(f.message).toContain('gallery[medias_order]');
    expect(await order(g)).toEqual([e, d, c, b, a]);
  });

  it('puts a media published later first in a manual-first gallery, last in a manual-last one (docs/galleries.md)', async () => {
    const first = await create(w, 'Newest first', w.rootUuid, { content_order: 'manual-first' });
    const last = await create(w, 'Newest last', w.rootUuid, { content_order: 'manual-last' });
    const [a, b, c] = await insertMedias(w.svc.db, w.user, 3);
    // Published one after the other, as a publishing plugin does, through the media API.
    for (const m of [a, b, c]) await updateMedia(w.client, m, { 'media[publish_to_galleries][]': [first, last] });
    expect(await order(first)).toEqual([c, b, a]);
    expect(await order(last)).toEqual([a, b, c]);
    // A batch published at once goes first as a block, in its own order.
    const [d, e] = await insertMedias(w.svc.db, w.user, 2);
    const job = await w.client.request('PUT', '/medias/batch_update.xml', { select: [d, e].join(','), 'medias[publish_to_galleries]': [first] }, { multipart: true, methodOverride: true });
    await waitForJob(w.client, text(job.doc, 'location')!);
    expect(await order(first)).toEqual([d, e, c, b, a]);
  });

  it('shows medias and sub-galleries with details_with_contents', async () => {
    const g = await create(w, 'Contents', w.rootUuid, { order_subgalleries: 1 });
    await create(w, 'Zoo', g);
    await create(w, 'Ants', g);
    const [m] = await publishMedias(w.svc.db, w.user, g, ['only.jpg']);
    const res = await details(w, g, 'details_with_contents');
    expect(all(res.doc, 'gallery/medias/media/uuid').map((n) => n.text)).toEqual([m]);
    const subs = all(res.doc, 'gallery/subgalleries/gallery');
    expect(subs.map((s) => text(s, 'name'))).toEqual(['Ants', 'Zoo']);
    expect(text(subs[0], 'parent-uuid')).toBe(g);
    expect(text(subs[0], 'full-url-path')).toBe('contents/ants');
  });

  it('refuses an unknown view (422)', async () => {
    const f = await failure(w.client.request('GET', `/websites/${w.urlname}/galleries/${w.rootUuid}.xml`, { view: 'everything' }));
    expect(f.status).toBe(422);
  });
});
