// PostgreSQL: the stamps of 010_page_stamps are taken in one order, the owner's media_stamps
// row before a gallery's row, by every trigger. A media going live (FileLife.publishIn's UPDATE
// of status and file) fired medias_order_update first (triggers of one event fire in the
// order of their names), which wrote the galleries the media is in, then medias_stamp_update,
// which wrote the owner's stamp; a media created and published into the same gallery meanwhile
// (its INSERT writes the owner's stamp, then MembershipRepository.publish locks the gallery)
// took them the other way round. With uploads finishing side by side into one gallery (the
// studio's upload screen sends several at once) PostgreSQL found the deadlock and failed one of
// them: 4 in 50 in test/studio/studio-upload-browser.test.ts. mps_order_stamp now locks the
// owner's stamp row (the owners' rows, lowest first, when the media changes owner) before it
// writes a gallery; mps_owner_stamp and mps_membership_stamp already wrote it first.
// SQLite has one writer: nothing to order.
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
