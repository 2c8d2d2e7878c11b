// Storage quotas (issue 29, item 6; docs/security.md, Storage quota). What an account stores is
// kept as a running total, `media_stamps.stored_bytes`: the sizes of its medias that hold a stored
// original (storage_key set). Triggers keep it in the writing transaction, on the owner's stamp
// row that every media write already locks (migration 010; the lock order of
// src/database/page-stamp-lock-order.ts: the media's row, then its owner's stamp row), so that no path that
// stores, replaces or deletes an original can forget it. `users.quota_bytes`: an operator's
// per-account quota (NULL: STORAGE_QUOTA_BYTES). `uploads.owner_id`: the open three-step uploads
// of an account, summed by an index range.
import { sql, type Kysely } from 'kysely';
import type { Dialect, MigrationDb } from '../migration-helpers.js';

export async function up(db: Kysely<MigrationDb>, dialect: Dialect): Promise<void> {
  const run = (text: string) => sql.raw(text).execute(db);
  await db.schema.alterTable('users').addColumn('quota_bytes', 'bigint').execute();
  await db.schema.alterTable('media_stamps').addColumn('stored_bytes', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  await run(`UPDATE media_stamps SET stored_bytes = (SELECT COALESCE(SUM(m.file_size), 0) FROM medias m WHERE m.owner_id = media_stamps.owner_id AND m.storage_key IS NOT NULL)`);
  await db.schema.alterTable('uploads').addColumn('owner_id', 'integer').execute();
  await run(`UPDATE uploads SET owner_id = (SELECT m.owner_id FROM medias m WHERE m.id = uploads.media_id)`);
  await db.schema.createIndex('uploads_owner').on('uploads').columns(['owner_id', 'expires_at']).execute();
  if (dialect === 'sqlite') {
    const add = `INSERT INTO media_stamps (owner_id, stamp, stored_bytes) VALUES (NEW.owner_id, 1, COALESCE(NEW.file_size, 0)) ON CONFLICT (owner_id) DO UPDATE SET stored_bytes = stored_bytes + excluded.stored_bytes;`;
    const take = `UPDATE media_stamps SET stored_bytes = stored_bytes - COALESCE(OLD.file_size, 0) WHERE owner_id = OLD.owner_id AND OLD.storage_key IS NOT NULL;`;
    await run(`CREATE TRIGGER medias_stored_insert AFTER INSERT ON medias WHEN NEW.storage_key IS NOT NULL BEGIN ${add} END`);
    await run(`CREATE TRIGGER medias_stored_delete AFTER DELETE ON medias WHEN OLD.storage_key IS NOT NULL BEGIN ${take} END`);
    await run(
      `CREATE TRIGGER medias_stored_update AFTER UPDATE ON medias WHEN NEW.storage_key IS NOT OLD.storage_key OR NEW.file_size IS NOT OLD.file_size OR NEW.owner_id IS NOT OLD.owner_id BEGIN ` +
        `${take} UPDATE media_stamps SET stored_bytes = stored_bytes + COALESCE(NEW.file_size, 0) WHERE owner_id = NEW.owner_id AND NEW.storage_key IS NOT NULL; END`,
    );
  } else {
    await run(`CREATE FUNCTION mps_stored_bytes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'INSERT' AND OLD.storage_key IS NOT NULL THEN
          UPDATE media_stamps SET stored_bytes = stored_bytes - COALESCE(OLD.file_size, 0) WHERE owner_id = OLD.owner_id;
        END IF;
        IF TG_OP <> 'DELETE' AND NEW.storage_key IS NOT NULL THEN
          INSERT INTO media_stamps AS s (owner_id, stamp, stored_bytes) VALUES (NEW.owner_id, 1, COALESCE(NEW.file_size, 0))
            ON CONFLICT (owner_id) DO UPDATE SET stored_bytes = s.stored_bytes + EXCLUDED.stored_bytes;
        END IF;
        RETURN NULL;
      END $$`);
    await run(`CREATE TRIGGER medias_stored_write AFTER INSERT OR DELETE ON medias FOR EACH ROW EXECUTE FUNCTION mps_stored_bytes()`);
    await run(
      `CREATE TRIGGER medias_stored_update AFTER UPDATE ON medias FOR EACH ROW WHEN (NEW.storage_key IS DISTINCT FROM OLD.storage_key OR NEW.file_size IS DISTINCT FROM OLD.file_size OR NEW.owner_id IS DISTINCT FROM OLD.owner_id) EXECUTE FUNCTION mps_stored_bytes()`,
    );
  }
}

export async function down(db: Kysely<MigrationDb>, dialect: Dialect): Promise<void> {
  const run = (text: string) => sql.raw(text).execute(db);
  if (dialect === 'sqlite') {
    for (const t of ['medias_stored_insert', 'medias_stored_delete', 'medias_stored_update']) await run(`DROP TRIGGER IF EXISTS ${t}`);
  } else {
    for (const t of ['medias_stored_write', 'medias_stored_update']) await run(`DROP TRIGGER IF EXISTS ${t} ON medias`);
    await run('DROP FUNCTION IF EXISTS mps_stored_bytes()');
  }
  await db.schema.dropIndex('uploads_owner').execute();
  await db.schema.alterTable('uploads').dropColumn('owner_id').execute();
  await db.schema.alterTable('media_stamps').dropColumn('stored_bytes').execute();
  await db.schema.alterTable('users').dropColumn('quota_bytes').execute();
}
