// Share links per recipient (issue 34; docs/integrations.md "Share links"): a bearer link to one
// gallery, kept as the SHA-256 of its token only, with its expiry, view limit, password and download level.
import type { Kysely } from 'kysely';
import { idColumn, type Dialect, type MigrationDb } from '../migration-helpers.js';

export async function up(db: Kysely<MigrationDb>, dialect: Dialect): Promise<void> {
  await idColumn(dialect, db.schema.createTable('share_links'))
    .addColumn('uuid', 'text', (c) => c.notNull().unique())
    .addColumn('owner_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('gallery_id', 'integer', (c) => c.notNull().references('galleries.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('recipient', 'text')
    .addColumn('expires_at', 'text')
    .addColumn('max_views', 'integer')
    .addColumn('views', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('password_hash', 'text')
    // none | comps | originals
    .addColumn('download', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('share_links_gallery').on('share_links').columns(['gallery_id', 'id']).execute();
}

export async function down(db: Kysely<MigrationDb>): Promise<void> {
  await db.schema.dropTable('share_links').execute();
}
