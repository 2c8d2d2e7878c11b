// The studio's resumable uploads (tus; docs/studio.md, Uploads): one row per upload the
// studio's tus endpoint created, bound to its owner, so that only they may send to it, and
// so that its end (the upload pipeline, a media) happens once whatever the client retries.
// And each media's content probe, by which the studio skips a file already in the library.
import type { Kysely } from 'kysely';
import type { Dialect, MigrationDb } from '../migration-helpers.js';

export async function up(db: Kysely<MigrationDb>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('resumable_uploads')
    // The tus upload id: `<owner id>-<32 random hex>`, made by the service.
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'integer', (c) => c.notNull())
    .addColumn('gallery_uuid', 'text')
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('file_size', 'bigint', (c) => c.notNull())
    // receiving, processing, done, duplicate, refused.
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('media_uuid', 'text')
    .addColumn('reason', 'text')
    .addColumn('claimed_at', 'text')
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('resumable_uploads_owner').on('resumable_uploads').columns(['owner_id', 'state']).execute();
  await db.schema.createIndex('resumable_uploads_expires').on('resumable_uploads').columns(['expires_at']).execute();
  // SHA-256 of the whole file up to 32 MiB, else of its size, first and last 8 MiB (src/uploads/probe.ts).
  await db.schema.alterTable('medias').addColumn('content_probe', 'text').execute();
  await db.schema.createIndex('medias_content_probe').on('medias').columns(['owner_id', 'content_probe']).execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.dropIndex('medias_content_probe').execute();
  await db.schema.alterTable('medias').dropColumn('content_probe').execute();
  await db.schema.dropTable('resumable_uploads').execute();
}
