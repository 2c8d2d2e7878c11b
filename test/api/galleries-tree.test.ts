// The gallery tree over HTTP: create reply, url paths, full url paths through
// renames and moves, the cycle refusal, the 1000 sub-galleries limit,
// partial updates.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { all, bool, int, text } from '../../src/client/xml.js';
import { mediasProxyUuid } from '../../src/galleries/proxy-uuid.js';
import { eachDatabase } from '../support/service.js';
import { bulkChildren, create, details, failure, startWorld, type GalleryWorld } from './galleries-fixtures.js';

eachDatabase((kind) => {
  let w: GalleryWorld;
  beforeAll(async () => {
    w = await startWorld(kind);
  });
  afterAll(() => w?.svc.close());

  it('creates a gallery and replies with everything a client needs (4.3, 9)', async () => {
    const res = await w.client.createGallery(w.urlname, { name: 'Été à Kraków', parent: w.rootUuid, description: 'Summer <b>light</b>' });
    const reply = await details(w, text(res.doc, 'gallery-uuid')!);
    const names = res.doc.children.map((c) => c.name);
    expect(names).toEqual(['gallery-uuid', 'gallery', 'location', 'user-medias-gallery-proxy-uuid', 'message', 'request']);
    const uuid = text(res.doc, 'gallery-uuid')!;
    expect(uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(text(res.doc, 'gallery/uuid')).toBe(uuid);
    expect(text(res.doc, 'gallery/name')).toBe('Été à Kraków');
    expect(text(res.doc, 'gallery/url-path')).toBe('ete-a-krakow');
    expect(text(res.doc, 'gallery/full-url-path')).toBe('ete-a-krakow');
    expect(text(res.doc, 'gallery/description')).toBe('Summer <b>light</b>');
    expect(int(res.doc, 'gallery/medias-count')).toBe(0);
    expect(int(res.doc, 'gallery/full-medias-count')).toBe(0);
    expect(int(res.doc, 'gallery/comments-count')).toBe(0);
    expect(text(res.doc, 'gallery/published-at')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
    expect(text(res.doc, 'gallery/parent-uuid')).toBe(w.rootUuid);
    expect(text(res.doc, 'gallery/gallery-display-style-uuid')).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.doc.children[1].children.find((c) => c.name === 'cover-media-uuid')?.attrs.nil).toBe('true');
    expect(text(res.doc, 'location')).toBe(`/websites/${w.urlname}/galleries/${uuid}.xml`);
    expect(text(res.doc, 'user-medias-gallery-proxy-uuid')).toBe(mediasProxyUuid(uuid));
    expect(text(res.doc, 'message')).toMatch(/within a few minutes/);
    expect(text(res.doc, 'request')).toBe(`POST /websites/${w.urlname}/galleries.xml`);
    // The details view shows the same fields.
    expect(text(reply.doc, 'gallery/full-url-path')).toBe('ete-a-krakow');
    expect(bool(reply.doc, 'gallery/hidden')).toBe(false);
    expect(int(reply.doc, 'gallery/indexing')).toBe(1);
  });

  it('derives url paths from names and keeps them unique among siblings', async () => {
    const parent = await create(w, 'Weddings');
    const a = await details(w, await create(w, 'Anna & Ben', parent));
    const b = await details(w, await create(w, 'ANNA + BEN!', parent));
    const c = await details(w, await create(w, 'anna ben', parent));
    const d = await details(w, await create(w, '★★★', parent));
    const e = await details(w, await create(w, 'Straße Øre Œuvre Łódź', parent));
    expect([a, b, c].map((r) => text(r.doc, 'gallery/url-path'))).toEqual(['anna-ben', 'anna-ben-2', 'anna-ben-3']);
    expect(text(c.doc, 'gallery/full-url-path')).toBe('weddings/anna-ben-3');
    expect(text(d.doc, 'gallery/url-path')).toBe('gallery');
    expect(text(e.doc, 'gallery/url-path')).toBe('strasse-ore-oeuvre-lodz');
    // The same name under another parent takes the plain path.
    const other = await create(w, 'Portraits');
    expect(text((await details(w, await create(w, 'Anna & Ben', other))).doc, 'gallery/url-path')).toBe('anna-ben');
    // A given url path is normalised the same way, and made unique as well.
    const given = await details(w, await create(w, 'Whatever', parent, { url_path: 'Anna "Ben"\\\n' }));
    expect(text(given.doc, 'gallery/url-path')).toBe('anna-ben-4');
    const long = await details(w, await create(w, 'x'.repeat(250), parent));
    expect(text(long.doc, 'gallery/url-path')).toHaveLength(100);
  });

  it('keeps full url paths right below a renamed or moved gallery', async () => {
    const top = await create(w, 'Travel');
    const mid = await create(w, 'Asia', top);
    const leaf = await create(w, 'Japan 2024', mid);
    expect(text((await details(w, leaf)).doc, 'gallery/full-url-path')).toBe('travel/asia/japan-2024');

    // A rename changes a derived url path, and everything below follows.
    await w.client.updateGallery(w.urlname, top, { name: 'Voyages' });
    expect(text((await details(w, top)).doc, 'gallery/url-path')).toBe('voyages');
    expect(text((await details(w, mid)).doc, 'gallery/full-url-path')).toBe('voyages/asia');
    expect(text((await details(w, leaf)).doc, 'gallery/full-url-path')).toBe('voyages/asia/japan-2024');

    // A url path the user chose is kept through a rename.
    await w.client.updateGallery(w.urlname, mid, { url_path: 'east' });
    await w.client.updateGallery(w.urlname, mid, { name: 'Asie' });
    expect(text((await details(w, mid)).doc, 'gallery/url-path')).toBe('east');
    expect(text((await details(w, leaf)).doc, 'gallery/full-url-path')).toBe('voyages/east/japan-2024');

    // A move takes the sub-tree along, with a unique url path in the new parent.
    const archive = await create(w, 'Archive');
    await create(w, 'East', archive);
    const moved = await w.client.updateGallery(w.urlname, mid, { parent: archive });
    expect(text(moved.doc, 'gallery/parent-uuid')).toBe(archive);
    expect(text(moved.doc, 'gallery/full-url-path')).toBe('archive/east-2');
    expect(text((await details(w, leaf)).doc, 'gallery/full-url-path')).toBe('archive/east-2/japan-2024');
    expect(int((await details(w, top)).doc, 'gallery/subgalleries-count')).toBe(0);
    expect(int((await details(w, archive)).doc, 'gallery/subgalleries-count')).toBe(2);
  });

  it('refuses to move a gallery under itself or its own descendant (422), changing nothing', async () => {
    const a = await create(w, 'Cycle A');
    const b = await create(w, 'Cycle B', a);
    const c = await create(w, 'Cycle C', b);
    for (const target of [a, b, c]) {
      const f = await failure(w.client.updateGallery(w.urlname, a, { parent: target, name: 'Renamed' }));
      expect(f.status).toBe(422);
      expect(f.message).toMatch(/gallery\[parent\]/);
    }
    const after = await details(w, a);
    expect(text(after.doc, 'gallery/parent-uuid')).toBe(w.rootUuid);
    expect(text(after.doc, 'gallery/name')).toBe('Cycle A');
    expect(text((await details(w, c)).doc, 'gallery/full-url-path')).toBe('cycle-a/cycle-b/cycle-c');
    // The root cannot be moved at all.
    expect((await failure(w.client.updateGallery(w.urlname, w.rootUuid, { parent: a }))).status).toBe(422);
  });

  it('allows 1000 sub-galleries per gallery and refuses the 1001st, by create and by move', async () => {
    const full = await create(w, 'Full');
    await bulkChildren(w.svc.db, full, 999);
    await create(w, 'The thousandth', full);
    expect(int((await details(w, full)).doc, 'gallery/subgalleries-count')).toBe(1000);
    const f = await failure(w.client.createGallery(w.urlname, { name: 'One too many', parent: full }));
    expect(f.status).toBe(422);
    expect(f.message).toMatch(/1000 sub-galleries/);
    const elsewhere = await create(w, 'Elsewhere');
    expect((await failure(w.client.updateGallery(w.urlname, elsewhere, { parent: full }))).status).toBe(422);
    expect(int((await details(w, full)).doc, 'gallery/subgalleries-count')).toBe(1000);
    const count = await w.svc.db.selectFrom('galleries as g').innerJoin('galleries as p', 'p.id', 'g.parent_id').where('p.uuid', '=', full).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1000);
  });

  it('a partial update (name and parent only) leaves every other attribute as it was', async () => {
    const styles = all((await w.client.request('GET', `/websites/${w.urlname}/gallery_display_styles.xml`)).doc, 'gallery-display-styles/gallery-display-style/uuid').map((n) => n.text);
    const other = await create(w, 'Other parent');
    const uuid = await create(w, 'Full attributes', w.rootUuid, {
      url_path: 'chosen-path',
      description: 'An intro',
      display_style: styles[2],
      hidden: 1,
      indexing: 2,
      password: 'secret',
      content_order: 'file_name_nat',
      content_order_direction: 'desc',
      order_subgalleries: 1,
    });
    const before = (await details(w, uuid)).doc;
    await w.client.updateGallery(w.urlname, uuid, { name: 'Renamed only', parent: other });
    const after = (await details(w, uuid)).doc;
    expect(text(after, 'gallery/name')).toBe('Renamed only');
    expect(text(after, 'gallery/parent-uuid')).toBe(other);
    expect(text(after, 'gallery/full-url-path')).toBe('other-parent/chosen-path');
    for (const field of ['url-path', 'description', 'gallery-display-style-uuid', 'hidden', 'indexing', 'password-protected', 'content-order', 'content-order-direction', 'order-subgalleries', 'published-at', 'created-at']) {
      expect(text(after, `gallery/${field}`), field).toBe(text(before, `gallery/${field}`));
    }
    expect(text(after, 'gallery/gallery-display-style-uuid')).toBe(styles[2]);
    expect(bool(after, 'gallery/password-protected')).toBe(true);
    const row = await w.svc.db.selectFrom('galleries').select('password_hash').where('uuid', '=', uuid).executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^\$argon2id\$/);
  });

  describe('sub-galleries listing', () => {
    it('lists the parents, then the gallery with page/total-pages, then a page of its children', async () => {
      const top = await create(w, 'Sub top');
      const mid = await create(w, 'Sub mid', top, { order_subgalleries: 1 });
      for (const name of ['Zeta', 'alpha', 'Beta 10', 'Beta 9', 'Gamma']) await create(w, name, mid);
      const res = await w.client.request('GET', `/websites/${w.urlname}/galleries/${mid}/subgalleries.xml`, { page: 1, per_page: 3 });
      const items = all(res.doc, 'galleries/gallery');
      expect(items.map((g) => text(g, 'uuid'))).toEqual([w.rootUuid, top, mid, ...items.slice(3).map((g) => text(g, 'uuid'))]);
      expect(items.slice(3).map((g) => text(g, 'name'))).toEqual(['alpha', 'Beta 9', 'Beta 10']);
      expect(int(items[2], 'page')).toBe(1);
      expect(int(items[2], 'total-pages')).toBe(2);
      expect(int(items[2], 'subgalleries-count')).toBe(5);
      expect(text(items[3], 'parent-uuid')).toBe(mid);
      const page2 = await w.client.request('GET', `/websites/${w.urlname}/galleries/${mid}/subgalleries.xml`, { page: 2, per_page: 3 });
      expect(all(page2.doc, 'galleries/gallery').slice(3).map((g) => text(g, 'name'))).toEqual(['Gamma', 'Zeta']);
      const filtered = await w.client.request('GET', `/websites/${w.urlname}/galleries/${mid}/subgalleries.xml`, { 'filter[name]': 'BETA' });
      expect(all(filtered.doc, 'galleries/gallery').slice(3).map((g) => text(g, 'name'))).toEqual(['Beta 9', 'Beta 10']);
      // Without order_subgalleries, children come in creation order.
      const unordered = await create(w, 'Unordered');
      for (const name of ['b', 'a', 'c']) await create(w, name, unordered);
      const plain = await w.client.request('GET', `/websites/${w.urlname}/galleries/${unordered}/subgalleries.xml`);
      expect(all(plain.doc, 'galleries/gallery').slice(2).map((g) => text(g, 'name'))).toEqual(['b', 'a', 'c']);
    });
  });
});
