// PostgreSQL: every stamp trigger takes the owner's media_stamps row before a gallery's row, as a
// publication does; a media going live wrote its galleries' stamps first and deadlocked with a media
// published into the same gallery meanwhile (uploads finishing side by side). SQLite has one writer.
// docs/architecture.md, "Stamps, trigger by trigger"; how often it failed: docs/benchmarks.md.
import { sql, type Kysely } from 'kysely';
import type { Dialect, MigrationDb } from '../migration-helpers.js';

export async function up(db: Kysely<MigrationDb>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql
    .raw(
      `CREATE OR REPLACE FUNCTION mps_order_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM 1 FROM media_stamps WHERE owner_id IN (OLD.owner_id, NEW.owner_id) ORDER BY owner_id FOR NO KEY UPDATE;
        UPDATE galleries SET order_stamp = order_stamp + 1 WHERE id IN (SELECT gallery_id FROM media_galleries WHERE media_id = NEW.id);
        RETURN NULL;
      END $$`,
    )
    .execute(db);
}

export async function down(db: Kysely<MigrationDb>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql
    .raw(
      `CREATE OR REPLACE FUNCTION mps_order_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE galleries SET order_stamp = order_stamp + 1 WHERE id IN (SELECT gallery_id FROM media_galleries WHERE media_id = NEW.id);
        RETURN NULL;
      END $$`,
    )
    .execute(db);
}
