// The migrations that keep triggers (010 page stamps, 019 rule stamps), and 022 (host names'
// proof, an expression index), go down
// in each database's own syntax and up again: each is told its dialect going
// down too (src/database/migrations/index.ts). Until then a down() ran the
// PostgreSQL branch on SQLite (a syntax error) and left PostgreSQL's trigger
// functions behind, so going up again failed. On SQLite, and on PostgreSQL
// when TEST_DATABASE_URL is set.
import { randomUUID } from 'node:crypto';
import { Migrator, sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Core } from '../../src/app.js';
import { migrationsFor } from '../../src/database/migrations/index.js';
import { withCore } from '../support/core.js';

const PG = process.env.TEST_DATABASE_URL;

for (const db of ['sqlite', ...(PG ? ['postgres'] : [])] as const) {
  describe(`migrations down and up (${db})`, () => {
    const w = withCore(db === 'postgres' ? { postgresUrl: PG } : {});
    let core: Core;
    beforeAll(() => {
      core = w.core;
    });

    it('drop the stamps and their triggers, then build them again', async () => {
      const d = core.store.db;
      const migrator = new Migrator({ db: d, provider: { getMigrations: async () => migrationsFor(core.store.dialect) } });
      const triggers = async () =>
        db === 'sqlite'
          ? (await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%stamp%' ORDER BY name`.execute(d)).rows.map((r) => r.name)
          : (await sql<{ name: string }>`SELECT DISTINCT tgname AS name FROM pg_trigger WHERE tgname LIKE '%stamp%' ORDER BY tgname`.execute(d)).rows.map((r) => r.name);
      const before = await triggers();
      expect(before).toContain('medias_rule_stamp_update');
      expect(before).toContain('medias_stamp_update');

      const down = await migrator.migrateTo('009_media_file_metadata');
      expect(down.error).toBeUndefined();
      expect(down.results?.map((r) => r.migrationName).at(-1)).toBe('010_page_stamps');
      expect(await triggers()).toEqual([]);

      const up = await migrator.migrateToLatest();
      expect(up.error).toBeUndefined();
      expect(await triggers()).toEqual(before);
      // The triggers work again: a title edit moves the rule stamp.
      const { user } = await core.users.create({ email: 'down@example.com', password: 'correct horse battery staple' });
      const artist = await d.selectFrom('artists').select('id').where('owner_id', '=', user.id).executeTakeFirstOrThrow();
      const now = new Date().toISOString();
      const m = await d
        .insertInto('medias')
        .values({ uuid: randomUUID(), owner_id: user.id, artist_id: artist.id, status: 'live', file_name: 'a.jpg', created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      const rule = async () => Number((await d.selectFrom('media_stamps').select('rule_stamp').where('owner_id', '=', user.id).executeTakeFirstOrThrow()).rule_stamp);
      const r = await rule();
      await d.updateTable('medias').set({ title: 'T' }).where('id', '=', m.id).execute();
      expect(await rule()).toBe(r + 1);
    });

    it('022 keeps the host names set before it in effect, and goes down and up again', async () => {
      const d = core.store.db;
      const migrator = new Migrator({ db: d, provider: { getMigrations: async () => migrationsFor(core.store.dialect) } });
      const { user } = await core.users.create({ email: 'hosts@example.com', password: 'correct horse battery staple' });
      const site = await core.websites.create(user, { urlname: 'before-022' });
      expect((await migrator.migrateTo('021_storage_quota')).error).toBeUndefined();
      await sql`UPDATE websites SET hostname = ${'Photos.Before.example'} WHERE uuid = ${site.uuid}`.execute(d);
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      const row = await d.selectFrom('websites').selectAll().where('uuid', '=', site.uuid).executeTakeFirstOrThrow();
      expect([row.hostname, row.hostname_pending, row.hostname_token]).toEqual(['Photos.Before.example', null, null]);
      // The index of lower(hostname) is unique: one name, whatever its case, is one website's.
      const other = await core.websites.create(user, { urlname: 'after-022' });
      await expect(d.updateTable('websites').set({ hostname: 'photos.before.EXAMPLE' }).where('uuid', '=', other.uuid).execute()).rejects.toThrow();
    });
  });
}
