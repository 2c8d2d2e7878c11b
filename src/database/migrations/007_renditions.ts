// Renditions: the sizes made from each media's file by a background job
// (src/renditions, docs/renditions.md). The files live in the storage backend;
// the database only knows their names, sizes and keys.
import type { Kysely } from 'kysely';
import { idColumn, type Dialect, type MigrationDb } from '../migration-helpers.js';

export async function up(db: Kysely<MigrationDb>, dialect: Dialect): Promise<void> {
  await idColumn(dialect, db.schema.createTable('renditions'))
    .addColumn('media_id', 'integer', (c) => c.notNull().references('medias.id').onDelete('cascade'))
    // '320', '640', '1280', '2048', '3840' (long edge in pixels) or 'poster' for a placeholder.
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('width', 'integer', (c) => c.notNull())
    .addColumn('height', 'integer', (c) => c.notNull())
    .addColumn('mime_type', 'text', (c) => c.notNull())
    // Content-addressed: a new file gets a new key, so a key's bytes never change.
    .addColumn('storage_key', 'text', (c) => c.notNull().unique())
    .addColumn('bytes', 'integer', (c) => c.notNull())
    .addColumn('watermarked', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('renditions_media').on('renditions').columns(['media_id', 'name']).execute();
  // none (nothing asked yet), pending (job queued or running), ready, failed.
  await db.schema.alterTable('medias').addColumn('renditions_state', 'text', (c) => c.notNull().defaultTo('none')).execute();
  await db.schema.alterTable('medias').addColumn('renditions_error', 'text').execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.alterTable('medias').dropColumn('renditions_error').execute();
  await db.schema.alterTable('medias').dropColumn('renditions_state').execute();
  await db.schema.dropTable('renditions').execute();
}
