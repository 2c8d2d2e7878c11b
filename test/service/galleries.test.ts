// GalleriesService called with typed inputs, on the services buildApp wires (test/support/
// services.ts), SQLite and PostgreSQL: another user's gallery, the tree's rules (moves, depth,
// path length, sub-gallery places, positions), reorders, publication, deletes, and the 422s'
// err.field. Through HTTP: test/api/galleries-*.test.ts.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { UserRow } from '../../src/database/schema.js';
import { objectSource, plainNames, type Mode } from '../../src/core/fields.js';
import { GALLERY_FIELDS, MAX_NAME_LENGTH, readGallery, type GalleryInput } from '../../src/galleries/fields.js';
import { MAX_ACL_ENTRIES } from '../../src/galleries/acl.js';
import { MAX_GALLERY_DEPTH, MAX_FULL_URL_PATH_LENGTH } from '../../src/galleries/limits.js';
import { MAX_SUBGALLERIES } from '../../src/galleries/service.js';
import { nowIso } from '../../src/database/db.js';
import { insertChildren } from '../support/gallery-seed.js';
import { DATABASES, jpeg, noAttributes, part, PG, refusal, withServices } from '../support/services.js';

for (const db of DATABASES) {
  describe(`galleries service (${db})`, () => {
    const w = withServices(db === 'postgres' ? { postgresUrl: PG } : {});
    let me: { user: UserRow; urlname: string; root: string };
    let other: { user: UserRow; urlname: string; root: string };

    beforeAll(async () => {
      me = await w.owner('me');
      other = await w.owner('other');
    });

    const create = (input: GalleryInput, who = me) => w.galleries.create(who.user, who.urlname, { parent: who.root, ...input });
    const uuidOf = async (input: GalleryInput, who = me) => (await create(input, who)).record.uuid;
    const get = (uuid: string, who = me) => w.galleries.get(who.user, who.urlname, uuid, { medias: true, subgalleries: true });
    /** The website's galleries in list order, by name. */
    const listed = async (who = me) => (await w.galleries.list(who.user, who.urlname, { page: 1, withCounts: false })).records.map((r) => r.name);
    const listPositions = async (who = me) => (await w.galleries.list(who.user, who.urlname, { page: 1, withCounts: false })).records.map((r) => r.list_pos);
    /** A 422 invalid_parameter naming its field (err.field: the spec key) with this message. */
    async function invalidAt(call: Promise<unknown>, field: string, message: string | RegExp) {
      const err = await refusal(call);
      expect({ code: err.code, status: err.status, field: err.field }).toEqual({ code: 'invalid_parameter', status: 422, field });
      if (typeof message === 'string') expect(err.message).toBe(message);
      else expect(err.message).toMatch(message);
      return err;
    }
    async function upload(who: { user: UserRow }, seed: number): Promise<string> {
      const r = await w.media.create(who.user, { attributes: noAttributes(), replace: false, fileName: `p${seed}.jpg`, upload: { direct: part(await jpeg(seed)) } });
      return r.media.record.uuid;
    }

    it('creates a gallery under the root with a url path from its name, unique among its siblings', async () => {
      const a = await create({ name: 'Summer Trip', description: 'Beach' });
      expect(a.record).toMatchObject({ name: 'Summer Trip', url_path: 'summer-trip', full_url_path: 'summer-trip', parent_uuid: me.root, description: 'Beach', content_order: 'manual-last' });
      expect(a.counts).toEqual({ medias: 0, full: 0 });
      const b = await create({ name: 'Summer trip!' });
      expect(b.record.url_path).toBe('summer-trip-2');
      const c = await create({ name: 'Child', parent: a.record.uuid, urlPath: 'Ça va' });
      expect(c.record).toMatchObject({ url_path: 'ca-va', full_url_path: 'summer-trip/ca-va', parent_uuid: a.record.uuid });
      expect((await get(a.record.uuid)).record.subgalleries_count).toBe(1);
      const details = await get(a.record.uuid);
      expect(details.subgalleries?.map((s) => s.record.name)).toEqual(['Child']);
    });

    it('lists a website\'s galleries a page at a time with their counts, and sub-galleries filtered, by name when asked', async () => {
      const site = await w.owner('lists', me.user);
      const byName = await create({ name: 'By name', orderSubgalleries: true }, site);
      for (const name of ['Zeta 10', 'alpha', 'Zeta 9', 'Beta']) await create({ name, parent: byName.record.uuid }, site);
      const m = await upload(site, 30);
      const zeta9 = (await w.galleries.subgalleries(site.user, site.urlname, byName.record.uuid, { page: 1, filter: 'zeta 9' })).children[0].record.uuid;
      await w.media.update(site.user, m, { attributes: noAttributes({ publish: [zeta9, byName.record.uuid] }) });
      const subs = await w.galleries.subgalleries(site.user, site.urlname, byName.record.uuid, { page: 1 });
      expect(subs.children.map((c) => c.record.name)).toEqual(['alpha', 'Beta', 'Zeta 9', 'Zeta 10']);
      expect(subs.gallery.counts).toEqual({ medias: 1, full: 1 });
      expect(subs.ancestors.map((a) => a.uuid)).toEqual([site.root]);
      const page2 = await w.galleries.subgalleries(site.user, site.urlname, byName.record.uuid, { page: 2, perPage: 3 });
      expect([page2.total, page2.perPage, page2.children.map((c) => c.record.name)]).toEqual([4, 3, ['Zeta 10']]);
      expect((await w.galleries.subgalleries(site.user, site.urlname, byName.record.uuid, { page: 1, filter: 'ZETA' })).children.map((c) => c.record.name)).toEqual(['Zeta 9', 'Zeta 10']);
      const first = await w.galleries.list(site.user, site.urlname, { page: 1, perPage: 2, withCounts: true });
      expect([first.total, first.records.map((r) => r.name)]).toEqual([6, ['lists', 'By name']]);
      expect(first.counts?.get(byName.record.id)).toEqual({ medias: 1, full: 1 });
      expect(first.counts?.get(first.records[0].id)).toEqual({ medias: 0, full: 1 });
      expect((await w.galleries.list(site.user, site.urlname, { page: 3, perPage: 2, withCounts: false })).records.map((r) => r.name)).toEqual(['Zeta 9', 'Beta']);
    });

    it("answers another user's gallery and website as if they did not exist (404), and changes nothing", async () => {
      const theirs = await uuidOf({ name: 'Private' }, other);
      for (const call of [
        () => w.galleries.get(me.user, me.urlname, theirs),
        () => w.galleries.get(me.user, other.urlname, theirs),
        () => w.galleries.update(me.user, me.urlname, theirs, { name: 'Mine now' }),
        () => w.galleries.update(me.user, other.urlname, theirs, { name: 'Mine now' }),
        () => w.galleries.delete(me.user, me.urlname, theirs, { deleteMedias: true }),
        () => w.galleries.subgalleries(me.user, me.urlname, theirs, { page: 1 }),
        () => w.galleries.setAcl(me.user, me.urlname, theirs, []),
        () => w.galleries.websiteOf(me.user, theirs),
        () => w.galleries.summary(me.user, theirs),
        () => w.galleries.moveMedias(me.user, theirs, [randomUUID()], null),
      ]) {
        const err = await refusal(call());
        expect(err.code).toBe('not_found');
        expect(err.status).toBe(404);
      }
      expect((await refusal(w.galleries.get(me.user, other.urlname, theirs))).message).toBe(`website ${other.urlname} not found`);
      expect((await refusal(w.galleries.get(me.user, me.urlname, theirs))).message).toBe(`gallery ${theirs} not found`);
      // Not a UUID at all: the same 404.
      expect((await refusal(w.galleries.get(me.user, me.urlname, 'not-a-uuid'))).code).toBe('not_found');
      expect((await get(theirs, other)).record.name).toBe('Private');
      // Their gallery as a parent is a 422 about the parent, not a way in.
      await invalidAt(create({ name: 'Sneaky', parent: theirs }), 'parent', `gallery[parent]: ${theirs} is not a gallery of this website`);
      expect((await get(theirs, other)).record.subgalleries_count).toBe(0);
    });

    it("refuses another user's media as a cover (422 naming the attribute)", async () => {
      const theirs = await upload(other, 1);
      const mine = await upload(me, 2);
      await invalidAt(create({ name: 'Covered', coverMedia: theirs }), 'coverMedia', `gallery[cover_media]: ${theirs} is not a media of this website's owner`);
      const g = await create({ name: 'Covered', coverMedia: mine });
      expect(g.record.cover_media_uuid).toBe(mine);
      await invalidAt(w.galleries.update(me.user, me.urlname, g.record.uuid, { publicCoverMedia: theirs }), 'publicCoverMedia', `gallery[public_cover_media]: ${theirs} is not a media of this website's owner`);
      expect((await get(g.record.uuid)).record.cover_media_uuid).toBe(mine);
    });

    it('moves a gallery with its sub-tree, and refuses a move under itself or one of its descendants', async () => {
      const a = await uuidOf({ name: 'Move A' });
      const b = await uuidOf({ name: 'Move B', parent: a });
      const c = await uuidOf({ name: 'Move C', parent: b });
      const target = await uuidOf({ name: 'Target' });
      for (const parent of [a, b, c]) {
        await invalidAt(w.galleries.update(me.user, me.urlname, a, { parent, name: 'Renamed' }), 'parent', 'gallery[parent]: a gallery cannot be moved under itself or one of its own sub-galleries');
      }
      // Refused as a whole: the name sent with the move did not change either.
      expect((await get(a)).record).toMatchObject({ name: 'Move A', full_url_path: 'move-a' });
      expect((await get(c)).record.full_url_path).toBe('move-a/move-b/move-c');

      const moved = await w.galleries.update(me.user, me.urlname, b, { parent: target });
      expect(moved.record).toMatchObject({ parent_uuid: target, full_url_path: 'target/move-b' });
      expect((await get(c)).record.full_url_path).toBe('target/move-b/move-c');
      expect((await get(a)).record.subgalleries_count).toBe(0);
      expect((await get(target)).record.subgalleries_count).toBe(1);
      // The root cannot move, and its url path stays ''.
      await invalidAt(w.galleries.update(me.user, me.urlname, me.root, { parent: target }), 'parent', 'gallery[parent]: the root gallery cannot be moved');
      await invalidAt(w.galleries.update(me.user, me.urlname, me.root, { urlPath: 'home' }), 'urlPath', 'gallery[url_path]: the root gallery has no url path');
    });

    it('keeps a renamed gallery\'s derived path following its name, a chosen one fixed, and rewrites the paths below', async () => {
      const g = await uuidOf({ name: 'Old Name' });
      const child = await uuidOf({ name: 'Kid', parent: g });
      await w.galleries.update(me.user, me.urlname, g, { name: 'New Name' });
      expect((await get(g)).record.full_url_path).toBe('new-name');
      expect((await get(child)).record.full_url_path).toBe('new-name/kid');
      await w.galleries.update(me.user, me.urlname, g, { urlPath: 'chosen' });
      await w.galleries.update(me.user, me.urlname, g, { name: 'Newer Name' });
      expect((await get(g)).record).toMatchObject({ name: 'Newer Name', full_url_path: 'chosen' });
      expect((await get(child)).record.full_url_path).toBe('chosen/kid');
    });

    it('refuses a gallery deeper than the depth limit, by create and by move', async () => {
      let parent = me.root;
      const chain: string[] = [];
      for (let level = 1; level <= MAX_GALLERY_DEPTH; level++) chain.push((parent = await uuidOf({ name: `d${level}`, parent })));
      await invalidAt(create({ name: 'too deep', parent }), 'parent', `gallery[parent]: under gallery ${parent} a gallery would be ${MAX_GALLERY_DEPTH + 1} levels below the root; galleries may be at most ${MAX_GALLERY_DEPTH} levels deep`);
      // A two-level tree moved under level 31 would reach level 33.
      const top = await uuidOf({ name: 'pair' });
      await uuidOf({ name: 'pair child', parent: top });
      await invalidAt(w.galleries.update(me.user, me.urlname, top, { parent: chain[MAX_GALLERY_DEPTH - 2] }), 'parent', new RegExp(`would be ${MAX_GALLERY_DEPTH + 1} levels below the root`));
      expect((await get(top)).record.full_url_path).toBe('pair');
      // One level less fits.
      await w.galleries.update(me.user, me.urlname, top, { parent: chain[MAX_GALLERY_DEPTH - 3] });
      expect((await get(top)).record.parent_uuid).toBe(chain[MAX_GALLERY_DEPTH - 3]);
    });

    it('refuses a full url path beyond its length limit, naming what made it so', async () => {
      const long = (c: string) => c.repeat(100); // url paths are cut at 100 characters
      let parent = me.root;
      for (let i = 0; i < 9; i++) parent = await uuidOf({ name: long(String.fromCharCode(97 + i)), parent });
      expect((await get(parent)).record.full_url_path).toHaveLength(9 * 101 - 1);
      await invalidAt(create({ name: long('z'), parent }), 'name', `gallery[name]: a full-url-path would be ${10 * 101 - 1} characters long; it may be at most ${MAX_FULL_URL_PATH_LENGTH} characters long`);
      await invalidAt(create({ name: 'short', urlPath: long('y'), parent }), 'urlPath', /^gallery\[url_path\]: a full-url-path would be/);
      expect((await create({ name: 'z'.repeat(80), parent })).record.full_url_path).toHaveLength(9 * 101 + 80);
    });

    it('refuses a rename, a new url path or a move that would take a descendant\'s full url path beyond the limit', async () => {
      const top = await uuidOf({ name: 't' });
      let parent = top;
      for (let i = 0; i < 9; i++) parent = await uuidOf({ name: String.fromCharCode(97 + i).repeat(100), parent });
      expect((await get(parent)).record.full_url_path).toHaveLength(1 + 9 * 101);
      const longest = 100 + 9 * 101;
      await invalidAt(w.galleries.update(me.user, me.urlname, top, { name: 'n'.repeat(100) }), 'name', `gallery[name]: a full-url-path would be ${longest} characters long; it may be at most ${MAX_FULL_URL_PATH_LENGTH} characters long`);
      await invalidAt(w.galleries.update(me.user, me.urlname, top, { urlPath: 'p'.repeat(100) }), 'urlPath', new RegExp(`^gallery\\[url_path\\]: a full-url-path would be ${longest} characters`));
      const longParent = await uuidOf({ name: 'q'.repeat(90) });
      await invalidAt(w.galleries.update(me.user, me.urlname, top, { parent: longParent }), 'parent', new RegExp(`^gallery\\[parent\\]: a full-url-path would be ${91 + 1 + 9 * 101} characters`));
      expect((await get(parent)).record.full_url_path).toHaveLength(1 + 9 * 101);
      // A shorter name still fits, and the paths below follow it.
      await w.galleries.update(me.user, me.urlname, top, { name: 'tt' });
      expect((await get(parent)).record.full_url_path.startsWith('tt/aaaa')).toBe(true);
    });

    it('gives galleries created at once under one parent distinct url paths and dense list positions', async () => {
      const site = await w.owner('concurrent', me.user);
      const made = await Promise.all(Array.from({ length: 6 }, () => create({ name: 'Same' }, site)));
      expect(made.map((g) => g.record.url_path).sort()).toEqual(['same', 'same-2', 'same-3', 'same-4', 'same-5', 'same-6']);
      const positions = await listPositions(site);
      expect(positions).toEqual(positions.map((_, i) => i + 1));
      // Moves under one parent at once: it counts each of them.
      const target = await uuidOf({ name: 'Target' }, site);
      await Promise.all(made.map((g) => w.galleries.update(site.user, site.urlname, g.record.uuid, { parent: target })));
      expect((await get(target, site)).record.subgalleries_count).toBe(6);
      expect((await get(site.root, site)).record.subgalleries_count).toBe(1);
      // Two galleries moved under each other at once: one move wins, the other is refused, no cycle.
      const [x, y] = [made[0].record.uuid, made[1].record.uuid];
      const moves = await Promise.allSettled([
        w.galleries.update(site.user, site.urlname, x, { parent: y }),
        w.galleries.update(site.user, site.urlname, y, { parent: x }),
      ]);
      expect(moves.map((m) => m.status).sort()).toEqual(['fulfilled', 'rejected']);
      const lost = moves.find((m) => m.status === 'rejected') as PromiseRejectedResult;
      expect([lost.reason.code, lost.reason.field]).toEqual(['invalid_parameter', 'parent']);
      const [gx, gy] = [(await get(x, site)).record, (await get(y, site)).record];
      expect([gx.parent_uuid === y, gy.parent_uuid === x].filter(Boolean)).toHaveLength(1);
    });

    it('gives a parent at most MAX_SUBGALLERIES sub-galleries, and a place back when one goes', async () => {
      const parent = await create({ name: 'Crowded' });
      const row = await w.core.store.db.selectFrom('galleries').selectAll().where('uuid', '=', parent.record.uuid).executeTakeFirstOrThrow();
      await w.core.store.db.transaction().execute((trx) => insertChildren(trx, row, Array.from({ length: MAX_SUBGALLERIES - 1 }, (_, i) => `c${i}`), nowIso()));
      // The last place taken by three creates at once: one gets it, the others are refused.
      const racing = await Promise.allSettled([1, 2, 3].map((i) => create({ name: `last ${i}`, parent: parent.record.uuid })));
      const won = racing.filter((r): r is PromiseFulfilledResult<Awaited<ReturnType<typeof create>>> => r.status === 'fulfilled');
      expect(won).toHaveLength(1);
      for (const r of racing) if (r.status === 'rejected') expect([r.reason.code, r.reason.field]).toEqual(['invalid_parameter', 'parent']);
      const last = won[0].value.record.uuid;
      await invalidAt(create({ name: 'one too many', parent: parent.record.uuid }), 'parent', `gallery[parent]: gallery ${parent.record.uuid} already holds ${MAX_SUBGALLERIES} sub-galleries, the most a gallery may hold`);
      // Nor by a move.
      const outside = await uuidOf({ name: 'outside' });
      await invalidAt(w.galleries.update(me.user, me.urlname, outside, { parent: parent.record.uuid }), 'parent', new RegExp(`already holds ${MAX_SUBGALLERIES} sub-galleries`));
      expect((await get(outside)).record.parent_uuid).toBe(me.root);
      await w.galleries.delete(me.user, me.urlname, last, { deleteMedias: false });
      await w.galleries.update(me.user, me.urlname, outside, { parent: parent.record.uuid });
      expect((await get(parent.record.uuid)).record.subgalleries_count).toBe(MAX_SUBGALLERIES);
      await w.galleries.delete(me.user, me.urlname, parent.record.uuid, { deleteMedias: false });
    });

    it('places a gallery among its siblings (1 = first, past the end = last), keeping the list dense', async () => {
      const site = await w.owner('places', me.user);
      const names = ['P1', 'P2', 'P3', 'P4'];
      const ids: Record<string, string> = {};
      for (const name of names) ids[name] = await uuidOf({ name }, site);
      const order = async () => (await listed(site)).filter((n) => names.includes(n));
      await w.galleries.update(site.user, site.urlname, ids.P3, { position: 1 });
      expect(await order()).toEqual(['P3', 'P1', 'P2', 'P4']);
      await w.galleries.update(site.user, site.urlname, ids.P3, { position: 1000 });
      expect(await order()).toEqual(['P1', 'P2', 'P4', 'P3']);
      await w.galleries.update(site.user, site.urlname, ids.P4, { position: 2 });
      expect(await order()).toEqual(['P1', 'P4', 'P2', 'P3']);
      const positions = await listPositions(site);
      expect(positions).toEqual(positions.map((_, i) => i + 1));
      // A move and a place at once: first under the new parent.
      const child = await uuidOf({ name: 'C1', parent: ids.P1 }, site);
      await w.galleries.update(site.user, site.urlname, ids.P2, { parent: ids.P1, position: 1 });
      expect((await w.galleries.get(site.user, site.urlname, ids.P1, { subgalleries: true })).subgalleries?.map((s) => s.record.uuid)).toEqual([ids.P2, child]);
      await invalidAt(w.galleries.update(site.user, site.urlname, site.root, { position: 1 }), 'position', 'gallery[position]: the root gallery has no siblings');
    });

    it('publishes and unpublishes medias, counts them, and reorders them (medias_order, moveMedias)', async () => {
      const g = await uuidOf({ name: 'Published' });
      const sub = await uuidOf({ name: 'Published sub', parent: g });
      const m = [await upload(me, 10), await upload(me, 11), await upload(me, 12), await upload(me, 13)];
      for (const uuid of m) await w.media.update(me.user, uuid, { attributes: noAttributes({ publish: [g] }) });
      await w.media.update(me.user, m[0], { attributes: noAttributes({ publish: [sub] }) });
      let d = await get(g);
      expect(d.medias).toEqual(m);
      expect(d.counts).toEqual({ medias: 4, full: 4 });
      expect((await get(sub)).counts).toEqual({ medias: 1, full: 1 });

      await w.galleries.update(me.user, me.urlname, g, { mediasOrder: [m[3], m[1]] });
      expect((await get(g)).medias).toEqual([m[3], m[1], m[0], m[2]]);
      await w.galleries.moveMedias(me.user, g, [m[2]], m[3]);
      expect((await get(g)).medias).toEqual([m[2], m[3], m[1], m[0]]);
      await w.galleries.moveMedias(me.user, g, [m[2], m[3]], null);
      expect((await get(g)).medias).toEqual([m[1], m[0], m[2], m[3]]);
      // A media that is not in the gallery, or "before" one of those moved: refused, the order kept.
      const stray = await upload(me, 14);
      await invalidAt(w.galleries.update(me.user, me.urlname, g, { mediasOrder: [stray] }), 'mediasOrder', `gallery[medias_order]: media ${stray} is not published in this gallery`);
      expect((await refusal(w.galleries.moveMedias(me.user, g, [stray], null))).code).toBe('not_found');
      expect((await refusal(w.galleries.moveMedias(me.user, g, [m[0]], m[0]))).message).toBe('before: the media to move before is not in this gallery, or is one of those moved');
      expect((await refusal(w.galleries.moveMedias(me.user, g, [], null))).code).toBe('invalid_parameter');
      expect((await get(g)).medias).toEqual([m[1], m[0], m[2], m[3]]);

      await w.media.update(me.user, m[1], { attributes: noAttributes({ unpublish: [g] }) });
      d = await get(g);
      expect(d.medias).toEqual([m[0], m[2], m[3]]);
      expect(d.counts).toEqual({ medias: 3, full: 3 });
      // Their gallery is no place to publish to: a 422 naming the attribute.
      const theirs = await uuidOf({ name: 'Not yours' }, other);
      const pub = await refusal(w.media.update(me.user, m[0], { attributes: noAttributes({ publish: [theirs] }) }));
      expect(pub.code).toBe('invalid_parameter');
      expect(pub.message).toBe(`media[publish_to_galleries]: unknown gallery ${theirs}`);
      expect((await get(theirs, other)).counts.medias).toBe(0);
    });

    it('deletes a sub-tree with its medias or without, guarded by the expected count, keeping the list dense', async () => {
      const site = await w.owner('deletes', me.user);
      const top = await uuidOf({ name: 'Top' }, site);
      const mid = await uuidOf({ name: 'Mid', parent: top }, site);
      const low = await uuidOf({ name: 'Low', parent: mid }, site);
      const after = await uuidOf({ name: 'After' }, site);
      const kept = await upload(site, 20);
      const inMid = await upload(site, 21);
      const inLow = await upload(site, 22);
      await w.media.update(site.user, inMid, { attributes: noAttributes({ publish: [mid] }) });
      await w.media.update(site.user, inLow, { attributes: noAttributes({ publish: [low, after] }) });
      await w.media.update(site.user, kept, { attributes: noAttributes({ publish: [after] }) });
      // A member of the website publishes there too: the owner's delete leaves the member's media alone.
      const member = await w.user('member');
      await w.core.websites.share(site.urlname, member);
      const theirs = await upload({ user: member }, 23);
      await w.media.update(member, theirs, { attributes: noAttributes({ publish: [low] }) });

      expect(await w.galleries.deletion(site.user, site.urlname, mid)).toEqual({ galleries: 2, medias: 2 });
      const err = await refusal(w.galleries.delete(site.user, site.urlname, mid, { deleteMedias: true, expectedMediasCount: 3 }));
      expect(err.code).toBe('count_mismatch');
      expect(err.status).toBe(409);
      expect((await get(low, site)).counts.medias).toBe(2);

      expect(await w.galleries.delete(site.user, site.urlname, mid, { deleteMedias: true, expectedMediasCount: 2 })).toEqual({ galleriesDeleted: 2, mediasDeleted: 2 });
      for (const g of [mid, low]) expect((await refusal(get(g, site))).code).toBe('not_found');
      for (const m of [inMid, inLow]) expect((await refusal(w.media.get(site.user, m, false))).code).toBe('not_found');
      expect((await w.media.get(member, theirs, true)).relations.galleries).toEqual([]);
      expect((await w.media.get(site.user, kept, true)).relations.galleries).toEqual([after]);
      expect((await get(after, site)).medias).toEqual([kept]);
      expect((await get(top, site)).record.subgalleries_count).toBe(0);
      const positions = await listPositions(site);
      expect(positions).toEqual(positions.map((_, i) => i + 1));
      expect(await listed(site)).toEqual(['deletes', 'Top', 'After']); // the root is named after the website's title

      // Without its medias: they stay, unpublished.
      await w.media.update(site.user, kept, { attributes: noAttributes({ publish: [top] }) });
      expect(await w.galleries.delete(site.user, site.urlname, top, { deleteMedias: false })).toEqual({ galleriesDeleted: 1, mediasDeleted: 0 });
      expect((await w.media.get(site.user, kept, true)).relations.galleries).toEqual([after]);
      // The root stays.
      expect((await refusal(w.galleries.delete(site.user, site.urlname, site.root, { deleteMedias: false }))).message).toBe('the root gallery cannot be deleted');
      expect((await refusal(w.galleries.deletion(site.user, site.urlname, site.root))).code).toBe('invalid_parameter');
    });

    it('refuses, through the gallery spec, a JSON body out of bounds before anything is written (err.field the spec key)', async () => {
      /** A studio JSON body, read as that face reads it (plain names), then handed to the service. */
      const json = (body: Record<string, unknown>, mode: Mode) => readGallery(objectSource(body), mode, plainNames(GALLERY_FIELDS));
      const before = await listed();
      const created = await create(json({ name: '  Bounded  ', parent: me.root.toUpperCase(), indexing: 2, hidden: true }, 'create'));
      expect(created.record).toMatchObject({ name: 'Bounded', parent_uuid: me.root, indexing: 2, hidden: 1 });
      const g = created.record.uuid;
      const refusedAt = (body: Record<string, unknown>, mode: Mode, field: string, code = 'invalid_parameter') => {
        let err: unknown;
        try {
          json(body, mode);
        } catch (e) {
          err = e;
        }
        expect({ code: (err as { code?: string })?.code, field: (err as { field?: string })?.field }, JSON.stringify(body).slice(0, 80)).toEqual({ code, field });
      };
      refusedAt({ name: 'x'.repeat(MAX_NAME_LENGTH + 1), parent: me.root }, 'create', 'name');
      refusedAt({ parent: me.root }, 'create', 'name', 'missing_parameter');
      refusedAt({ name: '   ' }, 'update', 'name');
      refusedAt({ name: 'a\u0007b' }, 'update', 'name');
      refusedAt({ name: 'No parent' }, 'create', 'parent', 'missing_parameter');
      refusedAt({ name: 'Bad parent', parent: 'not-a-uuid' }, 'create', 'parent');
      for (const position of [0, -1, 1001, 1.5, 'first']) refusedAt({ position }, 'update', 'position');
      refusedAt({ name: 'Placed', parent: me.root, position: 1 }, 'create', 'position');
      refusedAt({ orderSubgalleries: true }, 'update', 'orderSubgalleries');
      refusedAt({ name: 'Ordered', parent: me.root, mediasOrder: [randomUUID()] }, 'create', 'mediasOrder');
      const twice = randomUUID();
      refusedAt({ mediasOrder: [twice, twice.toUpperCase()] }, 'update', 'mediasOrder');
      refusedAt({ contentOrder: 'random' }, 'update', 'contentOrder');
      refusedAt({ pickLimit: 0 }, 'update', 'pickLimit');
      const entry = (i: number) => ({ email: i === 0 ? 'DEFAULT' : `c${i}@example.com`, read: 1 });
      refusedAt({ name: 'Crowded list', parent: me.root, acl: Array.from({ length: MAX_ACL_ENTRIES + 1 }, (_, i) => entry(i)) }, 'create', 'acl');
      refusedAt({ name: 'No default', parent: me.root, acl: { 1: entry(1) } }, 'create', 'acl');
      refusedAt({ name: 'Twice', parent: me.root, acl: { 0: entry(0), 1: entry(1), 2: entry(1) } }, 'create', 'acl');
      refusedAt({ acl: [entry(0)] }, 'update', 'acl');
      // At the cap, the list is taken whole.
      const full = await create(json({ name: 'Full list', parent: me.root, acl: Array.from({ length: MAX_ACL_ENTRIES }, (_, i) => entry(i)) }, 'create'));
      expect(full.acl).toHaveLength(MAX_ACL_ENTRIES);
      expect(await listed()).toEqual([...before, 'Bounded', 'Full list']);
      // An update read the same way: a place, a new name, nothing else touched.
      await w.galleries.update(me.user, me.urlname, g, json({ name: 'Bounded again', position: 1 }, 'update'));
      expect((await get(g)).record).toMatchObject({ name: 'Bounded again', indexing: 2, hidden: 1 });
      expect((await listed()).filter((n) => n !== me.urlname && n !== 'me')[0]).toBe('Bounded again');
    });

    it('keeps an access list given on create and replaces it whole', async () => {
      const acl = [
        { position: 0, email: 'DEFAULT', read: false, compDownload: false, hiresDownload: false },
        { position: 3, email: 'client@example.com', read: true, compDownload: true, hiresDownload: false },
      ];
      const g = await create({ name: 'Clients only', acl, password: 'open sesame' });
      expect(g.acl).toEqual(acl);
      expect(g.record.password_hash).toMatch(/^\$argon2/);
      const d = await w.galleries.setAcl(me.user, me.urlname, g.record.uuid, [acl[0]]);
      expect(d.acl).toEqual([acl[0]]);
      expect((await w.galleries.setAcl(me.user, me.urlname, g.record.uuid, [])).acl).toEqual([]);
      await w.galleries.update(me.user, me.urlname, g.record.uuid, { password: null });
      expect((await get(g.record.uuid)).record.password_hash).toBeNull();
    });
  });
}
