// The change feed's log (migration 028, docs/integrations.md "Change feed"): what the triggers record
// on the paths no API suite takes: a website deleted with its galleries (tombstones), a media
// deleted with its memberships, a gallery's order stamp alone (no change), a media given to another
// owner, and 028 down and up again. On SQLite, and on PostgreSQL when TEST_DATABASE_URL is set.
import { randomUUID } from 'node:crypto';
import { Migrator, sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../src/app.js';
import { migrationsFor } from '../../src/database/migrations/index.js';
import type { UserRow } from '../../src/database/schema.js';
import { withCore } from '../support/core.js';

const PG = process.env.TEST_DATABASE_URL;

for (const db of ['sqlite', ...(PG ? ['postgres'] : [])] as const) {
  describe(`change log triggers (${db})`, () => {
    const w = withCore(db === 'postgres' ? { postgresUrl: PG } : {});
    let core: Core;
    beforeAll(() => {
      core = w.core;
    });

    const log = async (owner: number) =>
      (await core.store.db.selectFrom('change_log').select(['kind', 'uuid', 'action']).where('owner_id', '=', owner).orderBy('seq').execute()).map((r) => `${r.kind}:${r.uuid}:${r.action}`);
    const actionOf = async (owner: number, uuid: string) => (await core.store.db.selectFrom('change_log').select('action').where('owner_id', '=', owner).where('uuid', '=', uuid).executeTakeFirst())?.action;

    async function media(user: UserRow): Promise<{ id: number; uuid: string }> {
      const d = core.store.db;
      const artist = await d.selectFrom('artists').select('id').where('owner_id', '=', user.id).executeTakeFirstOrThrow();
      const now = new Date().toISOString();
      const uuid = randomUUID();
      const m = await d.insertInto('medias').values({ uuid, owner_id: user.id, artist_id: artist.id, status: 'live', file_name: 'a.jpg', created_at: now, updated_at: now }).returning('id').executeTakeFirstOrThrow();
      return { id: m.id, uuid };
    }

    async function galleryOf(siteUuid: string): Promise<{ id: number; uuid: string }> {
      return core.store.db.selectFrom('galleries').innerJoin('websites', 'websites.id', 'galleries.website_id').select(['galleries.id', 'galleries.uuid']).where('websites.uuid', '=', siteUuid).executeTakeFirstOrThrow();
    }

    it("records a website's galleries as deleted when the website goes, and their medias as updated", async () => {
      const user = await w.user('site');
      const site = await core.websites.create(user, { urlname: `gone-${randomUUID().slice(0, 8)}` });
      const root = await galleryOf(site.uuid);
      expect(await actionOf(user.id, root.uuid)).toBe('created');
      const m = await media(user);
      await core.store.db.insertInto('media_galleries').values({ gallery_id: root.id, media_id: m.id, position: 1, published_at: new Date().toISOString() }).execute();
      await core.store.db.deleteFrom('websites').where('uuid', '=', site.uuid).execute();
      expect(await actionOf(user.id, root.uuid)).toBe('deleted');
      expect(await actionOf(user.id, m.uuid)).toBe('updated');
    });

    it('records a media deleted with its memberships as deleted, not updated by the cascade', async () => {
      const user = await w.user('cascade');
      const site = await core.websites.create(user, { urlname: `cascade-${randomUUID().slice(0, 8)}` });
      const root = await galleryOf(site.uuid);
      const m = await media(user);
      await core.store.db.insertInto('media_galleries').values({ gallery_id: root.id, media_id: m.id, position: 1, published_at: new Date().toISOString() }).execute();
      await core.store.db.deleteFrom('medias').where('id', '=', m.id).execute();
      expect(await actionOf(user.id, m.uuid)).toBe('deleted');
    });

    it("does not record a gallery whose order stamp alone moved; records a rename", async () => {
      const user = await w.user('stamp');
      const site = await core.websites.create(user, { urlname: `stamp-${randomUUID().slice(0, 8)}` });
      const root = await galleryOf(site.uuid);
      const before = await log(user.id);
      await sql`UPDATE galleries SET order_stamp = order_stamp + 1 WHERE id = ${root.id}`.execute(core.store.db);
      expect(await log(user.id)).toEqual(before);
      await core.store.db.updateTable('galleries').set({ name: 'Renamed' }).where('id', '=', root.id).execute();
      expect((await log(user.id)).at(-1)).toBe(`gallery:${root.uuid}:updated`);
    });

    it('records a media given to another owner as deleted for the first and created for the second', async () => {
      const [a, b] = [await w.user('giver'), await w.user('taker')];
      const m = await media(a);
      const artistB = await core.store.db.selectFrom('artists').select('id').where('owner_id', '=', b.id).executeTakeFirstOrThrow();
      await core.store.db.updateTable('medias').set({ owner_id: b.id, artist_id: artistB.id }).where('id', '=', m.id).execute();
      expect(await actionOf(a.id, m.uuid)).toBe('deleted');
      expect(await actionOf(b.id, m.uuid)).toBe('created');
    });

    it('goes down and up again, its triggers with it', async () => {
      const d = core.store.db;
      const migrator = new Migrator({ db: d, provider: { getMigrations: async () => migrationsFor(core.store.dialect) } });
      const triggers = async () =>
        db === 'sqlite'
          ? (await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%tail_change%' ORDER BY name`.execute(d)).rows.map((r) => r.name)
          : (await sql<{ name: string }>`SELECT DISTINCT tgname AS name FROM pg_trigger WHERE tgname LIKE '%tail_change%' ORDER BY tgname`.execute(d)).rows.map((r) => r.name);
      const before = await triggers();
      expect(before.length).toBeGreaterThan(8);
      expect((await migrator.migrateTo('027_activity_by_owner')).error).toBeUndefined();
      expect(await triggers()).toEqual([]);
      const user = await w.user('between');
      const m = await media(user);
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      expect(await triggers()).toEqual(before);
      // What existed when the log began is in it, as created.
      expect(await actionOf(user.id, m.uuid)).toBe('created');
      await d.updateTable('medias').set({ title: 'T' }).where('id', '=', m.id).execute();
      expect(await actionOf(user.id, m.uuid)).toBe('updated');
    });
  });
}
