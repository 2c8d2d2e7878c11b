// The documented limits of a gallery tree (docs/galleries.md): at most 32
// levels below the root, full url paths of at most 1000 characters and 20 000
// galleries per website — on create, on rename and move (for every gallery
// below), and in bulk inserts. A refusal is a 422 naming the attribute and
// changes nothing. The limits themselves, as rules, are checked in the fast
// tier too (test/unit/galleries-rules.test.ts).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { all, int, text } from '../../src/client/xml.js';
import { ApiError } from '../../src/core/errors.js';
import { insertChildren, nextListPos } from '../support/gallery-seed.js';
import { MAX_GALLERIES_PER_WEBSITE } from '../../src/galleries/limits.js';
import { nowIso } from '../../src/database/db.js';
import { eachDatabase } from '../support/service.js';
import { worldOn } from '../support/world.js';
import { create, details, failure, startWorld, type GalleryWorld } from './galleries-fixtures.js';

eachDatabase((kind) => {
  let w: GalleryWorld;
  beforeAll(async () => {
    w = await startWorld(kind);
  });
  afterAll(() => w?.svc.close());

  /** A chain of `levels` galleries under `parentUuid` (bulk inserts); their UUIDs, top first. */
  async function chain(parentUuid: string, levels: number, prefix: string): Promise<string[]> {
    return w.svc.db.transaction().execute(async (trx) => {
      let parent = await trx.selectFrom('galleries').selectAll().where('uuid', '=', parentUuid).executeTakeFirstOrThrow();
      const uuids: string[] = [];
      for (let i = 1; i <= levels; i++) {
        const [id] = await insertChildren(trx, parent, [`${prefix}${i}`], nowIso());
        parent = await trx.selectFrom('galleries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
        uuids.push(parent.uuid);
      }
      return uuids;
    });
  }

  async function galleryCount(websiteUrlname = w.urlname): Promise<number> {
    const row = await w.svc.db
      .selectFrom('galleries')
      .innerJoin('websites', 'websites.id', 'galleries.website_id')
      .where('websites.urlname', '=', websiteUrlname)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  const fullPath = async (uuid: string) => text((await details(w, uuid)).doc, 'gallery/full-url-path')!;

  it('allows a gallery 32 levels below the root and refuses the 33rd level on create', async () => {
    const levels = await chain(w.rootUuid, 31, 'd');
    const deepest = await create(w, 'Level 32', levels[30]);
    expect((await fullPath(deepest)).split('/')).toHaveLength(32);
    const before = await galleryCount();
    const f = await failure(w.client.createGallery(w.urlname, { name: 'Level 33', parent: deepest }));
    expect(f.status).toBe(422);
    expect(f.message).toContain('gallery[parent]');
    expect(f.message).toContain('32 levels');
    expect(await galleryCount()).toBe(before);
    expect(int((await details(w, deepest)).doc, 'gallery/subgalleries-count')).toBe(0);
    // Bulk inserts follow the same rule.
    const refused = await w.svc.db
      .transaction()
      .execute(async (trx) => insertChildren(trx, await trx.selectFrom('galleries').selectAll().where('uuid', '=', deepest).executeTakeFirstOrThrow(), ['Bulk 33'], nowIso()))
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).status).toBe(422);
    expect(await galleryCount()).toBe(before);
  });

  it('refuses a move that would put any gallery below it beyond 32 levels, changing nothing', async () => {
    const target = await chain(w.rootUuid, 30, 'm');
    const [x, y, z] = await chain(w.rootUuid, 3, 'moved');
    // Under level 30, x would be at 31 and z at 33.
    const f = await failure(w.client.updateGallery(w.urlname, x, { parent: target[29], name: 'Renamed too' }));
    expect(f.status).toBe(422);
    expect(f.message).toContain('gallery[parent]');
    expect(f.message).toContain('33 levels');
    const after = await details(w, x);
    expect(text(after.doc, 'gallery/parent-uuid')).toBe(w.rootUuid);
    expect(text(after.doc, 'gallery/name')).toBe('moved1');
    expect(await fullPath(z)).toBe('moved1/moved2/moved3');
    expect(int((await details(w, target[29])).doc, 'gallery/subgalleries-count')).toBe(0);
    // Under level 29, z lands exactly on level 32.
    await w.client.updateGallery(w.urlname, x, { parent: target[28] });
    expect((await fullPath(z)).split('/')).toHaveLength(32);
    expect(await fullPath(y)).toMatch(/\/m29\/moved1\/moved2$/);
    // Moving a deep gallery up is always possible.
    await w.client.updateGallery(w.urlname, y, { parent: w.rootUuid });
    expect(await fullPath(z)).toBe('moved2/moved3');
  });

  const long = (c: string, n = 100) => c.repeat(n);

  /** Nine galleries with 100-character url paths: the ninth's full url path is 908 characters. */
  async function longChain(c: string): Promise<string[]> {
    const uuids: string[] = [];
    let parent = w.rootUuid;
    for (let i = 0; i < 9; i++) {
      parent = await create(w, `${c} ${i}`, parent, { url_path: long(c, 99) + i });
      uuids.push(parent);
    }
    expect(await fullPath(parent)).toHaveLength(908);
    return uuids;
  }

  it('refuses a full url path longer than 1000 characters on create, naming the attribute', async () => {
    const levels = await longChain('p');
    const before = await galleryCount();
    const byPath = await failure(w.client.createGallery(w.urlname, { name: 'Too long', parent: levels[8], url_path: long('q') }));
    expect(byPath.status).toBe(422);
    expect(byPath.message).toContain('gallery[url_path]');
    expect(byPath.message).toMatch(/1009 characters/);
    expect(byPath.message).toMatch(/1000/);
    const byName = await failure(w.client.createGallery(w.urlname, { name: long('n'), parent: levels[8] }));
    expect(byName.status).toBe(422);
    expect(byName.message).toContain('gallery[name]');
    expect(await galleryCount()).toBe(before);
    // Exactly 1000 characters is allowed.
    const last = await create(w, 'Fits', levels[8], { url_path: long('f', 91) });
    expect(await fullPath(last)).toHaveLength(1000);
    // Bulk inserts follow the same rule.
    const refused = await w.svc.db
      .transaction()
      .execute(async (trx) => insertChildren(trx, await trx.selectFrom('galleries').selectAll().where('uuid', '=', levels[8]).executeTakeFirstOrThrow(), ['short', long('b')], nowIso()))
      .catch((e: unknown) => e);
    expect((refused as ApiError).status).toBe(422);
    expect(await galleryCount()).toBe(before + 1);
  });

  it('refuses a rename or move that would push a gallery below it beyond 1000 characters, changing nothing', async () => {
    // top (3 characters) > eight 100-character levels > leaf (100): 912 characters.
    const top = await create(w, 'Top', w.rootUuid, { url_path: 'top' });
    const levels = [top];
    for (let i = 0; i < 8; i++) levels.push(await create(w, `r ${i}`, levels[i], { url_path: long('r', 99) + i }));
    const leaf = await create(w, 'Leaf', levels[8], { url_path: long('l') });
    const original = await fullPath(leaf);
    expect(original).toHaveLength(912);
    // A 100-character url path of the top gallery would make the leaf's 1009 characters long.
    const byPath = await failure(w.client.updateGallery(w.urlname, top, { url_path: long('t', 120), name: 'Renamed' }));
    expect(byPath.status).toBe(422);
    expect(byPath.message).toContain('gallery[url_path]');
    expect(byPath.message).toMatch(/1009 characters/);
    expect(text((await details(w, top)).doc, 'gallery/name')).toBe('Top');
    // So would a derived url path that follows a new name.
    await w.client.updateGallery(w.urlname, top, { url_path: '' });
    expect(await fullPath(leaf)).toBe(original);
    const byName = await failure(w.client.updateGallery(w.urlname, top, { name: long('N', 200) }));
    expect(byName.status).toBe(422);
    expect(byName.message).toContain('gallery[name]');
    // And a move under a gallery with a long full url path.
    const host = await create(w, 'Host', w.rootUuid, { url_path: long('h') });
    const byMove = await failure(w.client.updateGallery(w.urlname, levels[1], { parent: host }));
    expect(byMove.status).toBe(422);
    expect(byMove.message).toContain('gallery[parent]');
    expect(text((await details(w, levels[1])).doc, 'gallery/parent-uuid')).toBe(top);
    expect(int((await details(w, host)).doc, 'gallery/subgalleries-count')).toBe(0);
    expect(int((await details(w, top)).doc, 'gallery/subgalleries-count')).toBe(1);
    expect(await fullPath(leaf)).toBe(original);
    // Up to 1000 is fine, and the sub-tree follows.
    await w.client.updateGallery(w.urlname, top, { url_path: long('s', 91) });
    expect(await fullPath(leaf)).toBe(long('s', 91) + original.slice(3));
    expect(await fullPath(leaf)).toHaveLength(1000);
  });

  /** A chain stored as a version without the limits stored it: rows written directly. */
  async function legacyChain(levels: number, segment: (i: number) => string): Promise<string[]> {
    return w.svc.db.transaction().execute(async (trx) => {
      let parent = await trx.selectFrom('galleries').selectAll().where('uuid', '=', w.rootUuid).executeTakeFirstOrThrow();
      const uuids: string[] = [];
      for (let i = 1; i <= levels; i++) {
        const now = nowIso();
        const urlPath = segment(i);
        const fullUrlPath = parent.full_url_path === '' ? urlPath : `${parent.full_url_path}/${urlPath}`;
        const row = await trx
          .insertInto('galleries')
          .values({ uuid: randomUUID(), website_id: parent.website_id, parent_id: parent.id, list_pos: await nextListPos(trx, parent.website_id), name: urlPath, url_path: urlPath, url_path_auto: 0, full_url_path: fullUrlPath, published_at: now, created_at: now, updated_at: now })
          .returningAll()
          .executeTakeFirstOrThrow();
        await trx.updateTable('galleries').set({ subgalleries_count: 1 }).where('id', '=', parent.id).execute();
        uuids.push(row.uuid);
        parent = row;
      }
      return uuids;
    });
  }

  it('lets a tree stored beyond the limits be brought back within them, never further beyond', async () => {
    const deep = await legacyChain(40, (i) => `old${i}`);
    expect((await fullPath(deep[39])).split('/')).toHaveLength(40);
    expect((await failure(w.client.createGallery(w.urlname, { name: 'Deeper', parent: deep[39] }))).status).toBe(422);
    // Up one level: still 39 deep, but better than 40.
    await w.client.updateGallery(w.urlname, deep[1], { parent: w.rootUuid });
    expect((await fullPath(deep[39])).split('/')).toHaveLength(39);
    // Back down is refused.
    const f = await failure(w.client.updateGallery(w.urlname, deep[1], { parent: deep[0] }));
    expect(f.status).toBe(422);
    expect(f.message).toContain('40 levels');
    expect((await fullPath(deep[39])).split('/')).toHaveLength(39);
    // Renames that keep the depth are fine.
    await w.client.updateGallery(w.urlname, deep[20], { name: 'Renamed deep', url_path: 'renamed-deep' });
    expect(await fullPath(deep[39])).toContain('/renamed-deep/');

    const longOld = await legacyChain(12, (i) => 'o'.repeat(97) + String(i).padStart(3, '0'));
    expect(await fullPath(longOld[11])).toHaveLength(1211);
    // Shorter is allowed even while still beyond 1000; longer is not.
    await w.client.updateGallery(w.urlname, longOld[0], { url_path: 'short' });
    expect(await fullPath(longOld[11])).toHaveLength(1116);
    const longer = await failure(w.client.updateGallery(w.urlname, longOld[0], { url_path: 'a-little-longer' }));
    expect(longer.status).toBe(422);
    expect(longer.message).toMatch(/1126 characters/);
    expect(await fullPath(longOld[11])).toHaveLength(1116);
  });

  it(`holds at most ${MAX_GALLERIES_PER_WEBSITE} galleries per website, by create and by bulk insert`, { timeout: 180_000 }, async () => {
    const other = await worldOn(w.svc);
    // The root, 20 sections and 19 979 galleries below them.
    await other.svc.db.transaction().execute(async (trx) => {
      const root = await trx.selectFrom('galleries').selectAll().where('uuid', '=', other.rootUuid).executeTakeFirstOrThrow();
      const sections = await insertChildren(trx, root, Array.from({ length: 20 }, (_, i) => `Section ${i + 1}`), nowIso());
      let left = MAX_GALLERIES_PER_WEBSITE - 21;
      for (const id of sections) {
        const section = await trx.selectFrom('galleries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
        const n = Math.min(999, left);
        await insertChildren(trx, section, Array.from({ length: n }, (_, i) => `Shoot ${id}.${i}`), nowIso());
        left -= n;
      }
    });
    expect(await galleryCount(other.urlname)).toBe(MAX_GALLERIES_PER_WEBSITE);
    const f = await failure(other.client.createGallery(other.urlname, { name: 'One too many', parent: other.rootUuid }));
    expect(f.status).toBe(422);
    expect(f.message).toContain('gallery[parent]');
    expect(f.message).toMatch(/20000 galleries/);
    const refused = await other.svc.db
      .transaction()
      .execute(async (trx) => insertChildren(trx, await trx.selectFrom('galleries').selectAll().where('uuid', '=', other.rootUuid).executeTakeFirstOrThrow(), ['Bulk'], nowIso()))
      .catch((e: unknown) => e);
    expect((refused as ApiError).status).toBe(422);
    expect(await galleryCount(other.urlname)).toBe(MAX_GALLERIES_PER_WEBSITE);
    // Deleting one makes room for one.
    const listing = (await other.client.request('GET', `/websites/${other.urlname}/galleries/${other.rootUuid}/subgalleries.xml`, { 'filter[name]': 'Section 20' })).doc;
    const section20 = text(all(listing, 'galleries/gallery')[1], 'uuid')!;
    expect(section20).toMatch(/^[0-9a-f-]{36}$/);
    await other.client.deleteGallery(other.urlname, section20);
    await other.client.createGallery(other.urlname, { name: 'Room again', parent: other.rootUuid });
  });
});
