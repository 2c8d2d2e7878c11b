// The stamps the page memos are kept under (migrations 010 and 019) move in the
// writing transaction for every kind of write that changes a list scope or a
// gallery's visible order, whichever feature writes it: the owner's media stamp
// (the API's lists: src/media/list-memo.ts), the gallery's order_stamp (the
// website's pages: src/site/pages/gallery-order.ts), and the owner's rule stamp, which
// with the media stamp keeps smart collections' ids (a write that can change a
// rule's answer moves one of the two). A write that changes none leaves them.
// On SQLite, and on PostgreSQL when TEST_DATABASE_URL is set.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../src/app.js';
import { withCore } from '../support/core.js';

const PG = process.env.TEST_DATABASE_URL;

for (const db of ['sqlite', ...(PG ? ['postgres'] : [])] as const) {
  describe(`page stamps (${db})`, () => {
    const w = withCore(db === 'postgres' ? { postgresUrl: PG } : {});
    let core: Core;
    beforeAll(() => {
      core = w.core;
    });

    it('move with every write of a scope or an order, and only then', async () => {
      const d = core.store.db;
      const { user } = await core.users.create({ email: 'stamps@example.com', password: 'correct horse battery staple' });
      const { user: other } = await core.users.create({ email: 'other@example.com', password: 'correct horse battery staple' });
      await core.websites.create(user, { urlname: 'stamps' });
      const website = await d.selectFrom('websites').select('id').where('urlname', '=', 'stamps').executeTakeFirstOrThrow();
      const gallery = await d.selectFrom('galleries').select('id').where('website_id', '=', website.id).executeTakeFirstOrThrow();
      const artist = await d.selectFrom('artists').select('id').where('owner_id', '=', user.id).executeTakeFirstOrThrow();
      const { uuid: second } = await core.artists.create(user, 'second');
      const artist2 = await d.selectFrom('artists').select('id').where('uuid', '=', second).executeTakeFirstOrThrow();
      const now = new Date().toISOString();
      const lightbox = await d.insertInto('lightboxes').values({ uuid: randomUUID(), owner_id: user.id, name: 'lb', created_at: now }).returning('id').executeTakeFirstOrThrow();
      const group = await d
        .insertInto('media_groups')
        .values({ uuid: randomUUID(), owner_id: user.id, artist_id: null, kind: 'collection', name: 'c', rules: null, created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();

      const stamps = async (id: number) => {
        const r = await d.selectFrom('media_stamps').select(['stamp', 'rule_stamp']).where('owner_id', '=', id).executeTakeFirst();
        return `${Number(r?.stamp ?? 0)}.${Number(r?.rule_stamp ?? 0)}`;
      };
      const owner = async () => Number((await d.selectFrom('media_stamps').select('stamp').where('owner_id', '=', user.id).executeTakeFirst())?.stamp ?? 0);
      const order = async () => Number((await d.selectFrom('galleries').select('order_stamp').where('id', '=', gallery.id).executeTakeFirstOrThrow()).order_stamp);
      // smart: the pair a smart collection's memo is kept under (media stamp, rule stamp) moved.
      const moves = async (what: string, write: () => Promise<unknown>, expected: { owner: boolean; order: boolean; smart: boolean }) => {
        const [o, g, s, x] = [await owner(), await order(), await stamps(user.id), await stamps(other.id)];
        await write();
        expect({ what, owner: (await owner()) !== o, order: (await order()) !== g, smart: (await stamps(user.id)) !== s }).toEqual({ what, ...expected });
        expect(await stamps(other.id)).toBe(x);
      };

      const media = { uuid: randomUUID(), owner_id: user.id, artist_id: artist.id, status: 'pending', file_name: 'a.jpg', created_at: now, updated_at: now };
      let id = 0;
      await moves('a media created', async () => (id = (await d.insertInto('medias').values(media).returning('id').executeTakeFirstOrThrow()).id), { owner: true, order: false, smart: true });
      await moves('published in the gallery', () => d.insertInto('media_galleries').values({ gallery_id: gallery.id, media_id: id, position: 1, published_at: now }).execute(), { owner: true, order: true, smart: true });
      await moves('gone live', () => d.updateTable('medias').set({ status: 'live' }).where('id', '=', id).execute(), { owner: true, order: true, smart: true });
      await moves('its renditions failed', () => d.updateTable('medias').set({ renditions_state: 'failed' }).where('id', '=', id).execute(), { owner: false, order: true, smart: false });
      for (const [field, value] of [['file_name', 'b.jpg'], ['shot_at', now], ['artist_rating', 3]] as const) {
        await moves(`its ${field} changed`, () => d.updateTable('medias').set({ [field]: value }).where('id', '=', id).execute(), { owner: false, order: true, smart: true });
      }
      await moves('its updated_at changed', () => d.updateTable('medias').set({ updated_at: '2030-01-01T00:00:00.000Z' }).where('id', '=', id).execute(), { owner: false, order: true, smart: false });
      await moves('its title changed (shown, not ordered by; a smart rule reads it)', () => d.updateTable('medias').set({ title: 'T' }).where('id', '=', id).execute(), { owner: false, order: false, smart: true });
      await moves('its MIME type changed (a smart rule reads it)', () => d.updateTable('medias').set({ mime_type: 'image/png' }).where('id', '=', id).execute(), { owner: false, order: false, smart: true });
      await moves('its description changed (no rule reads it)', () => d.updateTable('medias').set({ description: 'D' }).where('id', '=', id).execute(), { owner: false, order: false, smart: false });
      await moves('a keyword added', () => d.insertInto('media_keywords').values({ media_id: id, position: 1, keyword: 'k' }).execute(), { owner: false, order: false, smart: true });
      await moves('a keyword changed', () => d.updateTable('media_keywords').set({ keyword: 'K2' }).where('media_id', '=', id).execute(), { owner: false, order: false, smart: true });
      await moves('a keyword removed', () => d.deleteFrom('media_keywords').where('media_id', '=', id).execute(), { owner: false, order: false, smart: true });
      await moves('moved to another library', () => d.updateTable('medias').set({ artist_id: artist2.id }).where('id', '=', id).execute(), { owner: true, order: false, smart: true });
      await moves('moved in the gallery', () => d.updateTable('media_galleries').set({ position: 5 }).where('media_id', '=', id).execute(), { owner: true, order: true, smart: true });
      await moves('added to a lightbox', () => d.insertInto('lightbox_medias').values({ lightbox_id: lightbox.id, media_id: id, position: 1 }).execute(), { owner: true, order: false, smart: true });
      await moves('moved in the lightbox', () => d.updateTable('lightbox_medias').set({ position: 2 }).where('media_id', '=', id).execute(), { owner: true, order: false, smart: true });
      await moves('added to a collection', () => d.insertInto('media_group_medias').values({ group_id: group.id, media_id: id, position: 1 }).execute(), { owner: true, order: false, smart: true });
      await moves('removed from the collection', () => d.deleteFrom('media_group_medias').where('media_id', '=', id).execute(), { owner: true, order: false, smart: true });
      await moves('the lightbox deleted (its memberships cascade)', () => d.deleteFrom('lightboxes').where('id', '=', lightbox.id).execute(), { owner: true, order: false, smart: true });
      await moves('unpublished', () => d.deleteFrom('media_galleries').where('media_id', '=', id).execute(), { owner: true, order: true, smart: true });
      await d.insertInto('media_keywords').values({ media_id: id, position: 1, keyword: 'k' }).execute();
      await moves('deleted (its keywords cascade)', () => d.deleteFrom('medias').where('id', '=', id).execute(), { owner: true, order: false, smart: true });
    });

    // Migration 020: every trigger takes the owner's stamp before a gallery's. A media going live in a
    // gallery (FileLife.publishIn) took the gallery's first, a media created and published into the same
    // gallery (MediaRepository.create, then MembershipRepository.publish's lock) the owner's first: side
    // by side, PostgreSQL found a deadlock and failed one (test/studio/studio-upload-browser.test.ts).
    // SQLite has one writer: nothing to order.
    if (db === 'postgres') it('lets a media go live in a gallery while another is created and published into it', async () => {
      const d = core.store.db;
      const { user } = await core.users.create({ email: 'order@example.com', password: 'correct horse battery staple' });
      const site = await core.websites.create(user, { urlname: 'lock-order' });
      const gallery = await d.selectFrom('galleries').select('id').where('uuid', '=', site.rootGalleryUuid).executeTakeFirstOrThrow();
      const artist = await d.selectFrom('artists').select('id').where('owner_id', '=', user.id).executeTakeFirstOrThrow();
      const now = new Date().toISOString();
      const media = () => ({ uuid: randomUUID(), owner_id: user.id, artist_id: artist.id, status: 'pending', file_name: 'a.jpg', created_at: now, updated_at: now });
      const going = (await d.insertInto('medias').values(media()).returning('id').executeTakeFirstOrThrow()).id;
      await d.insertInto('media_galleries').values({ gallery_id: gallery.id, media_id: going, position: 1, published_at: now }).execute();

      // The creator inserts its media (the owner's stamp) and waits; the other goes live and waits for that stamp.
      let inserted!: () => void;
      const created = new Promise<void>((r) => (inserted = r));
      let proceed!: () => void;
      const goOn = new Promise<void>((r) => (proceed = r));
      const creator = d.transaction().execute(async (trx) => {
        const id = (await trx.insertInto('medias').values(media()).returning('id').executeTakeFirstOrThrow()).id;
        inserted();
        await goOn;
        await sql`SELECT id FROM galleries WHERE id = ${gallery.id} FOR UPDATE`.execute(trx);
        await trx.insertInto('media_galleries').values({ gallery_id: gallery.id, media_id: id, position: 2, published_at: now }).execute();
      });
      await created;
      const live = d.updateTable('medias').set({ status: 'live', updated_at: new Date(Date.now() + 1000).toISOString() }).where('id', '=', going).execute();
      // The going-live statement is waiting on a lock (the owner's stamp) before the creator goes on.
      await expect.poll(async () => Number((await sql<{ n: string }>`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(d)).rows[0].n), { timeout: 10_000 }).toBe(1);
      proceed();
      const [a, b] = await Promise.allSettled([creator, live]);
      expect([a.status, b.status, a.status === 'rejected' ? String(a.reason) : '', b.status === 'rejected' ? String(b.reason) : '']).toEqual(['fulfilled', 'fulfilled', '', '']);
      expect((await d.selectFrom('medias').select('status').where('id', '=', going).executeTakeFirstOrThrow()).status).toBe('live');
      expect(await d.selectFrom('media_galleries').select('media_id').where('gallery_id', '=', gallery.id).execute()).toHaveLength(2);
    });
  });
}
