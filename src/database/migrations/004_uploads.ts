// Pending uploads: step 1 of an upload (spec 4.7) records where the file is
// expected; step 3 verifies it and deletes the row; the cleanup sweep removes
// rows (and their objects) whose step 3 never came. See docs/uploads.md.
import type { Kysely } from 'kysely';
import { idColumn, type Dialect, type MigrationDb } from '../migration-helpers.js';

export async function up(db: Kysely<MigrationDb>, dialect: Dialect): Promise<void> {
  await idColumn(dialect, db.schema.createTable('uploads'))
    // One pending upload per media: a new step 1 replaces the previous one.
    // No foreign key on purpose: when the media is deleted mid-upload, the row
    // stays until the sweep, which then removes the object it points to.
    .addColumn('media_id', 'integer', (c) => c.notNull().unique())
    .addColumn('location', 'text', (c) => c.notNull())
    .addColumn('storage_key', 'text', (c) => c.notNull())
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('declared_size', 'bigint', (c) => c.notNull())
    .addColumn('declared_mime', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('uploads_expires').on('uploads').columns(['expires_at']).execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.dropTable('uploads').execute();
}
