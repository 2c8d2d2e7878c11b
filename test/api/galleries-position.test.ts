// gallery[position] on update (an extension, docs/galleries.md): a gallery's place among its
// siblings, alone or with a move; the website's list stays dense and its navigation follows.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { all, int, text } from '../../src/client/xml.js';
import { eachDatabase } from '../support/service.js';
import { create, details, failure, startWorld, type GalleryWorld } from './galleries-fixtures.js';

eachDatabase((kind) => {
  let w: GalleryWorld;
  beforeAll(async () => {
    w = await startWorld(kind);
  });
  afterAll(() => w?.svc.close());

  const put = (uuid: string, params: Record<string, string>) => w.client.request('PUT', `/websites/${w.urlname}/galleries/${uuid}.xml`, params);
  const children = async (uuid: string) =>
    all((await details(w, uuid, 'details_with_contents')).doc, 'gallery/subgalleries/gallery').map((g) => text(g, 'name'));

  it('places a gallery among its siblings, and under a new parent at a place; the list stays dense', async () => {
    const p = await create(w, 'Parent');
    const [a, , c] = [await create(w, 'A', p), await create(w, 'B', p), await create(w, 'C', p)];
    expect(await children(p)).toEqual(['A', 'B', 'C']);
    await put(c, { 'gallery[position]': '1' });
    expect(await children(p)).toEqual(['C', 'A', 'B']);
    // Past the end is last.
    await put(c, { 'gallery[position]': '999' });
    expect(await children(p)).toEqual(['A', 'B', 'C']);
    // With a move: under another parent, second.
    const q = await create(w, 'Other');
    await create(w, 'Q1', q);
    await create(w, 'Q2', q);
    await put(a, { 'gallery[parent]': q, 'gallery[position]': '2' });
    expect(await children(q)).toEqual(['Q1', 'A', 'Q2']);
    expect(await children(p)).toEqual(['B', 'C']);
    // The subgalleries listing agrees; positions stay dense (total-entries = the galleries listed).
    const sub = (await w.client.request('GET', `/websites/${w.urlname}/galleries/${q}/subgalleries.xml`)).doc;
    expect(all(sub, 'galleries/gallery').filter((g) => text(g, 'parent-uuid') === q).map((g) => text(g, 'name'))).toEqual(['Q1', 'A', 'Q2']);
    const list = (await w.client.request('GET', `/websites/${w.urlname}/galleries.xml`, { page: '1', per_page: '500' })).doc;
    expect(all(list, 'galleries/gallery')).toHaveLength(int(list, 'total-entries')!);
    // The website's navigation follows the order.
    const home = await (await fetch(`${w.svc.url}/sites/${w.urlname}/-/other`)).text();
    expect(home.indexOf('>A<')).toBeGreaterThan(home.indexOf('>Q1<'));
    expect(home.indexOf('>A<')).toBeLessThan(home.indexOf('>Q2<'));
  });

  it('refuses a bad position, a position on create and one for the root, changing nothing', async () => {
    const g = await create(w, 'Refused');
    for (const v of ['0', '-1', 'x', '1.5', '1001', '']) {
      const f = await failure(put(g, { 'gallery[position]': v }));
      expect(f.status, v).toBe(422);
      expect(f.message).toContain('gallery[position]');
    }
    expect((await failure(w.client.request('POST', `/websites/${w.urlname}/galleries.xml`, { 'gallery[name]': 'New', 'gallery[parent]': w.rootUuid, 'gallery[position]': '1' }))).status).toBe(422);
    expect((await failure(put(w.rootUuid, { 'gallery[position]': '1' }))).status).toBe(422);
  });
});
