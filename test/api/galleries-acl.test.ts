// Access lists given on create (spec 2.3): stored, shown in the details view,
// validated; the website enforces them (src/site/access.ts, test/site/site-pages.test.ts).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { all, bool, int, text } from '../../src/client/xml.js';

import { eachDatabase } from '../support/service.js';
import { create, details, failure, startWorld, type GalleryWorld } from './galleries-fixtures.js';

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
});
