// Every writable attribute of spec 2.3: accepted values stored, bad values a
// 422 naming the attribute, and nothing saved by a refused request.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { all, bool, int, text } from '../../src/client/xml.js';
import { eachDatabase } from '../support/service.js';
import { create, details, failure, publishMedias, startWorld, type GalleryWorld } from './galleries-fixtures.js';

eachDatabase((kind) => {
  let w: GalleryWorld;
  let styles: string[];
  beforeAll(async () => {
    w = await startWorld(kind);
    const res = await w.client.request('GET', `/websites/${w.urlname}/gallery_display_styles.xml`, { view: 'details' });
    styles = all(res.doc, 'gallery-display-styles/gallery-display-style/uuid').map((n) => n.text);
  });
  afterAll(() => w?.svc.close());

  async function galleryCount(): Promise<number> {
    const r = await w.svc.db.selectFrom('galleries').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(r.n);
  }

  it('stores every attribute given on create and shows it back', async () => {
    const [cover] = await publishMedias(w.svc.db, w.user, w.rootUuid, ['cover.jpg']);
    const res = await w.client.createGallery(w.urlname, {
      name: 'All set',
      parent: w.rootUuid,
      url_path: 'all-set-here',
      description: 'Intro',
      display_style: styles[1],
      cover_media: cover,
      hidden: 1,
      indexing: 0,
      password: 'pw',
      content_order: 'shot_at',
      content_order_direction: 'desc',
      order_subgalleries: 1,
    });
    for (const doc of [res.doc, (await details(w, text(res.doc, 'gallery-uuid')!)).doc]) {
      expect(text(doc, 'gallery/url-path')).toBe('all-set-here');
      expect(text(doc, 'gallery/description')).toBe('Intro');
      expect(text(doc, 'gallery/gallery-display-style-uuid')).toBe(styles[1]);
      expect(text(doc, 'gallery/cover-media-uuid')).toBe(cover);
      expect(bool(doc, 'gallery/hidden')).toBe(true);
      expect(int(doc, 'gallery/indexing')).toBe(0);
      expect(bool(doc, 'gallery/password-protected')).toBe(true);
      expect(text(doc, 'gallery/content-order')).toBe('shot_at');
      expect(text(doc, 'gallery/content-order-direction')).toBe('desc');
      expect(bool(doc, 'gallery/order-subgalleries')).toBe(true);
      expect(res.body).not.toContain('pw<');
    }
    // Defaults: visible, auto indexing, manual-last ascending, the website's default style.
    const plain = await w.client.createGallery(w.urlname, { name: 'Plain', parent: w.rootUuid });
    expect(bool(plain.doc, 'gallery/hidden')).toBe(false);
    expect(int(plain.doc, 'gallery/indexing')).toBe(1);
    expect(text(plain.doc, 'gallery/content-order')).toBe('manual-last');
    expect(text(plain.doc, 'gallery/content-order-direction')).toBe('asc');
    expect(text(plain.doc, 'gallery/gallery-display-style-uuid')).toBe(styles[0]);
    expect(bool(plain.doc, 'gallery/password-protected')).toBe(false);
  });

  it('updates every attribute, and blank values clear what may be cleared', async () => {
    const uuid = await create(w, 'To update', w.rootUuid, { password: 'old', description: 'd', display_style: styles[2] });
    const [cover] = await publishMedias(w.svc.db, w.user, uuid, ['a.jpg']);
    const res = await w.client.updateGallery(w.urlname, uuid, {
      description: 'New intro',
      display_style: styles[3],
      cover_media: cover,
      hidden: 1,
      indexing: 2,
      content_order: 'file_name',
      content_order_direction: 'desc',
    });
    expect(text(res.doc, 'gallery/description')).toBe('New intro');
    expect(text(res.doc, 'gallery/gallery-display-style-uuid')).toBe(styles[3]);
    expect(text(res.doc, 'gallery/cover-media-uuid')).toBe(cover);
    expect(int(res.doc, 'gallery/indexing')).toBe(2);
    expect(text(res.doc, 'gallery/content-order')).toBe('file_name');
    expect(text(res.doc, 'message')).toMatch(/updated/);
    const cleared = await w.client.updateGallery(w.urlname, uuid, { description: '', display_style: '', cover_media: '', password: '', hidden: 0 });
    expect(text(cleared.doc, 'gallery/description')).toBeUndefined();
    expect(text(cleared.doc, 'gallery/gallery-display-style-uuid')).toBe(styles[0]);
    expect(text(cleared.doc, 'gallery/cover-media-uuid')).toBeUndefined();
    expect(bool(cleared.doc, 'gallery/password-protected')).toBe(false);
    expect(bool(cleared.doc, 'gallery/hidden')).toBe(false);
  });

  const badCreates: Array<[string, Record<string, string>]> = [
    ['gallery[name]', { 'gallery[name]': '' }],
    ['gallery[name]', { 'gallery[name]': 'x'.repeat(256) }],
    ['gallery[parent]', { 'gallery[parent]': '' }],
    ['gallery[parent]', { 'gallery[parent]': 'not-a-uuid' }],
    ['gallery[parent]', { 'gallery[parent]': '00000000-0000-4000-8000-000000000000' }],
    ['gallery[display_style]', { 'gallery[display_style]': '00000000-0000-4000-8000-000000000000' }],
    ['gallery[display_style]', { 'gallery[display_style]': 'grid' }],
    ['gallery[cover_media]', { 'gallery[cover_media]': '00000000-0000-4000-8000-000000000000' }],
    ['gallery[hidden]', { 'gallery[hidden]': '2' }],
    ['gallery[hidden]', { 'gallery[hidden]': 'yes' }],
    ['gallery[hidden]', { 'gallery[hidden]': '' }],
    ['gallery[indexing]', { 'gallery[indexing]': '3' }],
    ['gallery[indexing]', { 'gallery[indexing]': 'auto' }],
    ['gallery[indexing]', { 'gallery[indexing]': '' }],
    ['gallery[content_order]', { 'gallery[content_order]': 'random' }],
    ['gallery[content_order]', { 'gallery[content_order]': '' }],
    ['gallery[content_order_direction]', { 'gallery[content_order_direction]': 'up' }],
    ['gallery[order_subgalleries]', { 'gallery[order_subgalleries]': '5' }],
    ['gallery[medias_order]', { 'gallery[medias_order]': '' }],
    ['gallery[password]', { 'gallery[password]': 'p'.repeat(201) }],
    ['gallery[acl][0][email]', { 'gallery[acl][0][email]': 'someone@example.com' }],
  ];
  it.each(badCreates)('refuses a create with a bad %s (422, nothing saved)', async (attr, bad) => {
    const before = await galleryCount();
    const params = { 'gallery[name]': 'Refused', 'gallery[parent]': w.rootUuid, ...bad };
    const f = await failure(w.client.request('POST', `/websites/${w.urlname}/galleries.xml`, params));
    expect(f.status).toBe(422);
    expect(f.message).toContain(attr);
    expect(await galleryCount()).toBe(before);
  });

  it('refuses a display style or cover media of another website or owner', async () => {
    const stranger = await w.svc.user();
    const site = await w.svc.website(stranger);
    const theirStyles = await w.svc.db
      .selectFrom('display_styles as s')
      .innerJoin('websites as ws', 'ws.id', 's.website_id')
      .select('s.uuid')
      .where('ws.urlname', '=', site.urlname)
      .execute();
    const [theirMedia] = await publishMedias(w.svc.db, stranger, site.rootGalleryUuid, ['theirs.jpg']);
    const before = await galleryCount();
    for (const attrs of [{ display_style: theirStyles[0].uuid }, { cover_media: theirMedia }]) {
      const f = await failure(w.client.createGallery(w.urlname, { name: 'Borrowing', parent: w.rootUuid, ...attrs }));
      expect(f.status).toBe(422);
      expect(f.message).toContain(Object.keys(attrs)[0]);
    }
    expect(await galleryCount()).toBe(before);
  });

  const badUpdates: Array<[string, Record<string, string>]> = [
    ['gallery[name]', { 'gallery[name]': '   ' }],
    ['gallery[parent]', { 'gallery[parent]': '00000000-0000-4000-8000-000000000000' }],
    ['gallery[display_style]', { 'gallery[display_style]': '00000000-0000-4000-8000-000000000000' }],
    ['gallery[cover_media]', { 'gallery[cover_media]': 'nope' }],
    ['gallery[hidden]', { 'gallery[hidden]': '-1' }],
    ['gallery[indexing]', { 'gallery[indexing]': '9' }],
    ['gallery[content_order]', { 'gallery[content_order]': 'name' }],
    ['gallery[content_order_direction]', { 'gallery[content_order_direction]': 'ASCENDING' }],
    ['gallery[order_subgalleries]', { 'gallery[order_subgalleries]': '1' }],
    ['gallery[medias_order]', { 'gallery[medias_order]': '00000000-0000-4000-8000-000000000000' }],
    ['gallery[medias_order]', { 'gallery[medias_order]': 'garbage' }],
    ['gallery[acl]', { 'gallery[acl][0][email]': 'DEFAULT', 'gallery[acl][0][read]': '1' }],
  ];
  it.each(badUpdates)('refuses an update with a bad %s (422), even with valid attributes beside it, and saves nothing', async (attr, bad) => {
    const uuid = await create(w, `Keep me ${attr}`, w.rootUuid, { description: 'kept' });
    await publishMedias(w.svc.db, w.user, uuid, ['one.jpg', 'two.jpg']);
    const before = (await details(w, uuid)).body.replace(/<updated-at>[^<]*<\/updated-at>/, '');
    const params = { 'gallery[name]': 'Changed name', 'gallery[description]': 'changed', 'gallery[hidden]': '1', ...bad };
    const f = await failure(w.client.request('PUT', `/websites/${w.urlname}/galleries/${uuid}.xml`, params));
    expect(f.status).toBe(422);
    expect(f.message).toContain(attr);
    const after = (await details(w, uuid)).body.replace(/<updated-at>[^<]*<\/updated-at>/, '');
    expect(after).toBe(before);
  });

  it('refuses unknown attributes with a 400', async () => {
    const f = await failure(w.client.request('POST', `/websites/${w.urlname}/galleries.xml`, { 'gallery[name]': 'x', 'gallery[parent]': w.rootUuid, 'gallery[colour]': 'red' }));
    expect(f.status).toBe(400);
  });
});
