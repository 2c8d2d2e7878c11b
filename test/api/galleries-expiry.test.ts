// gallery[expires_at], an extension (docs/galleries.md): stored as UTC and shown as <expires-at>,
// cleared by a blank, and a bad value a 422 naming it with nothing saved, on both databases.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { all, text } from '../../src/client/xml.js';
import { eachDatabase } from '../support/service.js';
import { create, details, failure, startWorld, type GalleryWorld } from './galleries-fixtures.js';

eachDatabase((kind) => {
  let w: GalleryWorld;
  beforeAll(async () => {
    w = await startWorld(kind);
  });
  afterAll(() => w?.svc.close());

  it('stores an expiry given on create, in UTC, and shows it back', async () => {
    const res = await w.client.createGallery(w.urlname, { name: 'Wedding', parent: w.rootUuid, expires_at: '2030-06-01T18:30:00+02:00' });
    const uuid = text(res.doc, 'gallery/uuid')!;
    for (const doc of [res.doc, (await details(w, uuid)).doc]) expect(text(doc, 'gallery/expires-at')).toBe('2030-06-01T16:30:00+00:00');
    // A time without an offset is UTC (what a form's datetime-local sends).
    await w.client.updateGallery(w.urlname, uuid, { expires_at: '2031-01-02T03:04' });
    expect(text((await details(w, uuid)).doc, 'gallery/expires-at')).toBe('2031-01-02T03:04:00+00:00');
  });

  it('has none by default, and a blank value clears it', async () => {
    const uuid = await create(w, 'Open ended');
    const doc = (await details(w, uuid)).doc;
    const node = all(doc, 'gallery/expires-at')[0];
    expect(node?.attrs.nil).toBe('true');
    await w.client.updateGallery(w.urlname, uuid, { expires_at: '2030-01-01T00:00:00Z' });
    expect(text((await details(w, uuid)).doc, 'gallery/expires-at')).toBe('2030-01-01T00:00:00+00:00');
    // Another attribute changed leaves the expiry as it is.
    await w.client.updateGallery(w.urlname, uuid, { description: 'still' });
    expect(text((await details(w, uuid)).doc, 'gallery/expires-at')).toBe('2030-01-01T00:00:00+00:00');
    await w.client.updateGallery(w.urlname, uuid, { expires_at: '' });
    expect(all((await details(w, uuid)).doc, 'gallery/expires-at')[0]?.attrs.nil).toBe('true');
  });

  const bad = ['tomorrow', '2030-02-30T10:00:00Z', '2030-13-01T10:00:00Z', '2030-01-01T24:00:00Z', '2030-01-01', '2030-01-01T10:00:00+15:00', '1969-12-31T23:59:59Z', `2030-01-01T10:00:00.${'1'.repeat(60)}Z`, '2030-01-01 10:00:00Z', ' '.repeat(10_000)];
  it.each(bad)('refuses %j on create and on update (422 naming gallery[expires_at]), saving nothing', async (value) => {
    const before = await w.svc.db.selectFrom('galleries').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const f = await failure(w.client.request('POST', `/websites/${w.urlname}/galleries.xml`, { 'gallery[name]': 'Refused', 'gallery[parent]': w.rootUuid, 'gallery[expires_at]': value }));
    expect(f.status).toBe(422);
    expect(f.message).toContain('gallery[expires_at]');
    const after = await w.svc.db.selectFrom('galleries').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
    const uuid = await create(w, `Kept ${bad.indexOf(value)}`, w.rootUuid, { expires_at: '2030-05-05T05:05:05Z' });
    const u = await failure(w.client.request('PUT', `/websites/${w.urlname}/galleries/${uuid}.xml`, { 'gallery[name]': 'Changed', 'gallery[expires_at]': value }));
    expect(u.status).toBe(422);
    expect(u.message).toContain('gallery[expires_at]');
    const doc = (await details(w, uuid)).doc;
    expect(text(doc, 'gallery/name')).toBe(`Kept ${bad.indexOf(value)}`);
    expect(text(doc, 'gallery/expires-at')).toBe('2030-05-05T05:05:05+00:00');
  });
});
