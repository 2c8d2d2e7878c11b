// Deleting a gallery of a shared website (website_members): the galleries go
// whoever deletes them, but delete_medias=1 deletes only the caller's own
// medias, and medias_count and deleted-medias-count count only those.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { MediaPortfolioClient } from '../../src/client/index.js';
import { int } from '../../src/client/xml.js';
import { eachDatabase, type TestUser } from '../support/service.js';
import { alsoPublish, create, details, failure, publishMedias, startWorld, type GalleryWorld } from './galleries-fixtures.js';

eachDatabase((kind) => {
  let w: GalleryWorld;
  let member: TestUser;
  let memberClient: MediaPortfolioClient;
  beforeAll(async () => {
    w = await startWorld(kind);
    member = await w.svc.user();
    // What `website share` does.
    await w.svc.core.websites.share(w.urlname, member);
    memberClient = w.svc.client(w.app, member);
  });
  afterAll(() => w?.svc.close());

  async function exists(uuid: string): Promise<boolean> {
    return (await w.svc.db.selectFrom('medias').select('id').where('uuid', '=', uuid).executeTakeFirst()) !== undefined;
  }

  /** top > child; the owner has 3 medias there (one in both galleries), the member 2. */
  async function sharedTree(name: string) {
    const top = await create(w, name);
    const child = await create(w, `${name} child`, top);
    const owners = [...(await publishMedias(w.svc.db, w.user, top, ['o1.jpg', 'o2.jpg'])), ...(await publishMedias(w.svc.db, w.user, child, ['o3.jpg']))];
    await alsoPublish(w.svc.db, child, [owners[0]]);
    const members = [...(await publishMedias(w.svc.db, member, top, ['m1.jpg'])), ...(await publishMedias(w.svc.db, member, child, ['m2.jpg']))];
    return { top, child, owners, members };
  }

  it("a member deletes and counts only their own medias, never the owner's", async () => {
    const t = await sharedTree('Shared by member');
    expect(int((await details(w, t.top)).doc, 'gallery/full-medias-count')).toBe(5);
    // The owner's medias are not the member's to count.
    for (const count of [5, 3]) {
      const f = await failure(memberClient.deleteGallery(w.urlname, t.top, { delete_medias: 1, medias_count: count }));
      expect(f.status).toBe(409);
      expect(f.message).toMatch(/ 2 /);
    }
    const res = await memberClient.deleteGallery(w.urlname, t.top, { delete_medias: 1, medias_count: 2 });
    expect(int(res.doc, 'deleted-galleries-count')).toBe(2);
    expect(int(res.doc, 'deleted-medias-count')).toBe(2);
    for (const m of t.members) expect(await exists(m)).toBe(false);
    for (const m of t.owners) expect(await exists(m)).toBe(true);
    expect((await failure(details(w, t.top))).status).toBe(404);
  });

  it("the owner deletes and counts only the owner's medias, never a member's", async () => {
    const t = await sharedTree('Shared by owner');
    const f = await failure(w.client.deleteGallery(w.urlname, t.top, { delete_medias: 1, medias_count: 5 }));
    expect(f.status).toBe(409);
    expect(f.message).toMatch(/ 3 /);
    // The guard compares against the caller's own medias with delete_medias=0 too.
    expect((await failure(w.client.deleteGallery(w.urlname, t.child, { medias_count: 3 }))).status).toBe(409);
    const res = await w.client.deleteGallery(w.urlname, t.top, { delete_medias: 1, medias_count: 3 });
    expect(int(res.doc, 'deleted-galleries-count')).toBe(2);
    expect(int(res.doc, 'deleted-medias-count')).toBe(3);
    for (const m of t.owners) expect(await exists(m)).toBe(false);
    for (const m of t.members) expect(await exists(m)).toBe(true);
  });

  it('without delete_medias nobody loses a media, and the count is still the caller’s own', async () => {
    const t = await sharedTree('Shared kept');
    const res = await memberClient.deleteGallery(w.urlname, t.child, { medias_count: 1 });
    expect(int(res.doc, 'deleted-galleries-count')).toBe(1);
    expect(int(res.doc, 'deleted-medias-count')).toBe(0);
    for (const m of [...t.owners, ...t.members]) expect(await exists(m)).toBe(true);
    expect(int((await details(w, t.top)).doc, 'gallery/full-medias-count')).toBe(3);
  });
});
