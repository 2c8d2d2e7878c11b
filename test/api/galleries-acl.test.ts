// Access lists given on create (spec 2.3): stored, shown in the details view,
// validated, and enforced by visitorAccess for every visitor-facing read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { all, bool, int, text } from '../../src/client/xml.js';

import { eachDatabase } from '../support/service.js';
import { create, details, failure, galleryId, startWorld, type GalleryWorld } from './galleries-fixtures.js';

eachDatabase((kind) => {
  let w: GalleryWorld;
  beforeAll(async () => {
    w = await startWorld(kind);
  });
  afterAll(() => w?.svc.close());

  it('stores the access list of a create and shows it in the details view', async () => {
    const res = await w.client.createGallery(w.urlname, {
      name: 'Client proofs',
      parent: w.rootUuid,
      acl: [
        { email: 'DEFAULT', read: 0, comp_download: 0, hires_download: 0 },
        { id: 17, email: 'Client@Example.com', read: 1, comp_download: 1, hires_download: 0 },
        { id: 42, email: 'agency@example.org', read: 1, comp_download: 1, hires_download: 1 },
      ],
    });
    const uuid = text(res.doc, 'gallery-uuid')!;
    for (const doc of [res.doc, (await details(w, uuid)).doc]) {
      const entries = all(doc, 'gallery/acl/entry');
      expect(entries.map((e) => [int(e, 'id'), text(e, 'email')])).toEqual([
        [0, 'DEFAULT'],
        [17, 'client@example.com'],
        [42, 'agency@example.org'],
      ]);
      expect(entries.map((e) => [bool(e, 'read'), bool(e, 'comp-download'), bool(e, 'hires-download')])).toEqual([
        [false, false, false],
        [true, true, false],
        [true, true, true],
      ]);
    }
    // Lists do not carry access lists; a gallery without one shows an empty list.
    expect((await w.client.galleries(w.urlname, { view: 'details' })).body).not.toContain('<acl');
    const open = await create(w, 'Open');
    expect((await details(w, open)).body).toContain('<acl type="array"></acl>');
  });

  const bad: Array<[string, Record<string, string>]> = [
    ['gallery[acl][0]', { 'gallery[acl][1][email]': 'a@example.com', 'gallery[acl][1][read]': '1' }],
    ['gallery[acl][0][email]', { 'gallery[acl][0][email]': 'a@example.com' }],
    ['gallery[acl][1][email]', { 'gallery[acl][0][email]': 'DEFAULT', 'gallery[acl][1][read]': '1' }],
    ['gallery[acl][1][email]', { 'gallery[acl][0][email]': 'DEFAULT', 'gallery[acl][1][email]': 'not an e-mail' }],
    ['gallery[acl][1][email]', { 'gallery[acl][0][email]': 'DEFAULT', 'gallery[acl][1][email]': 'a"b@example.com' }],
    ['gallery[acl][2][email]', { 'gallery[acl][0][email]': 'DEFAULT', 'gallery[acl][1][email]': 'a@example.com', 'gallery[acl][2][email]': 'A@example.com' }],
    ['gallery[acl][0][read]', { 'gallery[acl][0][email]': 'DEFAULT', 'gallery[acl][0][read]': 'maybe' }],
    ['gallery[acl][1][hires_download]', { 'gallery[acl][0][email]': 'DEFAULT', 'gallery[acl][1][email]': 'a@example.com', 'gallery[acl][1][hires_download]': '2' }],
    ['gallery[acl][x]', { 'gallery[acl][0][email]': 'DEFAULT', 'gallery[acl][x][email]': 'a@example.com' }],
  ];
  it.each(bad)('refuses a bad access list (%s): 422 and nothing saved', async (attr, acl) => {
    const count = async () => Number((await w.svc.db.selectFrom('galleries').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const aclCount = async () => Number((await w.svc.db.selectFrom('gallery_acl').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const before = await count();
    const aclBefore = await aclCount();
    const f = await failure(w.client.request('POST', `/websites/${w.urlname}/galleries.xml`, { 'gallery[name]': 'ACL', 'gallery[parent]': w.rootUuid, ...acl }));
    expect(f.status).toBe(422);
    expect(f.message).toContain(attr);
    expect(await count()).toBe(before);
    expect(await aclCount()).toBe(aclBefore);
  });

  describe('visitorAccess', () => {
    it('gives anyone read and no download when no access list applies', async () => {
      const g = await galleryId(w.svc.db, await create(w, 'Public'));
      expect(await w.svc.service.galleries.visitorAccess(g, null)).toEqual({ read: true, compDownload: false, hiresDownload: false, passwordRequired: false, listed: true, indexable: true });
    });

    it('applies the visitor entry, else DEFAULT, case-insensitively', async () => {
      const uuid = await create(w, 'Proofs', w.rootUuid, {
        acl: [
          { email: 'DEFAULT', read: 0 },
          { id: 3, email: 'client@example.com', read: 1, comp_download: 1 },
        ],
      });
      const g = await galleryId(w.svc.db, uuid);
      expect((await w.svc.service.galleries.visitorAccess(g, null)).read).toBe(false);
      expect((await w.svc.service.galleries.visitorAccess(g, 'stranger@example.com')).read).toBe(false);
      const client = await w.svc.service.galleries.visitorAccess(g, 'CLIENT@example.com');
      expect([client.read, client.compDownload, client.hiresDownload, client.indexable]).toEqual([true, true, false, false]);
    });

    it('inherits restrictions from ancestors: a sub-gallery is no more open than its parent', async () => {
      const parent = await create(w, 'Restricted parent', w.rootUuid, {
        acl: [
          { email: 'DEFAULT', read: 0 },
          { id: 1, email: 'vip@example.com', read: 1, comp_download: 1, hires_download: 1 },
        ],
      });
      const child = await create(w, 'Open child', parent, { acl: [{ email: 'DEFAULT', read: 1, comp_download: 1, hires_download: 0 }] });
      const grandchild = await galleryId(w.svc.db, await create(w, 'Grandchild', child));
      expect((await w.svc.service.galleries.visitorAccess(grandchild, null)).read).toBe(false);
      const vip = await w.svc.service.galleries.visitorAccess(grandchild, 'vip@example.com');
      expect([vip.read, vip.compDownload, vip.hiresDownload]).toEqual([true, true, false]);
    });

    it('asks for the password of any protected gallery on the way, and hides hidden ones from navigation', async () => {
      const locked = await create(w, 'Locked', w.rootUuid, { password: 's3cret' });
      const inside = await galleryId(w.svc.db, await create(w, 'Inside', locked, { hidden: 1 }));
      const none = await w.svc.service.galleries.visitorAccess(inside, null);
      expect([none.read, none.passwordRequired]).toEqual([false, true]);
      const wrong = await w.svc.service.galleries.visitorAccess(inside, null, 'guess');
      expect([wrong.read, wrong.passwordRequired]).toEqual([false, true]);
      const right = await w.svc.service.galleries.visitorAccess(inside, null, 's3cret');
      expect([right.read, right.passwordRequired, right.listed, right.indexable]).toEqual([true, false, false, false]);
      // Removing the password opens it again; the hidden flag stays.
      await w.client.updateGallery(w.urlname, locked, { password: '' });
      const opened = await w.svc.service.galleries.visitorAccess(inside, null);
      expect([opened.read, opened.listed]).toEqual([true, false]);
    });

    it('honours indexing: never (0) and always (2)', async () => {
      const never = await galleryId(w.svc.db, await create(w, 'Never indexed', w.rootUuid, { indexing: 0 }));
      expect((await w.svc.service.galleries.visitorAccess(never, null)).indexable).toBe(false);
      const always = await galleryId(w.svc.db, await create(w, 'Always indexed', w.rootUuid, { indexing: 2, hidden: 1 }));
      expect((await w.svc.service.galleries.visitorAccess(always, null)).indexable).toBe(true);
      expect((await w.svc.service.galleries.visitorAccess(999_999_999, null)).read).toBe(false);
    });
  });
});
