// DELETE /websites/<urlname>/galleries/<uuid>.xml: the sub-tree goes, medias
// only with delete_medias=1, and a medias_count that does not match the real
// count is a 409 that changes nothing.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { all, int, text } from '../../src/client/xml.js';
import { insertChildren } from '../support/gallery-seed.js';
import { nowIso } from '../../src/database/db.js';
import { eachDatabase } from '../support/service.js';
import { alsoPublish, create, details, failure, publishMedias, startWorld, type GalleryWorld } from './galleries-fixtures.js';

eachDatabase((kind) => {
  let w: GalleryWorld;
  beforeAll(async () => {
    w = await startWorld(kind);
  });
  afterAll(() => w?.svc.close());

  async function exists(table: 'galleries' | 'medias', uuid: string): Promise<boolean> {
    return (await w.svc.db.selectFrom(table).select('id').where('uuid', '=', uuid).executeTakeFirst()) !== undefined;
  }

  /** top > child > grandchild, with 2 + 1 + 2 medias, one of them also in `keeper`. */
  async function tree() {
    const top = await create(w, 'Doomed');
    const child = await create(w, 'Doomed child', top);
    const grandchild = await create(w, 'Doomed grandchild', child);
    const keeper = await create(w, 'Keeper');
    const medias = [
      ...(await publishMedias(w.svc.db, w.user, top, ['1.jpg', '2.jpg'])),
      ...(await publishMedias(w.svc.db, w.user, child, ['3.jpg'])),
      ...(await publishMedias(w.svc.db, w.user, grandchild, ['4.jpg', '5.jpg'])),
    ];
    await alsoPublish(w.svc.db, keeper, [medias[4]]);
    return { top, child, grandchild, keeper, medias };
  }

  it('deletes the gallery and its sub-galleries, keeping the medias by default', async () => {
    const t = await tree();
    const res = await w.client.deleteGallery(w.urlname, t.top);
    expect(int(res.doc, 'deleted-galleries-count')).toBe(3);
    expect(int(res.doc, 'deleted-medias-count')).toBe(0);
    expect(text(res.doc, 'message')).toBeDefined();
    for (const g of [t.top, t.child, t.grandchild]) {
      expect(await exists('galleries', g)).toBe(false);
      expect((await failure(details(w, g))).status).toBe(404);
    }
    for (const m of t.medias) expect(await exists('medias', m)).toBe(true);
    expect(int((await details(w, t.keeper)).doc, 'gallery/medias-count')).toBe(1);
    expect(int((await details(w, w.rootUuid)).doc, 'gallery/subgalleries-count')).toBe(1);
  });

  it('deletes the medias published in the sub-tree with delete_medias=1 and the right medias_count', async () => {
    const t = await tree();
    const res = await w.client.deleteGallery(w.urlname, t.child, { delete_medias: 1, medias_count: 3 });
    expect(int(res.doc, 'deleted-galleries-count')).toBe(2);
    expect(int(res.doc, 'deleted-medias-count')).toBe(3);
    expect(await exists('medias', t.medias[0])).toBe(true);
    for (const m of t.medias.slice(2)) expect(await exists('medias', m)).toBe(false);
    // A media also published elsewhere is gone from there too.
    expect(int((await details(w, t.keeper)).doc, 'gallery/medias-count')).toBe(0);
    expect(int((await details(w, t.top)).doc, 'gallery/full-medias-count')).toBe(2);
  });

  it('refuses a medias_count that differs from the real count with a 409, changing nothing', async () => {
    const t = await tree();
    for (const params of [
      { delete_medias: 1 as const, medias_count: 4 },
      { delete_medias: 1 as const, medias_count: 6 },
      { delete_medias: 0 as const, medias_count: 0 },
    ]) {
      const f = await failure(w.client.deleteGallery(w.urlname, t.top, params));
      expect(f.status).toBe(409);
      expect(f.message).toMatch(/5 medias/);
    }
    for (const g of [t.top, t.child, t.grandchild]) expect(await exists('galleries', g)).toBe(true);
    for (const m of t.medias) expect(await exists('medias', m)).toBe(true);
    expect(int((await details(w, t.top)).doc, 'gallery/full-medias-count')).toBe(5);
    // The right count goes through; without delete_medias the medias stay.
    await w.client.deleteGallery(w.urlname, t.top, { medias_count: 5 });
    expect(await exists('galleries', t.top)).toBe(false);
    for (const m of t.medias) expect(await exists('medias', m)).toBe(true);
  });

  it('refuses to delete the root gallery (422) and answers 404 for an unknown gallery', async () => {
    expect((await failure(w.client.deleteGallery(w.urlname, w.rootUuid))).status).toBe(422);
    expect(await exists('galleries', w.rootUuid)).toBe(true);
    expect((await failure(w.client.deleteGallery(w.urlname, '00000000-0000-4000-8000-000000000000'))).status).toBe(404);
    expect((await failure(w.client.request('DELETE', `/websites/${w.urlname}/galleries/x.xml`, { delete_medias: 1 }))).status).toBe(404);
    const g = await create(w, 'Bad flags');
    expect((await failure(w.client.deleteGallery(w.urlname, g, { delete_medias: 2 as 1 }))).status).toBe(422);
    expect((await failure(w.client.request('DELETE', `/websites/${w.urlname}/galleries/${g}.xml`, { medias_count: 'many' }))).status).toBe(422);
    expect(await exists('galleries', g)).toBe(true);
  });

  it('closes the list up after deleting a sub-tree scattered over hundreds of runs of positions, keeping the order', async () => {
    const a = await create(w, 'Scattered A');
    const b = await create(w, 'Scattered B');
    // Alternate the two parents, so A's sub-tree is 250 separate runs of positions.
    await w.svc.db.transaction().execute(async (trx) => {
      const parents = await trx.selectFrom('galleries').selectAll().where('uuid', 'in', [a, b]).orderBy('id').execute();
      for (let i = 0; i < 250; i++) for (const p of parents) await insertChildren(trx, p, [`${p.name} ${i}`], nowIso());
    });
    const listed = async () => {
      const names: string[] = [];
      for await (const g of w.client.paginate(`/websites/${w.urlname}/galleries.xml`, { per_page: 500 }, 'galleries/gallery')) names.push(text(g, 'name')!);
      return names;
    };
    const before = await listed();
    await w.client.deleteGallery(w.urlname, a);
    const after = await listed();
    expect(after).toEqual(before.filter((n) => !n.startsWith('Scattered A')));
    const stats = await w.svc.db
      .selectFrom('galleries')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.max('list_pos').as('max')])
      .executeTakeFirstOrThrow();
    expect(Number(stats.max)).toBe(Number(stats.n));
    const last = await w.client.galleries(w.urlname, { page: 1, per_page: 500 });
    expect(all(last.doc, 'galleries/gallery')).toHaveLength(Number(stats.n));
  });

  it('accepts a DELETE sent as POST with _method and an empty body', async () => {
    const g = await create(w, 'Override');
    await w.client.request('DELETE', `/websites/${w.urlname}/galleries/${g}.xml`, {}, { methodOverride: true });
    expect(await exists('galleries', g)).toBe(false);
  });
});
