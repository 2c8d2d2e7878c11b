// Stored files that must go: recorded in the transaction that drops the last
// reference to them (a deleted media, a replaced original or pending upload,
// an abandoned upload), removed after the commit, and whatever a failure or a
// crash left is removed by the cleanup sweep (and once at start). See docs/uploads.md.
import type { Kysely } from 'kysely';
import { idColumn, type Dialect, type MigrationDb } from '../migration-helpers.js';

export async function up(db: Kysely<MigrationDb>, dialect: Dialect): Promise<void> {
  await idColumn(dialect, db.schema.createTable('file_deletions'))
    .addColumn('storage_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    // When the sweep may remove the file: at once for garbage; a day later for
    // a file just stored for a media, which publishing it takes off this table.
    .addColumn('due_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('file_deletions_due').on('file_deletions').columns(['due_at']).execute();
  await db.schema.createIndex('file_deletions_key').on('file_deletions').columns(['storage_key']).execute();
  // The upload target looks a policy's key up among the pending uploads before reading a byte.
  await db.schema.createIndex('uploads_storage_key').on('uploads').columns(['storage_key']).unique().execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.dropIndex('uploads_storage_key').execute();
  await db.schema.dropTable('file_deletions').execute();
}
