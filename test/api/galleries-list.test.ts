// GET /websites/<urlname>/galleries.xml: views, pagination with the spec's
// stop rule over a 1200-gallery website, the unpaginated cap, media counts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { all, int, text } from '../../src/client/xml.js';
import { eachDatabase } from '../support/service.js';
import { alsoPublish, bulkChildren, create, failure, publishMedias, startWorld, type GalleryWorld } from './galleries-fixtures.js';

/** Iterates the list as spec 4.3 rule 2 says; returns every UUID and the number of requests made. */
async function iterate(w: GalleryWorld, perPage: number, view = 'list'): Promise<{ uuids: string[]; requests: number; totalPages: number[] }> {
  const uuids: string[] = [];
  const totals: number[] = [];
  let requests = 0;
  for (let page = 1; ; page++) {
    const res = await w.client.galleries(w.urlname, { view, page, per_page: perPage });
    requests++;
    const items = all(res.doc, 'galleries/gallery');
    const totalPages = int(res.doc, 'total-pages')!;
    totals.push(totalPages);
    uuids.push(...items.map((g) => text(g, 'uuid')!));
    if (page >= totalPages || items.length === 0 || items.length < perPage) break;
  }
  return { uuids, requests, totalPages: totals };
}

eachDatabase((kind) => {
  describe('a website with 1200 galleries', () => {
    let w: GalleryWorld;
    let sectionA: string;
    beforeAll(async () => {
      w = await startWorld(kind);
      sectionA = await create(w, 'Section A');
      const sectionB = await create(w, 'Section B');
      await bulkChildren(w.svc.db, sectionA, 599, 'A');
      await bulkChildren(w.svc.db, sectionB, 598, 'B');
    });
    afterAll(() => w?.svc.close());

    it('is iterated page by page with the stop rule, every gallery exactly once', async () => {
      for (const perPage of [100, 500, 7]) {
        const { uuids, requests, totalPages } = await iterate(w, perPage);
        expect(uuids).toHaveLength(1200);
        expect(new Set(uuids).size).toBe(1200);
        expect(uuids[0]).toBe(w.rootUuid);
        expect(requests).toBe(Math.ceil(1200 / perPage));
        expect(new Set(totalPages)).toEqual(new Set([Math.ceil(1200 / perPage)]));
      }
      // A page past the end is an empty array, not an error.
      const past = await w.client.galleries(w.urlname, { page: 13, per_page: 100 });
      expect(all(past.doc, 'galleries/gallery')).toHaveLength(0);
      expect(past.body).toContain('<galleries type="array"></galleries>');
      // The SDK's paginate follows the same rule.
      let n = 0;
      for await (const g of w.client.paginate(`/websites/${w.urlname}/galleries.xml`, { per_page: 250 }, 'galleries/gallery')) if (text(g, 'uuid')) n++;
      expect(n).toBe(1200);
    });

    it('returns the unpaginated list in full up to the cap, with total-pages', async () => {
      const res = await w.client.galleries(w.urlname);
      expect(all(res.doc, 'galleries/gallery')).toHaveLength(1200);
      expect(int(res.doc, 'total-pages')).toBe(1);
    });

    it('shows the list view with uuid, name and parent, and the details view with the client-compat fields', async () => {
      const list = await w.client.galleries(w.urlname, { page: 1, per_page: 3 });
      const [root, a] = all(list.doc, 'galleries/gallery');
      expect(text(root, 'uuid')).toBe(w.rootUuid);
      expect(root.children.find((c) => c.name === 'parent-uuid')?.attrs.nil).toBe('true');
      expect(text(a, 'name')).toBe('Section A');
      expect(text(a, 'parent-uuid')).toBe(w.rootUuid);
      const det = await w.client.galleries(w.urlname, { view: 'details', page: 2, per_page: 3 });
      const g = all(det.doc, 'galleries/gallery')[0];
      for (const field of ['uuid', 'name', 'url-path', 'full-url-path', 'parent-uuid', 'published-at', 'medias-count', 'gallery-display-style-uuid']) {
        expect(text(g, field), field).toBeDefined();
      }
      expect(g.children.some((c) => c.name === 'description')).toBe(true);
      expect(text(g, 'full-url-path')).toBe('section-a/a-1');
      expect(text(det.doc, 'query-string')).toContain('view=details');
    });

    it('refuses per_page above 500 and bad page numbers (422)', async () => {
      expect((await failure(w.client.galleries(w.urlname, { per_page: 501 }))).status).toBe(422);
      expect((await failure(w.client.galleries(w.urlname, { page: 0 }))).status).toBe(422);
      expect((await failure(w.client.galleries(w.urlname, { view: 'everything' }))).status).toBe(422);
    });

    it('keeps the list dense after a delete: no gap, no duplicate across pages', async () => {
      await w.client.deleteGallery(w.urlname, sectionA);
      const { uuids } = await iterate(w, 100);
      expect(uuids).toHaveLength(600);
      expect(new Set(uuids).size).toBe(600);
      const stats = await w.svc.db
        .selectFrom('galleries')
        .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.max('list_pos').as('max'), eb.fn.min('list_pos').as('min')])
        .executeTakeFirstOrThrow();
      expect([Number(stats.n), Number(stats.min), Number(stats.max)]).toEqual([600, 1, 600]);
    });
  });

  describe('the unpaginated cap', () => {
    let w: GalleryWorld;
    beforeAll(async () => {
      w = await startWorld(kind, { GALLERY_LIST_CAP: '500' });
      const a = await create(w, 'A');
      const b = await create(w, 'B');
      await bulkChildren(w.svc.db, a, 400);
      await bulkChildren(w.svc.db, b, 400);
    });
    afterAll(() => w?.svc.close());

    it('returns only the first galleryListCap galleries when no pagination is asked for', async () => {
      const res = await w.client.galleries(w.urlname, { view: 'details' });
      const items = all(res.doc, 'galleries/gallery');
      expect(items).toHaveLength(500);
      expect(text(items[0], 'uuid')).toBe(w.rootUuid);
      expect(int(res.doc, 'total-pages')).toBe(2);
      // Pagination still reaches everything.
      expect((await iterate(w, 500)).uuids).toHaveLength(803);
    });
  });

  describe('media counts', () => {
    let w: GalleryWorld;
    beforeAll(async () => {
      w = await startWorld(kind);
    });
    afterAll(() => w?.svc.close());

    it('counts live medias of the gallery, and distinct ones of the gallery and everything below', async () => {
      const top = await create(w, 'Top');
      const child = await create(w, 'Child', top);
      const grandchild = await create(w, 'Grandchild', child);
      const inTop = await publishMedias(w.svc.db, w.user, top, ['t1.jpg', 't2.jpg']);
      await publishMedias(w.svc.db, w.user, child, ['c1.jpg', { file_name: 'pending.jpg', status: 'pending' }]);
      await publishMedias(w.svc.db, w.user, grandchild, ['g1.jpg', 'g2.jpg', 'g3.jpg']);
      await alsoPublish(w.svc.db, grandchild, inTop.slice(0, 1)); // counted once in Top's full count
      const res = await w.client.galleries(w.urlname, { view: 'details', page: 1, per_page: 10 });
      const byName = new Map(all(res.doc, 'galleries/gallery').map((g) => [text(g, 'name'), g]));
      const counts = (name: string) => [int(byName.get(name)!, 'medias-count'), int(byName.get(name)!, 'full-medias-count')];
      expect(counts('Top')).toEqual([2, 6]);
      expect(counts('Child')).toEqual([1, 5]);
      expect(counts('Grandchild')).toEqual([4, 4]);
      const root = all(res.doc, 'galleries/gallery')[0];
      expect([int(root, 'medias-count'), int(root, 'full-medias-count')]).toEqual([0, 6]);
      const one = await w.client.gallery(w.urlname, child);
      expect([int(one.doc, 'gallery/medias-count'), int(one.doc, 'gallery/full-medias-count')]).toEqual([1, 5]);
    });
  });
});
